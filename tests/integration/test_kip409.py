"""KIP-409's scenarios on both real clusters, through the command line (JSON shapes too):
creation and partition increases while a broker is down, the modes and the minimum,
placeholders recorded, filled when a broker joins, and cleared on deletion."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from kafka_tui.admin import ConnectionSettings, KafkaAdmin
from kafka_tui.admin.connection import poll_until
from kafka_tui.cli import main

from ..conftest import Cluster


def cli(capsys: pytest.CaptureFixture[str], cluster: Cluster, *args: str) -> tuple[int, Any]:
    base = ["--bootstrap-server", cluster.bootstrap_servers, "--output", "json"]
    if cluster.zookeeper:
        base += ["--zookeeper", cluster.zookeeper]
    code = main([*base, *args])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out.strip() else err


def name(stem: str) -> str:
    return f"kip409-{stem}-{uuid.uuid4().hex[:6]}"


async def _describe(cluster: Cluster, topic: str, wanted: Any) -> Any:
    """The topic's partitions, polled until `wanted(partitions)` holds (ISR changes take a
    moment after a broker returns)."""
    async with KafkaAdmin(ConnectionSettings(cluster.bootstrap_servers)) as admin:

        async def check() -> Any:
            found, _ = await admin.describe_topics([topic], configs=False)
            parts = found[0].partitions if found else None
            return parts if parts is not None and wanted(parts) else None

        return await poll_until(check, time.monotonic() + 90)


@pytest.fixture(scope="module")
def broker_3_down(cluster: Cluster) -> Iterator[Cluster]:
    """Broker 3 stopped after kafka-tui has seen it (ZooKeeper mode records it as observed
    then), restored afterwards."""
    cluster.restore()  # every broker up first: an earlier test may have stopped one
    zookeeper = ["--zookeeper", cluster.zookeeper] if cluster.zookeeper else []
    assert (
        main(["--bootstrap-server", cluster.bootstrap_servers, *zookeeper, "brokers", "list"]) == 0
    )
    cluster.dev.stop_broker(3)
    try:
        yield cluster
    finally:
        cluster.restore()


def test_rf_3_with_a_broker_down_follows_the_mode_and_the_minimum(
    broker_3_down: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    cluster = broker_3_down
    code, brokers = cli(capsys, cluster, "brokers", "list")
    assert code == 0
    assert [(b["id"], b["live"], b["observed"]) for b in brokers] == [
        (1, True, True),
        (2, True, True),
        (3, False, True),
    ]
    refused = name("refused")
    code, results = cli(
        capsys,
        cluster,
        "topics",
        "create",
        refused,
        "--partitions",
        "4",
        "--replication-factor",
        "3",
    )
    assert code == 1 and results[0]["error"] == "INVALID_REPLICATION_FACTOR"
    assert "broker 3 is offline" in results[0]["message"]
    assert "--under-replicated enabled" in results[0]["message"]

    created = name("min2")
    code, results = cli(
        capsys,
        cluster,
        "topics",
        "create",
        created,
        "--partitions",
        "4",
        "--replication-factor",
        "3",
        "--min-required-replication-factor",
        "2",
    )
    assert code == 0, results
    r = results[0]
    assert r["ok"] and r["warning"] == "CREATED_UNDER_REPLICATED"
    assert r["under_replicated_partitions"] == 4
    assert all(sorted(a) == [1, 2, 3] and a[0] in (1, 2) for a in r["assignment"])
    parts = asyncio.run(_describe(cluster, created, lambda ps: all(p.leader >= 0 for p in ps)))
    assert [list(p.replicas) for p in parts] == r["assignment"]
    assert all(p.offline_replicas == (3,) and 3 not in p.isr for p in parts)

    code, results = cli(
        capsys,
        cluster,
        "topics",
        "create",
        name("min3"),
        "--partitions",
        "1",
        "--replication-factor",
        "3",
        "--min-required-replication-factor",
        "3",
    )
    assert code == 1 and results[0]["error"] == "INVALID_REPLICATION_FACTOR"
    code, results = cli(
        capsys,
        cluster,
        "topics",
        "create",
        name("isr3"),
        "--partitions",
        "1",
        "--replication-factor",
        "3",
        "--under-replicated",
        "enabled",
        "--config",
        "min.insync.replicas=3",
    )
    assert code == 1 and results[0]["error"] == "INVALID_REPLICATION_FACTOR"
    assert "min.insync.replicas" in results[0]["message"]


def _beyond_3s_lead(capsys: pytest.CaptureFixture[str], cluster: Cluster) -> int:
    """How many replicas broker 3 holds beyond the least loaded live broker. The placer
    (rightly) gives nothing more to a broker already at the call's fair share, and the
    shared cluster's load is uneven when an earlier test left topics behind (brokers place
    a plain create at random): a request must be large enough for the even spread to reach
    broker 3. Two replicas more per replica of lead make that certain."""
    code, brokers = cli(capsys, cluster, "brokers", "list")
    assert code == 0, brokers
    held = {b["id"]: b["replicas"] for b in brokers}
    return max(0, held[3] - min(held[1], held[2]))


def test_enabled_keeps_to_live_brokers_prefer_observed_spreads_over_the_offline_one(
    broker_3_down: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    cluster = broker_3_down
    # RF 2 over 3 brokers: 6 partitions spread evenly give each broker 4 replicas.
    partitions = 6 + _beyond_3s_lead(capsys, cluster)
    previews = {}
    for mode in ("enabled", "enabled_prefer_observed"):
        code, results = cli(
            capsys,
            cluster,
            "topics",
            "create",
            name(mode),
            "--partitions",
            str(partitions),
            "--replication-factor",
            "2",
            "--under-replicated",
            mode,
            "--validate-only",
        )
        assert code == 0 and results[0]["ok"], results
        previews[mode] = results[0]["assignment"]
    assert all(3 not in a for a in previews["enabled"])
    assert any(3 in a for a in previews["enabled_prefer_observed"])
    assert all(a[0] != 3 for a in previews["enabled_prefer_observed"])  # the leader is live


def test_partitions_grow_onto_the_offline_broker_and_its_isr_fills_when_it_returns(
    broker_3_down: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    cluster = broker_3_down
    topic = name("grow")
    code, results = cli(
        capsys, cluster, "topics", "create", topic, "--partitions", "1", "--replication-factor", "2"
    )
    assert code == 0, results
    total = 4 + _beyond_3s_lead(capsys, cluster)
    code, results = cli(
        capsys,
        cluster,
        "topics",
        "alter",
        topic,
        "--partitions",
        str(total),
        "--under-replicated",
        "enabled_prefer_observed",
    )
    assert code == 0, results
    new = results[0]["assignment"]
    assert len(new) == total - 1 and any(3 in a for a in new)
    if cluster.mode == "zk":
        assert "written to ZooKeeper" in results[0]["message"]
    parts = asyncio.run(_describe(cluster, topic, lambda ps: len(ps) == total))
    assert [list(p.replicas) for p in parts[1:]] == new
    cluster.restore()  # broker 3 returns (this test runs last in the module)
    asyncio.run(_describe(cluster, topic, lambda ps: all(len(p.isr) == 2 for p in ps)))
