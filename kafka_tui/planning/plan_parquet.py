"""Plans read from Parquet: the rows the Spark job read (`spark_job --read-parquet`) -> the same
intents, checked by the same rules, as a CSV plan's (`plan_rows`).

Without pyarrow only Spark reads Parquet, so the job writes the rows it read as JSON lines:
first `{"columns": [...]}`, then one JSON array of values per row, in the order of the file
(for a folder as Spark writes it: part files by name, then rows). Integers may come as integer
or string columns, configs as `k=v;k=v` strings or as a map. A bad row is reported as
`FILE: row N, column 'NAME': what is wrong`, every one at once. Pure: text in, intents out.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from kafka_tui.planning import plan_rows
from kafka_tui.planning.bulk_plan import Intent

SUFFIX = ".parquet"


def is_parquet(name: str) -> bool:
    return name.rstrip("/").lower().endswith(SUFFIX)


@dataclass(frozen=True)
class ParquetRowError(plan_rows.PlanFileError):
    """`line` is the row (1-based, 0 = the file's schema); `column_name` the column, if any."""

    column_name: str = ""

    def __str__(self) -> str:
        where = [f"row {self.line}"] if self.line else []
        where += [f"column '{self.column_name}'"] if self.column_name else []
        return (
            f"{self.file}: {', '.join(where)}: {self.message}"
            if where
            else (f"{self.file}: {self.message}")
        )


def parse_rows(name: str, text: str) -> list[Intent]:
    """The job's JSON lines -> intents; raises plan_rows.PlanFileErrors (of ParquetRowError)."""
    lines = text.split("\n")
    columns: list[str] = json.loads(lines[0])["columns"]
    return parse_values(name, columns, (json.loads(line) for line in lines[1:] if line))


def parse_values(name: str, columns: list[str], rows: Iterable[list[Any]]) -> list[Intent]:
    """Rows as lists of plain values (`plain_value`), in the file's order -> intents, as
    `parse_rows` (the in-process reader gives them without JSON in between).

    As the CSV reader does, what a row's values other than the topic made is kept by those
    values: a plan's rows mostly repeat a few (partitions, RF, configs), and a row met again
    only needs its topic checked (1,000,000 rows: see bench/README.md, plan_read.py)."""
    errors = list(_records(name, columns, []))  # the schema's problems, at row 0
    if "topic" not in columns:
        raise plan_rows.PlanFileErrors(_worded(columns, _as_errors(errors)))
    width, topic_at = len(columns), columns.index("topic")
    keep = [i for i in range(width) if i != topic_at]
    legal = plan_rows.LEGAL_TOPIC.fullmatch
    seen: dict[tuple[object, ...], tuple[int | None, int | None, int | None, Configs]] = {}
    intents: list[Intent] = []
    found: list[plan_rows.PlanFileError] = _as_errors(errors)
    for row, values in enumerate(rows, start=1):
        key = _key(values, keep) if len(values) == width else None
        topic = values[topic_at] if key is not None else None
        if isinstance(topic, str) and key is not None:
            known = seen.get(key)
            if known is not None and legal(topic.strip()):
                intents.append(Intent(topic.strip(), *known))
                continue
        cells: dict[str, plan_rows.Cell] = {
            column: (value, row, index)
            for index, (column, value) in enumerate(zip(columns, values, strict=True), start=1)
            if column in plan_rows.COLUMNS and _given(value)
        }
        before = len(found)
        intent = plan_rows.intent_from_cells(name, row, topic_at + 1, cells, found)
        if len(found) == before:
            intents.append(intent)
            if key is not None and len(seen) < _SEEN_MOST:
                seen[key] = (
                    intent.partitions,
                    intent.replication_factor,
                    intent.min_required,
                    intent.configs,
                )
    if found:
        ordered = sorted(found, key=lambda e: (e.line, e.column))
        raise plan_rows.PlanFileErrors(_worded(columns, ordered))
    return intents


Configs = tuple[tuple[str, str], ...]
_SEEN_MOST = 10_000


def _key(values: list[Any], keep: list[int]) -> tuple[object, ...] | None:
    """A row's values but the topic, hashable (maps and lists as tuples; a value not text
    with its type: 1, 1.0 and True are equal keys but not equal cells), or None when a value
    cannot be a key."""
    key: list[object] = []
    for i in keep:
        value = values[i]
        if isinstance(value, dict):
            value = (dict, tuple(value.items()))
        elif isinstance(value, list):
            value = (list, tuple(value))
        elif value is not None and not isinstance(value, str):
            value = (type(value), value)
        key.append(value)
    try:
        hash(tuple(key))
    except TypeError:  # a map of maps: checked every time
        return None
    return tuple(key)


def _as_errors(
    records: list[plan_rows.Record | plan_rows.PlanFileError],
) -> list[plan_rows.PlanFileError]:
    return [r for r in records if isinstance(r, plan_rows.PlanFileError)]


def _worded(
    columns: list[str], errors: list[plan_rows.PlanFileError]
) -> list[plan_rows.PlanFileError]:
    return [
        ParquetRowError(
            e.file,
            e.line,
            e.column,
            e.message,
            columns[e.column - 1] if 0 < e.column <= len(columns) else "",
        )
        for e in errors
    ]


def schema_errors(name: str, columns: list[str]) -> list[plan_rows.PlanFileError]:
    """The problems of a Parquet plan's columns (row 0), as `parse_rows` reports them."""
    found = [e for e in _records(name, columns, []) if isinstance(e, plan_rows.PlanFileError)]
    return _worded(columns, found)


def check_row(
    name: str, columns: list[str], row: int, values: list[object]
) -> Intent | list[plan_rows.PlanFileError]:
    """One row of a Parquet plan read apart (the Spark job's streamed reader; `row` 1-based,
    in the file's order): its intent or its problems, as `parse_rows` words them."""
    topic_column = columns.index("topic") + 1
    cells: dict[str, plan_rows.Cell] = {
        column: (value, row, index)
        for index, (column, value) in enumerate(zip(columns, values, strict=True), start=1)
        if column in plan_rows.COLUMNS and _given(value)
    }
    try:
        (intent,) = plan_rows.intents_from_records(name, iter([(row, topic_column, cells)]))
    except plan_rows.PlanFileErrors as exc:
        return _worded(columns, exc.errors)
    return intent


def _records(
    name: str, columns: list[str], rows: Iterable[list[Any]]
) -> Iterator[plan_rows.Record | plan_rows.PlanFileError]:
    """plan_rows' records: cells at (row, 1-based column index), the schema's errors at row 0."""
    expected = ", ".join(plan_rows.COLUMNS)
    for index, column in enumerate(columns, start=1):
        if column not in plan_rows.COLUMNS:
            yield plan_rows.PlanFileError(
                name, 0, index, f"unknown column '{column}' (expected {expected})"
            )
    if "topic" not in columns:
        yield plan_rows.PlanFileError(name, 0, 0, "the plan needs a 'topic' column")
        return
    topic_column = columns.index("topic") + 1
    for row, values in enumerate(rows, start=1):
        cells: dict[str, plan_rows.Cell] = {
            column: (value, row, index)
            for index, (column, value) in enumerate(zip(columns, values, strict=True), start=1)
            if column in plan_rows.COLUMNS and _given(value)
        }
        yield row, topic_column, cells


def plain_value(value: Any) -> Any:
    """A value read from Parquet as JSON: maps and structs as objects, decimals and dates as
    text (what both readers write: spark_job.read_parquet, plan_parquet_arrow)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", errors="replace")
    if isinstance(value, dict):
        return {str(k): plain_value(v) for k, v in value.items()}
    if hasattr(value, "asDict"):
        return {str(k): plain_value(v) for k, v in value.asDict().items()}
    if isinstance(value, list | tuple):
        return [plain_value(v) for v in value]
    return str(value)


def _given(value: object) -> bool:
    """A null, or blank text, is the default, as an empty CSV field is."""
    return value is not None and not (isinstance(value, str) and not value.strip())
