"""Plan files in and out: CSV / JSON / JSON lines rows -> intents (every bad field reported at
once with file:line:column), the saved plan document, and the job input the Spark job reads.

Parsing works on text the caller has read (no I/O here): `parse_plan(name, text)`. Each
format is read in one pass, in time and memory proportional to the file: a place (line,
column) is counted on from the one before, never from the file's start, and a row's columns
are worked out only when the row has a problem (it is then checked again with them).
"""

from __future__ import annotations

import csv
import io
import json
import operator
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from kafka_tui.planning.placement import Broker, Load, Request
from kafka_tui.planning.plan_model import Group, Intent, PlanOptions, Prepared, Row

COLUMNS = (
    "topic",
    "partitions",
    "replication_factor",
    "min_required_replication_factor",
    "configs",
)
# Kafka's legal topic names: 1-249 of these characters, but not "." or "..".
_LEGAL_TOPIC = re.compile(r"(?!\.\.?\Z)[a-zA-Z0-9._-]{1,249}")


@dataclass(frozen=True)
class PlanFileError:
    file: str
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.message}"


class PlanFileErrors(ValueError):
    def __init__(self, errors: list[PlanFileError]) -> None:
        super().__init__("\n".join(map(str, errors)))
        self.errors = errors


def is_saved_plan(text: str) -> bool:
    """A document written by `plan preview --save` (an object with topics and brokers)."""
    stripped = text.lstrip()
    if not stripped.startswith("{"):
        return False
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return isinstance(document, dict) and "topics" in document and "brokers" in document


