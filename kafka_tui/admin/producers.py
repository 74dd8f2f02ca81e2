"""Who still writes to a topic, before it is deleted: DescribeProducers (API 61, KIP-664,
Kafka 2.8+) to each partition's leader, and whether the brokers auto-create topics
(`auto.create.topics.enable`), which decides whether a deleted topic comes back as soon as a
producer writes again.

A partition's leader keeps the state of every producer id that wrote to it (idempotent and
transactional producers; a plain producer with `enable.idempotence=false` has no id and is not
seen) until the id expires: `producer.id.expiration.ms` after its last write (KIP-854, Kafka
3.4+; one day by default), `transactional.id.expiration.ms` before. Expired ids are removed by
a periodic check (`producer.id.expiration.check.interval.ms`, 10 minutes), so an answer may
still list an id just past its expiration; `last_timestamp` is the largest record timestamp of
its last batch (the producer's clock for CreateTime topics).

Cost: one Metadata read for the leaders (per 500 topics), one DescribeProducers per leader
broker and one DescribeConfigs to the read broker, sent concurrently. Nothing it cannot check is
raised: see `ProducersOfTopics.unchecked`.

A partition's leader that has not loaded it yet (just created: the broker has applied the
topic to its metadata but not yet made its log) answers NOT_LEADER_OR_FOLLOWER, or, in
ZooKeeper mode, UNKNOWN_TOPIC_OR_PARTITION. Kafka's broker (KafkaApis.
handleDescribeProducersRequest -> ReplicaManager.activeProducerState -> Partition.
activeProducerState) answers from the partition's local log, the only place producer state
lives: no log, no state, and a Produce needs the same log (Partition.appendRecordsToLeader).
While the partition's leader epoch is still 0, the broker Metadata names is the only leader it
ever had (every leader change bumps the epoch), so a leader without the log has never taken a
write: no producer can be known for it anywhere, and it is answered as having none instead of
waited for (after a bulk create of 2,000 topics the wait was most of a bulk delete's time).
A partition at a later epoch may have had writes on an earlier leader: it is asked again,
with the leaders read again, for `_SETTLE_S`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

from .batches import batched
from .connection import poll_until
from .errors import AdminError, error_name
from .sampling import AdminSampling
from .wire import Api, WireRequest, code, nested, shape

AUTO_CREATE = "auto.create.topics.enable"
PRODUCER_ID_EXPIRATION = "producer.id.expiration.ms"  # Kafka 3.4+ (KIP-854)
TRANSACTIONAL_ID_EXPIRATION = "transactional.id.expiration.ms"  # what expired ids before 3.4
DEFAULT_EXPIRATION_MS = 86_400_000  # producer.id.expiration.ms's default
# A partition's leader that does not lead it yet (just created, or leadership moving).
_NOT_LED_YET = frozenset({"UNKNOWN_TOPIC_OR_PARTITION", "NOT_LEADER_OR_FOLLOWER"})
_SETTLE_S = 5.0


class PartitionProducer(NamedTuple):
    producer_id: int
    producer_epoch: int
    last_sequence: int  # -1: none
    last_timestamp: int  # ms since the epoch; -1: unknown
    current_txn_start_offset: int  # -1: no transaction open


class PartitionProducers(NamedTuple):
    topic: str
    partition: int
    error_code: int
    error_message: str | None
    producers: list[PartitionProducer]


class DescribeProducersRequest(WireRequest):
    """The active producers of `partitions` ((topic, partition) pairs), all led by the broker
    it goes to (another broker answers NOT_LEADER_OR_FOLLOWER for a partition)."""

    API = Api(61, "DescribeProducers", 0, 0)
    API_KEY = 61

    def __init__(self, partitions: Sequence[tuple[str, int]]) -> None:
        self.partitions = partitions

    def message(self, version: int) -> Any:
        request = self.API.request_type(version)
        topic = nested(request, "TopicRequest")
        by_topic: dict[str, list[int]] = {}
        for name, partition in self.partitions:
            by_topic.setdefault(name, []).append(partition)
        return shape(
            request,
            topics=tuple(
                shape(topic, name=name, partition_indexes=tuple(sorted(partitions)))
                for name, partitions in sorted(by_topic.items())
            ),
        )

    @staticmethod
    def answer(response: Any) -> list[PartitionProducers]:
        return [
            PartitionProducers(
                t.name,
                int(p.partition_index),
                code(p.error_code),
                p.error_message,
                [
                    PartitionProducer(
                        int(s.producer_id),
                        int(s.producer_epoch),
                        int(s.last_sequence),
                        int(s.last_timestamp),
                        int(s.current_txn_start_offset),
                    )
                    for s in p.active_producers
                ],
            )
            for t in response.topics
            for p in t.partitions
        ]


# -- the admin layer's language -------------------------------------------------------------


@dataclass(frozen=True)
class ActiveProducer:
    """A producer id whose state a partition's leader still keeps."""

    topic: str
    partition: int
    producer_id: int
    producer_epoch: int
    last_timestamp: int  # ms since the epoch; -1: unknown
    transaction_open: bool  # a transaction of it is open on this partition


@dataclass(frozen=True)
class ProducersOfTopics:
    """The producers the topics' leaders know, whether the brokers auto-create topics (None:
    unknown), how long a producer id lives after its last write (`expiration_ms`, as the
    broker says), and what could not be checked: "topic-partition" or "broker N" or
    "configs" -> (Kafka error name, a sentence)."""

    producers: list[ActiveProducer]
    auto_create: bool | None
    expiration_ms: int = DEFAULT_EXPIRATION_MS
    unchecked: Mapping[str, tuple[str, str]] = field(default_factory=dict)


