"""KIP-409 at its edges, on both real clusters through the command line: an explicit
assignment obeys the mode (placeholders written as negative ids), a topic created
under-replicated grows with placeholders toward its intended factor, the disabled mode with a
minimum is a usage error, and placeholder records follow slots filled by another tool."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from kafka_tui.admin import ConnectionSettings, KafkaAdmin
from kafka_tui.admin.connection import poll_until
from kafka_tui.cli import main

from ..conftest import Cluster
from .test_kip409 import _describe, broker_3_down, cli, name

__all__ = ["broker_3_down"]  # the fixture, shared with test_kip409.py


def _kafka_replicas(cluster: Cluster, topic: str, partitions: int) -> list[list[int]]:
    parts = asyncio.run(
        _describe(
            cluster, topic, lambda ps: len(ps) == partitions and all(p.leader >= 0 for p in ps)
        )
    )
    return [list(p.replicas) for p in parts]


def _placeholders(capsys: pytest.CaptureFixture[str], cluster: Cluster, topic: str) -> Any:
    code, described = cli(capsys, cluster, "topics", "describe", topic)
    assert code == 0, described
    return [p["placeholders"] for p in described[0]["partitions"]]


def _absent(cluster: Cluster, topic: str) -> bool:
    async def check() -> bool:
        async with KafkaAdmin(ConnectionSettings(cluster.bootstrap_servers)) as admin:
            found, _ = await admin.describe_topics([topic], configs=False)
            return not found

    return asyncio.run(check())


def test_an_explicit_assignment_obeys_the_mode(
    broker_3_down: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    cluster = broker_3_down
    # disabled: broker 3 is offline, so an assignment naming it is refused before sending.
    refused = name("given-offline")
    code, results = cli(
        capsys, cluster, "topics", "create", refused, "--replica-assignment", "1:3,2:1"
    )
    assert code == 1, results
    assert results[0]["error"] == "INVALID_REPLICA_ASSIGNMENT"
    assert "broker 3 is offline" in results[0]["message"]
    assert "--under-replicated enabled" in results[0]["message"]
    # A placeholder is an offline replica too, in the disabled mode.
    code, results = cli(
        capsys, cluster, "topics", "create", name("given-hole"), "--replica-assignment", "1:2:-1"
    )
    assert code == 1 and results[0]["error"] == "INVALID_REPLICA_ASSIGNMENT", results
    # A broker nobody knows is refused in every mode, naming it.
    code, results = cli(
        capsys,
        cluster,
        "topics",
        "create",
        name("given-unknown"),
        "--replica-assignment",
        "1:9",
        "--under-replicated",
        "enabled",
    )
    assert code == 1 and "Broker(s) 9 are not part of the cluster" in results[0]["message"]
    # enabled with a minimum of 2 live replicas: partition 1 has one.
    code, results = cli(
        capsys,
        cluster,
        "topics",
        "create",
        name("given-min"),
        "--replica-assignment",
        "1:2:-1,1:3:-1",
        "--min-required-replication-factor",
        "2",
    )
    assert code == 1 and "partition 1 has 1" in results[0]["message"], results
    assert _absent(cluster, refused)

    # enabled: an offline observed broker and placeholders, reported as a placed create is.
    created = name("given-holes")
    code, results = cli(
        capsys,
        cluster,
        "topics",
        "create",
        created,
        "--replica-assignment",
        "1:2:-1,2:1:-1",
        "--under-replicated",
        "enabled",
    )
    assert code == 0, results
    r = results[0]
    assert r["warning"] == "CREATED_UNDER_REPLICATED"
    assert r["assignment"] == [[1, 2, -1], [2, 1, -1]]
    assert r["under_replicated_partitions"] == 2
    assert _kafka_replicas(cluster, created, 2) == [[1, 2], [2, 1]]
    assert _placeholders(capsys, cluster, created) == [[-1], [-1]]

    # Growing it, in the disabled mode too: the new partitions get Kafka's 2 replicas, on live
    # brokers, and a placeholder each toward the intended 3.
    code, results = cli(capsys, cluster, "topics", "alter", created, "--partitions", "4")
    assert code == 0, results
    r = results[0]
    assert r["warning"] == "CREATED_UNDER_REPLICATED"
    assert [len(a) for a in r["assignment"]] == [3, 3]
    assert all(a[2] == -1 and set(a[:2]) <= {1, 2} for a in r["assignment"])
    assert "replication factor 3 it was created with" in r["message"]
    replicas = _kafka_replicas(cluster, created, 4)
    assert all(len(a) == 2 and set(a) <= {1, 2} for a in replicas)
    assert _placeholders(capsys, cluster, created) == [[-1]] * 4

    # An explicit grow: Kafka's count of brokers per new partition, placeholders for the rest.
    code, results = cli(
        capsys,
        cluster,
        "topics",
        "alter",
        created,
        "--partitions",
        "5",
        "--replica-assignment",
        "2:1:3",
    )
    assert code == 1 and results[0]["error"] == "INVALID_REPLICA_ASSIGNMENT", results
    code, results = cli(
        capsys,
        cluster,
        "topics",
        "alter",
        created,
        "--partitions",
        "5",
        "--replica-assignment",
        "2:1:-1",
    )
    assert code == 0, results
    assert _kafka_replicas(cluster, created, 5)[4] == [2, 1]
    assert _placeholders(capsys, cluster, created)[4] == [-1]
    assert cli(capsys, cluster, "topics", "delete", created, "--yes")[0] == 0


def test_disabled_mode_with_a_minimum_is_a_usage_error(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "--bootstrap-server",
            cluster.bootstrap_servers,
            "topics",
            "create",
            name("conflict"),
            "--replication-factor",
            "2",
            "--under-replicated",
            "disabled",
            "--min-required-replication-factor",
            "2",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "--min-required-replication-factor 2" in err
    assert "conflicts with --under-replicated disabled" in err


def test_a_slot_filled_by_another_tool_is_no_placeholder_any_more(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    """kafka-tui's own `topics reassign` stands in for kafka-reassign-partitions here: it
    knows nothing of placeholders. Every read reconciles the records with the replicas."""
    cluster.restore()
    topic = name("filled-elsewhere")
    code, results = cli(
        capsys,
        cluster,
        "topics",
        "create",
        topic,
        "--replica-assignment",
        "1:2:-1,2:1:-1",
        "--under-replicated",
        "enabled",
    )
    assert code == 0, results
    assert _placeholders(capsys, cluster, topic) == [[-1], [-1]]
    code, moved = cli(
        capsys, cluster, "topics", "reassign", topic, "--replica-assignment", "0=1:2:3"
    )
    assert code == 0, moved
    assert _placeholders(capsys, cluster, topic) == [[], [-1]]
    code, listed = cli(capsys, cluster, "placeholders", "list")
    assert [(r["topic"], r["partition"]) for r in listed if r["topic"] == topic] == [(topic, 1)]
    code, moved = cli(
        capsys, cluster, "topics", "reassign", topic, "--replica-assignment", "1=2:1:3"
    )
    assert code == 0, moved
    assert _placeholders(capsys, cluster, topic) == [[], []]

    # The record, fully filled, was removed by the describe that found it so.
    async def stored() -> bool | None:
        from kafka_tui.admin.placeholders import PlaceholderStore
        from kafka_tui.services.records import stored_placeholders

        settings = ConnectionSettings(cluster.bootstrap_servers)
        async with KafkaAdmin(settings) as admin:
            records = await stored_placeholders(admin, PlaceholderStore(settings))
            return True if topic not in records else None

    assert asyncio.run(poll_until(stored, time.monotonic() + 30))
    assert cli(capsys, cluster, "topics", "delete", topic, "--yes")[0] == 0


def test_zookeeper_knows_offline_brokers_from_replica_lists_and_waits_for_leaders(
    zk_cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    """A broker kafka-tui never saw live is still observed once a topic's replicas name it
    (recorded in /brokers/observed_ids on first sight); a grow written to ZooKeeper returns
    once every new partition has a leader, as the controller's answer would."""
    from kazoo.client import KazooClient

    cluster = zk_cluster
    cluster.restore()
    topic = name("zk-named")
    code, results = cli(capsys, cluster, "topics", "create", topic, "--replica-assignment", "1:2:3")
    assert code == 0, results
    raw = KazooClient(hosts=cluster.zookeeper, timeout=10)
    raw.start(timeout=10)
    try:
        # As on a cluster where kafka-tui never ran with ZooKeeper: broker 3 is not recorded.
        raw.delete("/brokers/observed_ids/3")
        cluster.dev.stop_broker(3)
        bare = ["--bootstrap-server", cluster.bootstrap_servers, "--output", "json"]
        assert main([*bare, "brokers", "list"]) == 0
        listed = {b["id"]: b for b in json.loads(capsys.readouterr().out)}
        assert (listed[3]["live"], listed[3]["observed"]) == (False, True)
        assert listed[3]["source"] == "replica lists"
        assert not raw.exists("/brokers/observed_ids/3")  # recorded only with ZooKeeper given

        code, brokers = cli(capsys, cluster, "brokers", "list")
        assert code == 0
        assert [(b["id"], b["live"], b["source"]) for b in brokers] == [
            (1, True, "live"),
            (2, True, "live"),
            (3, False, "replica lists"),
        ]
        assert raw.exists("/brokers/observed_ids/3")

        code, results = cli(
            capsys,
            cluster,
            "topics",
            "alter",
            topic,
            "--partitions",
            "2",
            "--under-replicated",
            "enabled",
        )
        assert code == 0, results
        assert "written to ZooKeeper" in results[0]["message"]
        assert 3 in results[0]["assignment"][0]
        # No polling: the result came once the controller had made the partition.
        state, _ = raw.get(f"/brokers/topics/{topic}/partitions/1/state")
        assert json.loads(state)["leader"] in (1, 2)
    finally:
        cluster.restore()
        raw.stop()
        raw.close()
    assert cli(capsys, cluster, "topics", "delete", topic, "--yes")[0] == 0


