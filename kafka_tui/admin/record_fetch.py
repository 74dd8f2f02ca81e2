"""Whole records by Fetch requests of kafka-tui's own, for `messages read` (issue 50).

aiokafka's consumer built a ConsumerRecord per record in Python, then `records.py` a Record
from it: ~30% of a bulk read's CPU (bench/records.py), and the batch's partition leader
epoch lost on the way (aiokafka's batch objects read it but expose no property). Here Fetch
(kio's schemas, v4-12: the last stable offset and aborted transactions; from v13 topics are
named by id) goes to each partition's leader over kafka-tui's connection layer, and the
answers' record batches are walked with aiokafka's C batch readers (`MemoryRecords`: format
v2 batches and v0/v1 message sets, every codec), each record taken once into a `Record`.

As Kafka's consumer does: control batches are never shown; under read_committed the batches
of a transaction the answer lists as aborted are skipped, from its first offset until that
producer's abort marker (KIP-98); a v2 batch's next offset counts records compaction removed
from its end. The leader epoch is each v2 batch header's PartitionLeaderEpoch (bytes 12-15;
v0/v1 message sets have none): read beside the walk from the batch lengths, not decoded.
"""

from __future__ import annotations

import asyncio
import struct
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from .connection import AdminConnection
from .errors import AdminError, error_name, sentence
from .protocol_group_changes import EARLIEST, LATEST, ListedOffset, ListOffsetsRequest
from .wire import Api, WireRequest, code, millis, nested, shape

READ_UNCOMMITTED = 0
READ_COMMITTED = 1
ISOLATION = {"read_uncommitted": READ_UNCOMMITTED, "read_committed": READ_COMMITTED}
# Per partition and per answer. 1 MB (aiokafka's default): 4 MB cost ~10% more CPU in a bulk read
# (bigger buffers allocated and freed per answer; bench/records.py, 300,000 records).
PARTITION_FETCH_BYTES = 1 << 20
FETCH_BYTES = 16 << 20
# How long a leader holds a Fetch with nothing new (a followed read's tail).
FETCH_WAIT_MS = 500
_INT32 = struct.Struct(">i")
_LEADER_EPOCH_AT = 12  # baseOffset int64, batchLength int32, partitionLeaderEpoch int32
_MAGIC_AT = 16
_HEADER_BEFORE_LENGTH = 12  # baseOffset + batchLength: what batchLength does not count
_LEADER_NOT_AVAILABLE = 5
_NO_TIMESTAMPS = 43  # UNSUPPORTED_FOR_MESSAGE_FORMAT: a timestamp asked of a v0 log


class TopicsFetchRequest(WireRequest):
    """Records of `topics` (topic -> partition -> fetch offset) from their leader, under
    `isolation` (READ_COMMITTED or READ_UNCOMMITTED); no fetch session, no group. Partitions
    are asked in the mapping's order: a batch larger than `partition_bytes` comes whole only
    for the request's first partition (KIP-74)."""

    API = Api(1, "Fetch", 4, 12)
    API_KEY = 1

    def __init__(
        self,
        topics: Mapping[str, Mapping[int, int]],
        isolation: int = READ_COMMITTED,
        *,
        wait_ms: int = FETCH_WAIT_MS,
        partition_bytes: int = PARTITION_FETCH_BYTES,
        total_bytes: int = FETCH_BYTES,
    ) -> None:
        self.topics = topics
        self.isolation = isolation
        self.wait_ms = wait_ms
        self.partition_bytes = partition_bytes
        self.total_bytes = total_bytes

    def message(self, version: int) -> Any:
        request = self.API.request_type(version)
        topic = nested(request, "FetchTopic")
        partition = nested(request, "FetchPartition")
        return shape(
            request,
            replica_id=-1,
            max_wait=millis(self.wait_ms),
            min_bytes=1,
            max_bytes=self.total_bytes,
            isolation_level=self.isolation,
            session_id=0,
            session_epoch=-1,  # no fetch session: every request names its partitions
            topics=tuple(
                shape(
                    topic,
                    topic=name,
                    partitions=tuple(
                        shape(
                            partition,
                            partition=p,
                            current_leader_epoch=-1,
                            fetch_offset=offset,
                            last_fetched_epoch=-1,
                            log_start_offset=-1,
                            partition_max_bytes=self.partition_bytes,
                        )
                        for p, offset in offsets.items()
                    ),
                )
                for name, offsets in self.topics.items()
            ),
            forgotten_topics_data=(),
            rack_id="",
        )


