"""KIP-409 placeholder replicas, recorded durably in a compacted topic.

Kafka refuses negative broker ids, so a replica no broker could take exists only here: one
record per topic (key = topic name) holding the topic id, the replication factor intended,
and per partition the missing slots (-1, -2, ...) with the rack each would prefer. A null
value (tombstone) removes a topic's entry. The topic is compacted, so it stays small and a
reader gets the latest entry per topic by reading it from the start.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from aiokafka.errors import KafkaError

from .connection import security_kwargs
from .errors import AdminError
from .model import ConnectionSettings, TopicSpec

DEFAULT_TOPIC = "__kafka_tui_placeholders"


@dataclass(frozen=True)
class Slot:
    """A missing replica: `slot` is -1, -2, ... within the partition."""

    slot: int
    rack: str | None = None


@dataclass(frozen=True)
class PlaceholderEntry:
    topic: str
    topic_id: str | None
    replication_factor: int  # the one intended; the topic has fewer replicas per partition
    slots: dict[int, list[Slot]] = field(default_factory=dict)  # partition -> missing slots

    def to_json(self) -> dict[str, Any]:
        return {
            "topic": self.topic,
            "topic_id": self.topic_id,
            "replication_factor": self.replication_factor,
            "partitions": {
                str(p): [{"slot": s.slot, "rack": s.rack} for s in slots]
                for p, slots in sorted(self.slots.items())
                if slots
            },
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PlaceholderEntry:
        return cls(
            topic=str(data["topic"]),
            topic_id=data.get("topic_id"),
            replication_factor=int(data["replication_factor"]),
            slots={
                int(p): [Slot(int(s["slot"]), s.get("rack")) for s in slots]
                for p, slots in data.get("partitions", {}).items()
            },
        )

    def reconciled(self, replicas: Mapping[int, int]) -> PlaceholderEntry:
        """The entry as the partitions' real replica counts (`replicas`: partition -> count)
        leave it: a partition holds at most `replication_factor - count` placeholders, so a
        slot filled by any tool (kafka-reassign-partitions, a manual reassignment) is gone;
        the lowest slots (-1, -2, ...) stay. A partition `replicas` does not name is kept as
        it is (a filtered read). Itself when nothing changed."""
        slots = {}
        for partition, missing in self.slots.items():
            count = replicas.get(partition)
            room = len(missing) if count is None else self.replication_factor - count
            kept = sorted(missing, key=lambda s: -s.slot)[: max(0, room)]
            if kept:
                slots[partition] = kept
        if slots == self.slots:
            return self
        return PlaceholderEntry(self.topic, self.topic_id, self.replication_factor, slots)

    def without(self, partition: int, slot: int) -> PlaceholderEntry:
        slots = {p: list(s) for p, s in self.slots.items()}
        slots[partition] = [s for s in slots.get(partition, []) if s.slot != slot]
        return PlaceholderEntry(
            self.topic,
            self.topic_id,
            self.replication_factor,
            {p: s for p, s in slots.items() if s},
        )


class PlaceholderStore:
    """Reads and writes the placeholder topic with the profile's connection settings."""

    def __init__(self, settings: ConnectionSettings, topic: str = DEFAULT_TOPIC) -> None:
        self.settings = settings
        self.topic = topic

    def topic_spec(self, replication_factor: int) -> TopicSpec:
        """The record topic: one compacted partition, replicated like the cluster's own
        internal topics (`offsets.topic.replication.factor`)."""
        return TopicSpec(
            self.topic,
            partitions=1,
            replication_factor=max(1, replication_factor),
            configs={"cleanup.policy": "compact", "min.insync.replicas": "1"},
        )

    def _kwargs(self) -> dict[str, Any]:
        s = self.settings
        return {
            "bootstrap_servers": s.bootstrap_servers,
            "client_id": f"{s.client_id}-placeholders",
            "request_timeout_ms": s.request_timeout_ms,
            **security_kwargs(s),
        }

    async def load(self, partitions: int = 1) -> dict[str, PlaceholderEntry]:
        """Every topic's latest entry. `partitions`: the topic's partition count, as the
        caller's (consistent) metadata shows it; the consumer's own metadata may come from
        a broker that has not heard of a just-created topic yet."""
        from aiokafka import AIOKafkaConsumer, TopicPartition  # a create never reads records

        consumer = AIOKafkaConsumer(enable_auto_commit=False, **self._kwargs())
        entries: dict[str, PlaceholderEntry] = {}
        await consumer.start()
        try:
            tps = [TopicPartition(self.topic, p) for p in range(partitions)]
            consumer.assign(tps)
            await consumer.seek_to_beginning(*tps)
            ends = await consumer.end_offsets(tps)
            while [tp for tp in tps if await consumer.position(tp) < ends[tp]]:
                batches = await consumer.getmany(*tps, timeout_ms=1000)
                for records in batches.values():
                    for record in records:
                        key = record.key.decode() if record.key else None
                        if key is None:
                            continue
                        if record.value is None:
                            entries.pop(key, None)
                        else:
                            entries[key] = PlaceholderEntry.from_json(json.loads(record.value))
        except KafkaError as exc:
            raise AdminError(
                "PLACEHOLDERS_UNREADABLE",
                f"Cannot read the placeholder records in topic '{self.topic}': {exc}.",
            ) from None
        finally:
            await consumer.stop()
        return entries

    async def write(self, entries: list[PlaceholderEntry], removed: Sequence[str] = ()) -> None:
        """Store `entries` (an entry without slots is removed) and tombstone `removed`."""
        if not entries and not removed:
            return
        from aiokafka import AIOKafkaProducer

        producer = AIOKafkaProducer(acks="all", enable_idempotence=False, **self._kwargs())
        try:
            await producer.start()
            sends = []
            for e in entries:
                value = json.dumps(e.to_json()).encode() if any(e.slots.values()) else None
                sends.append(await producer.send(self.topic, value, key=e.topic.encode()))
            for topic in removed:
                sends.append(await producer.send(self.topic, None, key=topic.encode()))
            for sent in sends:
                await sent
        except KafkaError as exc:
            raise AdminError(
                "PLACEHOLDERS_UNWRITABLE",
                f"Cannot record placeholders in topic '{self.topic}': {exc}. The topics were "
                "created; `kafka-tui placeholders list` will not know their missing replicas.",
            ) from None
        finally:
            await producer.stop()