def test_a_plan_grows_a_degraded_topic_toward_its_intended_factor(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], tmp_path: Any
) -> None:
    """A bulk plan grows a topic created under-replicated as `topics alter` does: Kafka's
    count of brokers per new partition, placeholders up to the intended factor."""
    cluster.restore()
    topic = name("plan-degraded")
    code, results = cli(
        capsys,
        cluster,
        "topics",
        "create",
        topic,
        "--replica-assignment",
        "1:2:-1",
        "--under-replicated",
        "enabled",
    )
    assert code == 0, results
    plan = tmp_path / "grow.csv"
    plan.write_text(f"topic,partitions\n{topic},3\n")
    code, document = cli(capsys, cluster, "plan", "preview", str(plan))
    assert code == 0, document
    [entry] = document["topics"]
    assert entry["error"] is None and entry["replication_factor"] == 3, entry
    assert [len(a) for a in entry["assignment"]] == [3, 3]
    assert all(a[2] == -1 and -1 not in a[:2] for a in entry["assignment"])
    code, applied = cli(capsys, cluster, "plan", "apply", str(plan), "--yes")
    assert code == 0, applied
    assert [len(r) for r in _kafka_replicas(cluster, topic, 3)] == [2, 2, 2]
    assert _placeholders(capsys, cluster, topic) == [[-1]] * 3
    assert cli(capsys, cluster, "topics", "delete", topic, "--yes")[0] == 0


