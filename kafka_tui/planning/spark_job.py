"""The plan's placement inside Spark: `python -m kafka_tui.planning.spark_job --input IN
--output OUT [--master URL]`; and a Parquet plan file read by Spark: `--read-parquet PLAN
--output OUT` (the rows as JSON lines, for `plan_parquet.parse_rows`).

IN is a prepared plan (`plan_prepared.prepared_to_json`); OUT receives the same document the
in-process planner writes, byte for byte apart from the "engine" line: each group runs
`plan.run_group` in a Python UDF over a DataFrame (one row per group, one group per task; the
DataFrame API, so Spark Connect `sc://` works too), the rows come back to the driver one group
at a time in group order (`toLocalIterator`, never a collect), and `plan.write_document`
writes them. `--conf KEY=VALUE` (repeatable) passes Spark settings to the session; the
executors' Python is chosen as `executor_python` says.

Progress: one JSON line per step on stdout, `{"stage", "done", "total"}`; Spark's own output
(log4j, the JVM) goes to stderr, which the caller points at a log file. SIGTERM and SIGINT
stop the Spark session and exit 130 without writing OUT.

Parquet: Spark reads it in the JVM (pyarrow comes only with the `spark` extra, for the Spark
Connect client); the rows come back in the file's order (part files by name, then row index:
Spark's scan order is by split size) and the caller checks them with the CSV's rules.

The UDF is a plain Python UDF, not Arrow's `mapInArrow` / `mapInPandas`: a group is one row of
JSON in and out, so Arrow batches would carry a few rows each (not measured: the plain UDF stays).
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
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

from kafka_tui.planning import plan_prepared
from kafka_tui.planning.bulk_plan import Tally, run_group, write_document
from kafka_tui.planning.plan_parquet import plain_value

CANCELLED = 130
APP_NAME = "kafka-tui plan"


class Cancelled(Exception):
    pass


def _progress(stream: TextIO, stage: str, done: int, total: int) -> None:
    stream.write(json.dumps({"stage": stage, "done": done, "total": total}) + "\n")
    stream.flush()


def watch_tasks(
    spark: Any, tasks: int, stream: TextIO, stop: threading.Event, units: int | None = None
) -> None:
    """Classic Spark only (a thread until `stop`): the completed tasks of the stage of `tasks`
    tasks as "read" progress lines, in `units` (e.g. records, spread evenly over the tasks)
    or in tasks."""
    tracker = spark.sparkContext.statusTracker()
    last = -1
    total = tasks if units is None else units
    while not stop.wait(0.5):
        done = 0
        for stage_id in tracker.getActiveStageIds():
            info = tracker.getStageInfo(stage_id)
            if info is not None and info.numTasks == tasks:
                done = max(done, info.numCompletedTasks)
        if done > last and done:
            _progress(stream, "read", total * done // tasks, total)
            last = done


def job_main(prog: str, argv: list[str] | None, run: Any) -> int:
    """The main of a job that takes (job file, output, master, KEY=VALUE...) and calls
    `run(job, output, master, progress, conf)`: the key and search jobs' main (see `serve`)."""
    parser = argparse.ArgumentParser(prog=prog)
    # Positional, so no flag name lives below the front ends (tests/unit/test_no_flags_*).
    parser.add_argument("job", type=Path)
    parser.add_argument("output", type=Path)
    parser.add_argument("master")
    parser.add_argument("conf", nargs="*", metavar="KEY=VALUE", help="Spark settings")
    args = parser.parse_args(argv)
    conf = dict(item.split("=", 1) for item in args.conf if "=" in item)
    return serve(
        lambda progress: run(args.job, args.output, args.master, progress, conf), args.master, conf
    )


def serve(work: Callable[[TextIO], None], master: str, conf: dict[str, str]) -> int:
    """Run a job's `work` with its progress lines on the real stdout (anything else written
    to fd 1, the JVM's included, lands on stderr with Spark's logging); SIGTERM and SIGINT
    cancel it (and kill what it started: `_end_children`); a failure is said as one "error"
    progress line, its stack left to the log. Every job's main ends here."""
    progress = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    signal.signal(signal.SIGTERM, _cancel)
    signal.signal(signal.SIGINT, _cancel)
    try:
        work(progress)
    except (Cancelled, KeyboardInterrupt) as exc:
        _end_children()
        _progress(progress, "cancelled", 0, 1)
        print(f"cancelled ({exc})", file=sys.stderr)
        return CANCELLED
    except Exception as exc:
        # Spark's own errors carry the JVM's stack after their first line: that goes to the log
        message = explain_failure(exc, master, conf)
        progress.write(json.dumps({"stage": "error", "message": message}) + "\n")
        progress.flush()
        raise
    return 0


