"""Records in and out of a topic: reading without joining a group, and producing.

Reading is Fetch requests of kafka-tui's own (record_fetch.py), no group: nothing is joined
and nothing committed (unless the caller commits to a group it names, `commit`).
`read_committed` (the default) never shows aborted transactions or control records.
Producing is aiokafka's producer, idempotent unless the acks asked for forbid it.

Everything upward is kafka-tui's own (`Record`, `Landed`, `AdminError`), never aiokafka's types.
The checks before a read or a send (topic, partitions, offsets) name the Kafka error the
broker would answer, in one sentence.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from aiokafka.errors import KafkaError

from .connection import security_kwargs
from .errors import AdminError, ValidationError, error_name, sentence
from .model import ConnectionSettings

if TYPE_CHECKING:
    from aiokafka import AIOKafkaProducer

    from .record_fetch import RecordConnection

EARLIEST = -2  # ListOffsets' timestamp for the log start offset
LATEST = -1  # ... for the log end (under read_committed: the last stable offset)

Isolation = Literal["read_committed", "read_uncommitted"]
TIMESTAMP_TYPES = ("CreateTime", "LogAppendTime")
_MAX_BATCH_BYTES = 256 * 1024


@dataclass(slots=True)
class Record:
    """One record as the broker stored it. `timestamp_type`: "CreateTime" or
    "LogAppendTime". `leader_epoch`: its batch's PartitionLeaderEpoch (the leader's epoch when
    it was written; None in a v0/v1 message set, which has none), read beside the batches by
    record_fetch.py: aiokafka's consumer, which read records before, drops it.
    Not frozen: a frozen dataclass's __init__ sets each field through object.__setattr__,
    ~1.5 us of a record's ~4 us in a bulk read (bench/records.py)."""

    topic: str
    partition: int
    offset: int
    timestamp: int
    timestamp_type: str
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...]
    leader_epoch: int | None = None


@dataclass(frozen=True)
class Start:
    """Where each partition's read starts: exactly one of the fields (none: the beginning).
    `offset`: that offset; `timestamp` (ms): the first record at or after it (ListOffsets by
    timestamp; the log end where none is that new); `last`: the last N records (end - N,
    clamped to the log start); `end`: only records produced from now on; `positions`: each
    partition's own offset (a partition it does not name: the beginning), e.g. where an
    earlier read ended."""

    offset: int | None = None
    timestamp: int | None = None
    last: int | None = None
    end: bool = False
    positions: Mapping[int, int] | None = None


@dataclass(frozen=True)
class Stop:
    """Where the read ends: after `limit` records, at the first record newer than
    `until_timestamp` (ms) per partition, or at each partition's end as it was when the
    read started, unless `follow` (then only `limit`, `until_timestamp` or cancellation)."""

    limit: int | None = None
    until_timestamp: int | None = None
    follow: bool = False


@dataclass(slots=True)  # not frozen: see Record
class OutgoingRecord:
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...] = ()
    partition: int | None = None
    timestamp: int | None = None  # ms; None: the producer's clock


def _client_kwargs(settings: ConnectionSettings, role: str) -> dict[str, Any]:
    return {
        "bootstrap_servers": settings.bootstrap_servers,
        "client_id": f"{settings.client_id}-{role}",
        "request_timeout_ms": settings.request_timeout_ms,
        **security_kwargs(settings),
    }


def unknown_topic(topic: str) -> AdminError:
    return ValidationError(
        "UNKNOWN_TOPIC_OR_PARTITION", sentence("UNKNOWN_TOPIC_OR_PARTITION", topic), topic
    )


def check_partitions(topic: str, count: int, asked: Sequence[int] | None) -> list[int]:
    """The partitions to use: `asked` (each must exist) or all `count` of them."""
    if not asked:
        return list(range(count))
    for p in asked:
        if not 0 <= p < count:
            raise ValidationError(
                "UNKNOWN_TOPIC_OR_PARTITION",
                f"Topic '{topic}' has no partition {p}: it has {count} (0-{count - 1}).",
                topic,
            )
    return sorted(set(asked))


