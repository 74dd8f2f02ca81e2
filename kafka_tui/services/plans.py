"""Bulk plans: what the planner needs to know of the cluster, for `plan preview|apply` and the
TUI's plan screen alike."""

from __future__ import annotations

from ..admin import KafkaAdmin
from ..planning.plan import ClusterView, ExistingTopic
from .snapshot import Snapshot, min_insync_replicas


async def cluster_view(admin: KafkaAdmin, snapshot: Snapshot, names: list[str]) -> ClusterView:
    """What the planner needs to know of the cluster; `names`: the plan's topics (their
    min.insync.replicas matters to grows in enabled modes)."""
    min_isr = await min_insync_replicas(admin, [n for n in names if n in snapshot.topics])
    topics = {}
    for name, topic in snapshot.topics.items():
        entry = snapshot.placeholders.get(name)
        topics[name] = ExistingTopic(
            tuple(tuple(p.replicas) for p in topic.partitions),
            entry.replication_factor if entry else topic.replication_factor,
            min_isr.get(name),
        )
    return ClusterView(
        tuple(snapshot.brokers),
        snapshot.load,
        topics,
        snapshot.default_int("num.partitions", 1),
        snapshot.default_int("default.replication.factor", 1),
        snapshot.default_int("min.insync.replicas", 1),
    )
