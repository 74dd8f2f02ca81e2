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
    errors: list[PlanFileError] = []
    _shape(name, text, _skip(text, 0, _JSON_SPACE), document, _SAVED_PLAN, "plan", errors)
    if not errors:
        _saved_topics(name, text, document, errors)
    if errors:
        raise PlanFileErrors(sorted(errors, key=lambda e: (e.line, e.column)))
    return dict(document)


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
    # csv counts \r and \r\n as line ends; one kind of line end keeps line numbers exact
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    reader = csv.reader(io.StringIO(text))
    header: list[str] | None = None
    start = 1
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:  # e.g. a field above csv.field_size_limit()
            yield PlanFileError(name, start, 1, f"not CSV: {exc}")
            return
        line = start
        start = reader.line_num + 1
        if not any(f.strip() for f in fields) or fields[0].lstrip().startswith("#"):
            continue
        columns = [_line_column(text, at) for at in _field_offsets(text, starts[line - 1], fields)]
        if header is None:
            header = [f.strip() for f in fields]
            unknown = [(h, c) for h, c in zip(header, columns, strict=True) if h not in COLUMNS]
            for h, (at_line, at_column) in unknown:
                expected = ", ".join(COLUMNS)
                yield PlanFileError(
                    name, at_line, at_column, f"unknown column '{h}' (expected {expected})"
                )
            if "topic" not in header:
                yield PlanFileError(name, line, 1, "the header needs a 'topic' column")
                return
            continue
        if len(fields) > len(header):
            yield PlanFileError(
                name, *columns[len(header)], f"{len(fields)} fields, header has {len(header)}"
            )
            continue
        cells: dict[str, Cell] = {
            key: (value, *place)
            for key, value, place in zip(header, fields, columns, strict=False)
            if value.strip()
        }
        yield line, 1, cells


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
_JSON_SPACE = " \t\r\n"


def _unreadable(exc: Exception) -> str:
    if isinstance(exc, RecursionError):
        return "not JSON that can be read: arrays or objects nested too deeply"
    return f"not JSON that can be read: {exc}"  # e.g. an integer of more than 4300 digits


def _json_lines(name: str, text: str) -> Iterator[Record | PlanFileError]:
    # JSON lines end at \n only; JSON strings may hold U+2028 and friends
    for number, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip(_JSON_SPACE):
            continue
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            yield PlanFileError(name, number, exc.colno, f"not JSON: {exc.msg}")
            continue
        except (RecursionError, ValueError) as exc:
            yield PlanFileError(name, number, 1, _unreadable(exc))
            continue
        yield from _json_object(name, raw, _skip(raw, 0, _JSON_SPACE), number, value)


def _json_document(name: str, text: str) -> Iterator[Record | PlanFileError]:
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        yield PlanFileError(name, exc.lineno, exc.colno, f"not JSON: {exc.msg}")
        return
    except (RecursionError, ValueError) as exc:
        yield PlanFileError(name, 1, 1, _unreadable(exc))
        return
    start = _skip(text, 0, _JSON_SPACE)
    if isinstance(document, dict):
        if not isinstance(document.get("topics"), list):
            yield PlanFileError(name, 1, 1, "expected a list of rows, or an object with 'topics'")
            return
        # the last "topics" wins, as in json.loads
        start = [at for key, _, _, at, _ in _members(text, start) if key == "topics"][-1]
    elif not isinstance(document, list):
        yield PlanFileError(name, 1, 1, "expected a list of rows, or an object with 'topics'")
        return
    for position, value, _ in _elements(text, start):
        yield from _json_object(name, text, position, 1, value)


def _elements(text: str, position: int) -> Iterator[tuple[int, object, int]]:
    """(start, value, end) of each element of the array at `position` in valid JSON."""
    position = _skip(text, position + 1, _JSON_SPACE)
    while text[position] != "]":
        value, end = _DECODER.raw_decode(text, position)
        yield position, value, end
        position = _skip(text, end, _JSON_SPACE)
        position = _skip(text, position + (text[position] == ","), _JSON_SPACE)


def _members(text: str, position: int) -> Iterator[tuple[str, int, object, int, int]]:
    """(key, key start, value, value start, value end) of each member of the object at
    `position` in valid JSON: exact places, even for a key spelled with escapes."""
    position = _skip(text, position + 1, _JSON_SPACE)
    while text[position] != "}":
        key, end = _DECODER.raw_decode(text, position)
        start = _skip(text, _skip(text, end, _JSON_SPACE) + 1, _JSON_SPACE)
        value, end = _DECODER.raw_decode(text, start)
        yield key, position, value, start, end
        position = _skip(text, end, _JSON_SPACE)
        position = _skip(text, position + (text[position] == ","), _JSON_SPACE)