def _failed(topic: str, exc: KafkaError) -> AdminError:
    """A broker's refusal under Kafka's own name for its code (aiokafka names some codes
    otherwise: 10 is MESSAGE_SIZE_TOO_LARGE there, MESSAGE_TOO_LARGE in Kafka), worded as the
    admin layer words it; a client-side failure under aiokafka's name."""
    code = getattr(exc, "errno", None)
    if isinstance(code, int) and code > 0:
        name = error_name(code)
        return AdminError(name, sentence(name, topic), topic)
    name = str(getattr(exc, "message", "") or type(exc).__name__)
    return AdminError(name, f"Topic '{topic}': Kafka refused the request ({name}: {exc}).", topic)


class RecordReader:
    """Reads `partitions` of `topic` from `start` until `stop`; use as `async with`, then
    `async for batch in reader.batches():` (lists of `Record`, each in offset order per
    partition). `ends` and `starts` are known after entering.

    Fetch requests of its own to each partition's leader (record_fetch.py), the next one in
    flight while the caller handles the records of the last; no group is joined and nothing
    committed unless the caller commits (`commit`)."""

    def __init__(
        self,
        settings: ConnectionSettings,
        topic: str,
        partitions: Sequence[int],
        start: Start,
        stop: Stop,
        *,
        isolation: Isolation = "read_committed",
        group: str | None = None,
    ) -> None:
        self.settings = settings
        self.topic = topic
        self.partitions = list(partitions)
        self.start = start
        self.stop = stop
        self.isolation = isolation
        self.group = group
        self.starts: dict[int, int] = {}
        self.ends: dict[int, int] = {}
        self._connection: RecordConnection | None = None

    async def __aenter__(self) -> RecordReader:
        from .record_fetch import ISOLATION, RecordConnection

        connection = RecordConnection(self.settings)
        try:
            await connection.connect()
            self._connection = connection
            begins = await self._offsets(EARLIEST)
            self.ends = await self._offsets(LATEST, ISOLATION[self.isolation])
            self.starts = await self._start_offsets(begins)
        except BaseException:
            self._connection = None
            await connection.close()
            raise
        return self

    async def _offsets(self, spec: int, isolation: int = 0) -> dict[int, int]:
        """Each partition's offset for `spec` (EARLIEST, LATEST, or a timestamp: the first
        offset at or after it, -1 where none is that new), asked again while a leader moves
        or is not known yet (a topic just made, a broker just restarted)."""
        assert self._connection is not None
        return await self._connection.settled_offsets(self.topic, self.partitions, spec, isolation)

    async def _start_offsets(self, begins: dict[int, int]) -> dict[int, int]:
        s = self.start
        if s.end:
            return dict(self.ends)
        if s.positions is not None:
            return {
                p: min(max(s.positions.get(p, begins[p]), begins[p]), self.ends[p])
                for p in self.partitions
            }
        if s.last is not None:
            return {p: max(begins[p], self.ends[p] - s.last) for p in self.partitions}
        if s.timestamp is not None:
            found = await self._offsets(s.timestamp)
            return {p: self.ends[p] if o < 0 else min(o, self.ends[p]) for p, o in found.items()}
        if s.offset is not None:
            for p in self.partitions:
                if s.offset > self.ends[p]:
                    raise ValidationError(
                        "OFFSET_OUT_OF_RANGE",
                        f"Offset {s.offset} is past the end of partition {p} of topic "
                        f"'{self.topic}' (its records are {begins[p]}-{self.ends[p] - 1}; "
                        f"the next one will be {self.ends[p]}).",
                        self.topic,
                    )
                if s.offset < begins[p]:
                    raise ValidationError(
                        "OFFSET_OUT_OF_RANGE",
                        f"Offset {s.offset} is before the start of partition {p} of topic "
                        f"'{self.topic}' (retention removed it; the first record is "
                        f"{begins[p]}).",
                        self.topic,
                    )
            return {p: s.offset for p in self.partitions}
        return begins

    async def __aexit__(self, *exc: object) -> None:
        if self._connection is not None:
            await self._connection.close()
            self._connection = None

    async def batches(self) -> AsyncIterator[list[Record]]:
        from .record_fetch import ISOLATION

        connection = self._connection
        assert connection is not None, "use RecordReader as `async with`"
        stop = self.stop
        if stop.limit is not None and stop.limit <= 0:
            return
        walk = _Walk(self.topic, stop, ISOLATION[self.isolation], dict(self.starts), self.ends)
        # Partitions still read: without follow, those whose position is below the end seen
        # at the start; a partition past `until` stops too.
        active = {p for p in self.partitions if stop.follow or self.starts[p] < self.ends[p]}
        async for out in _read(connection, walk, active):
            if out:
                yield out

    async def commit(self, offsets: dict[int, int]) -> None:
        """Commit `offsets` (partition -> next offset to read) to the reader's group (as a
        consumer assigned its partitions: no member, nothing joined)."""
        from aiokafka import AIOKafkaConsumer, TopicPartition
        from aiokafka.structs import OffsetAndMetadata

        assert self.group is not None
        consumer = AIOKafkaConsumer(
            group_id=self.group, enable_auto_commit=False, **_client_kwargs(self.settings, "reader")
        )
        try:
            await consumer.start()
            tps = {p: TopicPartition(self.topic, p) for p in offsets}
            consumer.assign(list(tps.values()))
            await consumer.commit({tps[p]: OffsetAndMetadata(o, "") for p, o in offsets.items()})
        except KafkaError as exc:
            raise _failed(self.topic, exc) from None
        finally:
            await consumer.stop()


