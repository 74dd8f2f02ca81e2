"""Plan files in and out: CSV / JSON / JSON lines rows -> intents (every bad field reported at
once with file:line:column), the saved plan document, and the job input the Spark job reads.

Parsing works on text the caller has read (no I/O here): `parse_plan(name, text)`.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kafka_tui.planning.placement import Broker, Load, Request
from kafka_tui.planning.plan import Group, Intent, PlanOptions, Prepared, Row

COLUMNS = (
    "topic",
    "partitions",
    "replication_factor",
    "min_required_replication_factor",
    "configs",
)
_LEGAL_NAME = re.compile(r"[a-zA-Z0-9._-]+")


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
    except ValueError:
        return False
    return isinstance(document, dict) and "topics" in document and "brokers" in document


def parse_plan(name: str, text: str) -> list[Intent]:
    """Rows of a CSV (by default), JSON (`.json`: a list, or an object with "topics") or JSON
    lines (`.jsonl`/`.ndjson`) file. Raises PlanFileErrors with every problem found."""
    lowered = name.lower()
    if lowered.endswith((".jsonl", ".ndjson")):
        return _checked(name, _json_lines(name, text))
    if lowered.endswith(".json"):
        return _checked(name, _json_document(name, text))
    return _checked(name, _csv_rows(name, text))


# Each reader yields (line, {column: (value, line, column)}) or a PlanFileError.
Cell = tuple[object, int, int]
Record = tuple[int, int, dict[str, Cell]]


def _csv_rows(name: str, text: str) -> Iterator[Record | PlanFileError]:
    lines = text.splitlines()
    reader = csv.reader(io.StringIO(text))
    header: list[str] | None = None
    start = 1
    for fields in reader:
        line = start
        start = reader.line_num + 1
        if not any(f.strip() for f in fields) or fields[0].lstrip().startswith("#"):
            continue
        raw = lines[line - 1] if line - 1 < len(lines) else ""
        columns = _columns(raw, fields)
        if header is None:
            header = [f.strip() for f in fields]
            unknown = [(h, c) for h, c in zip(header, columns, strict=True) if h not in COLUMNS]
            for h, c in unknown:
                expected = ", ".join(COLUMNS)
                yield PlanFileError(name, line, c, f"unknown column '{h}' (expected {expected})")
            if "topic" not in header:
                yield PlanFileError(name, line, 1, "the header needs a 'topic' column")
                return
            continue
        if len(fields) > len(header):
            yield PlanFileError(
                name, line, columns[len(header)], f"{len(fields)} fields, header has {len(header)}"
            )
            continue
        cells: dict[str, Cell] = {
            key: (value, line, column)
            for key, value, column in zip(header, fields, columns, strict=False)
            if value.strip()
        }
        yield line, 1, cells


def _columns(raw: str, fields: list[str]) -> list[int]:
    """1-based character column of each field (exact without quotes; close with them)."""
    columns = []
    position = 0
    for value in fields:
        columns.append(position + 1)
        quoted = raw[position : position + 1] == '"'
        width = len(value) + (2 + value.count('"') if quoted else 0)
        position += width + 1
    return columns


def _json_lines(name: str, text: str) -> Iterator[Record | PlanFileError]:
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            yield PlanFileError(name, number, exc.colno, f"not JSON: {exc.msg}")
            continue
        yield from _json_object(name, raw, 0, number, 1, value)


def _json_document(name: str, text: str) -> Iterator[Record | PlanFileError]:
    decoder = json.JSONDecoder()
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        yield PlanFileError(name, exc.lineno, exc.colno, f"not JSON: {exc.msg}")
        return
    start = 0
    if isinstance(document, dict):
        if not isinstance(document.get("topics"), list):
            yield PlanFileError(name, 1, 1, "expected a list of rows, or an object with 'topics'")
            return
        start = text.index("[", _key_at(text, "topics", 0, len(text)))
    elif not isinstance(document, list):
        yield PlanFileError(name, 1, 1, "expected a list of rows, or an object with 'topics'")
        return
    position = text.index("[", start) + 1
    while True:
        position = _skip(text, position, ", \t\r\n")
        if text[position] == "]":
            return
        value, end = decoder.raw_decode(text, position)
        line, column = _line_column(text, position)
        yield from _json_object(name, text, position, line, column, value, end)
        position = end


def _json_object(
    name: str,
    text: str,
    start: int,
    line: int,
    column: int,
    value: object,
    end: int | None = None,
) -> Iterator[Record | PlanFileError]:
    if not isinstance(value, dict):
        yield PlanFileError(name, line, column, "expected an object with a 'topic' field")
        return
    cells: dict[str, Cell] = {}
    end = len(text) if end is None else end
    for key, item in value.items():
        at = _key_at(text, key, start, end)
        key_line, key_column = _line_column(text, at)
        if start == 0 and end == len(text):  # a JSON line: the text is the line itself
            key_line, key_column = line, at + 1
        if key not in COLUMNS:
            yield PlanFileError(
                name, key_line, key_column, f"unknown field '{key}' (expected {', '.join(COLUMNS)})"
            )
            continue
        if item is not None and item != "":
            cells[key] = (item, key_line, key_column)
    yield line, column, cells


def _key_at(text: str, key: str, start: int, end: int) -> int:
    found = text.find(json.dumps(key), start, end)
    return found if found >= 0 else start


def _skip(text: str, position: int, chars: str) -> int:
    while position < len(text) and text[position] in chars:
        position += 1
    return position


def _line_column(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


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
        if intent is not None and len(errors) == before:
            intents.append(intent)
    if errors:
        raise PlanFileErrors(sorted(errors, key=lambda e: (e.line, e.column)))
    return intents


def _intent(
    name: str, line: int, column: int, cells: dict[str, Cell], errors: list[PlanFileError]
) -> Intent | None:
    def fail(cell: Cell, message: str) -> None:
        errors.append(PlanFileError(name, cell[1], cell[2], message))

    topic_cell = cells.get("topic")
    topic = "" if topic_cell is None else str(topic_cell[0]).strip()
    if topic_cell is None:
        errors.append(PlanFileError(name, line, column, "the topic name is missing"))
    elif not _LEGAL_NAME.fullmatch(topic) or topic in (".", "..") or len(topic) > 249:
        fail(topic_cell, f"'{topic}' is not a legal topic name (letters, digits, '.', '_', '-')")
    numbers: dict[str, int | None] = {}
    for key in COLUMNS[1:4]:
        cell = cells.get(key)
        numbers[key] = None if cell is None else _whole(cell, key, fail)
    factor, minimum = numbers["replication_factor"], numbers["min_required_replication_factor"]
    if factor is not None and minimum is not None and minimum > factor:
        fail(cells["min_required_replication_factor"], f"{minimum} > replication_factor {factor}")
    configs = _configs(cells.get("configs"), fail)
    return Intent(topic, numbers["partitions"], factor, minimum, configs)


def _whole(cell: Cell, key: str, fail: Any) -> int | None:
    value = cell[0]
    text = str(value).strip() if not isinstance(value, bool) else ""
    if isinstance(value, int | str) and text.isdigit() and int(text) >= 1:
        return int(text)
    fail(cell, f"{key} must be a whole number >= 1 (or empty for the default), got {value!r}")
    return None


def _configs(cell: Cell | None, fail: Any) -> tuple[tuple[str, str], ...]:
    if cell is None:
        return ()
    value = cell[0]
    if isinstance(value, dict):
        if all(
            isinstance(v, str | int | float) and not isinstance(v, bool) for v in value.values()
        ):
            return tuple(sorted((str(k), str(v)) for k, v in value.items()))
        fail(cell, "configs values must be strings or numbers")
        return ()
    pairs = []
    for item in str(value).split(";"):
        if not item.strip():
            continue
        key, sep, setting = item.partition("=")
        if not sep or not key.strip():
            fail(cell, f"configs must be key=value;key=value, got '{item.strip()}'")
            return ()
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
    ]


def _row_from(data: list[Any]) -> Row:
    topic, action, total, q, mode, configs, minimum, warnings, error, message = data
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
    )
