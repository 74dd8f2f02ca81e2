"""`messages search` on the Spark engine, inside Spark: `python -m kafka_tui.services.search_job
JOB OUT MASTER [KEY=VALUE]...` (the last: Spark settings).

JOB (a private file: it carries the profile's connection settings, secrets included, pickled)
holds the topic, the offset ranges, the jq filter, the formats and what rebuilds the schemas.
As `topics keys`' job (services/key_job.py, whose session and packaging this job uses):
`spark.range` over the ranges' indexes, one per task, through `mapInArrow`; each executor reads
its range with kafka-tui's own reader (admin/range_reader.py), decodes each record and runs
the jq filter there (services/message_search.py's `matching`, the in-process engine's step),
and yields only the matches as (partition, offset, record object as a JSON line). Those rows
come back to the driver, written to OUT as Arrow IPC.

Progress: JSON lines on stdout (`{"stage", "done", "total"}`; `{"stage": "error", "message"}`)
that spark_runner.follow reads; "read" counts records: those of the ranges whose tasks ended
(the ranges are of about equal size, so: records x tasks done / tasks).
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

from kafka_tui.admin.key_reader import OffsetRange
from kafka_tui.planning.spark_job import _progress, job_main, watch_tasks
from kafka_tui.services.key_job import _session

APP_NAME = "kafka-tui messages search"

_MATCH_DDL = "partition int, offset long, line string"


def search_ranges(job: dict[str, Any]) -> Any:
    """The executors' function over `spark.range` ids: range `id` scanned, its matches
    yielded as Arrow batches."""

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        for batch in batches:
            for index in batch.column(0).to_pylist():
                yield from _search_range(job, job["ranges"][index])

    return run


def _search_range(job: dict[str, Any], offsets: OffsetRange) -> Iterator[Any]:
    import pyarrow as pa

    from kafka_tui.admin.range_reader import read_ranges
    from kafka_tui.services.codecs import decoder, sides
    from kafka_tui.services.message_search import document_line, matching
    from kafka_tui.services.messages import compile_filter

    partitions: list[int] = []
    offsets_out: list[int] = []
    lines: list[str] = []
    limit = job["limit"]
    with tempfile.TemporaryDirectory(prefix="kafka-tui-search-") as folder:
        recipe = job["schemas"]
        schemas = recipe.build(Path(folder)) if recipe is not None else None
        key_schemas, value_schemas = sides(schemas)
        key = decoder(job["key_format"], key_schemas)
        value = decoder(job["value_format"], value_schemas)
        keep = compile_filter(job["filter"])

        def take(records: list[Any], passed: int) -> bool:
            for d in matching(records, keep, key, value):
                partitions.append(d["partition"])
                offsets_out.append(d["offset"])
                lines.append(document_line(d))
            return limit is None or len(lines) < limit

        try:
            asyncio.run(
                read_ranges(job["settings"], job["topic"], [offsets], take, job["isolation"])
            )
        finally:
            close = getattr(schemas, "close", None)
            if close is not None:
                close()
    if limit is not None:
        del partitions[limit:], offsets_out[limit:], lines[limit:]
    if lines:
        yield pa.RecordBatch.from_arrays(
            [pa.array(partitions, pa.int32()), pa.array(offsets_out, pa.int64()), pa.array(lines)],
            names=["partition", "offset", "line"],
        )


def run(job_path: Path, output: Path, master: str, progress: TextIO, conf: dict[str, str]) -> None:
    import pyarrow as pa

    job = pickle.loads(job_path.read_bytes())
    ranges: list[OffsetRange] = job["ranges"]
    tasks = len(ranges)
    records = sum(r.records for r in ranges)
    _progress(progress, "session", 0, 1)
    with tempfile.TemporaryDirectory(prefix="kafka-tui-spark-") as folder:
        spark = _session(master, Path(folder), conf, APP_NAME)
        try:
            _progress(progress, "session", 1, 1)
            # One range per task: spark.range splits its ids evenly (see key_job).
            frame = spark.range(0, tasks, 1, max(1, tasks)).mapInArrow(
                search_ranges(job), _MATCH_DDL
            )
            _progress(progress, "read", 0, records)
            stop = threading.Event()
            if not master.startswith("sc://"):
                watcher = threading.Thread(
                    target=watch_tasks, args=(spark, tasks, progress, stop, records), daemon=True
                )
                watcher.start()
            try:
                table = frame.toArrow() if tasks else None
            finally:
                stop.set()
            _progress(progress, "read", records, records)
            if table is None:
                table = pa.table(
                    {
                        "partition": pa.array([], pa.int32()),
                        "offset": pa.array([], pa.int64()),
                        "line": pa.array([], pa.string()),
                    }
                )
            partial = output.with_name(output.name + ".partial")
            with pa.OSFile(str(partial), "wb") as sink, pa.ipc.new_file(sink, table.schema) as w:
                w.write_table(table)
            partial.replace(output)
        finally:
            spark.stop()
    _progress(progress, "done", 1, 1)


def main(argv: list[str] | None = None) -> int:
    return job_main("python -m kafka_tui.services.search_job", argv, run)


if __name__ == "__main__":
    sys.exit(main())
