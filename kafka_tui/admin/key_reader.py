"""Every record's key, size and timestamp over offset ranges, for `topics keys` (issue 51).

Small and key-oriented (records.py is the general reader). A range is (partition, start,
end), end exclusive: the offsets are taken once, at the start (`offset_ranges`, aiokafka's
consumer, read_committed: the last stable offset), so records produced while reading are not
counted. The same reader runs in process and inside Spark's executors (one range or several
each).

`read_keys` sends its own Fetch requests (record_fetch.py, which `messages read` uses too:
kio's schemas, v4-12, read_committed, no session, no group: nothing joined, nothing
committed) over kafka-tui's connection layer to each partition's leader, and walks the
answers' record batches with aiokafka's C batch readers (`MemoryRecords`: message format v2
batches and v0/v1 message sets, every codec aiokafka decompresses), taking only what a key
report needs: key, key + value size, timestamp.
aiokafka's consumer built a ConsumerRecord per record through Python code, ~65% of a read's
CPU (bench/topic_keys.py). As Kafka's consumer does under read_committed: control batches
are skipped, and so are the batches of a transaction the answer lists as aborted, from its
first offset until that producer's abort marker. While one answer's records are walked, the
next Fetch of those partitions is already on its way.
"""

from __future__ import annotations

import asyncio
import operator
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import AdminError, error_name, sentence
from .model import ConnectionSettings
from .record_fetch import READ_COMMITTED, FetchRequest, RecordConnection, data_batches
from .wire import code

# Bigger fetches than aiokafka's 1 MB per partition: a whole-topic scan is throughput-bound.
_PARTITION_FETCH_BYTES = 8 << 20
_FETCH_BYTES = 32 << 20
# The partition's leader moved, or is not known yet: read the metadata again, ask the new one.
# UNKNOWN_TOPIC_OR_PARTITION, LEADER_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER, KAFKA_STORAGE_ERROR,
# FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH, OFFSET_NOT_AVAILABLE
_LEADER_MOVED = frozenset({3, 5, 6, 56, 74, 75, 78})
_OFFSET_OUT_OF_RANGE = 1
# A range whose position does not move for this long (no record, no skipped batch) fails.
STALL_S = 60.0

# One fetch's records as columns: partitions, keys (None: no key), sizes (key + value bytes,
# headers aside), timestamps (ms); when read with `latest` (a compacted topic: each key's
# latest record counts), offsets and whether each value is null (a tombstone), else None.
KeyColumns = tuple[
    list[int], list[bytes | None], list[int], list[int], list[int] | None, list[bool] | None
]
_OFFSET = operator.attrgetter("offset")


@dataclass(frozen=True)
class OffsetRange:
    partition: int
    start: int
    end: int  # exclusive

    @property
    def records(self) -> int:
        return max(0, self.end - self.start)


