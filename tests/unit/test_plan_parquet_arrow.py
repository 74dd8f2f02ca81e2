"""The in-process Parquet reader (pyarrow) writes the rows as the Spark job's reader does:
a folder's data files by path, `_`/`.` files left out, hive folders as columns, maps as
objects; then the same checks and words (plan_parquet.parse_rows). Both readers on one
Spark-written file: tests/integration/test_plan_parquet.py."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from kafka_tui.planning import plan_parquet, plan_parquet_arrow, plan_rows


def _write(path: Path, rows: list[dict[str, object]], schema: pa.Schema) -> None:
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)


SCHEMA = pa.schema(
    [
        ("topic", pa.string()),
        ("partitions", pa.int32()),
        ("replication_factor", pa.string()),
        ("configs", pa.map_(pa.string(), pa.string())),
    ]
)


def test_a_folder_reads_as_spark_reads_it(tmp_path: Path) -> None:
    plan = tmp_path / "plan.parquet"
    plan.mkdir()
    # The biggest file last: the order is the files' names, then their rows.
    _write(plan / "part-00001.parquet", [{"topic": "b", "partitions": 2}], SCHEMA)
    _write(plan / "part-00000.parquet", [{"topic": "a", "partitions": 1}], SCHEMA)
    rows = [
        {"topic": f"c-{n}", "partitions": 3, "replication_factor": " ", "configs": None}
        for n in range(50)
    ]
    rows[0]["configs"] = [("retention.ms", "1000"), ("cleanup.policy", "delete")]
    _write(plan / "part-00002.parquet", rows, SCHEMA)
    (plan / "_SUCCESS").write_text("")
    (plan / ".part-00000.parquet.crc").write_bytes(b"\x00crc")

    lines = plan_parquet_arrow.read_text(plan).splitlines()
    assert json.loads(lines[0]) == {"columns": list(SCHEMA.names)}
    assert [json.loads(line)[0] for line in lines[1:4]] == ["a", "b", "c-0"]
    assert json.loads(lines[3])[3] == {"retention.ms": "1000", "cleanup.policy": "delete"}
    intents = plan_parquet.parse_rows(str(plan), "\n".join(lines) + "\n")
    assert [i.topic for i in intents] == ["a", "b", *(f"c-{n}" for n in range(50))]
    assert dict(intents[2].configs) == {"retention.ms": "1000", "cleanup.policy": "delete"}
    assert intents[3].replication_factor is None  # blank text is the default


def test_hive_folders_are_columns_and_bad_values_are_named_by_row_and_column(
    tmp_path: Path,
) -> None:
    plan = tmp_path / "plan.parquet"
    (plan / "colour=red").mkdir(parents=True)
    schema = pa.schema([("topic", pa.string()), ("partitions", pa.string())])
    _write(plan / "colour=red" / "part-0.parquet", [{"topic": "ok", "partitions": "x"}], schema)
    text = plan_parquet_arrow.read_text(plan)
    assert json.loads(text.splitlines()[0]) == {"columns": ["topic", "partitions", "colour"]}
    with pytest.raises(plan_rows.PlanFileErrors) as caught:
        plan_parquet.parse_rows("plan.parquet", text)
    assert [str(e) for e in caught.value.errors] == [
        "plan.parquet: column 'colour': unknown column 'colour' (expected topic, partitions, "
        "replication_factor, min_required_replication_factor, configs)",
        "plan.parquet: row 1, column 'partitions': partitions must be a whole number >= 1 (or "
        "empty for the default), got 'x'",
    ]


# Values a plan's cells take, good and bad, of every kind a Parquet column can hold: rows
# repeat them, so the reader's memo of rows met before (all but the topic) is exercised.
_TOPICS = st.sampled_from(["a", "b", " c ", "", "bad name", None, 7, "x" * 250])
_VALUES = st.sampled_from([None, "", " ", "3", 3, 1, True, 1.0, "x", -1, 0, 40_000])
_CONFIGS = st.sampled_from(
    [None, "", "retention.ms=1", "a=1;b=2", {"retention.ms": "1"}, {"a": "1", "b": "2"}, "x"]
)


@given(st.lists(st.tuples(_TOPICS, _VALUES, _VALUES, _VALUES, _CONFIGS).map(list), max_size=30))
@example([["a", 1, None, None, None], ["b", True, None, None, None]])
@example([["a", 1, None, None, None], ["b", 1.0, None, None, None]])
@example([["a", None, None, None, {"x": "1"}], ["b", None, None, None, "x=1"]])
def test_rows_met_again_give_what_a_row_checked_alone_gives(rows: list[list[object]]) -> None:
    columns = [
        "topic",
        "partitions",
        "replication_factor",
        "min_required_replication_factor",
        "configs",
    ]
    alone = [plan_parquet.check_row("p", columns, n, row) for n, row in enumerate(rows, 1)]
    errors = [str(e) for result in alone if isinstance(result, list) for e in result]
    if errors:
        with pytest.raises(plan_rows.PlanFileErrors) as caught:
            plan_parquet.parse_values("p", columns, rows)
        assert [str(e) for e in caught.value.errors] == errors
    else:
        assert plan_parquet.parse_values("p", columns, rows) == alone
