"""`topics reassign`, throttles, `reassignments list|cancel`, REASSIGNMENT_IN_PROGRESS and a
stopped target, on both real clusters (broker 3 is stopped once per kind and restored)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from kafka_tui.admin import ConnectionSettings, KafkaAdmin
from kafka_tui.admin.reassignments import (
    FOLLOWER_RATE,
    FOLLOWER_REPLICAS,
    LEADER_RATE,
    LEADER_REPLICAS,
)

from ..conftest import Cluster
from .test_alter_rf import partitions_of, produce, run_json, settled

Names = Callable[[str], str]


def create(capsys: pytest.CaptureFixture[str], cluster: Cluster, topic: str, spec: str) -> None:
    code, created = run_json(
        capsys, cluster, "topics", "create", topic, "--replica-assignment", spec
    )
    assert code == 0, created


async def throttles(
    cluster: Cluster, topic: str
) -> tuple[dict[int, list[str | None]], dict[str, str | None]]:
    """Per broker its two throttle rates, and the topic's throttled replicas (None: unset)."""
    async with KafkaAdmin(ConnectionSettings(cluster.bootstrap_servers)) as admin:
        keys = [LEADER_RATE, FOLLOWER_RATE]
        # An unset throttle rate is not listed at all (it has no default value).
        rates = {b: [(await admin.broker_configs(b, keys)).get(k) for k in keys] for b in (1, 2)}
        found, _ = await admin.describe_topics([topic])
        configs = found[0].configs
        replicas = {
            k: configs[k].value if k in configs and configs[k].is_override else None
            for k in (LEADER_REPLICAS, FOLLOWER_REPLICAS)
        }
    return rates, replicas


def test_moving_off_a_broker_previews_then_moves_only_that_broker(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    topic = topic_name()
    create(capsys, cluster, topic, "1:2,2:3,3:1,2:1")
    before = partitions_of(capsys, cluster, topic)
    args = ["topics", "reassign", topic, "--from-broker", "2"]
    code, preview = run_json(capsys, cluster, *args, "--validate-only")
    assert code == 0, preview
    assert partitions_of(capsys, cluster, topic) == before  # nothing sent
    code, listed = run_json(capsys, cluster, "reassignments", "list", topic)
    assert code == 0 and listed == []
    [plan] = preview  # type: ignore[misc]
    # Three partitions hold broker 2; each gets exactly one new replica, the one it lacks.
    assert [(m["partition"], m["before"], m["after"]) for m in plan["moves"]] == [
        (0, [1, 2], [1, 3]),
        (1, [2, 3], [3, 1]),
        (3, [2, 1], [1, 3]),
    ]
    code, moved = run_json(capsys, cluster, *args)
    assert code == 0, moved
    assert moved[0]["moves"] == plan["moves"]  # type: ignore[index]
    after = settled(capsys, cluster, topic, lambda ps: all(2 not in p["replicas"] for p in ps))
    assert [p["replicas"] for p in after] == [[1, 3], [3, 1], [3, 1], [1, 3]]


def test_throttled_reassignment_is_listed_blocks_a_partition_increase_and_cancels(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    topic = topic_name()
    create(capsys, cluster, topic, "1")
    # 4 MB: the first throttled fetch copies at most 1 MB, then 1 KB/s holds it for long.
    asyncio.run(produce(cluster.bootstrap_servers, topic, 400, size=10_000, partitions=1))
    code, started = run_json(
        capsys,
        cluster,
        "topics",
        "reassign",
        topic,
        "--replica-assignment",
        "0=1:2",
        "--throttle",
        "1000",
        "--no-wait",
    )
    assert code == 0, started
    assert started[0]["bytes_to_move"] >= 4_000_000  # type: ignore[index]
    assert "started moving" in started[0]["message"]  # type: ignore[index]
    rates, replicas = asyncio.run(throttles(cluster, topic))
    assert rates == {1: ["1000", "1000"], 2: ["1000", "1000"]}
    assert replicas == {LEADER_REPLICAS: "0:1", FOLLOWER_REPLICAS: "0:2"}

    code, listed = run_json(capsys, cluster, "reassignments", "list", topic)
    assert code == 0
    assert listed == [
        {"topic": topic, "partition": 0, "replicas": [1, 2], "adding": [2], "removing": []}
    ]
    code, grown = run_json(capsys, cluster, "topics", "alter", topic, "--partitions", "2")
    if cluster.mode == "zk":
        assert code == 1
        assert grown[0]["error"] == "REASSIGNMENT_IN_PROGRESS"  # type: ignore[index]
        assert grown[0]["message"].startswith(f"Topic '{topic}'")  # type: ignore[index]
        assert "reassignment is in progress" in grown[0]["message"]  # type: ignore[index]
    else:
        # KRaft's controller (ReplicationControlManager) no longer refuses a partition
        # increase during a reassignment: only ZooKeeper mode answers REASSIGNMENT_IN_PROGRESS.
        assert code == 0 and grown[0]["ok"], grown  # type: ignore[index]

    code, cancelled = run_json(capsys, cluster, "reassignments", "cancel", topic)
    assert code == 0 and cancelled[0]["ok"], cancelled  # type: ignore[index]
    code, listed = run_json(capsys, cluster, "reassignments", "list", topic)
    assert listed == []
    parts = settled(capsys, cluster, topic, lambda ps: ps[0]["replicas"] == [1])
    assert parts[0]["replicas"] == [1]
    rates, replicas = asyncio.run(throttles(cluster, topic))
    assert rates == {1: [None, None], 2: [None, None]}
    assert replicas == {LEADER_REPLICAS: None, FOLLOWER_REPLICAS: None}


def test_a_stopped_target_is_refused_first_in_zookeeper_mode_and_reported_stuck_in_kraft(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    topic = topic_name()
    create(capsys, cluster, topic, "1:2")
    zookeeper = ["--zookeeper", cluster.zookeeper] if cluster.zookeeper else []
    move = ["topics", "reassign", topic, "--replica-assignment", "0=1:2:3"]
    # Seen live once, so ZooKeeper mode counts broker 3 as observed while it is stopped.
    code, _ = run_json(capsys, cluster, *zookeeper, *move, "--validate-only")
    assert code == 0
    cluster.dev.stop_broker(3)
    try:
        code, result = run_json(capsys, cluster, *zookeeper, *move, "--wait-timeout", "3")
        assert code == 1
        [outcome] = result  # type: ignore[misc]
        if cluster.mode == "zk":
            assert outcome["error"] == "INVALID_REPLICA_ASSIGNMENT"
            assert "broker(s) 3 are offline" in outcome["message"]
            assert "ZooKeeper-mode clusters accept only live brokers" in outcome["message"]
            code, listed = run_json(capsys, cluster, "reassignments", "list", topic)
            assert listed == []
        else:
            assert outcome["error"] == "REASSIGNMENT_IN_PROGRESS"
            assert "partition 0: broker(s) 3 offline" in outcome["message"]
            code, listed = run_json(capsys, cluster, "reassignments", "list", topic)
            assert [r["adding"] for r in listed] == [[3]]  # type: ignore[index, union-attr]
            code, cancelled = run_json(capsys, cluster, "reassignments", "cancel", topic)
            assert code == 0, cancelled
        parts = settled(capsys, cluster, topic, lambda ps: ps[0]["replicas"] == [1, 2])
        assert parts[0]["replicas"] == [1, 2]
    finally:
        cluster.restore()