def place_group(payload: str) -> tuple[str, str]:
    """Executor side: one group (JSON) -> (its topic entries, its tally as JSON)."""
    data = json.loads(payload)
    brokers = plan_prepared.prepared_from_json({**data["common"], "groups": []}).brokers
    text, tally = run_group(brokers, plan_prepared.group_from_json(data["group"]))
    return text, json.dumps(tally.to_json())


def package_zip(folder: Path, name: str, members: Sequence[str] | None) -> Path:
    """kafka_tui's modules as `folder/name`, for executors that do not have kafka-tui
    installed: `members` (globs relative to the package; the package's __init__ left empty),
    or the whole package (None)."""
    root = Path(__file__).resolve().parent.parent
    target = folder / name
    with zipfile.ZipFile(target, "w") as archive:
        if members is None:
            for source in sorted(root.rglob("*.py")):
                archive.write(source, f"kafka_tui/{source.relative_to(root).as_posix()}")
            _ship_native(archive)
            return target
        archive.writestr("kafka_tui/__init__.py", "")
        for pattern in members:
            for source in sorted(root.glob(pattern)):
                archive.write(source, f"kafka_tui/{source.relative_to(root).as_posix()}")
        _ship_native(archive)
    return target


def _ship_native(archive: zipfile.ZipFile) -> None:
    """Name the placer's compiled build in the zip when this process places with it: an
    executor that sees the same folder uses it (planning/_native.py, `shipped_build`)."""
    from kafka_tui import planning
    from kafka_tui.planning import _native

    if planning.NATIVE and "kafka_tui/planning/_native.py" in archive.namelist():
        archive.writestr(f"kafka_tui/planning/{_native.SHIPPED}", _native.shipped())


# The plan job's executors import only the pure planning modules and the one module outside
# planning/ that they import (fields.py, the refusals' fields).
_PLAN_MEMBERS = ("fields.py", "planning/*.py")
_PLAN_DEFAULTS = {"spark.sql.execution.pythonUDF.arrow.enabled": "false"}


# What Spark reads to pick the executors' Python (pyspark 4.3; `executor_python` says where):
# the job sets it, so workers never run whatever `python3` is first on their PATH.
SQL_PYTHON = "spark.sql.execution.pyspark.python"
PYSPARK_PYTHON = "spark.pyspark.python"


def executor_python(conf: dict[str, str], environ: dict[str, str] | None = None) -> str:
    """The Python the executors start for the plan's UDF.

    PySpark (classic) bakes `sc.pythonExec` into every Python UDF, and that is
    `$PYSPARK_PYTHON` else "python3", read when the SparkContext starts
    (pyspark/core/context.py); the JVM's UDF runners use `spark.sql.execution.pyspark.python`
    instead when it is set (BasePythonUDFRunner, SQLConf.PYSPARK_WORKER_PYTHON_EXECUTABLE).
    `spark.pyspark.python` is read only by spark-submit when it starts a .py application
    (deploy/PythonRunner), which turns it into $PYSPARK_PYTHON: this job, started as
    `python -m`, does the same. Default: this Python (the driver's venv), which is right on
    local masters and on workers of the same machine; a cluster elsewhere names its own.
    """
    environ = dict(os.environ) if environ is None else environ
    return (
        conf.get(SQL_PYTHON)
        or conf.get(PYSPARK_PYTHON)
        or environ.get("PYSPARK_PYTHON")
        or sys.executable
    )


