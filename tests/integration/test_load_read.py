"""The cheap read of the cluster's load (issue 30) on both real clusters: it counts exactly what
the full description gives, with a broker down too (offline replicas, leaderless partitions);
and a create placed from it gets the assignment a snapshot of every topic gives.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from kafka_tui.admin import KafkaAdmin, TopicSpec, protocol
from kafka_tui.admin.connection import poll_until
from kafka_tui.admin.placeholders import PlaceholderStore
from kafka_tui.planning.placement import Load
from kafka_tui.services.placing import PlacementOptions, plan_creates
from kafka_tui.services.snapshot import Snapshot, take_snapshot

from ..conftest import Cluster
from .test_metadata_decoding import raw_metadata

Names = Callable[[str], str]
T = TypeVar("T")


def _counted_both_ways(body: bytes) -> None:
    """The same answer decoded in full, and counted: the same load, topics and partitions."""
    full, end = protocol.decode_metadata_response(body)
    counted, counted_end = protocol.decode_metadata_load(body)
    assert counted_end == end == len(body)
    listed = [t for t in full.topics if not t.error_code]
    load = Load.from_assignments(p.replica_nodes for t in listed for p in t.partitions)
    assert (counted.replicas, counted.leaders) == (load.replicas, load.leaders)
    assert (counted.topics, counted.partitions) == (
        len(listed),
        sum(len(t.partitions) for t in listed),
    )
    assert (counted.cluster_id, counted.controller_id, counted.brokers) == (
        full.cluster_id,
        full.controller_id,
        full.brokers,
    )


async def _stable(read: Callable[[], Awaitable[T]]) -> T:
    """`read`'s answer once two reads in a row agree (deletions of earlier tests' topics
    may still be reaching the brokers)."""
    last: list[T] = []

    async def check() -> T | None:
        value = await read()
        agreed = bool(last) and last[-1] == value
        last.append(value)
        return value if agreed else None

    value = await poll_until(check, time.monotonic() + 60)
    assert value is not None, "the cluster's metadata kept changing for 60 s"
    return value


async def test_the_load_counted_is_the_load_described_also_with_a_broker_down(
    cluster: Cluster, admin: KafkaAdmin, topic_name: Names
) -> None:
    spread, on_3, only_3 = topic_name("spread"), topic_name("on3"), topic_name("only3")
    results = await admin.create_topics(
        [
            TopicSpec(spread, assignment={0: [1, 2, 3], 1: [3, 1, 2], 2: [2, 3, 1]}),
            TopicSpec(on_3, assignment={0: [3, 1], 1: [1, 3]}),
            TopicSpec(only_3, assignment={0: [3]}),
            TopicSpec(topic_name("single"), 4, 1),
        ]
    )
    assert all(r.ok for r in results), results
    _counted_both_ways(await raw_metadata(admin, None, {spread, on_3, only_3}))

    async def both() -> tuple[Load, Load]:
        described, counted = await admin.topics_with_load([spread])
        assert [t.name for t in described] == [spread]
        listed = await admin.list_topics()
        full = Load.from_assignments(p.replicas for t in listed for p in t.partitions)
        return full, Load(counted.replicas, counted.leaders)

    full, counted = await _stable(both)
    assert counted == full

    await asyncio.to_thread(cluster.dev.stop_broker, 3)
    try:

        async def offline() -> bytes | None:
            body = await raw_metadata(admin, None, set())
            metadata, _ = protocol.decode_metadata_response(body)
            shown = {
                (t.name, p.partition_index): (p.leader_id, p.offline_replicas)
                for t in metadata.topics
                if t.name in (on_3, only_3)
                for p in t.partitions
            }
            wanted = {(on_3, 0): (1, (3,)), (on_3, 1): (1, (3,)), (only_3, 0): (-1, (3,))}
            return body if shown == wanted else None

        body = await poll_until(offline, time.monotonic() + 60)
        assert body is not None, "broker 3's replicas never showed offline"
        _counted_both_ways(body)
        full_down, counted_down = await _stable(both)
        assert counted_down == full_down == full  # offline replicas still weigh
    finally:
        await asyncio.to_thread(cluster.restore)


async def test_a_create_is_placed_as_from_a_snapshot_of_every_topic(
    cluster: Cluster, admin: KafkaAdmin, topic_name: Names
) -> None:
    """A create's snapshot describes only the topics it touches and counts the others;
    the placer gets the same brokers and load, so the same assignments, in every mode."""
    skew = topic_name("skew")
    created = await admin.create_topics(
        [TopicSpec(skew, assignment={p: [1, 2] for p in range(7)} | {7: [3, 1]})]
    )
    assert created[0].ok, created[0].message
    new = [topic_name("new-a"), topic_name("new-b")]
    store = PlaceholderStore(admin.settings)

    async def bracketed() -> tuple[Snapshot, Snapshot] | None:
        """A snapshot of every topic, the create's own, and again one of every topic: when
        the two of every topic agree, nothing changed in between (earlier tests' deletions
        may still be reaching the brokers)."""
        every = await take_snapshot(admin, zookeeper=cluster.zookeeper, store=store)
        touched = await take_snapshot(admin, zookeeper=cluster.zookeeper, store=store, current=new)
        again = await take_snapshot(admin, zookeeper=cluster.zookeeper, store=store)
        stable = (every.load, every.brokers) == (again.load, again.brokers)
        return (every, touched) if stable else None

    found = await poll_until(bracketed, time.monotonic() + 60)
    assert found is not None, "the cluster's metadata kept changing for 60 s"
    every, touched = found
    assert touched.load == every.load and touched.brokers == every.brokers
    assert set(touched.topics) <= {*new, store.topic}
    specs = [
        TopicSpec(new[0], 6, 2),
        TopicSpec(new[1], 5, 3, configs={"min.insync.replicas": "1"}),
    ]
    for mode in ("disabled", "enabled", "enabled_prefer_observed"):
        options = PlacementOptions.of(mode, None, None)
        before = [p.placement for p in plan_creates(every, specs, options)]
        after = [p.placement for p in plan_creates(touched, specs, options)]
        assert after == before, mode
        assert all(p is not None and not p.error for p in after), mode
