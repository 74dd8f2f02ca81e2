"""The CSV plan reader: a whole file (`csv_intents`), or one line at a time as the Spark job
reads it (`csv_header`, `csv_line`); every bad field reported with its line and column."""

from __future__ import annotations

import csv
import io
import operator
from collections.abc import Callable

from kafka_tui.planning.plan_model import Intent
from kafka_tui.planning.plan_rows import (
    COLUMNS,
    LEGAL_TOPIC,
    Cell,
    Places,
    PlanFileError,
    PlanFileErrors,
    intent_from_cells,
)


def csv_intents(name: str, text: str) -> list[Intent]:
    """csv reads the records and counts their lines; a record's place in the text is walked
    to from the last one looked up (for the header, and a row with a problem: it is then
    checked again with its columns' places)."""
    # csv counts \r and \r\n as line ends; one kind of line end keeps line numbers exact
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    reader = csv.reader(io.StringIO(text))
    starts = _LineStarts(text)
    errors: list[PlanFileError] = []
    intents: list[Intent] = []
    header: list[str] = []
    line = 1  # the line the next record starts on
    # What `intent_from_cells` made of a row's fields other than the topic, by those fields as
    # written: a plan's rows mostly repeat a few (partitions, RF, configs), and a row met again
    # only needs its topic checked (CSV, 1M rows: 2.4 s, not 5.1). Rows with a header naming a
    # column twice always go to intent_from_cells.
    seen: dict[object, tuple[int | None, int | None, int | None, tuple[tuple[str, str], ...]]]
    seen = {}
    width = topic_at = -1
    others: Callable[[list[str]], object] = tuple
    legal = LEGAL_TOPIC.fullmatch
    try:
        for fields in reader:
            first = line
            line = reader.line_num + 1
            if len(fields) == width:
                # A legal topic is neither blank nor a comment (no '#' in a topic name).
                topic = fields[topic_at].strip()
                if legal(topic) and (topic_at == 0 or fields[0].lstrip()[:1] != "#"):
                    known = seen.get(others(fields))
                    if known is not None:
                        intents.append(Intent(topic, *known))
                        continue
            head = fields[0].lstrip() if fields else ""
            if head[:1] == "#" or not (head or any(f.strip() for f in fields)):
                continue
            if not header:
                header = [f.strip() for f in fields]
                expected = ", ".join(COLUMNS)
                places = _csv_places(text, starts(first), first, fields)
                for h, place in zip(header, places, strict=True):
                    if h not in COLUMNS:
                        message = f"unknown column '{h}' (expected {expected})"
                        errors.append(PlanFileError(name, *place, message))
                if "topic" not in header:
                    message = "the header needs a 'topic' column"
                    errors.append(PlanFileError(name, first, 1, message))
                    break
                if len(set(header)) == len(header):
                    width, topic_at = len(header), header.index("topic")
                    others = _all_but(topic_at, width)
                continue
            if len(fields) > len(header):
                place = _csv_places(text, starts(first), first, fields)[len(header)]
                message = f"{len(fields)} fields, header has {len(header)}"
                errors.append(PlanFileError(name, *place, message))
                continue
            # Places come later, for a row with a problem.
            cells: dict[str, Cell] = {
                key: (value, first, 0)
                for key, value in zip(header, fields, strict=False)
                if value.strip()
            }
            count = len(errors)
            intent = intent_from_cells(name, first, 1, cells, errors)
            if len(errors) == count:
                intents.append(intent)
                if len(fields) == width and len(seen) < _SEEN_MOST:
                    seen[others(fields)] = (
                        intent.partitions,
                        intent.replication_factor,
                        intent.min_required,
                        intent.configs,
                    )
                continue
            del errors[count:]
            places = _csv_places(text, starts(first), first, fields)
            cells = {
                key: (value, *place)
                for key, value, place in zip(header, fields, places, strict=False)
                if value.strip()
            }
            intent_from_cells(name, first, 1, cells, errors)
    except csv.Error as exc:  # e.g. a field above csv.field_size_limit()
        errors.append(PlanFileError(name, line, 1, f"not CSV: {exc}"))
    if errors:
        raise PlanFileErrors(sorted(errors, key=lambda e: (e.line, e.column)))
    return intents


