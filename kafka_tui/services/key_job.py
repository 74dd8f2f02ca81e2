"""`topics keys` on the Spark engine, inside Spark: `python -m kafka_tui.services.key_job JOB
OUT MASTER [KEY=VALUE]...` (the last: Spark settings).

JOB (a private file: it carries the profile's connection settings, secrets included, pickled)
holds the topic, the offset ranges and the connection settings. `spark.range` over the ranges'
indexes, one per task, goes through `mapInArrow`: each executor reads its range with
kafka-tui's own reader (admin/key_reader.py, Fetch requests of its own; the DataFrame API, so
Spark Connect `sc://` works too and no Kafka jar is needed anywhere) and yields its tally
(planning/key_stats.py; for a compacted topic with each key's latest record, JOB's `latest`);
Spark groups the tallies by (partition, key), keeping of the latest records the one of the
highest offset (`max_by`, as `key_stats.merge` does), and only that table (one
row per distinct key and partition) comes back to the driver, written to OUT as Arrow IPC for
`key_stats.merge` and `key_stats.report`, the same calls the in-process engine ends with.

Progress: JSON lines on stdout (`{"stage", "done", "total"}`; `{"stage": "error", "message"}`),
as planning/spark_job.py writes them, so services/key_report.py follows it the same way; the
session builder, the executors' Python and the failure sentences are that job's (`session`
with this job's name, JVM options and archive; `explain_failure`).
"""

from __future__ import annotations

import asyncio
import pickle
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from kafka_tui.admin.key_reader import OffsetRange, read_keys
from kafka_tui.admin.model import ConnectionSettings
from kafka_tui.planning import key_stats
from kafka_tui.planning.spark_job import _progress, job_main, session, watch_tasks

APP_NAME = "kafka-tui topics keys"
# The JVMs' only client JIT (C1) and the serial collector: a job of seconds, whose JVM time is
# mostly its own start and Spark's planning, spent ~28 CPU-s in the JVM with both compilers
# and G1 at 1,000,000 records on local[2], ~16 with these (bench/topic_keys.py). Not sent
# over Spark Connect (the server's JVMs are its own).
JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
DEFAULTS = {
    "spark.driver.extraJavaOptions": JVM_OPTIONS,
    "spark.executor.extraJavaOptions": JVM_OPTIONS,
}
SHUFFLE_PARTITIONS = "spark.sql.shuffle.partitions"
# key_stats.TALLY_SCHEMA in Spark's words.
_TALLY_DDL = (
    "partition int, key binary, records long, bytes long, first_ms long, last_ms long, "
    "latest_offset long, latest_bytes long, latest_ms long, latest_tombstone boolean"
)


def tally_ranges(
    settings: ConnectionSettings, topic: str, ranges: list[OffsetRange], latest: bool = False
) -> Any:
    """The executors' function over `spark.range` ids: range `id` read, its tally yielded
    (`latest`: with each (partition, key)'s latest record, a compacted topic's count)."""

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        for batch in batches:
            for index in batch.column(0).to_pylist():
                yield from _tally_range(settings, topic, ranges[index], latest).to_batches()

    return run


def _tally_range(
    settings: ConnectionSettings, topic: str, offsets: OffsetRange, latest: bool
) -> Any:
    aggregator = key_stats.KeyAggregator(latest)
    asyncio.run(read_keys(settings, topic, [offsets], lambda c: aggregator.add_rows(*c), latest))
    return aggregator.tally()


def _session(master: str, folder: Path, conf: dict[str, str], app_name: str = APP_NAME) -> Any:
    """The plan job's session builder with the reading jobs' name and defaults (this one's,
    and the search job's under its own name); executors off this machine get the whole of
    kafka_tui (they need its dependencies: aiokafka, kio, pyarrow, numpy)."""
    return session(
        master,
        folder,
        conf,
        app_name=app_name,
        defaults={} if master.startswith("sc://") else DEFAULTS,
        zip_name="kafka_tui_keys.zip",
        members=None,
    )


def run(job_path: Path, output: Path, master: str, progress: TextIO, conf: dict[str, str]) -> None:
    import pyarrow as pa

    job = pickle.loads(job_path.read_bytes())
    ranges: list[OffsetRange] = job["ranges"]
    total = len(ranges)
    _progress(progress, "session", 0, 1)
    with tempfile.TemporaryDirectory(prefix="kafka-tui-spark-") as folder:
        spark = _session(master, Path(folder), conf)
        try:
            _progress(progress, "session", 1, 1)
            if SHUFFLE_PARTITIONS not in conf and not master.startswith("sc://"):
                # The tallies' grouping: one partition per core, not Spark's 200 (each a task).
                parallelism = spark.sparkContext.defaultParallelism
                spark.conf.set(SHUFFLE_PARTITIONS, str(parallelism))
            from pyspark.sql import functions as F

            # One range per task: spark.range splits its ids evenly, so n ids in n slices
            # give each task one id (no sampling job, as repartitionByRange would run).
            read = tally_ranges(job["settings"], job["topic"], ranges, job.get("latest", False))
            # As key_stats.merge: sums, and of the latest records the highest offset's.
            latest = [
                F.max_by(name, "latest_offset").alias(name)
                for name in key_stats.LATEST
                if name != "latest_offset"
            ]
            frame = (
                spark.range(0, total, 1, max(1, total))
                .mapInArrow(read, _TALLY_DDL)
                .groupBy("partition", "key")
                .agg(
                    F.sum("records").alias("records"),
                    F.sum("bytes").alias("bytes"),
                    F.min("first_ms").alias("first_ms"),
                    F.max("last_ms").alias("last_ms"),
                    F.max("latest_offset").alias("latest_offset"),
                    *latest,
                )
            )
            _progress(progress, "read", 0, total)
            stop = threading.Event()
            if not master.startswith("sc://"):
                watcher = threading.Thread(
                    target=watch_tasks, args=(spark, total, progress, stop), daemon=True
                )
                watcher.start()
            try:
                table = frame.toArrow()
            finally:
                stop.set()
            _progress(progress, "read", total, total)
            tally = key_stats.merge([table.cast(key_stats.TALLY_SCHEMA)])
            partial = output.with_name(output.name + ".partial")
            with pa.OSFile(str(partial), "wb") as sink, pa.ipc.new_file(sink, tally.schema) as w:
                w.write_table(tally)
            partial.replace(output)
        finally:
            spark.stop()
    _progress(progress, "done", 1, 1)


def main(argv: list[str] | None = None) -> int:
    return job_main("python -m kafka_tui.services.key_job", argv, run)


if __name__ == "__main__":
    sys.exit(main())
