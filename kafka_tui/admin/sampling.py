"""The tail of a topic's log: each partition's log end offset (ListOffsets, to its leader) and
its last record batch (a Fetch from end - 1), to tell whether recent records carry keys.

Bounded: one ListOffsets and one Fetch per leader broker, sent concurrently; each Fetch asks
for a few KB per partition (Kafka still returns a whole first batch, at most the topic's
max.message.bytes), with no wait at the broker. The Fetch and its batch walk are `messages
read`'s (record_fetch.py), read_uncommitted: what the log holds, control batches skipped.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from .errors import AdminError, error_name
from .protocol_group_changes import LATEST, ListOffsetsRequest
from .reading import AdminReads
from .record_fetch import READ_UNCOMMITTED, TopicsFetchRequest, fetched_partitions, readable_batches

OFFSET_OUT_OF_RANGE = 1  # the log was emptied by retention since its end was read
# Per partition: a typical last batch fits; a larger one is returned whole only for the
# first partition of a request (KIP-74), and the others tell nothing.
_SAMPLE_BYTES = 16_384
_SAMPLE_TOTAL_BYTES = 1_048_576


@dataclass(frozen=True)
class TailSample:
    """What the last batch of each partition of `topic` holds. `keyed`: True when a record
    of some last batch carries a key, False when the batches read carry none, None when no
    batch could be read (an empty topic, or `error`)."""

    topic: str
    keyed: bool | None
    sampled: int  # partitions whose last batch was read
    with_records: int  # partitions holding records
    error: str | None = None  # the Kafka error name that kept some partition from being read


class AdminSampling(AdminReads):
    async def log_end_offsets(self, topics: Sequence[str]) -> dict[tuple[str, int], int]:
        """(topic, partition) -> log end offset (the high watermark: what a consumer can
        read), from each partition's leader. A partition without a leader, or whose leader
        did not answer, is left out."""
        ends, _ = await self._log_ends(topics)
        return ends

    async def _leaders(self, topics: Sequence[str]) -> dict[int, list[tuple[str, int]]]:
        found, _ = await self.describe_topics(sorted(set(topics)), configs=False)
        by_leader: dict[int, list[tuple[str, int]]] = {}
        for t in found:
            for p in t.partitions:
                if p.leader >= 0:
                    by_leader.setdefault(p.leader, []).append((t.name, p.partition))
        return by_leader

    async def _log_ends(
        self, topics: Sequence[str]
    ) -> tuple[dict[tuple[str, int], int], dict[int, list[tuple[str, int]]]]:
        if not topics:
            return {}, {}
        by_leader = await self._leaders(topics)
        leaders = sorted(by_leader)
        timeout_ms = self.settings.request_timeout_ms
        answers = await asyncio.gather(
            *(
                self._send_to_itself(
                    ListOffsetsRequest(dict.fromkeys(by_leader[b], LATEST), timeout_ms), b
                )
                for b in leaders
            ),
            return_exceptions=True,
        )
        ends: dict[tuple[str, int], int] = {}
        for answer in answers:
            if isinstance(answer, AdminError):
                continue
            if isinstance(answer, BaseException):
                raise answer
            for listed in ListOffsetsRequest.answer(answer):
                if not listed.error_code:
                    ends[(listed.topic, listed.partition)] = listed.offset
        return ends, by_leader

    async def sample_last_batches(
        self, topics: Sequence[str], *, timeout_s: float = 5.0
    ) -> dict[str, TailSample]:
        """Each topic's last record batches (one per partition), read within `timeout_s`;
        what could not be read in time counts as not read (error REQUEST_TIMED_OUT)."""
        try:
            return await asyncio.wait_for(self._sample(topics), timeout_s)
        except TimeoutError:
            return {t: TailSample(t, None, 0, 0, "REQUEST_TIMED_OUT") for t in topics}

    async def _sample(self, topics: Sequence[str]) -> dict[str, TailSample]:
        ends, by_leader = await self._log_ends(topics)
        wanted: dict[int, dict[str, dict[int, int]]] = {}
        for b, parts in by_leader.items():
            for t, p in parts:
                if ends.get((t, p), 0) > 0:
                    wanted.setdefault(b, {}).setdefault(t, {})[p] = ends[(t, p)] - 1
        leaders = sorted(wanted)
        answers = await asyncio.gather(
            *(
                self._send_to_itself(
                    TopicsFetchRequest(
                        wanted[b],
                        READ_UNCOMMITTED,
                        wait_ms=0,
                        partition_bytes=_SAMPLE_BYTES,
                        total_bytes=_SAMPLE_TOTAL_BYTES,
                    ),
                    b,
                )
                for b in leaders
            ),
            return_exceptions=True,
        )
        with_records = {t: 0 for t in topics}
        for t, _ in (k for k, end in ends.items() if end > 0):
            with_records[t] += 1
        keyed: dict[str, bool] = {}
        sampled = {t: 0 for t in topics}
        errors: dict[str, str] = {}
        for b, answer in zip(leaders, answers, strict=True):
            if isinstance(answer, AdminError):
                for t in wanted[b]:
                    errors.setdefault(t, answer.name)
                continue
            if isinstance(answer, BaseException):
                raise answer
            for part in fetched_partitions(answer):
                topic, code = part.topic, part.error_code
                if code == OFFSET_OUT_OF_RANGE:
                    with_records[topic] -= 1
                    continue
                if code:
                    errors.setdefault(topic, error_name(code))
                    continue
                found = _keys_in(part.records)
                if found is None:
                    continue
                sampled[topic] += 1
                keyed[topic] = keyed.get(topic, False) or found
        return {
            t: TailSample(t, keyed.get(t), sampled[t], with_records[t], errors.get(t))
            for t in topics
        }


def _keys_in(data: bytes | None) -> bool | None:
    """Whether the data records of these batches carry keys; None when no whole data batch
    is there (a truncated batch, only control batches, or a codec this Python lacks)."""
    found: bool | None = None
    for records in readable_batches(data):
        for record in records:
            found = found or record.key is not None
            if found:
                return True
    return found