def csv_header(name: str, line: int, raw: str) -> tuple[list[str], list[PlanFileError]]:
    """A CSV plan's header read apart (the Spark job's reader, one line at a time): its
    columns and its problems, as `csv_intents` words them."""
    fields = next(csv.reader([raw]), [])
    header = [f.strip() for f in fields]
    errors = []
    expected = ", ".join(COLUMNS)
    for h, place in zip(header, _csv_places(raw, 0, line, fields), strict=True):
        if h not in COLUMNS:
            message = f"unknown column '{h}' (expected {expected})"
            errors.append(PlanFileError(name, *place, message))
    if "topic" not in header:
        errors.append(PlanFileError(name, line, 1, "the header needs a 'topic' column"))
    return header, errors


def csv_is_skipped(raw: str) -> bool:
    """A line `csv_intents` passes over: blank, or a comment."""
    return raw.lstrip()[:1] == "#" or not raw.strip()


def csv_line(
    name: str, header: list[str], line: int, raw: str
) -> Intent | list[PlanFileError] | None:
    """One line of a CSV plan read apart (the Spark job's reader): its intent, its problems
    (worded and placed as `csv_intents` does), or None for a blank or comment line. A record
    is one line here: a quoted field running past the line's end is an error."""
    open_at = _open_quote(raw)
    if open_at is not None:
        message = (
            "a quoted field runs past the end of the line: the Spark reader reads one record "
            "per line (quoted line breaks: the local engine)"
        )
        return [PlanFileError(name, line, open_at + 1, message)]
    try:
        fields = next(csv.reader([raw]), [])
    except csv.Error as exc:
        return [PlanFileError(name, line, 1, f"not CSV: {exc}")]
    head = fields[0].lstrip() if fields else ""
    if head[:1] == "#" or not (head or any(f.strip() for f in fields)):
        return None
    places = _csv_places(raw, 0, line, fields)
    if len(fields) > len(header):
        message = f"{len(fields)} fields, header has {len(header)}"
        return [PlanFileError(name, *places[len(header)], message)]
    cells: dict[str, Cell] = {
        key: (value, *place)
        for key, value, place in zip(header, fields, places, strict=False)
        if value.strip()
    }
    errors: list[PlanFileError] = []
    intent = intent_from_cells(name, line, 1, cells, errors)
    return sorted(errors, key=lambda e: (e.line, e.column)) if errors else intent


def _open_quote(raw: str) -> int | None:
    """Where a quoted field that does not end on this line starts (csv's default dialect)."""
    position = 0
    while position <= len(raw):
        if raw[position : position + 1] == '"':
            start, position = position, position + 1
            while True:
                if position >= len(raw):
                    return start
                if raw[position] == '"':
                    if raw[position + 1 : position + 2] != '"':
                        break
                    position += 1
                position += 1
        while position < len(raw) and raw[position] != ",":
            position += 1
        position += 1
    return None


# The most distinct rows `csv_intents` remembers: beyond, rows are checked field by field.
_SEEN_MOST = 10_000


class _LineStarts:
    """Where line n starts in `text`, for lines asked for in increasing order: each answer
    walks on from the previous one, so a whole file's lines cost one pass."""

    __slots__ = ("_line", "_offset", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._line = 1
        self._offset = 0

    def __call__(self, line: int) -> int:
        if line < self._line:  # not in increasing order: walk again from the start
            self._line, self._offset = 1, 0
        while self._line < line:
            self._offset = self._text.find("\n", self._offset) + 1 or len(self._text)
            self._line += 1
        return self._offset


def _all_but(index: int, width: int) -> Callable[[list[str]], object]:
    """A row's fields but the one at `index`, as a tuple (or the one field, if only one)."""
    keep = [i for i in range(width) if i != index]
    if not keep:
        return lambda fields: ()
    return operator.itemgetter(*keep)


def _csv_places(text: str, position: int, line: int, fields: list[str]) -> list[tuple[int, int]]:
    """(line, column) of each field of the record that starts line `line` at `position`."""
    places = Places(text, position, line)
    return [places(at) for at in _field_offsets(text, position, fields)]


def _field_offsets(text: str, position: int, fields: list[str]) -> list[int]:
    """Where each field of the record starting at `position` starts (csv's default dialect:
    a quoted field may hold commas, doubled quotes and line ends)."""
    offsets = []
    for _ in fields:
        offsets.append(position)
        if text[position : position + 1] == '"':
            position += 1
            while position < len(text):
                if text[position] == '"':
                    if text[position + 1 : position + 2] != '"':
                        break
                    position += 1
                position += 1
        while position < len(text) and text[position] not in ",\n":
            position += 1
        position += 1
    return offsets
