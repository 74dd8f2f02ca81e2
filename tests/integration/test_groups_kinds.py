"""`groups describe` and `groups reset-offsets` on every kind of group of the real KRaft 4.4
cluster, with real members: a KIP-848 consumer group of Kafka's console consumer
(group.protocol=consumer), a share group of Kafka's console share consumer, a streams group
joined with StreamsGroupHeartbeat (test_group_kinds.py's StreamsMember).

Pinned here (Kafka 4.4.0): ConsumerGroupDescribe gives each member its assignment, its target
assignment and its epoch; a share group's start offsets are reset with AlterShareGroupOffsets
once it is Empty; an admin's OffsetCommit (no member, generation -1) moves an Empty streams
group's offsets as it does a classic group's.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest

from kafka_tui.admin import ConnectionSettings, KafkaAdmin, TopicSpec
from kafka_tui.services.groups import GroupView, describe_groups

from ..conftest import Cluster
from .test_cli import run, run_json
from .test_consumer_groups import PER_PARTITION, create, produce_keyed
from .test_group_kinds import (
    StreamsMember,
    consumer,
    running,
    share_consumer,
    share_from_earliest,
)

Names = Callable[[str], str]
PARTITIONS = 2


async def _describe(cluster: Cluster, group: str) -> GroupView:
    async with KafkaAdmin(ConnectionSettings(cluster.bootstrap_servers)) as admin:
        [view] = await describe_groups(admin, [group])
    return view


def _until(
    cluster: Cluster, group: str, done: Callable[[GroupView], bool], within: float = 90
) -> GroupView:
    """The group once `done` holds of it (a Java client joins, commits or acknowledges a
    little after it starts or stops), or the last view seen."""
    deadline = time.monotonic() + within
    while True:
        view = asyncio.run(_describe(cluster, group))
        if done(view) or time.monotonic() > deadline:
            return view
        time.sleep(0.3)


def _acknowledged_on_every_partition(view: GroupView) -> bool:
    return len(view.offsets) == PARTITIONS and all(p.lag == 0 for p in view.offsets)


def _topic(cluster: Cluster, topic: str) -> None:
    async def go() -> None:
        await create(cluster.bootstrap_servers, TopicSpec(topic, PARTITIONS, 2))
        await produce_keyed(cluster.bootstrap_servers, topic, PARTITIONS)

    asyncio.run(go())


def test_a_kip848_group_shows_its_members_assignment_target_and_epoch(
    kraft_cluster: Cluster, topic_name: Names
) -> None:
    topic, group = topic_name(), topic_name("g")
    _topic(kraft_cluster, topic)
    with running(consumer(kraft_cluster, topic, group)):
        view = _until(
            kraft_cluster,
            group,
            lambda v: (
                bool(v.members)
                and v.state == "Stable"
                and sum(len(m.assignment) for m in v.members) == PARTITIONS
                and {p.committed for p in v.offsets} == {PER_PARTITION}
            ),
        )
    assert (view.type, view.state, view.protocol) == ("consumer", "Stable", "uniform")
    [member] = view.members or ()
    assert member.assignment == tuple((topic, p) for p in range(PARTITIONS))
    assert member.target == member.assignment
    assert member.epoch is not None and member.epoch > 0
    assert member.client_id.startswith("console-consumer")
    assert view.lag == 0 and view.status == "OK"
    assert [p.member_id for p in view.offsets] == [member.member_id] * PARTITIONS


def test_a_share_group_shows_its_start_offsets_and_is_reset_while_empty(
    kraft_cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    topic, group = topic_name(), topic_name("share")
    _topic(kraft_cluster, topic)

    async def earliest() -> None:
        async with KafkaAdmin(ConnectionSettings(kraft_cluster.bootstrap_servers)) as admin:
            await share_from_earliest(admin, group)

    asyncio.run(earliest())
    with running(share_consumer(kraft_cluster, topic, group)):
        reading = _until(
            kraft_cluster,
            group,
            lambda v: (
                v.state == "Stable"
                and sum(len(m.assignment) for m in v.members or ()) == PARTITIONS
            ),
        )
        # The consumer stays until it has read and acknowledged every record: lag 0 as the
        # coordinator counts it on every partition, whatever start offset the share state
        # persisted so far (0 here on 4.4). Stopped before that, its records stay
        # unacknowledged (a loaded run stopped it at once, and the lag stayed 20). Kafka 4.4
        # initializes each share partition's state on its first fetch: until then its start
        # offset and lag are -1, a row without lag, so the group's lag summed over the others
        # reads 0 (a CI run stopped the consumer then; the lag was 10 on the late partition).
        acknowledged = _until(kraft_cluster, group, _acknowledged_on_every_partition)
        assert _acknowledged_on_every_partition(acknowledged), acknowledged
    assert reading.type == "share" and reading.protocol == "simple"
    [member] = reading.members or ()
    assert member.client_id.startswith("console-share-consumer")
    assert member.assignment == tuple((topic, p) for p in range(PARTITIONS))
    view = _until(
        kraft_cluster, group, lambda v: v.state == "Empty" and _acknowledged_on_every_partition(v)
    )
    assert view.type == "share" and view.lag == 0 and view.status == "OK"
    assert {p.lag_seconds for p in view.offsets} == {0.0}
    code, done = run_json(
        capsys, kraft_cluster, "groups", "reset-offsets", group, "--topic", f"{topic}:0",
        "--to-offset", "4", "--execute",
    )  # fmt: skip
    assert code == 0, done
    assert done["type"] == "share" and [p["after"] for p in done["partitions"]] == [4]
    view = _until(kraft_cluster, group, lambda v: v.offsets[0].committed == 4)
    first = view.offsets[0]
    assert (first.committed, first.lag) == (4, PER_PARTITION - 4)
    assert view.status == "STOP" and first.lag_seconds is not None and first.lag_seconds >= 0
    # The rollback file puts the start offset back where the share state had it.
    code, back = run_json(
        capsys, kraft_cluster, "groups", "reset-offsets", group, "--from-file",
        done["rollback_file"], "--execute",
    )  # fmt: skip
    assert code == 0 and back["partitions"][0]["after"] == done["partitions"][0]["before"]
    # Modes a share group's start offsets cannot take are refused before anything is read.
    code, out, err = run(
        capsys, kraft_cluster, "groups", "reset-offsets", group, "--topic", topic,
        "--shift-by", "1",
    )  # fmt: skip
    assert (code, out) == (2, "")
    assert "is a share group: its start offsets can be reset to-earliest" in err


def test_a_streams_group_shows_its_members_and_topics_and_is_reset_once_empty(
    kraft_cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    topic, group = topic_name(), topic_name("streams")
    _topic(kraft_cluster, topic)

    async def join() -> tuple[Any, GroupView]:
        async with KafkaAdmin(ConnectionSettings(kraft_cluster.bootstrap_servers)) as admin:
            member = StreamsMember(admin, group, topic)
            await member.join()
            await member.commit(dict.fromkeys(range(PARTITIONS), 4))
            [view] = await describe_groups(admin, [group])
            await member.leave()
            return member, view

    member, view = asyncio.run(join())
    assert view.type == "streams" and view.source_topics == (topic,)
    [m] = view.members or ()
    assert m.member_id == member.member
    assert view.to_json()["source_topics"] == [topic]
    assert {(p.topic, p.committed) for p in view.offsets} == {(topic, 4)}
    view = _until(kraft_cluster, group, lambda v: not v.members)
    code, done = run_json(
        capsys, kraft_cluster, "groups", "reset-offsets", group, "--all-topics",
        "--to-latest", "--execute",
    )  # fmt: skip
    assert code == 0, done
    assert [p["after"] for p in done["partitions"]] == [PER_PARTITION] * PARTITIONS
    view = asyncio.run(_describe(kraft_cluster, group))
    assert {p.committed for p in view.offsets} == {PER_PARTITION} and view.lag == 0