def session(
    master: str,
    folder: Path,
    conf: dict[str, str],
    *,
    app_name: str,
    defaults: Mapping[str, str],
    zip_name: str,
    members: Sequence[str] | None,
) -> Any:
    """A session named `app_name` with a job's `defaults`, then the user's settings (`conf`)
    over them; executors off this machine get kafka_tui's `members` as `zip_name`
    (package_zip). The plan job and the key job (services/key_job.py) both start theirs here.
    On a classic master the driver JVM maps its class archive (spark_archive.py; the first job
    writes it) where it can."""
    from pyspark.sql import SparkSession

    settings = {"spark.ui.showConsoleProgress": "false", **defaults}
    if master.startswith("sc://"):
        # Connect: only session (SQL) settings can change here (the client drops the others
        # silently); the rest is the server's. Its Python workers run the server's own
        # $PYSPARK_PYTHON, else $PYSPARK_DRIVER_PYTHON, else "python3"
        # (SparkConnectPlanner.pythonExec), unless the session sets SQL_PYTHON.
        builder = SparkSession.builder.remote(master)
        named = conf.get(SQL_PYTHON) or conf.get(PYSPARK_PYTHON)
        for key, value in {**settings, **conf}.items():
            if key != PYSPARK_PYTHON and not key.startswith("spark.ui."):
                builder = builder.config(key, value)
        if named:
            builder = builder.config(SQL_PYTHON, named)
        spark = builder.getOrCreate()
        spark.addArtifacts(str(package_zip(folder, zip_name, members)), pyfile=True)
        return spark
    # here, not at the top: the executors import this module from a zip without paths.py
    from kafka_tui.planning import spark_archive

    python = executor_python(conf)
    os.environ["PYSPARK_PYTHON"] = python
    builder = SparkSession.builder.master(master).appName(app_name)
    for key, value in {"spark.ui.enabled": "false", **settings, **conf}.items():
        builder = builder.config(key, value)
    part = None
    if spark_archive.usable(_spark_home(), conf):
        flags, part = spark_archive.driver_flags(_spark_home())
        submit = [os.environ.get(spark_archive.SUBMIT_OPTS, ""), *flags]
        os.environ[spark_archive.SUBMIT_OPTS] = " ".join(submit).strip()
    spark = builder.config(PYSPARK_PYTHON, python).getOrCreate()
    if part is not None:
        spark_archive.finish_at_exit(spark, part)
    spark.sparkContext.setLogLevel("ERROR")
    if not master.startswith("local"):
        spark.sparkContext.addPyFile(str(package_zip(folder, zip_name, members)))
    return spark


def _spark_home() -> Path:
    """Where PySpark starts its JVM from ($SPARK_HOME, else the pyspark package)."""
    from pyspark.find_spark_home import _find_spark_home

    return Path(_find_spark_home())


def _session(master: str, folder: Path, conf: dict[str, str]) -> Any:
    return session(
        master,
        folder,
        conf,
        app_name=APP_NAME,
        defaults=_PLAN_DEFAULTS,
        zip_name="kafka_tui_planning.zip",
        members=_PLAN_MEMBERS,
    )


def explain_failure(exc: BaseException, master: str, conf: dict[str, str]) -> str:
    """The first line of Spark's error, or a sentence saying the executors' Python could not
    run the job, naming that Python and the setting that changes it."""
    text = str(exc)
    first = text.strip().split("\n", 1)[0]
    where = "the Connect server's" if master.startswith("sc://") else "the executors'"
    python = conf.get(SQL_PYTHON) or conf.get(PYSPARK_PYTHON)
    if not master.startswith("sc://"):
        python = executor_python(conf)
    named = f" ({python})" if python else ""
    fix = (
        f"set the Spark setting {PYSPARK_PYTHON}=PATH to a Python {sys.version_info[0]}."
        f"{sys.version_info[1]} that the executors have"
    )
    for clue in ("No module named", "ModuleNotFoundError", "ImportError"):
        if clue in text:
            missing = text[text.index(clue) :].split("\n", 1)[0].strip().rstrip(")")
            return f"{where} Python{named} cannot import the plan job ({missing}); {fix}"
    if "Cannot run program" in text or "error=2, No such file" in text:
        return f"{where} Python{named} cannot be started; {fix}"
    if "Python in worker has different version" in text:
        return f"{where} Python{named} is another version than the driver's; {fix}"
    if "Python worker exited unexpectedly" in text or "Python worker failed to connect" in text:
        return f"{where} Python{named} exited before running the plan job; {fix} ({first})"
    return first


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
        if done > last and done:  # the next stage of the same job starts again at 0
            _progress(stream, "place", done, total)
            last = done


