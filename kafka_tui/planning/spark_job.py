"""The plan's placement inside Spark: `python -m kafka_tui.planning.spark_job --input IN
--output OUT [--master URL]`; and a Parquet plan file read by Spark: `--read-parquet PLAN
--output OUT` (the rows as JSON lines, for `plan_parquet.parse_rows`).

IN is a prepared plan (`plan_io.prepared_to_json`); OUT receives the same document the
in-process planner writes, byte for byte apart from the "engine" line: each group runs
`plan.run_group` in a Python UDF over a DataFrame (one row per group; the DataFrame API, so
Spark Connect `sc://` works too), the rows come back to the driver one group at a time in
group order (`toLocalIterator`, never a collect), and `plan.write_document` writes them.

Progress: one JSON line per step on stdout, `{"stage", "done", "total"}`; Spark's own output
(log4j, the JVM) goes to stderr, which the caller points at a log file. SIGTERM and SIGINT
stop the Spark session and exit 130 without writing OUT.

Parquet: Spark reads it in the JVM, so kafka-tui needs no pyarrow either; the rows come back in
the file's order (part files by name, then row index: Spark's scan order is by split size) and
the caller checks them with the CSV's rules.

Arrow-based `mapInArrow` / `mapInPandas` need pyarrow (and pandas), which kafka-tui does not
install; a plain Python UDF needs neither and keeps to the DataFrame API.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import tempfile
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

from kafka_tui.planning import plan_io
from kafka_tui.planning.plan import Tally, run_group, write_document

CANCELLED = 130


class Cancelled(Exception):
    pass


def _progress(stream: TextIO, stage: str, done: int, total: int) -> None:
    stream.write(json.dumps({"stage": stage, "done": done, "total": total}) + "\n")
    stream.flush()


def place_group(payload: str) -> tuple[str, str]:
    """Executor side: one group (JSON) -> (its topic entries, its tally as JSON)."""
    data = json.loads(payload)
    brokers = plan_io.prepared_from_json({**data["common"], "groups": []}).brokers
    text, tally = run_group(brokers, plan_io.group_from_json(data["group"]))
    return text, json.dumps(tally.to_json())


def _package_zip(folder: Path) -> Path:
    """kafka_tui's pure planning modules, for executors that do not have kafka-tui installed:
    planning/ and the one module outside it that they import (fields.py, the refusals' fields).
    """
    root = Path(__file__).resolve().parent.parent
    target = folder / "kafka_tui_planning.zip"
    with zipfile.ZipFile(target, "w") as archive:
        archive.writestr("kafka_tui/__init__.py", "")
        archive.write(root / "fields.py", "kafka_tui/fields.py")
        for source in sorted((root / "planning").glob("*.py")):
            archive.write(source, f"kafka_tui/planning/{source.name}")
    return target


def _session(master: str, groups: int, folder: Path) -> Any:
    from pyspark.sql import SparkSession

    if master.startswith("sc://"):
        spark = SparkSession.builder.remote(master).getOrCreate()
        spark.addArtifacts(str(_package_zip(folder)), pyfile=True)
        return spark
    if master.startswith("local"):
        # PySpark starts its Python workers with $PYSPARK_PYTHON, else "python3" (the
        # spark.pyspark.python setting below serves spark-submit only): without this, a local
        # run from any folder but the repository's root found no kafka_tui in its workers.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (
        SparkSession.builder.master(master)
        .appName("kafka-tui plan")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.execution.pythonUDF.arrow.enabled", "false")
        .config("spark.sql.shuffle.partitions", str(max(1, min(groups, 200))))
        .config("spark.pyspark.python", sys.executable)
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    if not master.startswith("local"):
        spark.sparkContext.addPyFile(str(_package_zip(folder)))
    return spark


def _watch_tasks(spark: Any, total: int, stream: TextIO, stop: threading.Event) -> None:
    """Classic Spark only: completed tasks of the running jobs, as place progress."""
    tracker = spark.sparkContext.statusTracker()
    last = -1
    while not stop.wait(0.5):
        done = 0
        for stage_id in tracker.getActiveStageIds():
            info = tracker.getStageInfo(stage_id)
            if info is not None and info.numTasks == total:
                done = max(done, info.numCompletedTasks)
        if done != last and done:
            _progress(stream, "place", done, total)
            last = done


def run(input_path: Path, output_path: Path, master: str, progress: TextIO) -> None:
    prepared_json = json.loads(input_path.read_text())
    prepared = plan_io.prepared_from_json(prepared_json)
    total = len(prepared.groups)
    common = {k: v for k, v in prepared_json.items() if k != "groups"}
    _progress(progress, "session", 0, 1)
    with tempfile.TemporaryDirectory(prefix="kafka-tui-spark-") as folder:
        spark = _session(master, total, Path(folder))
        try:
            _progress(progress, "session", 1, 1)
            from pyspark.sql import functions as F
            from pyspark.sql.types import StringType, StructField, StructType

            rows = [
                (g["index"], json.dumps({"common": common, "group": g}))
                for g in prepared_json["groups"]
            ]
            del prepared_json
            schema = StructType(
                [StructField("text", StringType()), StructField("tally", StringType())]
            )
            placed = F.udf(place_group, schema)
            frame = (
                spark.createDataFrame(rows, "index long, payload string")
                .repartition(max(1, min(total, 200)), "index")
                .select("index", placed("payload").alias("r"))
                .select("index", "r.text", "r.tally")
                .persist()
            )
            del rows
            _progress(progress, "place", 0, total)
            stop = threading.Event()
            if not master.startswith("sc://"):
                watcher = threading.Thread(
                    target=_watch_tasks,
                    args=(spark, max(1, min(total, 200)), progress, stop),
                    daemon=True,
                )
                watcher.start()
            try:
                frame.count()
            finally:
                stop.set()
            _progress(progress, "place", total, total)
            partial = output_path.with_name(output_path.name + ".partial")
            with partial.open("w") as out:
                write_document(out, prepared, _in_order(frame, progress, total), "spark")
            partial.replace(output_path)
            frame.unpersist()
        finally:
            spark.stop()
    _progress(progress, "done", 1, 1)


def read_parquet(spark: Any, plan: str, out: TextIO, progress: TextIO) -> None:
    """The plan file's rows as JSON lines: `{"columns": [...]}`, then one array per row."""
    from pyspark.sql import functions as F

    frame = spark.read.parquet(plan)
    columns = list(frame.columns)
    out.write(json.dumps({"columns": columns}) + "\n")
    total = frame.count()
    _progress(progress, "read", 0, total)
    ordered = frame.select(
        *[F.col("`" + c.replace("`", "``") + "`") for c in columns],
        F.col("_metadata.file_path").alias("__file"),
        F.col("_metadata.row_index").alias("__row"),
    ).orderBy("__file", "__row")
    for done, row in enumerate(ordered.toLocalIterator(), start=1):
        out.write(json.dumps([_plain(row[i]) for i in range(len(columns))]) + "\n")
        if done % 10_000 == 0 or done == total:
            _progress(progress, "read", done, total)


def _plain(value: Any) -> Any:
    """A Spark value as JSON: maps and structs as objects, decimals and dates as text."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", errors="replace")
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if hasattr(value, "asDict"):
        return {str(k): _plain(v) for k, v in value.asDict().items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return str(value)


def run_read(plan: str, output_path: Path, master: str, progress: TextIO) -> None:
    _progress(progress, "session", 0, 1)
    with tempfile.TemporaryDirectory(prefix="kafka-tui-spark-") as folder:
        spark = _session(master, 1, Path(folder))
        try:
            _progress(progress, "session", 1, 1)
            partial = output_path.with_name(output_path.name + ".partial")
            with partial.open("w") as out:
                read_parquet(spark, plan, out, progress)
            partial.replace(output_path)
        finally:
            spark.stop()
    _progress(progress, "done", 1, 1)


def _in_order(frame: Any, progress: TextIO, total: int) -> Iterator[tuple[str, Tally]]:
    for done, row in enumerate(frame.orderBy("index").toLocalIterator(), start=1):
        yield row["text"], Tally.from_json(json.loads(row["tally"]))
        _progress(progress, "write", done, total)


def _end_children() -> None:
    """Kill what this process started: a cancel that lands while PySpark is still starting
    its JVM leaves that JVM (1 GB heap) running on its own, with no session to stop."""
    me = str(os.getpid())
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[1] == me:
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(stat.parent.name), signal.SIGKILL)


def _cancel(signum: int, frame: FrameType | None) -> None:
    raise Cancelled(signal.Signals(signum).name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kafka_tui.planning.spark_job")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--input", type=Path, help="a prepared plan to place")
    what.add_argument("--read-parquet", metavar="PLAN", help="a Parquet plan file to read")
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--master", default="local[*]")
    args = parser.parse_args(argv)
    # Progress keeps the real stdout; anything else that writes to fd 1 (the JVM inherits it)
    # lands on stderr with Spark's logging.
    progress = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    signal.signal(signal.SIGTERM, _cancel)
    signal.signal(signal.SIGINT, _cancel)
    try:
        if args.read_parquet:
            run_read(args.read_parquet, args.output, args.master, progress)
        else:
            run(args.input, args.output, args.master, progress)
    except (Cancelled, KeyboardInterrupt) as exc:
        _end_children()
        _progress(progress, "cancelled", 0, 1)
        print(f"cancelled ({exc})", file=sys.stderr)
        return CANCELLED
    except Exception as exc:
        # Spark's own errors carry the JVM's stack after their first line: that goes to the log
        message = str(exc).strip().split("\n", 1)[0]
        progress.write(json.dumps({"stage": "error", "message": message}) + "\n")
        progress.flush()
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main())
