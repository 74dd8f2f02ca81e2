"""`topics keys`: a topic's keys at scale (issue 51): every record's key, size and timestamp
read once, from each partition's log start (or `since_ms`) to its last stable offset at the
start, and counted by planning/key_stats.py: per partition, hot keys, null keys, and what a
grow to each candidate count moves (Kafka's default partitioner).

Engines: "local" reads in this process (every partition at once, each from its leader) and
tallies as it reads; "spark" runs services/key_job.py as a subprocess on a Spark master (local[N], a
standalone cluster, Spark Connect `sc://`, with the plan job's settings), whose executors each
read offset ranges (a partition above RANGE_RECORDS is split) and return tallies. Both end in
`key_stats.merge` and `key_stats.report`, so both give the same numbers.

A compacted topic (cleanup.policy contains compact) is counted as compaction keeps it, whether
the cleaner has run or not: each key once per partition it was written to, with the size of
its latest record (the highest offset); a key whose latest record is a tombstone is deleted
and left out, and so are records without a key (Kafka refuses them on a compacted topic; the
cleaner drops any written before the policy changed); the report counts both
(key_stats.latest_only). Both engines then carry each key's latest record through the reads
and the merges.
(services/keys.py is the quick KEY_MAPPING_CHANGES check a grow makes; this is the full count.)
"""

from __future__ import annotations

import asyncio
import os
import pickle
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ..admin import AdminError
from ..admin.key_reader import KeyColumns, OffsetRange, offset_ranges, read_keys, split_ranges
from ..admin.model import ConnectionSettings
from ..fields import Field, FieldError
from ..planning import key_stats
from . import key_reports_saved
from .ports import AdminPort
from .spark_runner import run_module_job

if TYPE_CHECKING:
    import pyarrow as pa

Engine = Literal["local", "spark"]
Show = Callable[[str, int, int], None]  # stage, done, total
# Records per Spark task: a partition above this is read as several ranges in parallel.
RANGE_RECORDS = 250_000
CLEANUP_POLICY = "cleanup.policy"


@dataclass(frozen=True)
class KeyReportRequest:
    topic: str
    candidates: tuple[int, ...] = ()  # partition counts to weigh; none: twice the current
    engine: Engine = "local"
    spark_master: str = "local[*]"
    spark_conf: Mapping[str, str] = field(default_factory=dict)
    since_ms: int | None = None
    top: int = 10


@dataclass(frozen=True)
class KeyReportResult:
    report: key_stats.KeyReport
    compacted: bool
    engine: Engine
    ranges: int  # offset ranges read (Spark: one task each)


def _check(request: KeyReportRequest, current: int) -> tuple[int, ...]:
    candidates = request.candidates or (2 * current,)
    small = [n for n in candidates if n < current]
    if small:
        raise FieldError(
            Field.PARTITIONS,
            f"must be at least the topic's current count ({current}): partitions only grow; "
            f"got {', '.join(map(str, small))}",
        )
    return tuple(candidates)


async def key_report(
    admin: AdminPort, request: KeyReportRequest, show: Show = lambda *_: None
) -> KeyReportResult:
    """Read and count; AdminError when the topic cannot be read, FieldError on a bad field,
    RuntimeError(why) when the Spark job fails."""
    found, errors = await admin.describe_topics([request.topic])
    if errors or not found:
        error = errors[0] if errors else None
        raise AdminError(
            error.error if error and error.error else "UNKNOWN_TOPIC_OR_PARTITION",
            error.message if error else f"Topic '{request.topic}' does not exist.",
            request.topic,
        )
    topic = found[0]
    current = len(topic.partitions)
    candidates = _check(request, current)
    policy = topic.configs.get(CLEANUP_POLICY)
    compacted = bool(policy and policy.value and "compact" in policy.value)
    settings = admin.settings
    ranges = await offset_ranges(settings, request.topic, current, request.since_ms)
    if request.engine == "spark":
        split = split_ranges(ranges, RANGE_RECORDS)
        tally = await _spark_tally(request, settings, split, compacted, show)
        used = len(split)
    else:
        tally = await _local_tally(settings, request.topic, ranges, compacted, show)
        used = len([r for r in ranges if r.records])
    report = await asyncio.to_thread(
        key_stats.report, request.topic, tally, current, candidates, request.top, compacted
    )
    read_at_ms = int(time.time() * 1000)
    cluster_id = getattr(admin, "cluster_id", None)
    await asyncio.to_thread(
        key_reports_saved.save,
        cluster_id,
        request.topic,
        tally,
        current,
        read_at_ms,
        request.since_ms,
        compacted,
    )
    return KeyReportResult(report, compacted, request.engine, used)


async def _local_tally(
    settings: ConnectionSettings,
    topic: str,
    ranges: Sequence[OffsetRange],
    latest: bool,
    show: Show,
) -> pa.Table:
    aggregator = key_stats.KeyAggregator(latest)
    total = sum(r.records for r in ranges)
    show("read", 0, total)

    def take(columns: KeyColumns) -> None:
        aggregator.add_rows(*columns)
        show("read", aggregator.records, total)

    await read_keys(settings, topic, ranges, take, latest)
    show("read", total, total)
    return await asyncio.to_thread(aggregator.tally)


async def _spark_tally(
    request: KeyReportRequest,
    settings: ConnectionSettings,
    ranges: Sequence[OffsetRange],
    latest: bool,
    show: Show,
) -> pa.Table:
    """The Spark job's merged tally, read back from its Arrow file; RuntimeError(why)."""
    import pyarrow as pa

    folder = Path(await asyncio.to_thread(tempfile.mkdtemp, prefix="kafka-tui-keys-"))
    try:
        job = folder / "job.pickle"  # the settings carry secrets: this user's eyes only
        payload = pickle.dumps(
            {
                "topic": request.topic,
                "ranges": list(ranges),
                "settings": settings,
                "latest": latest,
            }
        )

        def write() -> None:
            fd = os.open(job, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as out:
                out.write(payload)

        await asyncio.to_thread(write)
        result = folder / "tally.arrow"
        conf = [f"{key}={value}" for key, value in request.spark_conf.items()]
        failure = await run_module_job(
            "kafka_tui.services.key_job", [str(job), str(result), request.spark_master, *conf], show
        )
        if failure is not None:
            raise RuntimeError(failure)

        def read() -> pa.Table:
            with pa.memory_map(str(result)) as source:
                return pa.ipc.open_file(source).read_all()

        return await asyncio.to_thread(read)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
