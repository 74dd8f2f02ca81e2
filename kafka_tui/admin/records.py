"""Records in and out of a topic: reading without joining a group, and producing.

Reading is aiokafka's consumer with `assign()` + `seek()` and no group id: nothing is joined
and nothing committed (unless the caller commits to a group it names, `commit_offsets`).
`read_committed` (the default) never shows aborted transactions or control records.
Producing is aiokafka's producer, idempotent unless the acks asked for forbid it.

Everything upward is kafka-tui's own (`Record`, `Sent`, `AdminError`), never aiokafka's types.
The checks before a read or a send (topic, partitions, offsets) name the Kafka error the
broker would answer, in one sentence.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from aiokafka.errors import KafkaError

from .connection import security_kwargs
from .errors import AdminError, ValidationError, error_name, sentence
from .model import ConnectionSettings

if TYPE_CHECKING:
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

Isolation = Literal["read_committed", "read_uncommitted"]
TIMESTAMP_TYPES = ("CreateTime", "LogAppendTime")
# Per partition and fetch: a larger fetch than aiokafka's 1 MB default halves the round trips
# of a bulk read (see bench/records.py).
_MAX_PARTITION_FETCH_BYTES = 4 * 1024 * 1024
_POLL_MS = 500
_MAX_BATCH_BYTES = 256 * 1024


@dataclass(slots=True)
class Record:
    """One record as the broker stored it. `timestamp_type`: "CreateTime" or
    "LogAppendTime". `leader_epoch`: always None from aiokafka's consumer, which drops it: its
    fetcher (aiokafka/consumer/fetcher.py, PartitionRecords._unpack_records) walks each
    record batch and builds a ConsumerRecord per record (aiokafka/structs.py: no epoch field)
    without the batch, and the batch objects (record/default_records.py and its C twin) unpack
    the header's PartitionLeaderEpoch (bytes 12-15) but offer no property for it; the
    deserializer hooks see only the key's or value's bytes. A Fetch of our own (as
    admin/key_reader.py's) would have it: one int32 per batch of the answer's bytes.
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


@dataclass(slots=True)  # not frozen: one per record written (see Record)
class Sent:
    """A produced record, as the partition leader acknowledged it (`offset` -1 with acks=0)."""

    topic: str
    partition: int
    offset: int
    timestamp: int | None


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
    partition). `ends` and `starts` are known after entering."""

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
        self._consumer: AIOKafkaConsumer | None = None
        self._tps: dict[int, Any] = {}

    async def __aenter__(self) -> RecordReader:
        from aiokafka import AIOKafkaConsumer, TopicPartition

        consumer = AIOKafkaConsumer(
            group_id=self.group,
            enable_auto_commit=False,
            isolation_level=self.isolation,
            auto_offset_reset="none",
            max_partition_fetch_bytes=_MAX_PARTITION_FETCH_BYTES,
            fetch_max_bytes=4 * _MAX_PARTITION_FETCH_BYTES,
            **_client_kwargs(self.settings, "reader"),
        )
        try:
            await consumer.start()
            self._consumer = consumer
            self._tps = {p: TopicPartition(self.topic, p) for p in self.partitions}
            tps = list(self._tps.values())
            consumer.assign(tps)
            firsts = await consumer.beginning_offsets(tps)
            ends = await consumer.end_offsets(tps)
            self.ends = {tp.partition: ends[tp] for tp in tps}
            begins = {tp.partition: firsts[tp] for tp in tps}
            self.starts = await self._start_offsets(begins)
            for p, offset in self.starts.items():
                consumer.seek(self._tps[p], offset)
        except KafkaError as exc:
            await consumer.stop()
            raise _failed(self.topic, exc) from None
        except BaseException:
            await consumer.stop()
            raise
        return self

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
            assert self._consumer is not None
            found = await self._consumer.offsets_for_times(
                {tp: s.timestamp for tp in self._tps.values()}
            )
            return {
                p: (self.ends[p] if found[tp] is None else found[tp].offset)
                for p, tp in self._tps.items()
            }
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
        if self._consumer is not None:
            await self._consumer.stop()
            self._consumer = None

    async def batches(self) -> AsyncIterator[list[Record]]:
        consumer = self._consumer
        assert consumer is not None, "use RecordReader as `async with`"
        stop = self.stop
        left = stop.limit
        until = stop.until_timestamp
        # Partitions still read: without follow, those whose position is below the end seen
        # at the start; a partition past `until` stops too.
        active = {
            p: tp for p, tp in self._tps.items() if stop.follow or self.starts[p] < self.ends[p]
        }
        if left is not None and left <= 0:
            return
        types = TIMESTAMP_TYPES
        while active:
            try:
                fetched = await consumer.getmany(*active.values(), timeout_ms=_POLL_MS)
            except KafkaError as exc:
                raise _failed(self.topic, exc) from None
            for tp, records in fetched.items():
                p = tp.partition
                if p not in active:
                    continue
                end = None if stop.follow else self.ends[p]
                past_until = False
                if until is None and (end is None or not records or records[-1].offset < end):
                    # all of them (offsets ascend): one comprehension, ~10% of a bulk read's
                    # own CPU (bench/records.py)
                    out = [
                        Record(
                            r.topic,
                            p,
                            r.offset,
                            r.timestamp,
                            types[r.timestamp_type],
                            r.key,
                            r.value,
                            tuple(r.headers),
                        )
                        for r in records
                    ]
                else:
                    out = []
                    for r in records:
                        if end is not None and r.offset >= end:
                            break
                        if until is not None and r.timestamp > until:
                            past_until = True
                            break
                        out.append(
                            Record(
                                r.topic,
                                p,
                                r.offset,
                                r.timestamp,
                                types[r.timestamp_type],
                                r.key,
                                r.value,
                                tuple(r.headers),
                            )
                        )
                if left is not None and len(out) >= left:
                    del out[left:]
                    left = 0
                elif left is not None:
                    left -= len(out)
                if past_until:
                    consumer.pause(tp)
                    del active[p]
                if out:
                    yield out
                if left == 0:
                    return
            if not stop.follow:
                for p, tp in list(active.items()):
                    if await consumer.position(tp) >= self.ends[p]:
                        consumer.pause(tp)
                        del active[p]

    async def commit(self, offsets: dict[int, int]) -> None:
        """Commit `offsets` (partition -> next offset to read) to the reader's group."""
        from aiokafka.structs import OffsetAndMetadata

        assert self._consumer is not None and self.group is not None
        try:
            await self._consumer.commit(
                {self._tps[p]: OffsetAndMetadata(o, "") for p, o in offsets.items()}
            )
        except KafkaError as exc:
            raise _failed(self.topic, exc) from None


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

    async def send_all(
        self,
        records: Iterable[OutgoingRecord],
        partitions: int,
        keyed: Iterable[int] | None = None,
    ) -> AsyncIterator[Sent | AdminError]:
        """Send `records` to a topic of `partitions` partitions, in order; yield, in the
        same order, where each landed or why Kafka refused it.

        Records are packed into record batches here (aiokafka's `create_batch` /
        `send_batch`), one open batch per partition, instead of `send()` per record (a
        future, a partitioner call and an accumulator lookup each: ~3x the CPU, see
        bench/records.py). Partitions as Kafka's default partitioner picks them: the
        record's own, else murmur2 of its key, else one partition per batch (sticky).
        `keyed`: the partitions of the records with a key and no partition, in order,
        when the caller computed them (murmur2 over many keys at once)."""
        producer = self._producer
        assert producer is not None, "use RecordWriter as `async with`"
        from aiokafka.partitioner import murmur2

        open_batches: dict[int, _Batch] = {}
        waiting: deque[tuple[_Batch, int]] = deque()  # each record: its batch and place
        sticky = 0
        hashed = None if keyed is None else iter(keyed)
        sent = False
        for record in records:
            p = record.partition
            if p is None:
                if record.key is None:
                    p = sticky
                elif hashed is not None:
                    p = next(hashed)
                else:
                    p = (murmur2(record.key) & 0x7FFFFFFF) % partitions
            batch = open_batches.get(p)
            if batch is None:
                batch = open_batches[p] = _Batch(self.topic, p, producer.create_batch())
            added = batch.add(record)
            if added is None:  # full: send it, start the next
                del open_batches[p]
                await self._submit(batch)
                sent = True
                if p == sticky and record.key is None and record.partition is None:
                    sticky = p = (sticky + 1) % partitions
                batch = open_batches.get(p)
                if batch is None:
                    batch = open_batches[p] = _Batch(self.topic, p, producer.create_batch())
                added = batch.add(record)
                if added is None:
                    batch.refused = ValidationError(
                        "MESSAGE_TOO_LARGE",
                        f"Topic '{self.topic}': a record is larger than a whole batch may be "
                        f"({_MAX_BATCH_BYTES:,} bytes).",
                        self.topic,
                    )
                    added = -1
            waiting.append((batch, added))
            # A batch's delivery completes only while the event loop runs, i.e. in _submit's
            # await: looked at after one, not for every record (~5% of a file's produce).
            if sent or added < 0:
                sent = False
                while waiting and waiting[0][0].done():
                    yield self._landed(*waiting.popleft())
        for batch in open_batches.values():
            await self._submit(batch)
        while waiting:
            await waiting[0][0].wait()
            yield self._landed(*waiting.popleft())

    async def _submit(self, batch: _Batch) -> None:
        producer = self._producer
        assert producer is not None
        batch.builder.close()
        try:
            batch.sent = await producer.send_batch(
                batch.builder, self.topic, partition=batch.partition
            )
        except KafkaError as exc:
            batch.refused = _failed(self.topic, exc)

    def _landed(self, batch: _Batch, place: int) -> Sent | AdminError:
        if place < 0 or batch.refused is not None:
            assert batch.refused is not None
            return batch.refused
        meta = batch.result
        offset = meta.offset + place if meta.offset >= 0 else -1
        # a LogAppendTime topic answers the broker's time; CreateTime: the record's own
        logged = meta.timestamp if meta.timestamp not in (None, -1) else None
        return Sent(self.topic, batch.partition, offset, logged or batch.timestamps[place])