# A read (not followed) whose partitions make no progress for this long, leaderless, fails.
_STALL_S = 60.0
# The partition's leader moved, or is not known yet: read the metadata again, ask the new one.
# UNKNOWN_TOPIC_OR_PARTITION, LEADER_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER, KAFKA_STORAGE_ERROR,
# FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH, OFFSET_NOT_AVAILABLE
_LEADER_MOVED = frozenset({3, 5, 6, 56, 74, 75, 78})


async def _read(
    connection: RecordConnection, walk: _Walk, active: set[int]
) -> AsyncIterator[list[Record]]:
    """The records of `active`'s partitions from each one's leader, as `walk` takes them,
    until none is left (or the limit is reached); an empty list where an answer only moved
    the positions (aborted or control batches)."""
    follow = walk.stop.follow
    stalled_since = time.monotonic()
    while active:
        leaders = await connection.leaders(walk.topic)
        by_leader: dict[int, list[int]] = {}
        for p in sorted(active):
            by_leader.setdefault(leaders.get(p, -1), []).append(p)
        leaderless = by_leader.pop(-1, [])
        before = dict(walk.positions)
        if by_leader:
            streams = [walk.stream(connection, b, parts, active) for b, parts in by_leader.items()]
            async for out in _merged(streams):
                yield out
                if walk.done:
                    return
        if walk.positions != before:
            stalled_since = time.monotonic()
        elif leaderless and not follow and time.monotonic() - stalled_since > _STALL_S:
            raise AdminError(
                "LEADER_NOT_AVAILABLE",
                f"Partitions {', '.join(map(str, leaderless))} of topic '{walk.topic}' had "
                f"no leader for {_STALL_S:.0f} s.",
                walk.topic,
            )
        if leaderless or walk.moved:
            walk.moved = False
            await asyncio.sleep(0.5)  # a leader to come, or the metadata to show it