def split_ranges(ranges: Sequence[OffsetRange], most: int) -> list[OffsetRange]:
    """Each range cut into equal ranges of at most `most` offsets (empty ranges dropped): a
    partition of 250,100 records is two tasks of 125,050, not one of 250,000 and one of 100."""
    out = []
    for r in ranges:
        pieces = -(-r.records // max(1, most))
        for i in range(pieces):
            start = r.start + r.records * i // pieces
            out.append(OffsetRange(r.partition, start, r.start + r.records * (i + 1) // pieces))
    return out


async def offset_ranges(
    settings: ConnectionSettings, topic: str, partitions: int, since_ms: int | None = None
) -> list[OffsetRange]:
    """Each partition's range, from its log start (or the first offset at or after
    `since_ms`: ListOffsets by time) to its last stable offset now (read_committed's end)."""
    async with RecordConnection(settings) as connection:
        found = await connection.ranges(topic, range(partitions), READ_COMMITTED, since_ms)
    return [OffsetRange(p, *found[p]) for p in range(partitions)]


@dataclass
class _Reading:
    """One partition's ranges left to read and where the current one stands."""

    ranges: list[OffsetRange]
    position: int
    end: int

    @classmethod
    def of(cls, ranges: list[OffsetRange]) -> _Reading:
        first = ranges.pop(0)
        return cls(ranges, first.start, first.end)

    def next_range(self) -> bool:
        """On to the partition's next range; False when none is left."""
        if not self.ranges:
            return False
        r = self.ranges.pop(0)
        self.position, self.end = r.start, r.end
        return True


class _Columns:
    """One answer's records as the columns `take` receives (`latest`: offsets and tombstones
    too)."""

    __slots__ = ("keys", "offsets", "partitions", "sizes", "stamps", "tombstones")

    def __init__(self, latest: bool = False) -> None:
        self.partitions: list[int] = []
        self.keys: list[bytes | None] = []
        self.sizes: list[int] = []
        self.stamps: list[int] = []
        self.offsets: list[int] | None = [] if latest else None
        self.tombstones: list[bool] | None = [] if latest else None

    def columns(self) -> KeyColumns:
        return (
            self.partitions,
            self.keys,
            self.sizes,
            self.stamps,
            self.offsets,
            self.tombstones,
        )

    def add(self, partition: int, records: list[Any]) -> None:
        keys = [r.key for r in records]
        values = [r.value for r in records]
        self.keys += keys
        self.sizes += list(map(operator.add, _lengths(keys), _lengths(values)))
        if self.offsets is not None and self.tombstones is not None:
            self.offsets += list(map(_OFFSET, records))
            self.tombstones += (
                [v is None for v in values] if None in values else [False] * len(values)
            )
        stamps = [r.timestamp for r in records]
        if None in stamps:  # message format v0: no timestamp, -1 as Kafka's consumer says
            stamps = [-1 if t is None else t for t in stamps]
        self.stamps += stamps
        self.partitions += [partition] * len(records)


def _lengths(values: list[Any]) -> list[int]:
    """Each value's length, 0 for a null one (map over C calls: ~10x a comprehension)."""
    try:
        return list(map(len, values))
    except TypeError:  # a null key or value
        return [0 if v is None else len(v) for v in values]


def _walk(
    partition: int, reading: _Reading, data: bytes, aborted: Sequence[Any], into: _Columns
) -> bool:
    """The whole batches of `data` into `into`, from the reading's position to its end;
    moves the position past them. False when `data` held no whole batch."""
    whole = False
    for batch, _, after in data_batches(data, aborted, READ_COMMITTED):
        whole = True
        start, end = reading.position, reading.end
        if start >= end:
            break
        if batch is not None:
            records = list(batch)
            if records and not (start <= records[0].offset and records[-1].offset < end):
                # A batch across the range's start or end (ranges cut a partition anywhere),
                # or a compressed v0/v1 message set holding records before the fetch offset.
                records = [r for r in records if start <= r.offset < end]
            into.add(partition, records)
        # A v2 batch's next offset counts records compaction removed from its end.
        reading.position = max(start, after)
    return whole


async def read_keys(
    settings: ConnectionSettings,
    topic: str,
    ranges: Sequence[OffsetRange],
    take: Callable[[KeyColumns], None],
    latest: bool = False,
) -> int:
    """Read `ranges` (several of a partition are read one after another), handing each
    answer's records to `take` (each partition's in offset order; `latest`: with offsets and
    tombstones); returns the records read."""
    by_partition: dict[int, list[OffsetRange]] = {}
    for r in ranges:
        if r.records:
            by_partition.setdefault(r.partition, []).append(r)
    left = {p: _Reading.of(rs) for p, rs in sorted(by_partition.items())}
    read = 0

    def deliver(columns: _Columns) -> None:
        nonlocal read
        if columns.keys:
            take(columns.columns())
            read += len(columns.keys)

    async with RecordConnection(settings) as connection:
        moved = time.monotonic()
        while left:
            before = {p: r.position for p, r in left.items()}
            leaders = await connection.leaders(topic)
            by_leader: dict[int, dict[int, _Reading]] = {}
            for p, reading in left.items():
                by_leader.setdefault(leaders.get(p, -1), {})[p] = reading
            if -1 not in by_leader:
                done = await asyncio.gather(
                    *(
                        _read_from(connection, b, topic, parts, deliver, latest)
                        for b, parts in by_leader.items()
                    )
                )
                for finished in done:
                    for p in finished:
                        del left[p]
            if before != {p: r.position for p, r in left.items()}:
                moved = time.monotonic()
            elif time.monotonic() - moved > STALL_S:
                raise _stalled(topic, left)
            else:  # a partition without a leader, or whose leader moved: metadata again
                await asyncio.sleep(0.5)
    return read


async def _read_from(
    connection: RecordConnection,
    broker: int,
    topic: str,
    readings: dict[int, _Reading],
    deliver: Callable[[_Columns], None],
    latest: bool,
) -> list[int]:
    """Fetch `readings` from their leader `broker` until each is read or moved; returns the
    partitions read to their end."""
    finished: list[int] = []
    active = dict(readings)
    moved = time.monotonic()
    answer: asyncio.Task[Any] | None = None
    try:
        while active:
            if answer is None:
                request = _request(topic, {p: r.position for p, r in active.items()})
                answer = asyncio.ensure_future(connection.fetch(broker, request))
            response = await answer
            answer = None
            columns = _Columns(latest)
            cut: list[int] = []
            for t in response.responses:
                for part in t.partitions:
                    p = part.partition_index
                    reading = active.get(p)
                    if reading is None:
                        continue
                    error = code(part.error_code)
                    if error in _LEADER_MOVED:
                        del active[p]  # asked again of its new leader
                        continue
                    if error == _OFFSET_OUT_OF_RANGE:
                        # Removed by retention since the offsets were taken: count what is left.
                        start = getattr(part, "log_start_offset", -1)
                        if start <= reading.position:
                            raise _unreadable(topic, p, error)
                        reading.position = start
                        continue
                    if error:
                        raise _unreadable(topic, p, error)
                    before = reading.position
                    data = part.records
                    if data and not _walk(
                        p, reading, data, part.aborted_transactions or (), columns
                    ):
                        cut.append(p)
                    if reading.position > before:
                        moved = time.monotonic()
            # The next answer is asked for before this one's records are handed on.
            for p, reading in list(active.items()):
                while reading.position >= reading.end:
                    if not reading.next_range():
                        finished.append(p)
                        del active[p]
                        break
            if active:
                # A batch larger than the per-partition limit comes whole only for a
                # request's first partition (KIP-74): such partitions go first.
                order = cut + [p for p in active if p not in cut]
                request = _request(topic, {p: active[p].position for p in order})
                answer = asyncio.ensure_future(connection.fetch(broker, request))
            deliver(columns)
            if time.monotonic() - moved > STALL_S:
                raise _stalled(topic, active)
    finally:
        if answer is not None:
            answer.cancel()
    return finished


def _request(topic: str, offsets: dict[int, int]) -> FetchRequest:
    return FetchRequest(
        topic,
        offsets,
        READ_COMMITTED,
        partition_bytes=_PARTITION_FETCH_BYTES,
        total_bytes=_FETCH_BYTES,
    )


def _stalled(topic: str, readings: Mapping[int, _Reading]) -> AdminError:
    stuck = ", ".join(f"{p} (at {r.position}, to {r.end})" for p, r in readings.items())
    return AdminError(
        "RECORDS_UNREADABLE",
        f"Reading topic '{topic}' made no progress for {STALL_S:.0f} s on partitions {stuck}.",
        topic,
    )


def _unreadable(topic: str, partition: int, error: int) -> AdminError:
    name = error_name(error)
    return AdminError(
        "RECORDS_UNREADABLE",
        f"Cannot read partition {partition} of topic '{topic}': {sentence(name, topic)}",
        topic,
    )