class _Batch:
    """One record batch being filled or sent: its records' timestamps in order."""

    __slots__ = ("builder", "partition", "refused", "result", "sent", "timestamps", "topic")

    def __init__(self, topic: str, partition: int, builder: Any) -> None:
        self.topic = topic
        self.partition = partition
        self.builder = builder
        self.timestamps: list[int] = []
        self.sent: Any = None  # the future of its delivery
        self.result: Any = None
        self.refused: AdminError | None = None

    def add(self, record: OutgoingRecord) -> int | None:
        """The record's place in the batch, or None when the batch is full."""
        added = self.builder.append(
            timestamp=record.timestamp,
            key=record.key,
            value=record.value,
            headers=list(record.headers),
        )
        if added is None:
            return None
        self.timestamps.append(added.timestamp)
        return len(self.timestamps) - 1

    def done(self) -> bool:
        if self.refused is not None:
            return True
        if self.sent is None or not self.sent.done():
            return False
        self._settle()
        return True

    async def wait(self) -> None:
        if self.refused is None and self.sent is not None:
            with contextlib.suppress(KafkaError):
                await asyncio.shield(self.sent)
            self._settle()

    def _settle(self) -> None:
        if self.result is not None or self.refused is not None:
            return
        exc = self.sent.exception()
        if exc is None:
            self.result = self.sent.result()
        elif isinstance(exc, KafkaError):
            self.refused = _failed(self.topic, exc)
        else:
            raise exc
