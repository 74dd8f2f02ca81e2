"""Demo topics for the local cluster, one of them left under-replicated by a stopped broker."""

from __future__ import annotations

import asyncio

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