async def read_ranges(
    settings: ConnectionSettings,
    topic: str,
    ranges: Mapping[int, Sequence[tuple[int, int]]],
    isolation: Isolation = "read_committed",
) -> AsyncGenerator[tuple[list[Record], int], None]:
    """The records of offset ranges (partition -> its [start, end) ranges, read one after
    another; every partition at once), each answer's records with the offsets passed over
    (records and what read_committed or compaction skipped)."""
    from .record_fetch import ISOLATION, RecordConnection

    pending = {p: [r for r in rs if r[1] > r[0]] for p, rs in ranges.items()}
    pending = {p: rs for p, rs in pending.items() if rs}
    async with RecordConnection(settings) as connection:
        while pending:
            current = {p: rs.pop(0) for p, rs in pending.items()}
            pending = {p: rs for p, rs in pending.items() if rs}
            walk = _Walk(
                topic,
                Stop(),
                ISOLATION[isolation],
                {p: r[0] for p, r in current.items()},
                {p: r[1] for p, r in current.items()},
            )
            done = sum(walk.positions.values())
            async for out in _read(connection, walk, set(current)):
                now = sum(min(walk.positions[p], r[1]) for p, r in current.items())
                yield out, now - done
                done = now


class _Walk:
    """Where each partition of a read stands, and the records of Fetch answers as Records."""

    def __init__(
        self,
        topic: str,
        stop: Stop,
        isolation: int,
        positions: dict[int, int],
        ends: dict[int, int],
    ) -> None:
        self.topic = topic
        self.stop = stop
        self.isolation = isolation
        self.positions = positions
        self.ends = ends
        self.left = stop.limit
        self.done = False  # the limit reached
        self.moved = False  # a leader moved: the metadata again before the next round

    async def stream(
        self, connection: RecordConnection, broker: int, parts: list[int], active: set[int]
    ) -> AsyncIterator[list[Record]]:
        """Fetch `parts` from their leader `broker` until each is read, moved or stopped
        (removed from `active`); the next Fetch is in flight while the caller handles the
        records of the last."""
        from .record_fetch import FetchRequest

        asking = [p for p in parts if p in active]
        answer: asyncio.Future[Any] | None = None
        try:
            while asking and not self.done:
                if answer is None:
                    request = FetchRequest(
                        self.topic, {p: self.positions[p] for p in asking}, self.isolation
                    )
                    answer = asyncio.ensure_future(connection.fetch(broker, request))
                response = await answer
                answer = None
                before = {p: self.positions[p] for p in asking}
                out = self._records(response, asking, active)
                if not out and any(self.positions[p] != o for p, o in before.items()):
                    out = [[]]  # only skipped batches: the positions moved
                asking = [p for p in asking if p in active]
                if asking and not self.done:
                    request = FetchRequest(
                        self.topic, {p: self.positions[p] for p in asking}, self.isolation
                    )
                    answer = asyncio.ensure_future(connection.fetch(broker, request))
                for records in out:
                    yield records
        finally:
            if answer is not None:
                answer.cancel()

    def _records(self, response: Any, asking: list[int], active: set[int]) -> list[list[Record]]:
        from .wire import code

        out: list[list[Record]] = []
        for t in response.responses:
            for part in t.partitions:
                p = part.partition_index
                if p not in active or p not in asking:
                    continue
                error = code(part.error_code)
                if error in _LEADER_MOVED:
                    asking.remove(p)  # asked again of its new leader
                    self.moved = True
                    continue
                if error:
                    name = error_name(error)
                    raise AdminError(
                        name,
                        f"Cannot read partition {p} of topic '{self.topic}': "
                        f"{sentence(name, self.topic)}",
                        self.topic,
                    )
                data = part.records
                if data:
                    records, stopped = self._take(p, data, part.aborted_transactions or ())
                    if records:
                        out.append(records)
                    if stopped:
                        active.discard(p)
                if not self.stop.follow and self.positions[p] >= self.ends[p]:
                    active.discard(p)
                if self.done:
                    return out
        return out

    def _take(self, p: int, data: bytes, aborted: Any) -> tuple[list[Record], bool]:
        """The records of one partition's answer from its position on, as far as the stop
        allows; True when the partition stops (past `until_timestamp`)."""
        from .record_fetch import data_batches

        topic, types = self.topic, TIMESTAMP_TYPES
        position = self.positions[p]
        end = None if self.stop.follow else self.ends[p]
        until = self.stop.until_timestamp
        out: list[Record] = []
        stopped = False
        for batch, epoch, after in data_batches(data, aborted, self.isolation):
            if end is not None and position >= end:
                break
            if batch is not None:
                records = list(batch)
                if (
                    records
                    and epoch is not None
                    and until is None
                    and records[0].offset >= position
                    and (end is None or records[-1].offset < end)
                ):
                    # the whole batch (format v2): one comprehension (bench/records.py)
                    out += [
                        Record(
                            topic,
                            p,
                            r.offset,
                            r.timestamp,
                            types[r.timestamp_type],
                            r.key,
                            r.value,
                            tuple(r.headers),
                            epoch,
                        )
                        for r in records
                    ]
                else:
                    for r in records:
                        if r.offset < position:  # a compressed v0/v1 set's earlier records
                            continue
                        if end is not None and r.offset >= end:
                            break
                        stamp = -1 if r.timestamp is None else r.timestamp
                        if until is not None and stamp > until:
                            stopped = True
                            break
                        out.append(
                            Record(
                                topic,
                                p,
                                r.offset,
                                stamp,
                                types[r.timestamp_type or 0],
                                r.key,
                                r.value,
                                tuple(r.headers),
                                epoch,
                            )
                        )
                        position = r.offset + 1
                    if stopped:
                        break
            position = max(position, after)
        self.positions[p] = position
        if self.left is not None and len(out) >= self.left:
            del out[self.left :]
            self.left = 0
            self.done = True
        elif self.left is not None:
            self.left -= len(out)
        return out, stopped


