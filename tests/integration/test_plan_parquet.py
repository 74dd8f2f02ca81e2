"""Plans read from Parquet files Spark wrote: the same document as the same plan in CSV, and
bad rows reported by row and column name, all at once, the same by both readers (in process
with pyarrow, as a file on this machine is read; and the Spark job's, for files elsewhere).

Spark start-ups cost 10-20 s each here, so there is one: this module's own session
(`local[1]`), which writes the Parquet files and reads the bad one with the job's reader.
Parquet reading does not depend on the kind of cluster, so only the KRaft one is used.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kafka_tui.cli import main
from kafka_tui.planning import plan_parquet, plan_parquet_arrow, plan_rows, spark_job

from ..conftest import Cluster

COLUMNS = "topic,partitions,replication_factor,min_required_replication_factor,configs"


@pytest.fixture(scope="module")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[1]")
        .appName("kafka-tui test_plan_parquet")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    try:
        yield session
    finally:
        session.stop()


def cli(capsys: pytest.CaptureFixture[str], cluster: Cluster, *args: str) -> tuple[int, str, str]:
    code = main(["--bootstrap-server", cluster.bootstrap_servers, "--output", "json", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_parquet_plan_gives_the_document_of_the_same_plan_in_csv(
    spark: Any,
    kraft_cluster: Cluster,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("KAFKA_TUI_SPARK_LOG", str(tmp_path / "spark.log"))
    prefix = f"pq-{uuid.uuid4().hex[:6]}"
    grown = f"{prefix}-grown"
    code, _, err = cli(capsys, kraft_cluster, "topics", "create", grown, "--partitions", "1",
                       "--replication-factor", "2")  # fmt: skip
    assert code == 0, err
    # integers as an integer column and as a string column; nulls and blanks = defaults
    rows: list[tuple[str, int | None, str | None, int | None, str | None]] = [
        (grown, 4, None, None, None),
        (f"{prefix}-defaults", None, " ", None, ""),
    ]
    rows += [
        (
            f"{prefix}-{n:03d}",
            1 + n % 4,
            str(1 + n % 3),
            1 if n % 5 == 0 else None,
            f"retention.ms={1000 + n};cleanup.policy=delete" if n % 2 else None,
        )
        for n in range(2, 60)
    ]
    schema = (
        "topic string, partitions int, replication_factor string, "
        "min_required_replication_factor long, configs string"
    )
    plan = tmp_path / "plan.parquet"
    plan.mkdir()
    # Three part files, the last the biggest: Spark scans the biggest first, so the rows come
    # back in the file's order only if the reader restores it.
    for number, chunk in enumerate([rows[:1], rows[1:2], rows[2:]]):
        spark.createDataFrame(chunk, schema).coalesce(1).write.parquet(str(tmp_path / "chunk"))
        (part,) = (tmp_path / "chunk").glob("part-*.parquet")
        part.rename(plan / f"part-{number:05d}.parquet")
        shutil.rmtree(tmp_path / "chunk")
    sizes = [(plan / f"part-{n:05d}.parquet").stat().st_size for n in range(3)]
    assert sizes[2] > max(sizes[:2])

    def cell(value: object) -> str:
        return "" if value is None else str(value)

    csv = tmp_path / "plan.csv"
    csv.write_text("\n".join([COLUMNS, *(",".join(cell(v) for v in row) for row in rows)]) + "\n")

    def preview(path: Path) -> str:
        code, out, err = cli(
            capsys, kraft_cluster, "plan", "preview", str(path), "--spark-master", "local[1]"
        )
        log = tmp_path / "spark.log"
        assert code == 0, err + (log.read_text()[-3000:] if log.exists() else "")
        # The same plan made at another moment: only the snapshot's time differs.
        return re.sub(r'"snapshot_time":"[^"]*"', '"snapshot_time":null', out)

    # The plan balances against the cluster's load, which an earlier test's deletions may
    # still be changing: compare with CSV previews taken just before and just after.
    deadline = time.monotonic() + 300
    while True:
        before, from_parquet, after = preview(csv), preview(plan), preview(csv)
        if before == after or time.monotonic() > deadline:
            break
    assert before == after, "the cluster's load kept changing"
    assert from_parquet == before  # the same engine (auto: local for 60 rows): every byte
    assert not (tmp_path / "spark.log").exists(), "a file on this machine needs no Spark job"
    document = json.loads(from_parquet)
    assert document["engine"] == "local"
    assert [t["topic"] for t in document["topics"]] == [row[0] for row in rows]
    assert document["topics"][0]["action"] == "grow"
    assert len(document["topics"][0]["assignment"]) == 3
    assert document["topics"][3]["configs"] == {"cleanup.policy": "delete", "retention.ms": "1003"}
    assert not [t for t in document["topics"] if t["error"]]


def test_bad_parquet_rows_are_reported_by_row_and_column_all_at_once(
    spark: Any, tmp_path: Path
) -> None:
    plan = tmp_path / "bad.parquet"
    rows = [
        ("ok-1", "3", 1, "red"),
        ("bad-2", "x", 1, None),
        ("bad-3", "2", 0, None),
        (None, "1", 1, None),
        ("bad topic", "1", None, None),
        ("ok-6", None, 2, None),
    ]
    schema = "topic string, partitions string, replication_factor int, colour string"
    spark.createDataFrame(rows, schema).coalesce(1).write.parquet(str(plan))
    out = io.StringIO()
    spark_job.read_parquet(spark, str(plan), out, io.StringIO())
    assert plan_parquet_arrow.read_text(plan) == out.getvalue()  # the same lines, byte for byte
    with pytest.raises(plan_rows.PlanFileErrors) as caught:
        plan_parquet.parse_rows("bad.parquet", out.getvalue())
    assert [str(e) for e in caught.value.errors] == [
        "bad.parquet: column 'colour': unknown column 'colour' (expected "
        f"{COLUMNS.replace(',', ', ')})",
        "bad.parquet: row 2, column 'partitions': partitions must be a whole number >= 1 (or "
        "empty for the default), got 'x'",
        "bad.parquet: row 3, column 'replication_factor': replication_factor must be a whole "
        "number >= 1 (or empty for the default), got 0",
        "bad.parquet: row 4, column 'topic': the topic name is missing",
        "bad.parquet: row 5, column 'topic': 'bad topic' is not a legal topic name (letters, "
        "digits, '.', '_', '-')",
    ]
