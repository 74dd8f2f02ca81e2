"""Whole records over offset ranges, for `messages search` (issue 51 point 4): the ranges are
taken once, at the start (`search_ranges`), so the in-process scan and Spark's executors (each
reading its own ranges) read exactly the same records.

The ranges' offsets from aiokafka's consumer (`assign`, no group); the records through
`messages read`'s own Fetch reader (records.read_ranges: nothing joined or committed), under
the isolation asked for (read_committed by default: aborted transactions and control batches
skipped), with the profile's security settings: the same `records.Record`, so the record
object printed is the same.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from aiokafka.errors import KafkaError

from .connection import security_kwargs
from .errors import AdminError
from .key_reader import OffsetRange
from .model import ConnectionSettings
from .records import Isolation, Record
from .records import read_ranges as records_in_ranges

# A whole-topic scan is throughput-bound: bigger fetches than aiokafka's 1 MB per partition.
_PARTITION_FETCH_BYTES = 8 << 20


def _consumer(settings: ConnectionSettings, isolation: Isolation) -> Any:
    from aiokafka import AIOKafkaConsumer

    return AIOKafkaConsumer(
        bootstrap_servers=settings.bootstrap_servers,
        client_id=f"{settings.client_id}-search",
        request_timeout_ms=settings.request_timeout_ms,
        group_id=None,
        enable_auto_commit=False,
        isolation_level=isolation,
        # Records gone to retention since the ranges were taken: scan what is left.
        auto_offset_reset="earliest",
        max_partition_fetch_bytes=_PARTITION_FETCH_BYTES,
        fetch_max_bytes=4 * _PARTITION_FETCH_BYTES,
        **security_kwargs(settings),
    )


def _failed(topic: str, exc: KafkaError) -> AdminError:
    return AdminError("RECORDS_UNREADABLE", f"Cannot read the records of topic '{topic}': {exc}.")


async def search_ranges(
    settings: ConnectionSettings,
    topic: str,
    partitions: Sequence[int],
    isolation: Isolation = "read_committed",
    from_ms: int | None = None,
    until_ms: int | None = None,
) -> list[OffsetRange]:
    """Each partition's range: from its log start (or the first record at or after
    `from_ms`) to its end now (read_committed: the last stable offset), cut at the first
    record newer than `until_ms` (ListOffsets by time for `until_ms + 1`: Kafka answers the
    first offset whose timestamp is at least that, as `messages read --until-time` stops)."""
    from aiokafka import TopicPartition

    consumer = _consumer(settings, isolation)
    tps = [TopicPartition(topic, p) for p in partitions]
    try:
        await consumer.start()
        ends = await consumer.end_offsets(tps)
        if from_ms is None:
            starts = await consumer.beginning_offsets(tps)
        else:
            found = await consumer.offsets_for_times({tp: from_ms for tp in tps})
            starts = {tp: ends[tp] if at is None else at.offset for tp, at in found.items()}
        if until_ms is not None:
            newer = await consumer.offsets_for_times({tp: until_ms + 1 for tp in tps})
            ends = {
                tp: ends[tp] if at is None else min(ends[tp], at.offset) for tp, at in newer.items()
            }
    except KafkaError as exc:
        raise _failed(topic, exc) from None
    finally:
        await consumer.stop()
    return [OffsetRange(tp.partition, starts[tp], max(starts[tp], ends[tp])) for tp in tps]


async def read_ranges(
    settings: ConnectionSettings,
    topic: str,
    ranges: Sequence[OffsetRange],
    take: Callable[[list[Record], int], bool],
    isolation: Isolation = "read_committed",
) -> None:
    """Read `ranges`, every partition at once (several ranges of one partition one after
    another), handing each fetch's records to `take` with the offsets passed over (records
    plus what read_committed skipped); `take` returns False to stop. `messages read`'s
    Fetch reader (records.read_ranges): the same records, leader epochs included."""
    by_partition: dict[int, list[tuple[int, int]]] = {}
    for r in ranges:
        if r.records:
            by_partition.setdefault(r.partition, []).append((r.start, r.end))
    if not by_partition:
        return
    reading = records_in_ranges(settings, topic, by_partition, isolation)
    try:
        async for out, passed in reading:
            if (out or passed) and not take(out, passed):
                return
    finally:
        await reading.aclose()
