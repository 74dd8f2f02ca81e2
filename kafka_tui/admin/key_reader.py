"""Every record's key, size and timestamp over offset ranges, for `topics keys` (issue 51).

Small and key-oriented (records.py is the general reader): aiokafka's consumer with `assign`
+ `seek` and no group (nothing joined, nothing committed), `read_committed` (aborted
transactions and control batches are skipped, so they are not counted), the profile's
security settings. A range is (partition, start, end), end exclusive: the offsets are taken
once, at the start (`offset_ranges`), so records produced while reading are not counted.
The same reader runs in process and inside Spark's executors (one range or several each).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from aiokafka.errors import KafkaError

from .connection import security_kwargs
from .errors import AdminError
from .model import ConnectionSettings

# Bigger fetches than aiokafka's 1 MB per partition: a whole-topic scan is throughput-bound.
_PARTITION_FETCH_BYTES = 8 << 20
# A range whose position does not move for this long (no record, no skipped batch) fails.
STALL_S = 60.0

# One fetch's records as columns: partitions, keys (None: no key), sizes (key + value bytes,
# headers aside), timestamps (ms).
KeyColumns = tuple[list[int], list[bytes | None], list[int], list[int]]


@dataclass(frozen=True)
class OffsetRange:
    partition: int
    start: int
    end: int  # exclusive

    @property
    def records(self) -> int:
        return max(0, self.end - self.start)


def split_ranges(ranges: Sequence[OffsetRange], most: int) -> list[OffsetRange]:
    """Each range cut into ranges of at most `most` offsets (empty ranges dropped)."""
    out = []
    for r in ranges:
        for start in range(r.start, r.end, max(1, most)):
            out.append(OffsetRange(r.partition, start, min(r.end, start + max(1, most))))
    return out


def _consumer(settings: ConnectionSettings) -> Any:
    from aiokafka import AIOKafkaConsumer

    return AIOKafkaConsumer(
        bootstrap_servers=settings.bootstrap_servers,
        client_id=settings.client_id,
        request_timeout_ms=settings.request_timeout_ms,
        group_id=None,
        enable_auto_commit=False,
        isolation_level="read_committed",
        # Records gone to retention since the offsets were taken: count what is left.
        auto_offset_reset="earliest",
        max_partition_fetch_bytes=_PARTITION_FETCH_BYTES,
        **security_kwargs(settings),
    )


def _failed(topic: str, exc: KafkaError) -> AdminError:
    return AdminError("RECORDS_UNREADABLE", f"Cannot read the records of topic '{topic}': {exc}.")


async def offset_ranges(
    settings: ConnectionSettings, topic: str, partitions: int, since_ms: int | None = None
) -> list[OffsetRange]:
    """Each partition's range, from its log start (or the first offset at or after
    `since_ms`: ListOffsets by time) to its last stable offset now (read_committed's end)."""
    from aiokafka import TopicPartition

    consumer = _consumer(settings)
    tps = [TopicPartition(topic, p) for p in range(partitions)]
    try:
        await consumer.start()
        ends = await consumer.end_offsets(tps)
        if since_ms is None:
            starts = await consumer.beginning_offsets(tps)
        else:
            found = await consumer.offsets_for_times({tp: since_ms for tp in tps})
            starts = {tp: ends[tp] if at is None else at.offset for tp, at in found.items()}
    except KafkaError as exc:
        raise _failed(topic, exc) from None
    finally:
        await consumer.stop()
    return [OffsetRange(tp.partition, starts[tp], ends[tp]) for tp in tps]


async def read_keys(
    settings: ConnectionSettings,
    topic: str,
    ranges: Sequence[OffsetRange],
    take: Callable[[KeyColumns], None],
) -> int:
    """Read `ranges` (at most one per partition at a time: several of a partition are read one
    after another), handing each fetch's records to `take`; returns the records read."""
    from aiokafka import TopicPartition

    pending: dict[int, list[OffsetRange]] = {}
    for r in ranges:
        if r.records:
            pending.setdefault(r.partition, []).append(r)
    if not pending:
        return 0
    consumer = _consumer(settings)
    read = 0
    try:
        await consumer.start()
        current: dict[Any, OffsetRange] = {}

        def begin(partition: int) -> None:
            r = pending[partition].pop(0)
            if not pending[partition]:
                del pending[partition]
            tp = TopicPartition(topic, partition)
            current[tp] = r
            consumer.seek(tp, r.start)

        consumer.assign([TopicPartition(topic, p) for p in pending])
        for partition in list(pending):
            begin(partition)
        moved = time.monotonic()
        while current:
            fetched = await consumer.getmany(*current, timeout_ms=1000)
            partitions: list[int] = []
            keys: list[bytes | None] = []
            sizes: list[int] = []
            stamps: list[int] = []
            for tp, records in fetched.items():
                reading = current.get(tp)
                if reading is None:
                    continue
                if records and not (
                    reading.start <= records[0].offset and records[-1].offset < reading.end
                ):
                    records = [r for r in records if reading.start <= r.offset < reading.end]
                keys += [r.key for r in records]
                # a null key or value has size -1
                sizes += [
                    max(0, r.serialized_key_size) + max(0, r.serialized_value_size) for r in records
                ]
                stamps += [r.timestamp for r in records]
                partitions += [tp.partition] * len(records)
            if keys:
                take((partitions, keys, sizes, stamps))
                read += len(keys)
                moved = time.monotonic()
            for tp, r in list(current.items()):
                if await consumer.position(tp) >= r.end:
                    del current[tp]
                    if tp.partition in pending:
                        begin(tp.partition)
                        moved = time.monotonic()
            if fetched:
                moved = time.monotonic()
            elif time.monotonic() - moved > STALL_S:
                stuck = ", ".join(f"{tp.partition} (to {r.end})" for tp, r in current.items())
                raise AdminError(
                    "RECORDS_UNREADABLE",
                    f"Reading topic '{topic}' made no progress for {STALL_S:.0f} s on "
                    f"partitions {stuck}.",
                )
    except KafkaError as exc:
        raise _failed(topic, exc) from None
    finally:
        await consumer.stop()
    return read
