"""A Parquet plan read in process with pyarrow (installed with pyspark's Connect extras): the
rows the Spark job's reader writes as JSON lines (`spark_job.read_parquet`), as values for the
same checks (`plan_parquet.parse_values`), without a JVM started for a local file. `read_text`
writes them as that reader does (the tests compare the two byte for byte).

A folder is read as Spark reads one: its data files by path (names starting with `_` or `.`,
such as `_SUCCESS` and checksums, left out), then each file's rows in order; `key=value`
folders add their columns (hive partitioning) as Spark's do. Values as the Spark reader gives
them: maps and structs as objects, lists as arrays, other values (decimals, dates) as text.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .plan_parquet import plain_value


def available() -> bool:
    try:
        import pyarrow.dataset  # noqa: F401
    except ImportError:
        return False
    return True


def _is_data(path: Path, root: Path) -> bool:
    return not any(part.startswith(("_", ".")) for part in path.relative_to(root).parts)


def read_text(path: Path) -> str:
    """`{"columns": [...]}`, then one JSON array per row, as the Spark job writes them."""
    columns, rows = read_values(path)
    lines = [json.dumps({"columns": columns}), *(json.dumps(row) for row in rows)]
    return "\n".join(lines) + "\n"


def read_values(path: Path) -> tuple[list[str], Iterator[list[Any]]]:
    """The columns, and the rows as lists of plain values in the file's order (the lines of
    `read_text` without the JSON: what plan_parquet.parse_values reads)."""
    import pyarrow.dataset as ds

    if path.is_dir():
        files = sorted(str(p) for p in path.rglob("*") if p.is_file() and _is_data(p, path))
        dataset = ds.dataset(
            files, format="parquet", partitioning="hive", partition_base_dir=str(path)
        )
    else:
        dataset = ds.dataset(str(path), format="parquet")
    schema = dataset.schema
    types = [field.type for field in schema]

    def rows() -> Iterator[list[Any]]:
        for batch in dataset.to_batches():  # files in the order given, rows in file order
            columns = [_column(batch.column(i).to_pylist(), t) for i, t in enumerate(types)]
            yield from map(list, zip(*columns, strict=True))

    return list(schema.names), rows()


def _column(values: list[Any], arrow_type: Any) -> list[Any]:
    import pyarrow as pa

    t = pa.types
    plain = (t.is_string, t.is_large_string, t.is_boolean, t.is_integer, t.is_floating)
    if any(kind(arrow_type) for kind in plain):
        return values  # plain already (a plan's usual columns: 1,000,000 rows, ~3 s less)
    return [_plain(v, arrow_type) for v in values]


def _plain(value: Any, arrow_type: Any) -> Any:
    """pyarrow gives a map as a list of (key, value) pairs; Spark as a dict."""
    import pyarrow as pa

    if value is None:
        return None
    if pa.types.is_map(arrow_type):
        return {str(k): _plain(v, arrow_type.item_type) for k, v in value}
    if pa.types.is_struct(arrow_type):
        return {f.name: _plain(value[f.name], f.type) for f in arrow_type}
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type):
        return [_plain(v, arrow_type.value_type) for v in value]
    return plain_value(value)
