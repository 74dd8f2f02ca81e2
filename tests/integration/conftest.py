"""Fixtures shared by the integration modules."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
from kazoo.client import KazooClient

from .. import lifetimes
from ..conftest import Cluster
from .test_spark_cluster import CLI, _decoy_path


@pytest.fixture
def zk_raw(zk_cluster: Cluster) -> Iterator[KazooClient]:
    """A plain kazoo client on the ZooKeeper-mode cluster: to read what kafka-tui wrote, or
    to write what Kafka's own tools write."""
    assert zk_cluster.zookeeper is not None
    client = KazooClient(hosts=zk_cluster.zookeeper, timeout=10)
    client.start(timeout=10)
    yield client
    client.stop()
    client.close()


@pytest.fixture(scope="session")
def spark_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """One standalone Spark cluster for the run (2 workers and a Connect server), the
    workers' PATH python3 a decoy that cannot import the job. Shared by the Spark-cluster
    modules (one xdist worker runs them all): a second cluster started as the first one's
    module ended once failed to start its master under load, with an empty log."""
    root = tmp_path_factory.mktemp("spark-cluster")
    env = {k: v for k, v in os.environ.items() if k != "PYSPARK_PYTHON"}
    env |= {"KAFKA_TUI_SPARK_CLUSTER_DIR": str(root / "cluster")}
    env["PATH"] = _decoy_path(root / "decoy-bin")
    status: dict[str, Any] = {}

    def up() -> None:
        done = subprocess.run(
            [*CLI, "up", "--workers", "2", "--connect", "--output", "json"],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        status.clear()
        status.update(json.loads(done.stdout) | {"env": env})

    def down() -> None:
        done = subprocess.run([*CLI, "down"], env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr

    try:
        up()
        lifetimes.started("spark_cluster", up, down)
        yield status
    finally:
        lifetimes.ended("spark_cluster")
        down()
