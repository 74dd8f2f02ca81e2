"""What Kafka 4.x added that a topic tool must show, pinned on the real clusters: the KRaft
controller is the quorum's leader (DescribeQuorum), not the random broker a Metadata answer
names; eligible leader replicas (KIP-966, DescribeTopicPartitions) in `topics describe`. The
ZooKeeper-mode cluster (3.9) has neither: the controller broker, and ELR unknown (null)."""

from __future__ import annotations

import contextlib
import io
import time
from collections.abc import Callable
from typing import Any

import pytest

from kafka_tui.admin import KafkaAdmin, TopicSpec
from kafka_tui.admin.partition_moves import PartitionMove
from kafka_tui.cli.main import main

from ..conftest import Cluster
from .test_plans import cli


def test_the_controller_is_the_quorum_leader_on_kraft(
    capsys: pytest.CaptureFixture[str], cluster: Cluster
) -> None:
    code, described = cli(capsys, cluster, "cluster", "describe")
    assert code == 0, described
    brokers = {b["id"] for b in described["brokers"]}
    quorum = described["quorum"]
    if cluster.mode == "zk":
        assert quorum is None
        assert described["controller_id"] in brokers  # ZooKeeper mode: a broker controls
        return
    # The dev cluster's one controller is node 1000; Metadata names a random broker instead.
    assert described["controller_id"] == quorum["leader"] == 1000
    assert [v["id"] for v in quorum["voters"]] == [1000]
    assert brokers <= {o["id"] for o in quorum["observers"]}
    assert all(m["lag"] >= 0 for m in quorum["voters"] + quorum["observers"])
    text = main_text(cluster, "cluster", "describe")
    assert "Controller: 1000\n" in text and "KRaft quorum: leader 1000" in text


# Topic configs Kafka 4.4 describes that 4.1.2 did not, with their defaults.
NEWER_TOPIC_CONFIGS = {
    "errors.deadletterqueue.group.enable": "false",
    "max.decompressed.message.bytes": "2147483639",
    "remote.copy.lag.bytes": "-1",
    "remote.copy.lag.ms": "0",
}


def _partitions(capsys: pytest.CaptureFixture[str], cluster: Cluster, name: str) -> Any:
    code, described = cli(capsys, cluster, "topics", "describe", name, "--no-configs")
    assert code == 0, described
    return sorted(described[0]["partitions"], key=lambda p: p["partition"])


def test_eligible_leader_replicas_are_described(
    capsys: pytest.CaptureFixture[str], cluster: Cluster, topic_name: Callable[[str], str]
) -> None:
    name = topic_name("elr")
    code, created = cli(
        capsys, cluster, "topics", "create", name, "--replica-assignment", "1:2:3",
        "--config", "min.insync.replicas=2",
    )  # fmt: skip
    assert code == 0, created
    code, described = cli(capsys, cluster, "topics", "describe", name)
    assert code == 0, described
    healthy, configs = described[0]["partitions"], described[0]["configs"]
    # Fact (the screen replays of the same scenario, recorded on 4.1.2 and then on 4.4.0):
    # 4.4's DescribeConfigs lists four topic configs 4.1.2's did not (max.decompressed.
    # message.bytes is in 4.2.2's jars already); ZooKeeper-mode 3.9 has none of them.
    newer = {k: v["value"] for k, v in configs.items() if k in NEWER_TOPIC_CONFIGS}
    if cluster.mode == "zk":
        assert (healthy[0]["elr"], healthy[0]["last_known_elr"]) == (None, None)
        assert newer == {}, newer
        return
    assert newer == NEWER_TOPIC_CONFIGS, newer
    assert (healthy[0]["elr"], healthy[0]["last_known_elr"]) == ([], [])
    # The replays' `inventory` alike: one partition whose only replica is on broker 2.
    solo = topic_name("elr-solo")
    code, created = cli(capsys, cluster, "topics", "create", solo, "--replica-assignment", "2")
    assert code == 0, created
    # Fact (Kafka 4.4, a new cluster with Kafka's defaults: ELR is on): with broker 3 gone
    # the ISR [1, 2] still meets min.insync.replicas; when broker 2 goes too, the ISR falls
    # below it and 2, the replica that left it then, becomes eligible to lead again.
    cluster.dev.stop_broker(3)
    cluster.dev.stop_broker(2)
    try:
        # The brokers are gone from Metadata; broker 1 applies the ISR change a moment later.
        deadline = time.monotonic() + 60
        while (partition := _partitions(capsys, cluster, name)[0])["isr"] != [1]:
            assert time.monotonic() < deadline, partition
            time.sleep(0.2)
        assert partition["elr"] == [2], partition
        text = main_text(cluster, "topics", "describe", name)
        assert "\tIsr: 1\tElr: 2\tLastKnownElr: \t" in text
        # Fact (Kafka 4.4, as the replays' inventory-0 shows): a partition whose only
        # replica's broker stopped keeps no ISR; that replica is its eligible and its last
        # known eligible leader replica.
        while (alone := _partitions(capsys, cluster, solo)[0])["leader"] != -1:
            assert time.monotonic() < deadline, alone
            time.sleep(0.2)
        assert (alone["isr"], alone["elr"], alone["last_known_elr"]) == ([], [2], [2]), alone
    finally:
        cluster.restore()


def main_text(cluster: Cluster, *args: str) -> str:
    """The command's table output."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--bootstrap-server", cluster.bootstrap_servers, *args]) == 0
    return out.getvalue()


async def test_a_move_that_keeps_the_count_never_changes_the_replication_factor(
    admin: KafkaAdmin, cluster: Cluster, topic_name: Callable[[str], str]
) -> None:
    """A move declared as keeping each partition's replica count is sent with
    AllowReplicationFactorChange=false (KIP-860): given a stale view (the caller thinks the
    partition has 2 replicas, it has 3), Kafka 4.1+ refuses the target that would shrink
    it. ZooKeeper-mode 3.9 speaks only v0 of the request, which cannot ask: it moves."""
    name = topic_name("rf-guard")
    (created,) = await admin.create_topics([TopicSpec(name, assignment={0: [1, 2, 3]})])
    assert created.ok, created
    stale = PartitionMove(name, 0, [2, 3], before=[1, 2])
    (result,) = await admin.alter_partition_reassignments([stale])
    if cluster.mode == "zk":
        assert result.ok, result
        await admin.wait_for_reassignments([(name, 0)], time.monotonic() + 60)
        return
    assert not result.ok and result.error == "INVALID_REPLICATION_FACTOR", result
    # Declared as a replication-factor change, the same target is accepted.
    (changed,) = await admin.alter_partition_reassignments(
        [PartitionMove(name, 0, [2, 3], before=[1, 2, 3])]
    )
    assert changed.ok, changed
    await admin.wait_for_reassignments([(name, 0)], time.monotonic() + 60)