async def _merged(streams: list[AsyncIterator[list[Record]]]) -> AsyncIterator[list[Record]]:
    """The items of several async iterators as each comes (one leader's answers need not wait
    for another's)."""
    if len(streams) == 1:
        async for item in streams[0]:
            yield item
        return
    queue: asyncio.Queue[tuple[int, Any]] = asyncio.Queue(maxsize=len(streams) * 2)
    _end = object()

    async def pump(i: int, stream: AsyncIterator[list[Record]]) -> None:
        try:
            async for item in stream:
                await queue.put((i, item))
        except BaseException as exc:  # handed to the reader, which raises it
            await queue.put((i, exc))
            return
        await queue.put((i, _end))

    tasks = [asyncio.ensure_future(pump(i, s)) for i, s in enumerate(streams)]
    try:
        running = len(tasks)
        while running:
            _, item = await queue.get()
            if item is _end:
                running -= 1
            elif isinstance(item, BaseException):
                raise item
            else:
                yield item
    finally:
        for task in tasks:
            task.cancel()
        for stream in streams:
            with contextlib.suppress(BaseException):
                await stream.aclose()  # type: ignore[attr-defined]


Acks = Literal["all", "1", "0"]


class RecordWriter:
    """Sends records to `topic`; use as `async with`. Idempotent when `acks` is "all"
    (Kafka's idempotence needs acks=all)."""

    def __init__(
        self,
        settings: ConnectionSettings,
        topic: str,
        *,
        acks: Acks = "all",
        compression: str | None = None,
        linger_ms: int = 5,
    ) -> None:
        self.settings = settings
        self.topic = topic
        self.acks = acks
        self.compression = compression
        self.linger_ms = linger_ms
        self._producer: AIOKafkaProducer | None = None

    async def __aenter__(self) -> RecordWriter:
        from aiokafka import AIOKafkaProducer

        acks: int | str = "all" if self.acks == "all" else int(self.acks)
        producer = AIOKafkaProducer(
            acks=acks,
            enable_idempotence=acks == "all",
            compression_type=self.compression,
            linger_ms=self.linger_ms,
            max_batch_size=_MAX_BATCH_BYTES,
            **_client_kwargs(self.settings, "writer"),
        )
        try:
            await producer.start()
        except KafkaError as exc:
            await producer.stop()
            raise _failed(self.topic, exc) from None
        self._producer = producer
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._producer is not None:
            await self._producer.stop()
            self._producer = None

    def packing(self, partitions: int) -> Packing:
        """An empty `Packing` for this writer's topic of `partitions` partitions."""
        producer = self._producer
        assert producer is not None, "use RecordWriter as `async with`"
        return Packing(self.topic, partitions, producer.create_batch)

    async def send(self, packing: Packing) -> AsyncIterator[list[Outcome]]:
        """Send the batches of `packing`, each partition's in the order they were filled;
        yield, in the records' order, where each landed or why Kafka refused it, in lists of
        those known at once (one async step per landed batch, not per record: ~10% of a
        file's produce)."""
        packing.close()
        for batch in packing.batches:
            await self._submit(batch)
            # A batch's delivery completes only while the event loop runs, i.e. in an await:
            # looked at after each submit, not for every record.
            landed = packing.landed_now()
            if landed:
                yield landed
        while not packing.all_landed():
            await packing.wait_front()
            landed = packing.landed_now()
            if landed:
                yield landed

    async def _submit(self, batch: _Batch) -> None:
        producer = self._producer
        assert producer is not None
        batch.close()
        try:
            batch.sent = await producer.send_batch(
                batch.builder, self.topic, partition=batch.partition
            )
        except KafkaError as exc:
            batch.refuse(_failed(self.topic, exc))


