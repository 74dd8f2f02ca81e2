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
    journal = ChangeJournal(tmp_path / "journal.jsonl", persist=False)
    try:
        async with KafkaAdmin(settings, journal=journal) as admin:
            await admin.describe_topics([never_made], configs=False)  # learns the cluster id
            os.kill(pids[controller], signal.SIGSTOP)
            assignment = {"version": 2, "partitions": {"0": [other]}}
            zk_raw.create(f"/brokers/topics/{made}", json.dumps(assignment).encode())
            journal.record(admin.cluster_id, [Expectation(made, True, 1, at=time.time())])

            _, errors = await admin.topic_configs_with_defaults([made, never_made])
            by_topic = {e.topic: e for e in errors}
            assert by_topic[made].error == "REQUEST_TIMED_OUT", by_topic[made].message
            assert "does not know this topic yet" in by_topic[made].message
            # A topic kafka-tui never made still does not exist.
            assert by_topic[never_made].error == "UNKNOWN_TOPIC_OR_PARTITION"

            journal.record(admin.cluster_id, [Expectation(made, True, 1, at=time.time())])
            change = [ConfigChange("retention.ms", ConfigOp.SET, "4242000")]
            (result,) = await admin.alter_topic_configs({made: change})
            assert result.error == "REQUEST_TIMED_OUT", result.message
            assert "nothing was done for it" in result.message

            # Described (as `topics alter` and `describe` read it): not "does not exist" either.
            journal.record(admin.cluster_id, [Expectation(made, True, 1, at=time.time())])
            found, errors = await admin.describe_topics([made], configs=False)
            assert not found
            assert [e.error for e in errors] == ["REQUEST_TIMED_OUT"], errors
            assert "does not know this topic yet" in errors[0].message
    finally:
        os.kill(pids[controller], signal.SIGCONT)
    # Once the controller runs again, the topic it was holding back appears everywhere.
    async with KafkaAdmin(ConnectionSettings(zk_cluster.bootstrap_servers)) as admin:

        async def listed() -> bool | None:
            found, _ = await admin.describe_topics([made], configs=False)
            return True if found else None

        assert await poll_until(listed, time.monotonic() + 60)
        await admin.delete_topics([made])
