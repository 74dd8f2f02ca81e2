"""What the plan readers share: the columns, the errors (file:line:column), and the rules that
turn a row's cells into an intent, whichever format (CSV, JSON, Parquet) the row came from."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from kafka_tui.planning.plan_model import Intent

COLUMNS = (
    "topic",
    "partitions",
    "replication_factor",
    "min_required_replication_factor",
    "configs",
)
# Kafka's legal topic names: 1-249 of these characters, but not "." or "..".
LEGAL_TOPIC = re.compile(r"(?!\.\.?\Z)[a-zA-Z0-9._-]{1,249}")


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


# A row to check: (line, column, {column: (value, line, column)}), as plan_parquet reads them.
Cell = tuple[object, int, int]
Record = tuple[int, int, dict[str, Cell]]


class Places:
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
        intent = intent_from_cells(name, line, column, cells, errors)
        if len(errors) == before:
            intents.append(intent)
    if errors:
        raise PlanFileErrors(sorted(errors, key=lambda e: (e.line, e.column)))
    return intents


def intent_from_cells(
    name: str, line: int, column: int, cells: dict[str, Cell], errors: list[PlanFileError]
) -> Intent:
    """The row's intent; its problems are added to `errors` (the intent is then no use)."""
    topic_cell = cells.get("topic")
    if topic_cell is None:
        topic = ""
        errors.append(PlanFileError(name, line, column, "the topic name is missing"))
    else:
        topic = str(topic_cell[0]).strip()
        if not LEGAL_TOPIC.fullmatch(topic):
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