class FetchRequest(TopicsFetchRequest):
    """Records of `offsets` (partition -> fetch offset) of `topic` from their leader, under
    `isolation` (READ_COMMITTED or READ_UNCOMMITTED); no fetch session, no group."""

    def __init__(
        self,
        topic: str,
        offsets: Mapping[int, int],
        isolation: int = READ_COMMITTED,
        *,
        wait_ms: int = FETCH_WAIT_MS,
        partition_bytes: int = PARTITION_FETCH_BYTES,
        total_bytes: int = FETCH_BYTES,
    ) -> None:
        super().__init__(
            {topic: offsets},
            isolation,
            wait_ms=wait_ms,
            partition_bytes=partition_bytes,
            total_bytes=total_bytes,
        )
        self.topic = topic
        self.offsets = offsets


class FetchedPartition(NamedTuple):
    """One partition of a Fetch answer."""

    topic: str
    partition: int
    error_code: int
    records: bytes | None
    aborted: Sequence[Any]  # its aborted transactions (first_offset, producer_id)


def fetched_partitions(response: Any) -> Iterator[FetchedPartition]:
    """The partitions of a Fetch answer, in its order."""
    for t in response.responses:
        for part in t.partitions:
            yield FetchedPartition(
                t.topic,
                part.partition_index,
                code(part.error_code),
                part.records,
                part.aborted_transactions or (),
            )


def data_batches(
    data: bytes, aborted: Sequence[Any], isolation: int
) -> Iterator[tuple[Any, int | None, int]]:
    """Each whole record batch of one partition's Fetch answer as (batch, leader_epoch,
    next_offset): `batch` None where it holds nothing to show (a control batch; under
    READ_COMMITTED an aborted transaction's), the leader epoch None in a v0/v1 message set.
    A trailing partial batch (the answer cut at its size limit) is not yielded: the next
    Fetch starts at it."""
    from aiokafka.record.memory_records import MemoryRecords

    pending = sorted(((a.first_offset, a.producer_id) for a in aborted), reverse=True)
    aborting: set[int] = set()
    memory = MemoryRecords(data)
    view = memoryview(data)
    at = 0
    while (batch := memory.next_batch()) is not None:
        epoch = (
            _INT32.unpack_from(view, at + _LEADER_EPOCH_AT)[0]
            if data[at + _MAGIC_AT] >= 2
            else None
        )
        at += _HEADER_BEFORE_LENGTH + _INT32.unpack_from(view, at + 8)[0]
        producer = batch.producer_id  # None: a v0/v1 message set
        if isolation == READ_COMMITTED and producer is not None and producer >= 0:
            # aborted transactions begun at or before this batch, control batches included
            # (as Kafka's and aiokafka's consumers do): a marker then ends its producer's
            while pending and pending[-1][0] <= batch.base_offset:
                aborting.add(pending.pop()[1])
            if batch.is_control_batch and _abort_marker(batch):
                aborting.discard(producer)
            elif batch.is_transactional and producer in aborting:
                yield None, epoch, batch.next_offset
                continue
        if batch.is_control_batch:
            yield None, epoch, batch.next_offset
            continue
        yield batch, epoch, batch.next_offset


def readable_batches(
    data: bytes | None, aborted: Sequence[Any] = (), isolation: int = READ_UNCOMMITTED
) -> Iterator[list[Any]]:
    """The records of each batch `data_batches` shows, a whole batch at a time, until one
    cannot be read (corrupt, or a codec this Python lacks): what came before it stands. For
    a small read that tells something (a timestamp, whether keys are there) where a bulk
    read would fail."""
    if not data:
        return
    try:
        for batch, _, _ in data_batches(data, aborted, isolation):
            if batch is not None:
                yield list(batch)
    except Exception:  # see the docstring
        return


