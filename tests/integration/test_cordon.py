"""Cordoned log directories (KIP-1066, Kafka 4.3+) on the real KRaft 4.4 cluster.

How Kafka 4.4 cordons (measured here): the broker config `cordoned.log.dirs` (a list of log
directories, or `*` for all; dynamic, set per broker with IncrementalAlterConfigs; it needs
metadata.version 4.3-IV0), answered per directory as `IsCordoned` by DescribeLogDirs v5. A
broker whose every directory is cordoned gets no replica from Kafka's placer, and the
controller refuses any assignment naming it ("The manual partition assignment includes broker
3, but all its log directories are cordoned."). kafka-tui shows the cordoned directories in
`brokers list` and places nothing there, naming the broker. The broker's config is restored
at the end.

A create or grow asks each broker its `cordoned.log.dirs` (DescribeConfigs) and describes the
log directories only of a broker where it is set (`AdminReads.cordons`): DescribeLogDirs costs
a broker time in proportion to the replicas it holds, even about no topic."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from kafka_tui.admin import ConnectionSettings, KafkaAdmin, protocol
from kafka_tui.admin.connection import poll_until

from ..conftest import Cluster
from .test_plans import cli

CORDONED = 3
KEY = "cordoned.log.dirs"


async def _cordon(bootstrap: str, value: str | None) -> str:
    """Set broker 3's `cordoned.log.dirs` (None: remove it), wait until the broker describes
    its directory so, and return what was set before ("" when nothing)."""
    async with KafkaAdmin(ConnectionSettings(bootstrap)) as admin:
        before = (await admin.broker_configs(CORDONED, [KEY])).get(KEY) or ""
        change = (KEY, protocol.OP_SET, value) if value else (KEY, protocol.OP_DELETE, None)
        await admin._alter_broker_configs([CORDONED], [change])

        async def shows() -> bool | None:
            dirs = (await admin.log_dirs([CORDONED]))[CORDONED]
            return True if dirs.all_cordoned == (value == "*") else None

        assert await poll_until(shows, time.monotonic() + 30), f"{KEY}={value} never showed"
        return before


@pytest.fixture
def cordoned(kraft_cluster: Cluster) -> Iterator[None]:
    """Broker 3 with every log directory cordoned (`*`), restored after."""
    before = asyncio.run(_cordon(kraft_cluster.bootstrap_servers, "*"))
    try:
        yield
    finally:
        asyncio.run(_cordon(kraft_cluster.bootstrap_servers, before or None))


@pytest.mark.usefixtures("cordoned")
def test_a_cordoned_broker_is_listed_and_takes_no_new_replica(
    capsys: pytest.CaptureFixture[str], kraft_cluster: Cluster, topic_name: Callable[[str], str]
) -> None:
    code, brokers = cli(capsys, kraft_cluster, "brokers", "list")
    assert code == 0, brokers
    by_id = {b["id"]: b for b in brokers}
    directory = kraft_cluster.dev.status()["dir"]
    (cordoned,) = by_id[CORDONED]["cordoned_log_dirs"]
    assert cordoned.startswith(directory)
    assert all(b["cordoned_log_dirs"] == [] for i, b in by_id.items() if i != CORDONED)

    named = f"Broker {CORDONED} takes no new replica"
    # Placed by kafka-tui: every partition on the two other brokers, the broker named.
    name = topic_name("cordon")
    code, created = cli(
        capsys, kraft_cluster, "topics", "create", name, "--partitions", "6",
        "--replication-factor", "2",
    )  # fmt: skip
    assert code == 0, created
    (result,) = created
    assert result["ok"], result
    assert named in result["message"]
    assert all(CORDONED not in replicas for replicas in result["assignment"])
    # Grown: the new partitions avoid it too.
    code, grown = cli(capsys, kraft_cluster, "topics", "alter", name, "--partitions", "9")
    assert code == 0, grown
    assert named in grown[0]["message"]
    code, described = cli(capsys, kraft_cluster, "topics", "describe", name, "--no-configs")
    assert code == 0, described
    assert all(CORDONED not in p["replicas"] for p in described[0]["partitions"])
    # Three replicas need the cordoned broker: refused before sending, naming it.
    code, refused = cli(
        capsys, kraft_cluster, "topics", "create", topic_name("cordon-rf3"), "--partitions",
        "1", "--replication-factor", "3",
    )  # fmt: skip
    assert code != 0
    assert refused[0]["error"] == "INVALID_REPLICATION_FACTOR"
    assert named in refused[0]["message"]
    # An assignment the operator names: Kafka refuses it (pinned: the controller's words).
    code, manual = cli(
        capsys, kraft_cluster, "topics", "create", topic_name("cordon-manual"),
        "--replica-assignment", f"{CORDONED}:1",
    )  # fmt: skip
    assert code != 0
    assert manual[0]["error"] == "INVALID_REPLICA_ASSIGNMENT"
    assert "all its log directories are cordoned" in manual[0]["message"]


async def _cordons(bootstrap: str) -> tuple[dict[int, Any], dict[int, Any], dict[int, str]]:
    """What `cordons` answers about every broker, what `log_dirs` does, and each broker's
    `cordoned.log.dirs` as it describes it."""
    async with KafkaAdmin(ConnectionSettings(bootstrap)) as admin:
        brokers = sorted(b.nodeId for b in admin.client.cluster.brokers())
        configs = {b: (await admin.broker_configs(b, [KEY])).get(KEY) or "" for b in brokers}
        return await admin.cordons(brokers), await admin.log_dirs(brokers), configs


def test_cordons_are_read_from_each_brokers_config_then_its_log_directories(
    kraft_cluster: Cluster,
) -> None:
    """Kafka fact (4.4): a broker whose `cordoned.log.dirs` is empty describes none of its
    directories as cordoned, and one where it is `*` describes all of them so: the config is
    what the cheap read (`cordons`) trusts. Asked of every broker, it answers the cordoning
    broker alone, exactly as DescribeLogDirs describes it."""
    bootstrap = kraft_cluster.bootstrap_servers
    before = asyncio.run(_cordon(bootstrap, "*"))
    try:
        cordons, dirs, configs = asyncio.run(_cordons(bootstrap))
        assert configs[CORDONED] == "*"
        assert cordons == {CORDONED: dirs[CORDONED]} and dirs[CORDONED].all_cordoned
        for broker, value in configs.items():
            if broker != CORDONED:
                assert value == "" and not dirs[broker].cordoned, (broker, dirs[broker])
    finally:
        asyncio.run(_cordon(bootstrap, before or None))
    cordons, dirs, configs = asyncio.run(_cordons(bootstrap))
    assert cordons == {} and not any(d.cordoned for d in dirs.values()), dirs
    assert set(configs.values()) == {""}