class AdminProducers(AdminSampling):
    # DescribeConfigs keys read with the producers, one request.
    _KEYS: ClassVar[list[str]] = [AUTO_CREATE, PRODUCER_ID_EXPIRATION, TRANSACTIONAL_ID_EXPIRATION]

    async def producers_of(self, topics: Sequence[str]) -> ProducersOfTopics:
        """The active producers of `topics`' partitions (topics that do not exist have none)
        and the brokers' auto-creation. Never raises for a broker or a partition it cannot
        check, nor for a broker without DescribeProducers (before Kafka 2.8)."""
        configs, producers = await asyncio.gather(
            self.broker_configs(None, self._KEYS), self._producers(topics), return_exceptions=True
        )
        if isinstance(producers, BaseException):
            raise producers
        found, unchecked = producers
        if isinstance(configs, AdminError):
            unchecked["configs"] = (configs.name, configs.message)
            return ProducersOfTopics(found, None, DEFAULT_EXPIRATION_MS, unchecked)
        if isinstance(configs, BaseException):
            raise configs
        auto = configs.get(AUTO_CREATE)
        return ProducersOfTopics(
            found,
            None if auto is None else auto.strip().lower() == "true",
            _expiration(configs),
            unchecked,
        )

    async def _producers(
        self, topics: Sequence[str]
    ) -> tuple[list[ActiveProducer], dict[str, tuple[str, str]]]:
        """Asked again, with the leaders read again, for the partitions whose leader did not
        lead them yet (a ZooKeeper-mode broker answers UNKNOWN_TOPIC_OR_PARTITION for a
        partition it was just made leader of, before it applied that), for `_SETTLE_S` in
        all, unless their leader epoch is 0 (see the module's note)."""
        answered: dict[tuple[str, int], list[ActiveProducer]] = {}
        unchecked: dict[str, tuple[str, str]] = {}
        wanted = set(topics)

        async def ask() -> bool | None:
            asked, failed = await self._ask_leaders(sorted(wanted))
            answered.update(asked)
            unchecked.update(failed)
            pending = {
                k.rpartition("-")[0] for k, (name, _) in failed.items() if name in _NOT_LED_YET
            }
            wanted.intersection_update(pending)
            return None if wanted else True

        if topics:
            await poll_until(ask, time.monotonic() + _SETTLE_S, first_delay=0.1)
        for key in answered:
            unchecked.pop(f"{key[0]}-{key[1]}", None)
        found = [a for _, producers in sorted(answered.items()) for a in producers]
        found.sort(key=lambda a: (a.topic, a.partition, a.producer_id))
        return found, unchecked

    async def _ask_leaders(
        self, topics: Sequence[str]
    ) -> tuple[dict[tuple[str, int], list[ActiveProducer]], dict[str, tuple[str, str]]]:
        """One DescribeProducers per leader broker. The producers of each partition that
        answered, and what could not be checked."""
        unchecked: dict[str, tuple[str, str]] = {}
        by_leader, first_led = await self._leaders_and_epochs(topics)
        leaders = sorted(by_leader)
        answers = await asyncio.gather(
            *(self._send_to_itself(DescribeProducersRequest(by_leader[b]), b) for b in leaders),
            return_exceptions=True,
        )
        found: dict[tuple[str, int], list[ActiveProducer]] = {}
        for broker, answer in zip(leaders, answers, strict=True):
            if isinstance(answer, AdminError):
                unchecked[f"broker {broker}"] = (answer.name, answer.message)
                continue
            if isinstance(answer, BaseException):
                raise answer
            for p in DescribeProducersRequest.answer(answer):
                if p.error_code:
                    name = error_name(p.error_code)
                    if name in _NOT_LED_YET and (p.topic, p.partition) in first_led:
                        # Not loaded by its first leader yet: it has never taken a write.
                        found[(p.topic, p.partition)] = []
                        continue
                    unchecked[f"{p.topic}-{p.partition}"] = (name, p.error_message or name)
                    continue
                found[(p.topic, p.partition)] = [
                    ActiveProducer(
                        p.topic,
                        p.partition,
                        s.producer_id,
                        s.producer_epoch,
                        s.last_timestamp,
                        s.current_txn_start_offset >= 0,
                    )
                    for s in p.producers
                ]
        return found, unchecked

    async def _leaders_and_epochs(
        self, topics: Sequence[str]
    ) -> tuple[dict[int, list[tuple[str, int]]], set[tuple[str, int]]]:
        """Each leader's partitions of `topics`, and the partitions whose leader is still their
        first (leader epoch 0): one Metadata read per 500 topics, concurrently, each retried
        like `describe_topics`'s. A topic that does not exist has no partition."""

        read_batches = await asyncio.gather(
            *(self._read_batch(b, self._metadata_batch) for b in batched(sorted(set(topics))))
        )
        by_leader: dict[int, list[tuple[str, int]]] = {}
        first_led: set[tuple[str, int]] = set()
        for found, _ in read_batches:
            for t in found.values():
                for p in t.partitions:
                    if p.leader_id >= 0:
                        by_leader.setdefault(p.leader_id, []).append((t.name, p.partition_index))
                        if p.leader_epoch == 0:
                            first_led.add((t.name, p.partition_index))
        return by_leader, first_led


def _expiration(configs: Mapping[str, str | None]) -> int:
    """How long a producer id lives after its last write: producer.id.expiration.ms where
    the broker has it (3.4+), else transactional.id.expiration.ms, which governed it before."""
    for key in (PRODUCER_ID_EXPIRATION, TRANSACTIONAL_ID_EXPIRATION):
        value = configs.get(key)
        if value is not None and value.strip().lstrip("-").isdigit():
            return int(value)
    return DEFAULT_EXPIRATION_MS