def run(
    input_path: Path,
    output_path: Path,
    master: str,
    progress: TextIO,
    conf: dict[str, str] | None = None,
) -> None:
    prepared_json = json.loads(input_path.read_text())
    prepared = plan_prepared.prepared_from_json(prepared_json)
    total = len(prepared.groups)
    common = {k: v for k, v in prepared_json.items() if k != "groups"}
    _progress(progress, "session", 0, 1)
    with tempfile.TemporaryDirectory(prefix="kafka-tui-spark-") as folder:
        spark = _session(master, Path(folder), conf or {})
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
            # One group per task: range partitioning by the group's index gives each of the
            # `total` partitions exactly one group (its sample is every row, as there are as
            # many rows as partitions), where a hash repartition left slots idle (13 groups
            # on 13 partitions kept 8 busy). Range partitions are in index order, so sorting
            # within them orders the whole frame without another shuffle.
            frame = (
                spark.createDataFrame(rows, "index long, payload string")
                .repartitionByRange(total, "index")
                .select("index", placed("payload").alias("r"))
                .select("index", "r.text", "r.tally")
                .persist()
            )
            del rows
            _progress(progress, "place", 0, total)
            stop = threading.Event()
            if not master.startswith("sc://"):
                watcher = threading.Thread(
                    target=_watch_tasks, args=(spark, total, progress, stop), daemon=True
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
        out.write(json.dumps([plain_value(row[i]) for i in range(len(columns))]) + "\n")
        if done % 10_000 == 0 or done == total:
            _progress(progress, "read", done, total)


def run_read(
    plan: str,
    output_path: Path,
    master: str,
    progress: TextIO,
    conf: dict[str, str] | None = None,
) -> None:
    _progress(progress, "session", 0, 1)
    with tempfile.TemporaryDirectory(prefix="kafka-tui-spark-") as folder:
        spark = _session(master, Path(folder), conf or {})
        try:
            _progress(progress, "session", 1, 1)
            partial = output_path.with_name(output_path.name + ".partial")
            with partial.open("w") as out:
                read_parquet(spark, plan, out, progress)
            partial.replace(output_path)
        finally:
            spark.stop()
    _progress(progress, "done", 1, 1)


def run_stream(
    plan: str,
    job_path: Path,
    output: Path,
    master: str,
    progress: TextIO,
    conf: dict[str, str] | None = None,
) -> None:
    """A plan file read, placed and written as a parts directory by Spark (`spark_parts.py`):
    OUT/topics/ by the executors, OUT/summary.json last (its presence means done)."""
    from kafka_tui.planning import spark_parts

    job = json.loads(job_path.read_text())
    _progress(progress, "session", 0, 1)
    with tempfile.TemporaryDirectory(prefix="kafka-tui-spark-") as folder:
        spark = _session(master, Path(folder), conf or {})
        try:
            _progress(progress, "session", 1, 1)
            _size_shuffles(spark, plan, conf or {})
            show = spark_parts.progress_to(progress)
            summary = spark_parts.stream_plan(spark, plan, job, output, show)
            spark_parts.write_summary(output, summary)
        finally:
            spark.stop()
    _progress(progress, "done", 1, 1)


SHUFFLE_PARTITIONS = "spark.sql.shuffle.partitions"
_SHUFFLE_BYTES = 32 << 20


def _size_shuffles(spark: Any, plan: str, conf: dict[str, str]) -> None:
    """The streamed plan's shuffles (twins, duplicates, the cluster's topics joined) sized
    from the plan and the cluster unless the user set them (Spark's default of 200 made
    small plans twice as slow: bench/README.md, "Figures behind constants"). One per 32 MiB
    of plan file, at least the cluster's default parallelism (Connect has no SparkContext to
    ask: 4)."""
    if SHUFFLE_PARTITIONS in conf:
        return
    path = Path(plan)
    if not path.exists():  # hdfs://, s3a://: Spark's default stands
        return
    files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
    size = sum(p.stat().st_size for p in files)
    try:
        cores = int(spark.sparkContext.defaultParallelism)
    except Exception:  # Spark Connect
        cores = 4
    spark.conf.set(SHUFFLE_PARTITIONS, str(max(cores, -(-size // _SHUFFLE_BYTES))))


def _in_order(frame: Any, progress: TextIO, total: int) -> Iterator[tuple[str, Tally]]:
    ordered = frame.sortWithinPartitions("index").toLocalIterator()
    for done, row in enumerate(ordered, start=1):
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
    what.add_argument("--stream", metavar="PLAN", help="a plan file to read, place and write")
    parser.add_argument("--job", type=Path, help="--stream: the cluster and options (JSON)")
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--master", default="local[*]")
    parser.add_argument(
        "--conf", action="append", default=[], metavar="KEY=VALUE", help="a Spark setting"
    )
    args = parser.parse_args(argv)
    conf = dict(item.split("=", 1) for item in args.conf if "=" in item)

    def work(progress: TextIO) -> None:
        if args.read_parquet:
            run_read(args.read_parquet, args.output, args.master, progress, conf)
        elif args.stream:
            run_stream(args.stream, args.job, args.output, args.master, progress, conf)
        else:
            run(args.input, args.output, args.master, progress, conf)

    return serve(work, args.master, conf)


if __name__ == "__main__":
    sys.exit(main())