# Where a record landed: (partition, offset, timestamp); offset -1 with acks=0. A tuple made in
# C for each record of a landed batch, not an object per record (~0.6 us each, issue 50).
Landed = tuple[int, int, int]
Outcome = Landed | AdminError


class Packing:
    """Records packed into record batches, nothing sent: one open batch per partition
    (`RecordWriter.send` sends them). Partitions as Kafka's default partitioner picks them:
    the record's own, else murmur2 of its key, else one partition per batch (sticky).

    Records are appended by each batch's own record builder (aiokafka's C
    DefaultRecordBatchBuilder), not through aiokafka's BatchBuilder.append, whose keyword call
    and serializer step were ~15% of a file's produce, nor `send()` per record (a future, a
    partitioner call and an accumulator lookup each: ~3x the CPU, see bench/records.py)."""

    def __init__(self, topic: str, partitions: int, create_batch: Any) -> None:
        self.topic = topic
        self.partitions = partitions
        self._create = create_batch
        self.batches: list[_Batch] = []  # full ones in the order they filled, then the rest
        self._open: dict[int, _Batch] = {}
        self._order: list[_Batch] = []  # each record's batch, in the records' order
        self._front: deque[_Batch] = deque()  # batches by their first record, not landed yet
        self._landed = 0  # records whose outcome was handed out
        self._sticky = 0

    def __len__(self) -> int:
        return len(self._order)

    def add(
        self,
        keys: Sequence[bytes | None],
        values: Sequence[bytes | None],
        headers: Sequence[Sequence[tuple[str, bytes | None]]],
        partitions: Sequence[int | None],
        timestamps: Sequence[int | None],
        keyed: Iterable[int] | None = None,
    ) -> None:
        """Append records given as columns, in order. `keyed`: the partitions of the records
        with a key and no partition, in order, when the caller computed them (murmur2 over
        many keys at once)."""
        from aiokafka.partitioner import murmur2

        count = self.partitions
        hashed = None if keyed is None else iter(keyed)
        get, order = self._open.get, self._order
        for key, value, hs, given, ts in zip(
            keys, values, headers, partitions, timestamps, strict=True
        ):
            if given is not None:
                p = given
            elif key is None:
                p = self._sticky
            elif hashed is not None:
                p = next(hashed)
            else:
                p = (murmur2(key) & 0x7FFFFFFF) % count
            batch = get(p) or self._opened(p)
            hs = list(hs) if hs else _NO_HEADERS  # a list, which the builder only reads
            stamps = batch.timestamps
            added = batch.records.append(len(stamps), ts, key, value, hs)
            if added is None:  # full: the next one (a batch's first record always fits)
                self.batches.append(self._open.pop(p))
                if given is None and key is None:
                    self._sticky = p = (p + 1) % count
                batch = get(p) or self._opened(p)
                stamps = batch.timestamps
                added = batch.records.append(len(stamps), ts, key, value, hs)
                if added is None:  # the next sticky partition's is full too
                    self.batches.append(self._open.pop(p))
                    batch = self._opened(p)
                    stamps = batch.timestamps
                    added = batch.records.append(0, ts, key, value, hs)
            stamps.append(added.timestamp)
            order.append(batch)

    def _opened(self, partition: int) -> _Batch:
        """A new batch for `partition`, about to take the next record (which always fits)."""
        batch = self._open[partition] = _Batch(self.topic, partition, self._create())
        batch.first = len(self._order)
        self._front.append(batch)
        return batch

    def close(self) -> None:
        """No more records: the open batches go after the full ones."""
        self.batches += self._open.values()
        self._open.clear()

    def _first_unlanded(self) -> _Batch | None:
        """The first batch (by its first record) not landed yet; those before it dropped."""
        front = self._front
        while front and front[0].landed():
            front.popleft()
        return front[0] if front else None

    def all_landed(self) -> bool:
        return self._landed == len(self._order)

    async def wait_front(self) -> None:
        """Until the batch of the first record without an outcome lands."""
        front = self._first_unlanded()
        if front is not None:
            await front.wait()

    def landed_now(self) -> list[Outcome]:
        """The outcomes known now, from the first record without one on (records' order)."""
        front = self._first_unlanded()
        end = front.first if front is not None else len(self._order)
        if end <= self._landed:
            return []
        # each landed batch's outcomes in its records' order, taken one by one
        out = [next(b.outcomes) for b in self._order[self._landed : end]]  # type: ignore[arg-type]
        self._landed = end
        return out


