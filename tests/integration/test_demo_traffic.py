"""The demo's moving traffic (devcluster/traffic.py) on the real KRaft 4.4 cluster: a producer
and a classic group reading half as fast, whose lag grows at every look (WARN, end to end);
a KIP-848 group and a share group of Kafka's own console consumers that read a few records
and leave (STOP, their lag growing with the producer's); all of it gone after `stop`."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from kafka_tui.admin import ConnectionSettings, KafkaAdmin
from kafka_tui.devcluster import traffic
from kafka_tui.services.groups import GroupLooks, GroupView, describe_groups

from ..conftest import Cluster

GROUPS = [traffic.LIVE_GROUP, traffic.KIP848_GROUP, traffic.SHARE_GROUP]


async def _watch(
    cluster: Cluster, done: Callable[[dict[str, GroupView]], bool], within: float = 120
) -> dict[str, GroupView]:
    """Look at the demo's groups every second (one GroupLooks, as the groups screen keeps)
    until `done` holds of the last views, or the last views seen."""
    looks = GroupLooks()
    deadline = time.monotonic() + within
    async with KafkaAdmin(ConnectionSettings(cluster.bootstrap_servers)) as admin:
        while True:
            views = {v.group: v for v in await describe_groups(admin, GROUPS, looks=looks)}
            if done(views) or time.monotonic() > deadline:
                return views
            await asyncio.sleep(1.0)


def test_the_demo_traffic_moves_every_kind_of_group(
    kraft_cluster: Cluster, topic_name: Callable[[str], str]
) -> None:
    state = kraft_cluster.dev.load()
    assert state is not None
    root = kraft_cluster.dev.root
    topic = topic_name("orders")
    pids = traffic.start(root, kraft_cluster.bootstrap_servers, state.version, None, topic)
    try:
        assert len(pids) == 3 and traffic.running(root)
        assert traffic.start(root, kraft_cluster.bootstrap_servers, state.version, None) == []

        def moving(views: dict[str, GroupView]) -> bool:
            live = views[traffic.LIVE_GROUP]
            return (
                live.status == "WARN"
                and all(views[g].error is None and not views[g].members for g in GROUPS[1:])
                and all(views[g].status == "STOP" for g in GROUPS[1:])
            )

        views = asyncio.run(_watch(kraft_cluster, moving))
        live = views[traffic.LIVE_GROUP]
        assert (live.type, live.state, live.status) == ("classic", "Stable", "WARN"), live
        assert "Lag never shrank over the last" in live.status_reason
        assert [views[g].type for g in GROUPS[1:]] == ["consumer", "share"]
        assert all(views[g].status == "STOP" and (views[g].lag or 0) > 0 for g in GROUPS[1:])
    finally:
        assert traffic.stop(root)
    assert not traffic.running(root)
    assert not any(traffic.node.is_running(pid, root.resolve(), traffic.NAME) for pid in pids)
