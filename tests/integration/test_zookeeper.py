"""KIP-409's ZooKeeper-mode extras on the real ZooKeeper-mode cluster: observed brokers, and
partitions written into /brokers/topics/<topic> that name an offline broker."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable

import pytest
from kazoo.client import KazooClient

from kafka_tui.admin import (
    AdminError,
    ConnectionFailed,
    ConnectionSettings,
    KafkaAdmin,
    PartitionInfo,
    TopicSpec,
    ValidationError,
)
from kafka_tui.admin.connection import poll_until
from kafka_tui.admin.partition_moves import PartitionMove
from kafka_tui.admin.reassignments import AdminReassignments, BrokerStillLive
from kafka_tui.admin.zookeeper import ObservedBroker, ZooKeeperExtras
from kafka_tui.devcluster.probe import free_ports

from ..conftest import Cluster

Names = Callable[[str], str]


class Admin(KafkaAdmin, AdminReassignments):
    pass


@pytest.fixture
async def zk_admin(zk_cluster: Cluster) -> AsyncIterator[Admin]:
    async with Admin(ConnectionSettings(zk_cluster.bootstrap_servers)) as admin:
        yield admin


def _extras(zk_cluster: Cluster) -> ZooKeeperExtras:
    assert zk_cluster.zookeeper is not None
    return ZooKeeperExtras(zk_cluster.zookeeper)


async def test_record_observed_copies_every_live_registration(
    zk_cluster: Cluster, zk_raw: KazooClient
) -> None:
    await asyncio.to_thread(zk_raw.delete, "/brokers/observed_ids", recursive=True)
    async with _extras(zk_cluster) as zk:
        assert await zk.record_observed() == [1, 2, 3]
        assert await zk.record_observed() == []  # unchanged: nothing written
        observed = await zk.observed_brokers()
    for broker_id in (1, 2, 3):
        live, _ = zk_raw.get(f"/brokers/ids/{broker_id}")
        copy, stat = zk_raw.get(f"/brokers/observed_ids/{broker_id}")
        assert copy == live
        assert stat.ephemeralOwner == 0  # persistent: it outlives the broker's session
    ports = {b["id"]: b["port"] for b in zk_cluster.dev.status()["brokers"]}
    assert observed == [
        ObservedBroker(i, rack, "127.0.0.1", ports[i], True)
        for i, rack in ((1, "rack-a"), (2, "rack-b"), (3, "rack-c"))
    ]


async def _partition_when(
    admin: KafkaAdmin, topic: str, index: int, ready: Callable[[PartitionInfo], bool]
) -> PartitionInfo:
    seen: list[PartitionInfo] = []

    async def check() -> PartitionInfo | None:
        found, _ = await admin.describe_topics([topic], configs=False)
        parts = [p for t in found for p in t.partitions if p.partition == index]
        seen[:] = parts
        return parts[0] if parts and ready(parts[0]) else None

    partition = await poll_until(check, time.monotonic() + 60)
    assert partition is not None, f"{topic}-{index} never got there; last seen: {seen}"
    return partition


async def test_partitions_on_a_stopped_observed_broker(
    zk_cluster: Cluster, zk_admin: Admin, zk_raw: KazooClient, topic_name: Names
) -> None:
    topic, busy = topic_name("grow"), topic_name("busy")
    created = await zk_admin.create_topics(
        [TopicSpec(topic, assignment={0: [1, 2]}), TopicSpec(busy, assignment={0: [1, 3]})]
    )
    assert all(r.ok for r in created), [r.message for r in created]
    async with _extras(zk_cluster) as zk:
        await zk.record_observed()
        try:
            zk_cluster.dev.stop_broker(3)
            brokers = {b.id: b for b in await zk.observed_brokers()}
            assert sorted(brokers) == [1, 2, 3]
            assert [brokers[i].live for i in (1, 2, 3)] == [True, True, False]
            assert brokers[3].rack == "rack-c"

            with pytest.raises(BrokerStillLive) as live:
                await zk.forget(1)
            assert "Broker 1 is running" in live.value.message

            # CreatePartitions would refuse broker 3 (not in /brokers/ids); the znode write
            # is what Kafka's AdminZkClient does, and the controller creates the partition.
            await zk.add_partitions(topic, {1: [3, 1]})
            offline = await _partition_when(zk_admin, topic, 1, lambda p: p.leader >= 0)
            assert (offline.replicas, offline.leader, offline.isr) == ((3, 1), 1, (1,))
            assert offline.offline_replicas == (3,)
            raw, _ = zk_raw.get(f"/brokers/topics/{topic}")
            znode = json.loads(raw)
            assert znode["partitions"] == {"0": [1, 2], "1": [3, 1]}
            assert znode["version"] == 3 and znode["topic_id"]
            assert znode["adding_replicas"] == {} and znode["removing_replicas"] == {}

            await _refusals(zk, topic)
            await _reassignment_blocks_growth(zk, zk_admin, busy)
            await _concurrent_write_is_refused(zk, zk_raw, topic)

            assert await zk.forget(3) is True
            assert await zk.forget(3) is False
            assert [b.id for b in await zk.observed_brokers()] == [1, 2]
        finally:
            zk_cluster.restore()
        await _partition_when(zk_admin, topic, 1, lambda p: sorted(p.isr) == [1, 3])
        assert await zk.record_observed() == [3]  # forgotten, then seen again


async def _refusals(zk: ZooKeeperExtras, topic: str) -> None:
    bad: list[tuple[dict[int, list[int]], str, str]] = [
        ({3: [1, 2]}, "INVALID_PARTITIONS", "expected ids [2]"),
        ({}, "INVALID_PARTITIONS", "continue the existing 2"),
        ({2: [1]}, "INVALID_REPLICA_ASSIGNMENT", "replication factor is 2"),
        ({2: [1, 1]}, "INVALID_REPLICA_ASSIGNMENT", "names a broker twice"),
        ({2: [1, -1]}, "INVALID_REPLICA_ASSIGNMENT", "negative broker id"),
        ({2: [1, 99]}, "INVALID_REPLICA_ASSIGNMENT", "neither live nor observed"),
    ]
    for new, name, words in bad:
        with pytest.raises(ValidationError) as refused:
            await zk.add_partitions(topic, new)
        assert (refused.value.name, refused.value.topic) == (name, topic), new
        assert words in refused.value.message
    with pytest.raises(ValidationError) as unknown:
        await zk.add_partitions(topic + "-missing", {0: [1, 2]})
    assert unknown.value.name == "UNKNOWN_TOPIC_OR_PARTITION"


async def _reassignment_blocks_growth(zk: ZooKeeperExtras, admin: Admin, busy: str) -> None:
    # Stuck while broker 3 is down: completion needs every target replica in the ISR.
    [moving] = await admin.alter_partition_reassignments([PartitionMove(busy, 0, [1, 3, 2])])
    assert moving.ok, moving.message
    try:
        with pytest.raises(AdminError) as blocked:
            await zk.add_partitions(busy, {1: [1, 2]})
        assert blocked.value.name == "REASSIGNMENT_IN_PROGRESS"
    finally:
        [cancel] = await admin.alter_partition_reassignments([PartitionMove(busy, 0, None)])
        assert cancel.ok, cancel.message


async def _concurrent_write_is_refused(
    zk: ZooKeeperExtras, zk_raw: KazooClient, topic: str
) -> None:
    path = f"/brokers/topics/{topic}"
    data, version = await zk._run(lambda c: zk._new_assignment(c, topic, {2: [1, 2]}))
    current, _ = zk_raw.get(path)
    zk_raw.set(path, current)  # another writer: same content, newer version
    with pytest.raises(AdminError) as conflict:
        await zk._run(lambda c: zk._write_assignment(c, topic, data, version))
    assert conflict.value.name == "CONCURRENT_CHANGE"
    assert json.loads(zk_raw.get(path)[0])["partitions"].keys() == {"0", "1"}


@pytest.mark.parametrize("address", ["127.0.0.1:{port}", "no-such-host.invalid:2181"])
async def test_an_unreachable_zookeeper_is_a_sentence_naming_it(address: str) -> None:
    connect = address.format(port=free_ports(1)[0])
    started = time.monotonic()
    with pytest.raises(ConnectionFailed) as failed:
        async with ZooKeeperExtras(connect, timeout_s=2):
            pass
    assert f"ZooKeeper at {connect}" in failed.value.message
    # Bounded by the timeout (generous margin: this is not a speed test).
    assert time.monotonic() - started < 15