_NO_HEADERS: list[tuple[str, bytes | None]] = []


class _Batch:
    """One record batch being filled or sent: its records' timestamps in order; once landed
    (or refused), its records' outcomes as an iterator."""

    __slots__ = (
        "builder",
        "first",
        "outcomes",
        "partition",
        "records",
        "sent",
        "timestamps",
        "topic",
    )

    def __init__(self, topic: str, partition: int, builder: Any) -> None:
        self.topic = topic
        self.partition = partition
        self.builder = builder
        self.records = builder._builder  # see Packing
        self.timestamps: list[int] = []
        self.first = 0  # the index of its first record
        self.sent: Any = None  # the future of its delivery
        self.outcomes: Iterator[Outcome] | None = None  # known once it landed

    def close(self) -> None:
        """No more records: the batch's count as aiokafka's BatchBuilder keeps it."""
        self.builder._relative_offset = len(self.timestamps)
        self.builder.close()

    def refuse(self, error: AdminError) -> None:
        self.outcomes = itertools.repeat(error)

    def landed(self) -> bool:
        """Whether its outcome is known (delivered or refused), settling it if it just came."""
        if self.outcomes is not None:
            return True
        if self.sent is None or not self.sent.done():
            return False
        self._settle()
        return True

    async def wait(self) -> None:
        if self.outcomes is None and self.sent is not None:
            with contextlib.suppress(KafkaError):
                await asyncio.shield(self.sent)
            self._settle()

    def _settle(self) -> None:
        exc = self.sent.exception()
        if exc is not None:
            if not isinstance(exc, KafkaError):
                raise exc
            self.refuse(_failed(self.topic, exc))
            return
        meta = self.sent.result()
        n = len(self.timestamps)
        offsets: Iterable[int] = (
            range(meta.offset, meta.offset + n) if meta.offset >= 0 else itertools.repeat(-1)
        )
        # a LogAppendTime topic answers the broker's time; CreateTime: the record's own
        logged = meta.timestamp if meta.timestamp not in (None, -1) else None
        stamps: Iterable[int] = self.timestamps if logged is None else itertools.repeat(logged)
        self.outcomes = zip(itertools.repeat(self.partition), offsets, stamps)
