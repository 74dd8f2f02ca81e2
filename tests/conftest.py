"""Real local clusters, started once per test run and torn down at the end (also on failure).

Set KAFKA_TUI_TEST_KEEP_CLUSTERS=1 to leave them running after the run for inspection.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from kafka_tui.devcluster import DevCluster, Mode


@dataclass
class Cluster:
    mode: Mode
    dev: DevCluster
    bootstrap_servers: str
    zookeeper: str | None

    def restore(self) -> None:
        """Start every broker a test stopped, and wait until all serve metadata."""
        for broker in self.dev.status()["brokers"]:
            if not broker["running"]:
                self.dev.start_broker(broker["id"])


def _start(mode: Mode, root: Path) -> Iterator[Cluster]:
    dev = DevCluster(root)
    try:
        dev.up(mode, brokers=3)
        status = dev.status()
        yield Cluster(mode, dev, status["bootstrap_servers"], status["zookeeper"])
    finally:
        if not os.environ.get("KAFKA_TUI_TEST_KEEP_CLUSTERS"):
            dev.down()


@pytest.fixture(scope="session")
def kraft_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from _start("kraft", tmp_path_factory.mktemp("kraft"))


@pytest.fixture(scope="session")
def zk_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from _start("zk", tmp_path_factory.mktemp("zk"))


@pytest.fixture(scope="session", params=["kraft", "zk"])
def cluster(request: pytest.FixtureRequest) -> Cluster:
    """Each test that takes `cluster` runs against both real clusters."""
    return request.getfixturevalue(f"{request.param}_cluster")  # type: ignore[no-any-return]