def saved_plan(name: str, text: str) -> dict[str, Any]:
    """A document written by `plan preview --save`, checked field by field before `plan apply`
    uses it: PlanFileErrors (file:line:column and the field's path) for a broken one."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        error = PlanFileError(name, exc.lineno, exc.colno, f"not JSON: {exc.msg}")
        raise PlanFileErrors([error]) from None
    except (RecursionError, ValueError) as exc:
        raise PlanFileErrors([PlanFileError(name, 1, 1, _unreadable(exc))]) from None
    found: list[tuple[int, str]] = []  # (offset, message)
    _shape(text, _skip(text, 0), document, _SAVED_PLAN, "plan", found)
    if not found:
        _saved_topics(text, document, found)
    if found:
        # in the order of the text, so that one pass finds every line and column
        places = _Places(text)
        errors = [
            PlanFileError(name, *places(at), message) for at, message in sorted(found, key=_first)
        ]
        raise PlanFileErrors(errors)
    return dict(document)


def parse_plan(name: str, text: str) -> list[Intent]:
    """Rows of a CSV (by default), JSON (`.json`: a list, or an object with "topics") or JSON
    lines (`.jsonl`/`.ndjson`) file. Raises PlanFileErrors with every problem found."""
    lowered = name.lower()
    if lowered.endswith((".jsonl", ".ndjson")):
        return _json_lines(name, text)
    if lowered.endswith(".json"):
        return _json_document(name, text)
    return _csv_intents(name, text)


# A row to check: (line, column, {column: (value, line, column)}), as plan_parquet reads them.
Cell = tuple[object, int, int]
Record = tuple[int, int, dict[str, Cell]]


class _Places:
    """(line, column) of offsets in `text` asked for in increasing order: each answer counts
    only the line ends since the previous one, so the places of a whole file cost one pass."""

    __slots__ = ("_line", "_line_start", "_offset", "_start", "_text")

    def __init__(self, text: str, offset: int = 0, line: int = 1) -> None:
        """`offset` is where line `line` starts."""
        self._text = text
        self._start = (offset, line)
        self._offset = self._line_start = offset
        self._line = line

    def __call__(self, offset: int) -> tuple[int, int]:
        if offset < self._offset:  # not in increasing order: count again from the start
            self._offset = self._line_start = self._start[0]
            self._line = self._start[1]
        ends = self._text.count("\n", self._offset, offset)
        if ends:
            self._line += ends
            self._line_start = self._text.rfind("\n", self._offset, offset) + 1
        self._offset = offset
        return self._line, offset - self._line_start + 1


def _csv_intents(name: str, text: str) -> list[Intent]:
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
    # What `_intent` made of a row's fields other than the topic, by those fields as written:
    # a plan's rows mostly repeat a few (partitions, RF, configs), and a row met again only
    # needs its topic checked (CSV, 1M rows: 2.4 s, not 5.1). Rows with a header naming a
    # column twice always go to _intent.
    seen: dict[object, tuple[int | None, int | None, int | None, tuple[tuple[str, str], ...]]]
    seen = {}
    width = topic_at = -1
    others: Callable[[list[str]], object] = tuple
    legal = _LEGAL_TOPIC.fullmatch
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
            intent = _intent(name, first, 1, cells, errors)
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
            _intent(name, first, 1, cells, errors)
    except csv.Error as exc:  # e.g. a field above csv.field_size_limit()
        errors.append(PlanFileError(name, line, 1, f"not CSV: {exc}"))
    if errors:
        raise PlanFileErrors(sorted(errors, key=lambda e: (e.line, e.column)))
    return intents


def csv_header(name: str, line: int, raw: str) -> tuple[list[str], list[PlanFileError]]:
    """A CSV plan's header read apart (the Spark job's reader, one line at a time): its
    columns and its problems, as `_csv_intents` words them."""
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
    """A line `_csv_intents` passes over: blank, or a comment."""
    return raw.lstrip()[:1] == "#" or not raw.strip()


def csv_line(
    name: str, header: list[str], line: int, raw: str
) -> Intent | list[PlanFileError] | None:
    """One line of a CSV plan read apart (the Spark job's reader): its intent, its problems
    (worded and placed as `_csv_intents` does), or None for a blank or comment line. A record
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
    intent = _intent(name, line, 1, cells, errors)
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


# The most distinct rows `_csv_intents` remembers: beyond, rows are checked field by field.
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
    places = _Places(text, position, line)
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


_DECODER = json.JSONDecoder()
_JSON_SPACE = re.compile(r"[ \t\n\r]*")


class _NotJson(Exception):
    """The walk met text json.loads refuses; json.loads then words the error."""


def _skip(text: str, position: int) -> int:
    """Past JSON whitespace."""
    return _JSON_SPACE.match(text, position).end()  # type: ignore[union-attr]


def _unreadable(exc: Exception) -> str:
    if isinstance(exc, RecursionError):
        return "not JSON that can be read: arrays or objects nested too deeply"
    return f"not JSON that can be read: {exc}"  # e.g. an integer of more than 4300 digits


def _json_error(name: str, text: str, line: int | None = None) -> PlanFileError:
    """json.loads' own words for text the walk refused (`line`: the JSON line's number)."""
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return PlanFileError(name, line or exc.lineno, exc.colno, f"not JSON: {exc.msg}")
    except (RecursionError, ValueError) as exc:
        return PlanFileError(name, line or 1, 1, _unreadable(exc))
    raise AssertionError("json.loads read what the walk refused")


# A row of a JSON file: its place, and (key, place, value) of each member, None if no object.
_JsonRow = tuple[tuple[int, int], list[tuple[str, tuple[int, int], object]] | None]
_KNOWN = frozenset(COLUMNS)


def _json_lines(name: str, text: str) -> list[Intent]:
    intents: list[Intent] = []
    errors: list[PlanFileError] = []
    # JSON lines end at \n only; JSON strings may hold U+2028 and friends
    for number, raw in enumerate(text.split("\n"), start=1):
        _json_line(name, number, raw, intents, errors)
    return _done(intents, errors)


def json_line(name: str, line: int, raw: str) -> Intent | list[PlanFileError] | None:
    """One line of a JSON lines plan read apart (the Spark job's reader): its intent, its
    problems as `_json_lines` words them, or None for a blank line."""
    intents: list[Intent] = []
    errors: list[PlanFileError] = []
    _json_line(name, line, raw, intents, errors)
    if errors:
        return sorted(errors, key=lambda e: (e.line, e.column))
    return intents[0] if intents else None


def _json_line(
    name: str, number: int, raw: str, intents: list[Intent], errors: list[PlanFileError]
) -> None:
    start = _skip(raw, 0)
    if start == len(raw):
        return
    try:
        value, end = _DECODER.raw_decode(raw, start)
        if _skip(raw, end) != len(raw):
            raise _NotJson
    except RecursionError as exc:
        errors.append(PlanFileError(name, number, 1, _unreadable(exc)))
        return
    except (_NotJson, ValueError):  # json.JSONDecodeError is a ValueError
        errors.append(_json_error(name, raw, number))
        return
    if not _good_row(name, value, intents):
        _placed_row(name, raw, start, value, _Places(raw, 0, number), errors)


def _json_document(name: str, text: str) -> list[Intent]:
    try:
        found = _document_rows(name, text)
    except RecursionError as exc:
        raise PlanFileErrors([PlanFileError(name, 1, 1, _unreadable(exc))]) from None
    except (_NotJson, ValueError):
        raise PlanFileErrors([_json_error(name, text)]) from None
    if found is None:
        message = "expected a list of rows, or an object with 'topics'"
        raise PlanFileErrors([PlanFileError(name, 1, 1, message)])
    return _done(*found)


def _done(intents: list[Intent], errors: list[PlanFileError]) -> list[Intent]:
    if errors:
        raise PlanFileErrors(sorted(errors, key=lambda e: (e.line, e.column)))
    return intents


_Checked = tuple[list[Intent], list[PlanFileError]]


def _document_rows(name: str, text: str) -> _Checked | None:
    """A plan document's rows, checked in one walk: a list, or the last "topics" of an object
    (as in json.loads); None when it is neither. Raises _NotJson or json's own errors where
    json.loads would fail."""
    places = _Places(text)
    found: _Checked | None = None

    def member(key: str, position: int) -> tuple[object, int]:
        nonlocal found
        if key == "topics" and text.startswith("[", position):
            found, end = _json_array(name, text, position, places)
            return None, end
        if key == "topics":
            found = None
        return _DECODER.raw_decode(text, position)

    position = _skip(text, 0)
    if text.startswith("[", position):
        found, position = _json_array(name, text, position, places)
    elif text.startswith("{", position):
        _, position = _walk_object(text, position, member)
    else:
        _, position = _DECODER.raw_decode(text, position)
    if _skip(text, position) != len(text):
        raise _NotJson
    return found


def _json_array(name: str, text: str, position: int, places: _Places) -> tuple[_Checked, int]:
    """The rows of the array at `position`, checked; and where the array ends."""
    intents: list[Intent] = []
    errors: list[PlanFileError] = []
    position = _skip(text, position + 1)
    if text.startswith("]", position):
        return (intents, errors), position + 1
    while True:
        value, end = _DECODER.raw_decode(text, position)
        if not _good_row(name, value, intents):
            _placed_row(name, text, position, value, places, errors)
        position = _skip(text, end)
        if text.startswith(",", position):
            position = _skip(text, position + 1)
        elif text.startswith("]", position):
            return (intents, errors), position + 1
        else:
            raise _NotJson


def _good_row(name: str, value: object, intents: list[Intent]) -> bool:
    """Add the row's intent if it has no problem; False if it has one (no places needed here:
    the caller then finds them with _placed_row)."""
    if not (isinstance(value, dict) and value.keys() <= _KNOWN):
        return False
    cells: dict[str, Cell] = {
        key: (item, 0, 0) for key, item in value.items() if item is not None and item != ""
    }
    errors: list[PlanFileError] = []
    intent = _intent(name, 0, 0, cells, errors)
    if errors:
        return False
    intents.append(intent)
    return True


def _placed_row(
    name: str, text: str, start: int, value: object, places: _Places, errors: list[PlanFileError]
) -> None:
    """The problems of the row `value`, read from `start` of `text`, with their places."""
    place = places(start)
    members = None
    if isinstance(value, dict):
        found, _ = _walk_object(text, start)
        members = [(key, places(at), item) for key, at, item in found]
    for record in _json_record(name, (place, members)):
        if isinstance(record, PlanFileError):
            errors.append(record)
        else:
            _intent(name, *record, errors)


def _json_record(name: str, row: _JsonRow) -> Iterator[Record | PlanFileError]:
    (line, column), members = row
    if members is None:
        yield PlanFileError(name, line, column, "expected an object with a 'topic' field")
        return
    cells: dict[str, Cell] = {}
    for key, (key_line, key_column), item in members:
        if key not in COLUMNS:
            yield PlanFileError(
                name, key_line, key_column, f"unknown field '{key}' (expected {', '.join(COLUMNS)})"
            )
            continue
        if item is not None and item != "":
            cells[key] = (item, key_line, key_column)
        else:
            cells.pop(key, None)
    yield line, column, cells


def _walk_object(
    text: str, position: int, value: Callable[[str, int], tuple[object, int]] | None = None
) -> tuple[list[tuple[str, int, object]], int]:
    """The object at `position`: (key, where the key starts, value) of each member, and where
    the object ends. `value(key, start)`, if given, reads a member's value instead of
    json: (value, where it ends)."""
    members: list[tuple[str, int, object]] = []
    position = _skip(text, position + 1)
    if text.startswith("}", position):
        return members, position + 1
    while True:
        if not text.startswith('"', position):
            raise _NotJson
        key, end = _DECODER.raw_decode(text, position)
        end = _skip(text, end)
        if not text.startswith(":", end):
            raise _NotJson
        start = _skip(text, end + 1)
        item, end = _DECODER.raw_decode(text, start) if value is None else value(key, start)
        members.append((key, position, item))
        position = _skip(text, end)
        if text.startswith(",", position):
            position = _skip(text, position + 1)
        elif text.startswith("}", position):
            return members, position + 1
        else:
            raise _NotJson


def intents_from_records(name: str, records: Iterator[Record | PlanFileError]) -> list[Intent]:
    """Rows read elsewhere (Parquet, through Spark) checked as a CSV's rows are."""
    return _checked(name, records)


def _checked(name: str, records: Iterator[Record | PlanFileError]) -> list[Intent]:
    errors: list[PlanFileError] = []
    intents: list[Intent] = []
    for record in records:
        if isinstance(record, PlanFileError):
            errors.append(record)
            continue
        line, column, cells = record
        before = len(errors)
        intent = _intent(name, line, column, cells, errors)
        if len(errors) == before:
            intents.append(intent)
    if errors:
        raise PlanFileErrors(sorted(errors, key=lambda e: (e.line, e.column)))
    return intents


def _intent(
    name: str, line: int, column: int, cells: dict[str, Cell], errors: list[PlanFileError]
) -> Intent:
    """The row's intent; its problems are added to `errors` (the intent is then no use)."""
    topic_cell = cells.get("topic")
    if topic_cell is None:
        topic = ""
        errors.append(PlanFileError(name, line, column, "the topic name is missing"))
    else:
        topic = str(topic_cell[0]).strip()
        if not _LEGAL_TOPIC.fullmatch(topic):
            message = f"'{topic}' is not a legal topic name (letters, digits, '.', '_', '-')"
            errors.append(PlanFileError(name, topic_cell[1], topic_cell[2], message))
    partitions = _whole(name, cells.get("partitions"), "partitions", errors)
    factor = _whole(name, cells.get("replication_factor"), "replication_factor", errors)
    minimum_cell = cells.get("min_required_replication_factor")
    minimum = _whole(name, minimum_cell, "min_required_replication_factor", errors)
    if factor is not None and minimum is not None and minimum > factor:
        assert minimum_cell is not None
        message = f"{minimum} > replication_factor {factor}"
        errors.append(PlanFileError(name, minimum_cell[1], minimum_cell[2], message))
    configs_cell = cells.get("configs")
    configs = () if configs_cell is None else _configs(name, configs_cell, errors)
    return Intent(topic, partitions, factor, minimum, configs)


# What Kafka's CreateTopics can carry: INT32 partition counts, INT16 replication factors.
_LIMITS = {
    "partitions": 2**31 - 1,
    "replication_factor": 2**15 - 1,
    "min_required_replication_factor": 2**15 - 1,
}


def _whole(name: str, cell: Cell | None, key: str, errors: list[PlanFileError]) -> int | None:
    if cell is None:
        return None
    value = cell[0]
    text = value.strip() if isinstance(value, str) else ""
    # ASCII digits only: str.isdigit() takes '²', which int() refuses
    number = int(text) if text.isascii() and text.isdigit() and len(text) <= 20 else None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    if number is not None and 1 <= number <= _LIMITS[key]:
        return number
    if (number is not None and number > _LIMITS[key]) or (len(text) > 20 and text.isdigit()):
        message = f"{key} must be at most {_LIMITS[key]}"
    else:
        message = f"{key} must be a whole number >= 1 (or empty for the default), got {value!r}"
    errors.append(PlanFileError(name, cell[1], cell[2], message))
    return None


def _configs(name: str, cell: Cell, errors: list[PlanFileError]) -> tuple[tuple[str, str], ...]:
    def fail(message: str) -> tuple[tuple[str, str], ...]:
        errors.append(PlanFileError(name, cell[1], cell[2], message))
        return ()

    value = cell[0]
    if isinstance(value, dict):
        if all(
            isinstance(v, str | int | float) and not isinstance(v, bool) for v in value.values()
        ):
            return tuple(sorted((str(k), str(v)) for k, v in value.items()))
        return fail("configs values must be strings or numbers")
    if not isinstance(value, str):
        return fail("configs must be key=value;key=value, or an object of keys and values")
    pairs = []
    for item in str(value).split(";"):
        if not item.strip():
            continue
        key, sep, setting = item.partition("=")
        if not sep or not key.strip():
            return fail(f"configs must be key=value;key=value, got '{item.strip()}'")
        pairs.append((key.strip(), setting.strip()))
    return tuple(sorted(pairs))


def intents_to_csv(intents: list[Intent]) -> str:
    """The plan file `plan export` writes."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for i in intents:
        writer.writerow(
            [
                i.topic,
                i.partitions or "",
                i.replication_factor or "",
                i.min_required or "",
                ";".join(f"{k}={v}" for k, v in i.configs),
            ]
        )
    return out.getvalue()


# -- the job input: a Prepared plan as JSON (what the Spark job reads) ------------------------


def prepared_to_json(prepared: Prepared) -> dict[str, Any]:
    return {
        "brokers": [[b.id, b.rack, b.live] for b in prepared.brokers],
        "before": _load_json(prepared.before),
        "warnings": list(prepared.warnings),
        "skipped": prepared.skipped,
        "cluster": [prepared.cluster_id, prepared.snapshot_time],
        "options": [
            prepared.options.mode,
            prepared.options.min_required,
            prepared.options.group_partitions,
        ],
        "groups": [
            {"index": g.index, "load": _load_json(g.load), "rows": [_row_json(r) for r in g.rows]}
            for g in prepared.groups
        ],
    }


def prepared_from_json(data: dict[str, Any]) -> Prepared:
    mode, minimum, size = data["options"]
    return Prepared(
        tuple(Broker(i, rack, live) for i, rack, live in data["brokers"]),
        _load_from(data["before"]),
        tuple(group_from_json(g) for g in data["groups"]),
        tuple(data["warnings"]),
        PlanOptions(mode, minimum, size),
        data["skipped"],
        *data.get("cluster", [None, None]),
    )


def group_from_json(data: dict[str, Any]) -> Group:
    return Group(data["index"], tuple(_row_from(r) for r in data["rows"]), _load_from(data["load"]))


def _load_json(load: Load) -> list[list[list[int]]]:
    return [
        sorted([b, n] for b, n in load.replicas.items()),
        sorted([b, n] for b, n in load.leaders.items()),
    ]


def _load_from(data: list[list[list[int]]]) -> Load:
    return Load({b: n for b, n in data[0]}, {b: n for b, n in data[1]})


def _row_json(row: Row) -> list[Any]:
    q = row.request
    return [
        row.topic,
        row.action,
        row.total,
        [q.partitions, q.replication_factor, q.min_live_replicas, [list(p) for p in q.existing]],
        row.mode,
        [list(c) for c in row.configs],
        row.min_required,
        list(row.warnings),
        row.error,
        row.message,
        [list(c) for c in row.config_changes],
    ]


def _row_from(data: list[Any]) -> Row:
    topic, action, total, q, mode, configs, minimum, warnings, error, message = data[:10]
    changes = data[10] if len(data) > 10 else []
    request = Request(topic, q[0], q[1], q[2], tuple(tuple(p) for p in q[3]))
    return Row(
        topic,
        action,
        total,
        request,
        mode,
        tuple((k, v) for k, v in configs),
        minimum,
        tuple(warnings),
        error,
        message,
        tuple((k, before, after) for k, before, after in changes),
    )


# -- the saved plan: the fields `plan apply` and the plan screen read ---------------------------


@dataclass(frozen=True)
class _MapOf:
    values: object


_INT = int
_NUMBER = (int, float)
_STAT = {"min": _NUMBER, "max": _NUMBER, "avg": _NUMBER, "std": _NUMBER, "max_avg": _NUMBER}
_SAVED_TOPIC = {
    "topic": str,
    "action": frozenset({"create", "grow", "configs"}),
    "partitions": (int, type(None)),
    "replication_factor": (int, type(None)),
    "assignment": [[_INT]],
    "warnings": [str],
    "error": (str, type(None)),
    "message": str,
    "configs": _MapOf(str),
    "min_required_replication_factor?": (int, type(None)),
    "placeholder_racks?": [[(str, type(None))]],
    "remedies?": [{"settings": [[str]], "purpose": str}],
    "config_changes?": [{"key": str, "before": (str, type(None)), "after": (str, type(None))}],
}
_SAVED_PLAN = {
    "engine": str,
    "cluster?": {"id": (str, type(None)), "snapshot_time": (str, type(None))},
    "topics": [_SAVED_TOPIC],
    "brokers": [
        {
            "id": _INT,
            "rack": (str, type(None)),
            "live": bool,
            "replicas_before": _INT,
            "replicas_after": _INT,
            "leaders_before": _INT,
            "leaders_after": _INT,
            "degree": _INT,
        }
    ],
    "warnings": [str],
    "stats": {
        "partitions": _INT,
        "new_replicas": _INT,
        "replicas_after": _STAT,
        "leaders_after": _STAT,
        "same_rack_partitions": _INT,
        "placeholders": _INT,
        "replicas_on_offline_brokers": _INT,
        "racks": [
            {
                "rack": (str, type(None)),
                "brokers": _INT,
                "replicas_before": _INT,
                "replicas_after": _INT,
                "leaders_before": _INT,
                "leaders_after": _INT,
            }
        ],
        "sanity": {"ok": bool, "problems": [str]},
    },
}


def _shape(
    text: str,
    position: int,
    value: object,
    shape: object,
    path: str,
    found: list[tuple[int, str]],
) -> None:
    """Check `value` (at `position` of `text`) against `shape`: a type or tuple of types, a
    frozenset of allowed values, [element shape], {key: shape} ('key?': optional) or _MapOf.
    A problem is added to `found` as (offset, message)."""

    def fail(message: str) -> None:
        found.append((position, f"{path}: {message}"))

    if isinstance(shape, dict):
        if not isinstance(value, dict):
            return fail("expected an object")
        starts = {key: start for key, _, _, start, _ in _members(text, position)}
        for key, inner in shape.items():
            if key.rstrip("?") in value:
                key = key.rstrip("?")
                _shape(text, starts[key], value[key], inner, f"{path}.{key}", found)
            elif not key.endswith("?"):
                fail(f"'{key}' is missing")
    elif isinstance(shape, list):
        if not isinstance(value, list):
            return fail("expected a list")
        for index, (start, item, _) in enumerate(_elements(text, position)):
            _shape(text, start, item, shape[0], f"{path}[{index}]", found)
    elif isinstance(shape, _MapOf):
        if not isinstance(value, dict):
            return fail("expected an object")
        for key, _, item, start, _ in _members(text, position):
            _shape(text, start, item, shape.values, f"{path}.{key}", found)
    elif isinstance(shape, frozenset):
        if not isinstance(value, str) or value not in shape:
            fail(f"expected one of {', '.join(sorted(shape))}")
    else:
        types = shape if isinstance(shape, tuple) else (shape,)
        if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
            kinds = " or ".join(_KIND_NAMES.get(t, t.__name__) for t in types)
            fail(f"expected {kinds}, got {json.dumps(value)[:40]}")
    return None


def _first(pair: tuple[int, str]) -> int:
    return pair[0]


def _elements(text: str, position: int) -> Iterator[tuple[int, object, int]]:
    """(start, value, end) of each element of the array at `position` in valid JSON."""
    position = _skip(text, position + 1)
    while text[position] != "]":
        value, end = _DECODER.raw_decode(text, position)
        yield position, value, end
        position = _skip(text, end)
        position = _skip(text, position + (text[position] == ","))


def _members(text: str, position: int) -> Iterator[tuple[str, int, object, int, int]]:
    """(key, key start, value, value start, value end) of each member of the object at
    `position` in valid JSON: exact places, even for a key spelled with escapes."""
    position = _skip(text, position + 1)
    while text[position] != "}":
        key, end = _DECODER.raw_decode(text, position)
        start = _skip(text, _skip(text, end) + 1)
        value, end = _DECODER.raw_decode(text, start)
        yield key, position, value, start, end
        position = _skip(text, end)
        position = _skip(text, position + (text[position] == ","))


_KIND_NAMES = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}
_KIND_NAMES[type(None)] = "null"


def _saved_topics(text: str, document: dict[str, Any], found: list[tuple[int, str]]) -> None:
    """What the shapes cannot say: a planned row's numbers agree with its assignment."""
    start = [at for key, _, _, at, _ in _members(text, _skip(text, 0)) if key == "topics"][-1]
    places = (position for position, _, _ in _elements(text, start))
    for index, (position, entry) in enumerate(zip(places, document["topics"], strict=True)):
        if entry["error"]:
            continue
        partitions, factor = entry["partitions"], entry["replication_factor"]
        lists = entry["assignment"]
        problem = None
        if partitions is None or factor is None or partitions < 1 or factor < 1:
            problem = "a planned topic needs partitions and replication_factor >= 1"
        elif entry["action"] == "create" and len(lists) != partitions:
            problem = f"{len(lists)} replica lists for {partitions} partitions"
        elif entry["action"] == "configs" and lists:
            problem = "a config change places no replica"
        elif entry["action"] == "grow" and not 0 < len(lists) < partitions:
            problem = f"{len(lists)} new replica lists to grow to {partitions} partitions"
        elif any(len(replicas) != factor for replicas in lists):
            problem = f"a replica list is not {factor} long (the replication factor)"
        if problem:
            found.append((position, f"plan.topics[{index}]: {problem}"))