def _json_object(
    name: str, text: str, start: int, first_line: int, value: object
) -> Iterator[Record | PlanFileError]:
    """The row at `start` of `text`, whose first line is line `first_line` of the file."""

    def place(offset: int) -> tuple[int, int]:
        line, column = _line_column(text, offset)
        return line + first_line - 1, column

    line, column = place(start)
    if not isinstance(value, dict):
        yield PlanFileError(name, line, column, "expected an object with a 'topic' field")
        return
    cells: dict[str, Cell] = {}
    for key, at, item, _, _ in _members(text, start):
        key_line, key_column = place(at)
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


def _skip(text: str, position: int, chars: str) -> int:
    while position < len(text) and text[position] in chars:
        position += 1
    return position


def _line_column(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


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


# What Kafka's CreateTopics can carry: INT32 partition counts, INT16 replication factors.
_LIMITS = {
    "partitions": 2**31 - 1,
    "replication_factor": 2**15 - 1,
    "min_required_replication_factor": 2**15 - 1,
}


def _whole(cell: Cell, key: str, fail: Any) -> int | None:
    value = cell[0]
    text = value.strip() if isinstance(value, str) else ""
    # ASCII digits only: str.isdigit() takes '²', which int() refuses
    number = int(text) if text.isascii() and text.isdigit() and len(text) <= 20 else None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    if number is not None and 1 <= number <= _LIMITS[key]:
        return number
    if (number is not None and number > _LIMITS[key]) or (len(text) > 20 and text.isdigit()):
        fail(cell, f"{key} must be at most {_LIMITS[key]}")
        return None
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
    if not isinstance(value, str):
        fail(cell, "configs must be key=value;key=value, or an object of keys and values")
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


# -- the saved plan: the fields `plan apply` and the plan screen read ---------------------------


@dataclass(frozen=True)
class _MapOf:
    values: object


_INT = int
_NUMBER = (int, float)
_STAT = {"min": _NUMBER, "max": _NUMBER, "avg": _NUMBER, "std": _NUMBER, "max_avg": _NUMBER}
_SAVED_TOPIC = {
    "topic": str,
    "action": frozenset({"create", "grow"}),
    "partitions": (int, type(None)),
    "replication_factor": (int, type(None)),
    "assignment": [[_INT]],
    "warnings": [str],
    "error": (str, type(None)),
    "message": str,
    "configs": _MapOf(str),
    "min_required_replication_factor?": (int, type(None)),
    "placeholder_racks?": [[(str, type(None))]],
}
_SAVED_PLAN = {
    "engine": str,
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
    name: str,
    text: str,
    position: int,
    value: object,
    shape: object,
    path: str,
    errors: list[PlanFileError],
) -> None:
    """Check `value` (at `position` of `text`) against `shape`: a type or tuple of types, a
    frozenset of allowed values, [element shape], {key: shape} ('key?': optional) or _MapOf."""

    def fail(message: str) -> None:
        errors.append(PlanFileError(name, *_line_column(text, position), f"{path}: {message}"))

    if isinstance(shape, dict):
        if not isinstance(value, dict):
            return fail("expected an object")
        starts = {key: start for key, _, _, start, _ in _members(text, position)}
        for key, inner in shape.items():
            if key.rstrip("?") in value:
                key = key.rstrip("?")
                _shape(name, text, starts[key], value[key], inner, f"{path}.{key}", errors)
            elif not key.endswith("?"):
                fail(f"'{key}' is missing")
    elif isinstance(shape, list):
        if not isinstance(value, list):
            return fail("expected a list")
        for index, (start, item, _) in enumerate(_elements(text, position)):
            _shape(name, text, start, item, shape[0], f"{path}[{index}]", errors)
    elif isinstance(shape, _MapOf):
        if not isinstance(value, dict):
            return fail("expected an object")
        for key, _, item, start, _ in _members(text, position):
            _shape(name, text, start, item, shape.values, f"{path}.{key}", errors)
    elif isinstance(shape, frozenset):
        if not isinstance(value, str) or value not in shape:
            fail(f"expected one of {', '.join(sorted(shape))}")
    else:
        types = shape if isinstance(shape, tuple) else (shape,)
        if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
            kinds = " or ".join(_KIND_NAMES.get(t, t.__name__) for t in types)
            fail(f"expected {kinds}, got {json.dumps(value)[:40]}")
    return None


_KIND_NAMES = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}
_KIND_NAMES[type(None)] = "null"


def _saved_topics(
    name: str, text: str, document: dict[str, Any], errors: list[PlanFileError]
) -> None:
    """What the shapes cannot say: a planned row's numbers agree with its assignment."""
    start = [
        at for key, _, _, at, _ in _members(text, _skip(text, 0, _JSON_SPACE)) if key == "topics"
    ][-1]
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
        elif entry["action"] == "grow" and not 0 < len(lists) < partitions:
            problem = f"{len(lists)} new replica lists to grow to {partitions} partitions"
        elif any(len(replicas) != factor for replicas in lists):
            problem = f"a replica list is not {factor} long (the replication factor)"
        if problem:
            line, column = _line_column(text, position)
            errors.append(PlanFileError(name, line, column, f"plan.topics[{index}]: {problem}"))
