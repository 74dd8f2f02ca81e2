"""The dev clusters are real: plain clients (aiokafka, kazoo) see what an operator would."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from aiokafka.client import AIOKafkaClient
from kazoo.client import KazooClient

from kafka_tui.admin.protocol import DescribeClusterRequest
from kafka_tui.devcluster import ClusterError, DevCluster, ensure_kafka
from kafka_tui.devcluster.jars import KRAFT_VERSION, ZK_VERSION

from ..conftest import Cluster

RACKS = {1: "rack-a", 2: "rack-b", 3: "rack-c"}


async def _metadata_brokers(bootstrap: str) -> dict[int, str | None]:
    client = AIOKafkaClient(bootstrap_servers=bootstrap)
    try:
        await client.bootstrap()
        return {b.nodeId: b.rack for b in client.cluster.brokers()}
    finally:
        await client.close()


async def _describe_cluster(bootstrap: str) -> dict[int, bool]:
    """Broker id -> fenced, from DescribeCluster v2 with IncludeFencedBrokers."""
    client = AIOKafkaClient(bootstrap_servers=bootstrap)
    try:
        await client.bootstrap()
        response = await client.send(client.get_random_node(), DescribeClusterRequest())
        # DescribeCluster v2 (IncludeFencedBrokers): each broker says whether it is fenced
        assert all(hasattr(b, "is_fenced") for b in response.brokers), response
        return {b.broker_id: b.is_fenced for b in response.brokers}
    finally:
        await client.close()


def test_a_plain_client_sees_three_brokers_on_their_racks(cluster: Cluster) -> None:
    assert asyncio.run(_metadata_brokers(cluster.bootstrap_servers)) == RACKS


def test_stopping_broker_2_fences_it_and_starting_it_brings_it_back(
    kraft_cluster: Cluster,
) -> None:
    bootstrap = kraft_cluster.bootstrap_servers
    try:
        kraft_cluster.dev.stop_broker(2)
        assert set(asyncio.run(_metadata_brokers(bootstrap))) == {1, 3}
        assert asyncio.run(_describe_cluster(bootstrap)) == {1: False, 2: True, 3: False}
        assert [b["running"] for b in kraft_cluster.dev.status()["brokers"]] == [True, False, True]
    finally:
        kraft_cluster.dev.start_broker(2)
    assert asyncio.run(_metadata_brokers(bootstrap)) == RACKS
    assert asyncio.run(_describe_cluster(bootstrap)) == {1: False, 2: False, 3: False}


def test_killing_broker_2_in_zookeeper_mode_drops_its_registration(zk_cluster: Cluster) -> None:
    zk = KazooClient(hosts=zk_cluster.zookeeper)
    zk.start(timeout=15)
    try:
        zk_cluster.dev.stop_broker(2, kill=True)
        assert set(asyncio.run(_metadata_brokers(zk_cluster.bootstrap_servers))) == {1, 3}
        assert sorted(zk.get_children("/brokers/ids")) == ["1", "3"]
        zk_cluster.dev.start_broker(2)
        assert asyncio.run(_metadata_brokers(zk_cluster.bootstrap_servers)) == RACKS
        assert sorted(zk.get_children("/brokers/ids")) == ["1", "2", "3"]
    finally:
        zk_cluster.restore()
        zk.stop()
        zk.close()


def test_zookeeper_holds_three_broker_registrations_and_a_controller(zk_cluster: Cluster) -> None:
    zk = KazooClient(hosts=zk_cluster.zookeeper)
    zk.start(timeout=15)
    try:
        assert sorted(zk.get_children("/brokers/ids")) == ["1", "2", "3"]
        for broker_id, rack in RACKS.items():
            data, _ = zk.get(f"/brokers/ids/{broker_id}")
            assert json.loads(data)["rack"] == rack
        controller, _ = zk.get("/controller")
        assert json.loads(controller)["brokerid"] in RACKS
    finally:
        zk.stop()
        zk.close()


@pytest.mark.parametrize("version", [KRAFT_VERSION, ZK_VERSION])
def test_a_second_start_reuses_the_cached_jars(version: str, cluster: Cluster) -> None:
    # The session's clusters already fetched the jars; Maven is now made unreachable, so
    # any attempt to download would fail.
    jars = ensure_kafka(version, mvn="/nonexistent/mvn")
    assert not jars.downloaded
    assert (jars.libs / f"kafka_2.13-{version}.jar").exists()


def test_up_again_reuses_the_running_cluster_and_downloads_nothing(kraft_cluster: Cluster) -> None:
    before = kraft_cluster.dev.status()
    kraft_cluster.dev.up("kraft", brokers=3)
    after = kraft_cluster.dev.status()
    assert after["jars_downloaded"] is False
    assert [b["pid"] for b in after["brokers"]] == [b["pid"] for b in before["brokers"]]


def test_status_command_prints_the_documented_json(kraft_cluster: Cluster) -> None:
    env = os.environ | {"KAFKA_TUI_DEVCLUSTER_DIR": str(kraft_cluster.dev.root)}
    out = subprocess.run(
        [sys.executable, "-m", "kafka_tui.cli", "dev-cluster", "status", "--output", "json"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    status = json.loads(out)
    assert status["mode"] == "kraft"
    assert status["zookeeper"] is None
    assert status["bootstrap_servers"] == kraft_cluster.bootstrap_servers
    assert [(b["id"], b["rack"], b["running"]) for b in status["brokers"]] == [
        (1, "rack-a", True),
        (2, "rack-b", True),
        (3, "rack-c", True),
    ]


def test_a_broker_that_cannot_start_reports_the_tail_of_its_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KAFKA_TUI_BROKER_HEAP_MB", "1")  # the JVM refuses a 1 MiB heap
    dev = DevCluster(tmp_path / "broken")
    try:
        with pytest.raises(ClusterError) as failure:
            dev.up("kraft", brokers=1, timeout=60)
        message = str(failure.value)
        assert "broker-1 exited during start-up" in message
        assert "heap" in message.lower()
    finally:
        dev.down()
