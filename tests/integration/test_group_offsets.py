"""Deleting a group's committed offsets (`groups offsets delete`, OffsetDelete) on both real
clusters: the topic's offsets go, the group's other topics keep theirs (read back with
OffsetFetch), and a group whose live member (a real aiokafka consumer) reads the topic is
refused by Kafka with GROUP_SUBSCRIBED_TO_TOPIC."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pytest

from kafka_tui.admin import ConnectionSettings, KafkaAdmin, TopicSpec

from ..conftest import Cluster
from .test_cli import run_json
from .test_consumer_groups import ActiveMember, commit_and_leave, create, produce_keyed

Names = Callable[[str], str]


async def _committed(bootstrap: str, group: str, topics: dict[str, list[int]]) -> dict:
    async with KafkaAdmin(ConnectionSettings(bootstrap)) as admin:
        found = await admin.consumer_groups_of(list(topics))
    return {g.group: {t: dict(p) for t, p in g.committed.items()} for g in found.groups}.get(
        group, {}
    )


async def _recreate(bootstrap: str, spec: TopicSpec) -> None:
    """Create `spec` again once the deleted topic of that name is gone (ZooKeeper mode
    deletes asynchronously: TOPIC_ALREADY_EXISTS until then)."""
    deadline = time.monotonic() + 60
    async with KafkaAdmin(ConnectionSettings(bootstrap)) as admin:
        while True:
            [result] = await admin.create_topics([spec])
            if result.ok:
                return
            assert result.error == "TOPIC_ALREADY_EXISTS" and time.monotonic() < deadline, result
            await asyncio.sleep(0.2)


def test_offsets_deleted_for_the_topic_only(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    gone, kept, group = topic_name("gone"), topic_name("kept"), topic_name("group")
    servers = cluster.bootstrap_servers
    asyncio.run(create(servers, TopicSpec(gone, 2, 1), TopicSpec(kept, 1, 1)))
    asyncio.run(commit_and_leave(servers, group, {(gone, 0): 5, (gone, 1): 7, (kept, 0): 3}))
    code, results = run_json(capsys, cluster, "groups", "offsets", "delete", group, "--topic", gone)
    assert code == 0, results
    assert [(r["topic"], r["partition"], r["ok"]) for r in results] == [
        (gone, 0, True),
        (gone, 1, True),
    ]
    # Read back with OffsetFetch: the deleted topic has none left, the other topic keeps its.
    assert asyncio.run(_committed(servers, group, {gone: [0, 1], kept: [0]})) == {kept: {0: 3}}


def test_refused_while_a_member_reads_the_topic(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    topic, group = topic_name(), topic_name("group")
    servers = cluster.bootstrap_servers
    asyncio.run(create(servers, TopicSpec(topic, 1, 1)))
    asyncio.run(produce_keyed(servers, topic, 1))
    with ActiveMember(servers, topic, group, 10):
        code, results = run_json(
            capsys, cluster, "groups", "offsets", "delete", group, "--topic", topic
        )
        assert code == 1
        assert results[0]["error"] == "GROUP_SUBSCRIBED_TO_TOPIC", results
        assert "active members subscribes to" in results[0]["message"]
        assert asyncio.run(_committed(servers, group, {topic: [0]})) == {topic: {0: 10}}


def test_topic_delete_takes_the_groups_offsets_with_it(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    """`topics delete --delete-group-offsets`: a group that read only the topic and one that
    read another topic too both lose their offsets on it; the second keeps its other topic's.
    Re-created under the same name, the topic has no committed offset for either group."""
    topic, other = topic_name(), topic_name("other")
    only, both = topic_name("only"), topic_name("both")
    servers = cluster.bootstrap_servers
    asyncio.run(create(servers, TopicSpec(topic, 2, 1), TopicSpec(other, 1, 1)))
    asyncio.run(commit_and_leave(servers, only, {(topic, 0): 4, (topic, 1): 4}))
    asyncio.run(commit_and_leave(servers, both, {(topic, 0): 2, (other, 0): 9}))
    code, results = run_json(
        capsys, cluster, "topics", "delete", topic, "--yes", "--delete-group-offsets"
    )
    assert code == 0, results
    assert results[0]["ok"] is True
    assert sorted((g["group"], g["ok"]) for g in results[0]["group_offsets"]) == sorted(
        [(only, True), (both, True)]
    )
    assert asyncio.run(_committed(servers, both, {other: [0]})) == {other: {0: 9}}
    asyncio.run(_recreate(servers, TopicSpec(topic, 2, 1)))
    for group in (only, both):
        assert asyncio.run(_committed(servers, group, {topic: [0, 1]})) == {}


def test_kafka_itself_drops_a_deleted_topic_s_offsets(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    """Measured on Kafka 4.4 (KRaft) and 3.9 (ZooKeeper): a plain `topics delete`, without
    --delete-group-offsets, already leaves an Empty group no committed offset on the topic
    re-created under the same name (the coordinator drops a deleted partition's offsets). The
    flag makes it explicit and reported, before the deletion, per group."""
    topic, group = topic_name(), topic_name("group")
    servers = cluster.bootstrap_servers
    asyncio.run(create(servers, TopicSpec(topic, 2, 1)))
    asyncio.run(commit_and_leave(servers, group, {(topic, 0): 4, (topic, 1): 4}))
    assert asyncio.run(_committed(servers, group, {topic: [0, 1]})) == {topic: {0: 4, 1: 4}}
    code, results = run_json(capsys, cluster, "topics", "delete", topic, "--yes")
    assert code == 0, results
    asyncio.run(_recreate(servers, TopicSpec(topic, 2, 1)))
    deadline = time.monotonic() + 30
    while (left := asyncio.run(_committed(servers, group, {topic: [0, 1]}))) != {}:
        assert time.monotonic() < deadline, left
        time.sleep(0.2)