def test_a_grow_fills_its_new_placeholders_at_once_when_a_broker_can_take_them(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    """After a broker joined (before any fill), growing a topic created under-replicated
    gives the new partitions Kafka's count plus placeholders, and the joined broker takes
    those at once; the older partitions' placeholders wait for `placeholders fill`."""
    cluster.restore()
    topic = name("fill-at-once")
    code, results = cli(
        capsys,
        cluster,
        "topics",
        "create",
        topic,
        "--partitions",
        "1",
        "--replication-factor",
        "4",
        "--under-replicated",
        "enabled",
    )
    assert code == 0 and results[0]["assignment"][0][-1] == -1, results
    added = cluster.dev.add_broker()
    try:
        code, results = cli(capsys, cluster, "topics", "alter", topic, "--partitions", "2")
        assert code == 0, results
        message = results[0]["message"]
        assert "Filled at once: broker(s)" in message and "of partition(s) 1," in message
        replicas = _kafka_replicas(cluster, topic, 2)
        # The new partition: 3 brokers placed (the joined one among them, the least loaded),
        # then the fourth broker took its placeholder; partition 0 still waits for a fill.
        assert len(replicas[0]) == 3 and sorted(replicas[1]) == [1, 2, 3, added.id]
        assert _placeholders(capsys, cluster, topic) == [[-1], []]
    finally:
        cli(capsys, cluster, "topics", "delete", topic, "--yes")
        cluster.dev.remove_broker(added.id)
        cli(capsys, cluster, "brokers", "forget", str(added.id), "--yes")


def test_a_fill_elects_the_preferred_leaders_it_skewed_when_asked(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    """A partition whose leader is not its first replica (reordered by a reassignment, which
    keeps the leader) and a placeholder: `placeholders fill --elect-leaders` fills it, then
    gives the partition back to its preferred leader; without the flag it says how."""
    cluster.restore()
    topic = name("fill-elect")
    code, results = cli(
        capsys,
        cluster,
        "topics",
        "create",
        topic,
        "--replica-assignment",
        "1:2:-1",
        "--under-replicated",
        "enabled",
    )
    assert code == 0, results
    code, moved = cli(capsys, cluster, "topics", "reassign", topic, "--replica-assignment", "0=2:1")
    assert code == 0, moved
    parts = asyncio.run(_describe(cluster, topic, lambda ps: ps[0].replicas == (2, 1)))
    assert parts[0].leader == 1  # a reorder keeps the leader: 2 is preferred, 1 leads
    code, filled = cli(capsys, cluster, "placeholders", "fill", "--elect-leaders")
    assert code == 0, filled
    assert [(f["topic"], f["added"], f["ok"]) for f in filled if f["topic"] == topic] == [
        (topic, [3], True)
    ]
    parts = asyncio.run(_describe(cluster, topic, lambda ps: ps[0].leader == 2))
    assert parts[0].replicas == (2, 1, 3)
    assert cli(capsys, cluster, "topics", "delete", topic, "--yes")[0] == 0