def _abort_marker(batch: Any) -> bool:
    from aiokafka.record.control_record import ABORT_MARKER, ControlRecord

    for record in batch:
        return bool(ControlRecord.parse(record.key) == ABORT_MARKER)
    return False


class RecordConnection(AdminConnection):
    """The reads a record reader needs, over kafka-tui's connection layer."""

    async def leaders(self, topic: str) -> dict[int, int]:
        """partition -> its leader (partitions without one left out)."""
        answer = await self._metadata([topic])
        found: dict[int, int] = {}
        for t in answer.topics:
            if t.name == topic and t.error_code == 0:
                found = {p.partition_index: p.leader_id for p in t.partitions if p.leader_id >= 0}
        return found

    async def fetch(self, broker: int, request: TopicsFetchRequest) -> Any:
        return await self._send(request, broker, extra_ms=request.wait_ms)

    async def offsets(
        self, topic: str, wanted: Mapping[int, int], isolation: int
    ) -> dict[int, ListedOffset]:
        """ListOffsets of `wanted` (partition -> EARLIEST, LATEST or a timestamp) at each
        partition's leader; LATEST under read_committed is the last stable offset. A
        partition without a leader is left out."""
        leaders = await self.leaders(topic)
        by_leader: dict[int, dict[tuple[str, int], int]] = {}
        for p, spec in wanted.items():
            if p in leaders:
                by_leader.setdefault(leaders[p], {})[(topic, p)] = spec
        found: dict[int, ListedOffset] = {}
        for broker, asked in by_leader.items():
            request = ListOffsetsRequest(asked, self.settings.request_timeout_ms, isolation)
            for answer in ListOffsetsRequest.answer(await self._send(request, broker)):
                found[answer.partition] = answer
        return found

    async def ranges(
        self,
        topic: str,
        partitions: Sequence[int],
        isolation: int,
        from_ms: int | None = None,
        until_ms: int | None = None,
    ) -> dict[int, tuple[int, int]]:
        """Each partition's [start, end) now: from its log start (or the first offset at or
        after `from_ms`, its end where no record is that new) to its end (LATEST under
        `isolation`: read_committed's is the last stable offset), cut at the first record
        newer than `until_ms` (ListOffsets by time for `until_ms + 1`: Kafka answers the first
        offset whose timestamp is at least that). Every ListOffsets is under `isolation`, as
        aiokafka's consumer, which took these before, asks them."""
        specs = [LATEST, EARLIEST if from_ms is None else from_ms]
        if until_ms is not None:
            specs.append(until_ms + 1)
        ends, starts, *newer = await asyncio.gather(
            *(self.settled_offsets(topic, partitions, spec, isolation) for spec in specs)
        )
        found: dict[int, tuple[int, int]] = {}
        for p in partitions:
            end = ends[p]
            start = end if starts[p] < 0 else starts[p]
            if newer and newer[0][p] >= 0:
                end = min(end, newer[0][p])
            found[p] = (start, max(start, end))
        return found

    async def settled_offsets(
        self, topic: str, partitions: Sequence[int], spec: int, isolation: int
    ) -> dict[int, int]:
        """`offsets` for every partition (-1: no record at or after a timestamp, or a log of
        message format v0, which has none), asked again while a leader moves or is not
        known (a retriable error), until the request timeout. Another error, or one that
        lasts, is an AdminError under Kafka's name."""
        from aiokafka.errors import for_code

        deadline = time.monotonic() + self.settings.request_timeout_ms / 1000
        delay = 0.1  # aiokafka's retry_backoff_ms
        while True:
            answers = await self.offsets(topic, dict.fromkeys(partitions, spec), isolation)
            found: dict[int, int] = {}
            waiting = 0
            for p in partitions:
                answer = answers.get(p)
                error = _LEADER_NOT_AVAILABLE if answer is None else answer.error_code
                if answer is not None and error in (0, _NO_TIMESTAMPS):
                    found[p] = -1 if error else answer.offset
                elif for_code(error).retriable:
                    waiting = error
                else:
                    raise AdminError(error_name(error), sentence(error_name(error), topic), topic)
            if not waiting:
                return found
            if time.monotonic() + delay > deadline:
                raise AdminError(error_name(waiting), sentence(error_name(waiting), topic), topic)
            await asyncio.sleep(delay)
