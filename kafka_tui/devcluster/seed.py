"""Demo topics for the local cluster, one of them left under-replicated by a stopped broker,
and consumer groups that lag behind them (the groups screen's walkthrough)."""

from __future__ import annotations

import asyncio
import time

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.errors import KafkaError

from ..admin import ConnectionSettings, KafkaAdmin, TopicResult, TopicSpec

DEMO_TOPICS = [
    TopicSpec("orders", 6, 3, configs={"min.insync.replicas": "2"}),
    TopicSpec("payments", 3, 3, configs={"min.insync.replicas": "2", "retention.ms": "604800000"}),
    TopicSpec("clickstream", 12, 2, configs={"retention.ms": "86400000"}),
    TopicSpec("customer-profiles", 3, 3, configs={"cleanup.policy": "compact"}),
    # Partition 0 lives only on broker 3: stopping broker 3 leaves it without a leader.
    TopicSpec("inventory", assignment={0: [3], 1: [1], 2: [2]}),
]
# The broker `kafka-tui demo` stops, so offline replicas show.
DEMO_STOPPED_BROKER = 3

# Records per partition written to the demo groups' topics, stamped over the last two hours,
# and the groups: (group, topic, records per partition each committed, then left). Nothing
# keeps running: each group committed once and has no member (Empty), so it lags (STOP) or
# is caught up (OK) until someone resets it; `dev-cluster down` removes everything.
DEMO_RECORDS = {"orders": 40, "payments": 20}
DEMO_SPAN_MS = 2 * 3600_000
DEMO_GROUPS = [
    ("billing", "orders", 25),  # 15 behind on each of 6 partitions, the oldest ~45 min old
    ("shipping", "orders", 40),  # caught up
    ("fraud-check", "payments", 2),  # 18 behind on each of 3 partitions, ~1h50m old
]


async def _seed(bootstrap_servers: str) -> list[TopicResult]:
    async with KafkaAdmin(ConnectionSettings(bootstrap_servers)) as admin:
        return await admin.create_topics(DEMO_TOPICS)


def seed_demo_topics(bootstrap_servers: str) -> list[TopicResult]:
    """Create the demo topics; topics that already exist are left as they are."""
    results = asyncio.run(_seed(bootstrap_servers))
    failed = [r for r in results if not r.ok and r.error != "TOPIC_ALREADY_EXISTS"]
    if failed:
        raise RuntimeError("; ".join(r.message for r in failed))
    return results


def seed_demo_groups(bootstrap_servers: str) -> None:
    """Records into the demo topics and DEMO_GROUPS behind them (after seed_demo_topics);
    once: a cluster that has one of the groups already is left as it is."""
    try:
        asyncio.run(_seed_groups(bootstrap_servers))
    except KafkaError as exc:  # the demo's one error policy: a sentence, no traceback
        raise RuntimeError(f"seeding the demo groups: {exc}") from None


async def _seed_groups(bootstrap_servers: str) -> None:
    """DEMO_RECORDS into their topics, then DEMO_GROUPS each commit and leave."""
    async with KafkaAdmin(ConnectionSettings(bootstrap_servers)) as admin:
        listed, _ = await admin.all_groups()
        if {g.group for g in listed} & {g for g, _, _ in DEMO_GROUPS}:
            return
        found, _ = await admin.describe_topics(list(DEMO_RECORDS), configs=False)
    partitions = {t.name: len(t.partitions) for t in found}
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap_servers, acks="all")
    await producer.start()
    try:
        now = int(time.time() * 1000)
        sent = []
        for topic, count in DEMO_RECORDS.items():
            step = DEMO_SPAN_MS // count
            for p in range(partitions[topic]):
                for i in range(count):
                    stamp = now - DEMO_SPAN_MS + i * step
                    value = f'{{"{topic[:-1]}": {p * count + i}}}'.encode()
                    sent.append(await producer.send(topic, value, partition=p, timestamp_ms=stamp))
        await asyncio.gather(*sent)
    finally:
        await producer.stop()
    for group, topic, offset in DEMO_GROUPS:
        consumer = AIOKafkaConsumer(
            bootstrap_servers=bootstrap_servers, group_id=group, enable_auto_commit=False
        )
        await consumer.start()
        try:
            chosen = [TopicPartition(topic, p) for p in range(partitions[topic])]
            consumer.assign(chosen)
            await consumer.commit(dict.fromkeys(chosen, offset))
        finally:
            await consumer.stop()
