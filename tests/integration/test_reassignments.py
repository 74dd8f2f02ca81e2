"""AlterPartitionReassignments, ListPartitionReassignments and UnregisterBroker on both clusters.

The clusters are shared by the whole run: a test that stops broker 3 restores it in `finally`.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable

import pytest

from kafka_tui.admin import (
    AdminError,
    ConnectionSettings,
    KafkaAdmin,
    KafkaRequestError,
    PartitionInfo,
    TopicSpec,
    ValidationError,
)
from kafka_tui.admin.connection import poll_until
from kafka_tui.admin.partition_moves import OngoingReassignment, PartitionMove
from kafka_tui.admin.reassignments import AdminReassignments, BrokerStillLive

from ..conftest import Cluster

Names = Callable[[str], str]


class Admin(KafkaAdmin, AdminReassignments):
    """KafkaAdmin with the reassignment mixin (harmless once KafkaAdmin inherits it)."""


async def _admin(cluster: Cluster, validate: bool = True) -> Admin:
    admin = Admin(ConnectionSettings(cluster.bootstrap_servers), client_side_validation=validate)
    await admin.connect()
    return admin


@pytest.fixture
async def mover(cluster: Cluster) -> AsyncIterator[Admin]:
    admin = await _admin(cluster)
    yield admin
    await admin.close()


@pytest.fixture
async def raw_mover(cluster: Cluster) -> AsyncIterator[Admin]:
    """Sends unchecked, to see what the controller itself answers."""
    admin = await _admin(cluster, validate=False)
    yield admin
    await admin.close()


async def _create(admin: KafkaAdmin, name: str, assignment: dict[int, list[int]]) -> str:
    result = (await admin.create_topics([TopicSpec(name, assignment=assignment)]))[0]
    assert result.ok, result.message
    return name


async def _partition_when(
    admin: KafkaAdmin, topic: str, ready: Callable[[PartitionInfo], bool], seconds: float = 60
) -> PartitionInfo:
    """Poll Metadata until partition 0 of `topic` satisfies `ready`; fail with what was seen."""
    seen: list[PartitionInfo] = []

    async def check() -> PartitionInfo | None:
        found, _ = await admin.describe_topics([topic], configs=False)
        if found:
            seen[:] = [found[0].partitions[0]]
            if ready(seen[0]):
                return seen[0]
        return None

    partition = await poll_until(check, time.monotonic() + seconds)
    assert partition is not None, f"{topic}-0 never got there; last seen: {seen}"
    return partition


def _deadline(seconds: float = 60) -> float:
    return time.monotonic() + seconds


async def test_growing_a_replica_list_completes_with_both_in_sync(
    mover: Admin, topic_name: Names
) -> None:
    topic = await _create(mover, topic_name(), {0: [1]})
    [result] = await mover.alter_partition_reassignments([PartitionMove(topic, 0, [1, 2])])
    assert result.ok and result.error is None, result.message
    assert await mover.wait_for_reassignments([(topic, 0)], _deadline()) == set()
    assert await mover.list_partition_reassignments([topic]) == []
    done = await _partition_when(mover, topic, lambda p: set(p.isr) == {1, 2})
    assert done.replicas == (1, 2)


async def test_every_refusal_is_a_sentence_in_request_order(
    raw_mover: Admin, topic_name: Names
) -> None:
    topic = await _create(raw_mover, topic_name(), {0: [1], 1: [1], 2: [1]})
    missing = topic_name("missing")
    moves = [
        PartitionMove(topic, 0, None),
        PartitionMove(missing, 0, [1]),
        PartitionMove(topic, 1, [1, -1]),
        PartitionMove(topic, 7, [1]),
        PartitionMove(topic, 2, [1, 99]),
    ]
    results = await raw_mover.alter_partition_reassignments(moves)
    assert [(r.topic, r.partition) for r in results] == [(m.topic, m.partition) for m in moves]
    assert [r.error for r in results] == [
        "NO_REASSIGNMENT_IN_PROGRESS",
        "UNKNOWN_TOPIC_OR_PARTITION",
        "INVALID_REPLICA_ASSIGNMENT",
        "UNKNOWN_TOPIC_OR_PARTITION",
        "INVALID_REPLICA_ASSIGNMENT",
    ]
    assert "nothing to cancel" in results[0].message
    assert f"Partition '{missing}'-0 does not exist" in results[1].message
    assert "Kafka said" in results[2].message
    assert not any(r.ok for r in results)


async def test_invalid_lists_are_refused_before_sending(mover: Admin, topic_name: Names) -> None:
    topic = topic_name("never-created")
    results = await mover.alter_partition_reassignments(
        [
            PartitionMove(topic, 0, [1, -1]),
            PartitionMove(topic, 1, []),
            PartitionMove(topic, 2, [2, 2]),
            PartitionMove(topic, 2, [1]),
            PartitionMove(topic, -1, None),
        ]
    )
    assert [r.error for r in results] == [
        "INVALID_REPLICA_ASSIGNMENT",
        "INVALID_REPLICA_ASSIGNMENT",
        "INVALID_REPLICA_ASSIGNMENT",
        "INVALID_REQUEST",
        "INVALID_REPLICA_ASSIGNMENT",
    ]
    assert all("Kafka would say" in r.message for r in results)


async def test_a_reassignment_waiting_for_a_stopped_broker_is_listed_and_can_be_cancelled(
    cluster: Cluster, mover: Admin, raw_mover: Admin, topic_name: Names
) -> None:
    # What keeps a move waiting differs by controller. ZooKeeper mode (and KRaft up to 4.2.0)
    # completes a move when every target replica is in the ISR, and refuses to add a replica on a
    # stopped broker. KRaft accepts a registered-but-fenced target, and from 4.2.1 completes a move
    # once the replicas it *adds* are in sync (PartitionReassignmentReplicas: "Wait for all adding
    # sync replicas to join the ISR"), even while an old target replica is down.
    kraft = cluster.mode == "kraft"
    before, target, adding = ([1, 2], [1, 2, 3], [3]) if kraft else ([1, 3], [1, 3, 2], [2])
    stuck = await _create(mover, topic_name("stuck"), {0: before})
    onto_stopped = await _create(mover, topic_name("onto"), {0: [1]})
    finishes = await _create(mover, topic_name("finishes"), {0: [1, 3]})
    try:
        cluster.dev.stop_broker(3)
        # Unchecked: kafka-tui itself refuses to add a replica on a broker it does not see.
        [started] = await raw_mover.alter_partition_reassignments([PartitionMove(stuck, 0, target)])
        assert started.ok, started.message
        [ongoing] = await mover.list_partition_reassignments([stuck])
        assert (ongoing.topic, ongoing.partition, ongoing.adding, ongoing.removing) == (
            stuck,
            0,
            adding,
            [],
        )
        assert sorted(ongoing.replicas) == [1, 2, 3]
        assert await mover.wait_for_reassignments([(stuck, 0)], time.monotonic()) == {(stuck, 0)}
        everything = await mover.list_partition_reassignments()
        assert ongoing in everything

        [cancelled] = await mover.alter_partition_reassignments([PartitionMove(stuck, 0, None)])
        assert cancelled.ok, cancelled.message
        assert await mover.wait_for_reassignments([(stuck, 0)], _deadline()) == set()
        await _partition_when(mover, stuck, lambda p: p.replicas == tuple(before))

        [onto] = await raw_mover.alter_partition_reassignments(
            [PartitionMove(onto_stopped, 0, [1, 3])]
        )
        [other] = await mover.alter_partition_reassignments([PartitionMove(finishes, 0, [1, 3, 2])])
        assert other.ok, other.message
        if kraft:
            # KRaft accepts a registered-but-fenced target; it waits in AddingReplicas.
            assert onto.ok, onto.message
            assert await mover.list_partition_reassignments([onto_stopped]) == [
                OngoingReassignment(onto_stopped, 0, [1, 3], [3], [])
            ]
            # KRaft 4.2.1+: added broker 2 in sync is enough, stopped broker 3 stays out of the ISR.
            assert await mover.wait_for_reassignments([(finishes, 0)], _deadline()) == set()
            done = await _partition_when(mover, finishes, lambda p: p.replicas == (1, 3, 2))
            assert 3 not in done.isr
        else:
            # ZooKeeper mode: every added replica must be live.
            assert onto.error == "INVALID_REPLICA_ASSIGNMENT"
            assert "not alive" in onto.message
            # ... and every target replica must be in sync: the move waits for broker 3.
            assert await mover.wait_for_reassignments([(finishes, 0)], time.monotonic()) == {
                (finishes, 0)
            }
    finally:
        cluster.restore()
    # Once broker 3 is back and caught up, every waiting move completes.
    waiting = [(onto_stopped, 0)] if kraft else [(finishes, 0)]
    assert await mover.wait_for_reassignments(waiting, _deadline()) == set()
    await _partition_when(mover, waiting[0][0], lambda p: 3 in p.isr)


async def test_unregistering_a_live_broker_is_refused_before_sending(
    cluster: Cluster, mover: Admin
) -> None:
    with pytest.raises(BrokerStillLive) as refused:
        await mover.unregister_broker(2)
    assert refused.value.name == "BROKER_STILL_LIVE"
    assert "Broker 2 is running (127.0.0.1:" in refused.value.message
    with pytest.raises(ValidationError):
        await mover.unregister_broker(-1)
    info = await mover.describe_cluster()
    assert info.live_broker_ids == [1, 2, 3]


async def test_unregister_broker_answers_per_mode(cluster: Cluster, mover: Admin) -> None:
    if cluster.mode == "kraft":
        with pytest.raises(KafkaRequestError) as unknown:
            await mover.unregister_broker(99)
        assert unknown.value.name == "BROKER_ID_NOT_REGISTERED"
        assert "Broker 99 is not registered" in unknown.value.message
        return
    # ZooKeeper mode: ApiVersions leaves UnregisterBroker (64) out, so it is never sent.
    versions = await mover.client.api_versions(mover._any_node())
    assert 64 not in versions and 45 in versions and 46 in versions
    with pytest.raises(AdminError) as unsupported:
        await mover.unregister_broker(99)
    assert unsupported.value.name == "UNSUPPORTED_VERSION"
    assert "ZooKeeper mode" in unsupported.value.message


async def test_a_stopped_kraft_broker_unregisters_and_registers_again_on_restart(
    kraft_cluster: Cluster,
) -> None:
    admin = await _admin(kraft_cluster)
    try:
        kraft_cluster.dev.stop_broker(3)
        fenced = await admin.describe_cluster()
        assert [(b.id, b.fenced) for b in fenced.brokers] == [(1, False), (2, False), (3, True)]
        await admin.unregister_broker(3)
        # The controller answers once the record is committed: DescribeCluster may lag.
        gone = await poll_until(lambda: _ids_if(admin, lambda ids: ids == [1, 2]), _deadline(30))
        assert gone == [1, 2]
        with pytest.raises(KafkaRequestError) as again:
            await admin.unregister_broker(3)
        assert again.value.name == "BROKER_ID_NOT_REGISTERED"
    finally:
        kraft_cluster.restore()
    back = await poll_until(
        lambda: _ids_if(admin, lambda ids: ids == [1, 2, 3], live=True), _deadline(60)
    )
    await admin.close()
    assert back == [1, 2, 3]


async def _ids_if(
    admin: KafkaAdmin, wanted: Callable[[list[int]], bool], live: bool = False
) -> list[int] | None:
    info = await admin.describe_cluster()
    ids = info.live_broker_ids if live else [b.id for b in info.brokers]
    return ids if wanted(ids) else None
