"""Reads about many topics (issue 30): split into batches, each failing alone, and
`topics describe` printing as it reads. Real KRaft cluster; 2,000 topics of one partition
(RF 1), made once for the module and deleted after."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator

import pytest

from kafka_tui.admin import ConnectionSettings, KafkaAdmin, TopicSpec
from kafka_tui.admin.batches import READ_BATCH

from ..conftest import Cluster

TOPICS = 2_000  # four batches of READ_BATCH


async def _create(bootstrap: str, names: list[str]) -> None:
    async with KafkaAdmin(ConnectionSettings(bootstrap)) as admin:
        specs = [TopicSpec(n, partitions=1, replication_factor=1) for n in names]
        results = await admin.create_topics(specs)
        assert all(r.ok for r in results), [r for r in results if not r.ok][:3]


async def _delete(bootstrap: str, names: list[str]) -> None:
    async with KafkaAdmin(ConnectionSettings(bootstrap)) as admin:
        await admin.delete_topics(names)


@pytest.fixture(scope="module")
def many(kraft_cluster: Cluster) -> Iterator[list[str]]:
    stem = f"big-{uuid.uuid4().hex[:6]}"
    names = [f"{stem}-{i:05d}" for i in range(TOPICS)]
    asyncio.run(_create(kraft_cluster.bootstrap_servers, names))
    try:
        yield names
    finally:
        asyncio.run(_delete(kraft_cluster.bootstrap_servers, names))


async def test_a_read_of_many_topics_goes_in_batches_merged_in_order(
    kraft_cluster: Cluster, many: list[str]
) -> None:
    async with KafkaAdmin(ConnectionSettings(kraft_cluster.bootstrap_servers)) as admin:
        sizes = [
            len(found)
            async for found, errors in admin.describe_topics_in_batches(many, configs=True)
            if not errors
        ]
        assert sizes == [READ_BATCH] * (TOPICS // READ_BATCH)
        found, errors = await admin.describe_topics([*reversed(many), "no-such-topic-big"])
        assert errors and [e.topic for e in errors] == ["no-such-topic-big"]
        assert [t.name for t in found] == list(reversed(many))
        assert all(t.configs["cleanup.policy"].value == "delete" for t in found)
        values = await admin.topic_config_value("min.insync.replicas", many)
        assert len(values) == TOPICS


async def test_a_batch_that_fails_is_retried_then_reported_in_one_line(
    kraft_cluster: Cluster, many: list[str]
) -> None:
    # A real failure of every request: every broker frozen (SIGSTOP) while the reads go out,
    # a few seconds, well inside a broker's 9 s session. (A 1 ms request timeout was not one:
    # on a loaded machine the event loop sometimes read an answer before its timer ran.)
    pids = [b["pid"] for b in kraft_cluster.dev.status()["brokers"] if b["running"]]
    async with KafkaAdmin(ConnectionSettings(kraft_cluster.bootstrap_servers)) as admin:
        # Connected as usual; then a short wait for each answer, which never comes.
        admin.settings = dataclasses.replace(admin.settings, request_timeout_ms=500)
        for pid in pids:
            os.kill(pid, signal.SIGSTOP)
        try:
            found, errors = await admin.describe_topics(many, configs=False)
        finally:
            for pid in pids:
                os.kill(pid, signal.SIGCONT)
    assert found == []
    assert len(errors) == TOPICS // READ_BATCH  # one line per batch, not one per topic
    first = errors[0]
    assert first.error == "CONNECTION_FAILED"
    assert first.message.startswith(f"{READ_BATCH} topics ({many[0]} ... {many[READ_BATCH - 1]})")


def _kafka_tui(cluster: Cluster, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kafka_tui.cli",
            "--bootstrap-server",
            cluster.bootstrap_servers,
            *args,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_describe_streams_every_topic_in_order_as_jsonl(
    kraft_cluster: Cluster, many: list[str]
) -> None:
    """Every topic, one line each, in order, read line by line as the process writes them.
    That the lines come batch by batch is the reader's structure (pinned above: batches of
    500 in order); when a line appears is not asserted, a loaded machine decides that."""
    regex = many[0].rsplit("-", 1)[0] + "-.*"
    # Named by a regex: configs are read too (~0.5 s a batch on the broker).
    process = _kafka_tui(kraft_cluster, "--output", "jsonl", "topics", "describe", "--topic", regex)
    assert process.stdout is not None
    lines = list(process.stdout)
    process.wait(60)
    assert process.returncode == 0, process.stderr.read() if process.stderr else ""
    assert [json.loads(line)["topic"] for line in lines] == sorted(many)


def test_jsonl_objects_are_the_json_list_items(kraft_cluster: Cluster, many: list[str]) -> None:
    regex = many[0].rsplit("-", 1)[0] + "-00.*"  # 1,000 topics: two batches
    outputs = {}
    for output in ("json", "jsonl"):
        process = _kafka_tui(
            kraft_cluster, "--output", output, "topics", "describe", "--topic", regex
        )
        out, err = process.communicate(timeout=60)
        assert process.returncode == 0, err
        outputs[output] = out
    listed = json.loads(outputs["json"])
    assert len(listed) == 1_000
    assert [json.loads(line) for line in outputs["jsonl"].splitlines()] == listed
