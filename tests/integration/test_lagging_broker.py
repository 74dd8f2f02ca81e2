"""A ZooKeeper-mode broker that does not know a topic yet is not a topic that does not exist.

ZooKeeper-mode brokers learn of a topic from the controller's UpdateMetadata. With the
controller lost between a topic's creation and that update (seen in CI: a fault test froze
the controller just after creating 50 topics), every other broker answers
UNKNOWN_TOPIC_OR_PARTITION ("The topic '...' does not exist", ZkAdminManager checks its
metadata cache) for topics that exist. Here the controller is frozen (SIGSTOP) and the topic
written into ZooKeeper as AdminZkClient writes it, so no broker learns of it until the
controller runs again: exactly the state that CI run met, made on purpose.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from kazoo.client import KazooClient

from kafka_tui.admin import ConfigChange, ConfigOp, ConnectionSettings, KafkaAdmin
from kafka_tui.admin.connection import poll_until
from kafka_tui.admin.journal import ChangeJournal, Expectation

from ..conftest import Cluster

Names = Callable[[str], str]


@pytest.mark.timeout(120)
async def test_a_topic_no_broker_knows_yet_is_reported_timed_out_not_missing(
    zk_cluster: Cluster, zk_raw: KazooClient, topic_name: Names, tmp_path: Path
) -> None:
    made, never_made = topic_name("made"), topic_name("never")
    controller = json.loads(zk_raw.get("/controller")[0])["brokerid"]
    pids = {b["id"]: b["pid"] for b in zk_cluster.dev.status()["brokers"]}
    other = min(b for b in pids if b != controller)
    settings = ConnectionSettings(zk_cluster.bootstrap_servers, request_timeout_ms=3_000)
    # The frozen controller's ZooKeeper session lasts 18 s (Kafka's default): past that another
    # broker becomes controller and learns the topic, and the state this test needs is gone.
    # So the three reads run at once, each through its own client and journal (a read that
    # meets a broker contradicting an expectation drops it from its journal), and the
    # controller stays frozen for about one request timeout, not three.
    journals = [ChangeJournal(tmp_path / f"journal-{i}.jsonl", persist=False) for i in range(3)]
    admins = [KafkaAdmin(settings, journal=j) for j in journals]
    try:
        for admin in admins:
            await admin.connect()
            await admin.describe_topics([never_made], configs=False)  # learns the cluster id
        os.kill(pids[controller], signal.SIGSTOP)
        assignment = {"version": 2, "partitions": {"0": [other]}}
        zk_raw.create(f"/brokers/topics/{made}", json.dumps(assignment).encode())
        for admin, journal in zip(admins, journals, strict=True):
            journal.record(admin.cluster_id, [Expectation(made, True, 1, at=time.time())])
        change = [ConfigChange("retention.ms", ConfigOp.SET, "4242000")]
        frozen = time.monotonic()
        (_, errors), (result,), (found, described) = await asyncio.gather(
            admins[0].topic_configs_with_defaults([made, never_made]),
            admins[1].alter_topic_configs({made: change}),
            admins[2].describe_topics([made], configs=False),
        )
        frozen = time.monotonic() - frozen
        still = json.loads(zk_raw.get("/controller")[0])["brokerid"]
        assert still == controller, f"the controller moved after {frozen:.1f} s frozen"

        by_topic = {e.topic: e for e in errors}
        assert by_topic[made].error == "REQUEST_TIMED_OUT", by_topic[made].message
        assert "does not know this topic yet" in by_topic[made].message
        # A topic kafka-tui never made still does not exist.
        assert by_topic[never_made].error == "UNKNOWN_TOPIC_OR_PARTITION"

        assert result.error == "REQUEST_TIMED_OUT", result.message
        assert "nothing was done for it" in result.message

        # Described (as `topics alter` and `describe` read it): not "does not exist" either.
        assert not found
        assert [e.error for e in described] == ["REQUEST_TIMED_OUT"], described
        assert "does not know this topic yet" in described[0].message
    finally:
        os.kill(pids[controller], signal.SIGCONT)
        for admin in admins:
            await admin.close()
    # Once the controller runs again, the topic it was holding back appears everywhere.
    async with KafkaAdmin(ConnectionSettings(zk_cluster.bootstrap_servers)) as admin:

        async def listed() -> bool | None:
            found, _ = await admin.describe_topics([made], configs=False)
            return True if found else None

        assert await poll_until(listed, time.monotonic() + 60)
        await admin.delete_topics([made])
