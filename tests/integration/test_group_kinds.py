"""Every kind of group before a delete, on the real KRaft 4.4 cluster: a consumer group of the
new protocol (KIP-848) and a share group (KIP-932) made by Kafka's own Java clients (the
dev cluster's jars), a streams group (KIP-1071) joined with StreamsGroupHeartbeat (no Kafka
Streams jar is among them), a classic group by aiokafka.

What the 4.4.0 broker answered, pinned here: ListGroups v5 names each group's type
("classic", "consumer", "share", "streams"); DescribeGroups v5 answers a KIP-848 group as
Dead with no members and no error (why the kind decides the describe); OffsetFetch has no
offsets of a share group; DescribeShareGroupOffsets v1 gives the share-partition start offset
and the lag. Share and streams groups need no setting on 4.4 (share.version 2 and
streams.version 1 are finalized at format; group.coordinator.rebalance.protocols defaults to
classic, consumer, streams); a share group starts at the latest offset unless the group config
share.auto.offset.reset says earliest.
"""

from __future__ import annotations

import asyncio
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, cast

import pytest
from aiokafka import AIOKafkaProducer
from kio.static.primitive import i32, i64

from kafka_tui.admin import ConnectionSettings, KafkaAdmin, TopicSpec
from kafka_tui.admin.protocol import OP_SET, IncrementalAlterConfigsRequest
from kafka_tui.admin.protocol_groups import (
    ConsumerGroupDescribeRequest,
    DescribeGroupsRequest,
    DescribeShareGroupOffsetsRequest,
    FindCoordinatorRequest,
    OffsetFetchRequest,
    ShareGroupDescribeRequest,
    StreamsGroupDescribeRequest,
)
from kafka_tui.admin.wire import Api, WireRequest, millis, nested, shape
from kafka_tui.devcluster.jars import ensure_kafka
from kafka_tui.services.consumers import Readers, readers_of
from kafka_tui.tui.screens.changes import readers_text

from ..conftest import Cluster
from .test_cli import run, run_json
from .test_consumer_groups import PER_PARTITION, commit_and_leave, create, produce_keyed

Names = Callable[[str], str]
RESOURCE_GROUP = 32  # a group's configs (KIP-848 group configs)
EXTRA = 3  # records produced into partition 0 after every group read everything


def _java(cluster: Cluster, tool: str, *args: str) -> list[str]:
    state = cluster.dev.load()
    assert state is not None
    classpath = ensure_kafka(state.version, cluster.dev.cache).classpath
    return [
        "java",
        "-Xmx128m",
        "-XX:TieredStopAtLevel=1",
        "-XX:+UseSerialGC",
        "-cp",
        classpath,
        f"org.apache.kafka.tools.consumer.{tool}",
        "--bootstrap-server",
        cluster.bootstrap_servers,
        *args,
    ]


def consumer(cluster: Cluster, topic: str, group: str, *more: str) -> list[str]:
    """Kafka's console consumer in a KIP-848 group (group.protocol=consumer)."""
    return _java(
        cluster,
        "ConsoleConsumer",
        "--topic",
        topic,
        "--group",
        group,
        "--consumer-property",
        "group.protocol=consumer",
        "--from-beginning",
        *more,
    )


def share_consumer(cluster: Cluster, topic: str, group: str, *more: str) -> list[str]:
    return _java(cluster, "ConsoleShareConsumer", "--topic", topic, "--group", group, *more)


def read_all(command: list[str]) -> None:
    """Run a console consumer that reads every record (--max-messages) and leaves."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


@contextmanager
def running(*commands: list[str]) -> Iterator[None]:
    """Console consumers that stay in their groups until the block ends."""
    procs = [
        subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for c in commands
    ]
    try:
        yield
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(30)


async def share_from_earliest(admin: KafkaAdmin, group: str) -> None:
    """A share group starts at the latest offset (share.auto.offset.reset=latest) unless told."""
    request = IncrementalAlterConfigsRequest(
        [(RESOURCE_GROUP, group, [("share.auto.offset.reset", OP_SET, "earliest")])]
    )
    [answer] = request.answer(await admin._send(request))
    assert answer.error_code == 0, answer


async def coordinator(admin: KafkaAdmin, group: str) -> int:
    request = FindCoordinatorRequest([group])
    [found] = request.answer(await admin._send(request))
    assert found.error_code == 0, found
    return found.node_id


def _raw(key: int, title: str, version: int, build: Callable[[type[Any]], Any]) -> WireRequest:
    class Raw(WireRequest):
        API = Api(key, title, version, version)
        API_KEY = key

        def message(self, version: int) -> Any:
            return build(self.API.request_type(version))

    return Raw()


class StreamsMember:
    """One member of a streams group whose one subtopology reads `topic`, joined with
    StreamsGroupHeartbeat v0 as a Kafka Streams client would, committing with OffsetCommit v9
    at its member epoch. It stays a member for the session timeout (45 s) or until `leave`."""

    def __init__(self, admin: KafkaAdmin, group: str, topic: str) -> None:
        self.admin, self.group, self.topic = admin, group, topic
        self.member = str(uuid.uuid4())
        self.epoch = 0
        self.node = -1

    def _heartbeat(self, epoch: int) -> WireRequest:
        def build(request: type[Any]) -> Any:
            subtopology, topology = nested(request, "Subtopology"), nested(request, "Topology")
            joining = epoch == 0
            return shape(
                request,
                group_id=self.group,
                member_id=self.member,
                member_epoch=i32(epoch),
                endpoint_information_epoch=i32(0),
                rebalance_timeout=millis(30_000),
                topology=shape(
                    topology,
                    epoch=i32(0),
                    subtopologies=(
                        shape(
                            subtopology,
                            subtopology_id="0",
                            source_topics=(self.topic,),
                            source_topic_regex=(),
                            state_changelog_topics=(),
                            repartition_sink_topics=(),
                            repartition_source_topics=(),
                            copartition_groups=(),
                        ),
                    ),
                )
                if joining
                else None,
                active_tasks=() if joining else None,
                standby_tasks=() if joining else None,
                warmup_tasks=() if joining else None,
                process_id=str(uuid.uuid4()) if joining else None,
                client_tags=() if joining else None,
                task_offsets=None,
                task_end_offsets=None,
            )

        return _raw(88, "StreamsGroupHeartbeat", 0, build)

    async def join(self) -> None:
        self.node = await coordinator(self.admin, self.group)
        answer = await self.admin._send_to_itself(self._heartbeat(0), self.node)
        assert int(answer.error_code) == 0, answer
        self.epoch = int(answer.member_epoch)

    async def commit(self, offsets: dict[int, int]) -> None:
        def build(request: type[Any]) -> Any:
            topic = nested(request, "OffsetCommitRequestTopic")
            partition = nested(request, "OffsetCommitRequestPartition")
            return shape(
                request,
                group_id=self.group,
                generation_id_or_member_epoch=i32(self.epoch),
                member_id=self.member,
                group_instance_id=None,
                topics=(
                    shape(
                        topic,
                        name=self.topic,
                        partitions=tuple(
                            shape(
                                partition,
                                partition_index=i32(p),
                                committed_offset=i64(o),
                                committed_leader_epoch=i32(-1),
                                committed_metadata="",
                            )
                            for p, o in offsets.items()
                        ),
                    ),
                ),
            )

        answer = await self.admin._send_to_itself(_raw(8, "OffsetCommit", 9, build), self.node)
        assert all(int(p.error_code) == 0 for t in answer.topics for p in t.partitions), answer

    async def leave(self) -> None:
        answer = await self.admin._send_to_itself(self._heartbeat(-1), self.node)
        assert int(answer.error_code) == 0, answer


async def readers_until(
    admin: KafkaAdmin, topic: str, done: Callable[[Readers], bool], within: float = 60
) -> Readers:
    """The readers of `topic` once `done` holds of them (what Java clients commit or
    acknowledge lands a little after they stop or join), or the last ones seen."""
    deadline = time.monotonic() + within
    delay = 0.2
    while True:
        readers = await readers_of(admin, [topic])
        if done(readers) or time.monotonic() > deadline:
            return readers
        await asyncio.sleep(delay)
        delay = min(delay * 1.5, 2.0)


def test_every_kind_of_group_is_shown_and_counted(
    kraft_cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    topic = topic_name("t")
    classic, kip848, share, streams = (
        topic_name("classic"),
        topic_name("kip848"),
        topic_name("share"),
        topic_name("streams"),
    )
    servers = kraft_cluster.bootstrap_servers
    everything = 2 * PER_PARTITION

    async def prepare(admin: KafkaAdmin) -> None:
        await create(servers, TopicSpec(topic, 2, 2))
        await produce_keyed(servers, topic, 2)
        await commit_and_leave(servers, classic, {(topic, 0): 10, (topic, 1): 10})
        await share_from_earliest(admin, share)

    async def read_by_all(admin: KafkaAdmin) -> StreamsMember:
        await produce_extra(servers, topic)
        # The share consumer's acknowledgements reach the share coordinator's state a
        # little after it stops.
        seen = await readers_until(
            admin,
            topic,
            lambda r: len(r.of(topic)) == 3 and all(g.lag == EXTRA for g in r.of(topic)),
        )
        assert {g.group: (g.type, g.lag) for g in seen.of(topic)} == {
            classic: ("classic", EXTRA),
            kip848: ("consumer", EXTRA),
            share: ("share", EXTRA),
        }
        shown = readers_text([topic], seen)  # the TUI's delete dialog
        assert f"'{share}' (share group, Empty, 0 members, lag {EXTRA})" in shown
        assert f"'{kip848}' (consumer protocol, Empty, 0 members, lag {EXTRA})" in shown
        # Last: it stays a member for the session timeout (45 s) without heartbeats.
        member = StreamsMember(admin, streams, topic)
        await member.join()
        await member.commit({0: PER_PARTITION, 1: PER_PARTITION})
        await pinned(admin)
        return member

    async def pinned(admin: KafkaAdmin) -> None:
        """What the broker itself answers about these groups."""
        node = await coordinator(admin, kip848)
        described = await admin._send_to_itself(DescribeGroupsRequest([kip848]), node)
        assert DescribeGroupsRequest.answer(described)[0][1:] == (0, "Dead", 0)
        share_node = await coordinator(admin, share)
        fetch = OffsetFetchRequest([share], {topic: [0, 1]})
        [fetched] = fetch.answer(await admin._send_to_itself(fetch, share_node))
        assert [p.offset for p in fetched.offsets] == [-1, -1]
        versions = {
            ConsumerGroupDescribeRequest([kip848]): (node, 1),
            ShareGroupDescribeRequest([share]): (share_node, 1),
            StreamsGroupDescribeRequest([streams]): (await coordinator(admin, streams), 0),
            DescribeShareGroupOffsetsRequest([share], {topic: [0]}): (share_node, 1),
        }
        for request, (at, version) in versions.items():
            answer = await admin._send_to_itself(request, at)
            assert type(answer).__version__ == version, request

    with asyncio.Runner() as runner:
        admin = runner.run(_connect(servers))
        try:
            runner.run(prepare(admin))
            read_all(consumer(kraft_cluster, topic, kip848, "--max-messages", str(everything)))
            read_all(share_consumer(kraft_cluster, topic, share, "--max-messages", str(everything)))
            member = runner.run(read_by_all(admin))

            # A streams group with a member reads the topic: an unconsumed-only delete refuses.
            code, found = run_json(
                capsys, kraft_cluster, "topics", "delete", topic, "--yes", "--if-unconsumed"
            )
            assert code == 1, found
            [refused] = cast(list[dict[str, Any]], found)
            assert refused["error"] == "TOPIC_IN_USE"
            assert f"'{streams}' (streams group, " in refused["message"]
            assert "1 member, lag 3)" in refused["message"]
            groups = {g["group"]: g for g in refused["consumer_groups"]}
            assert groups[classic] == {
                "group": classic,
                "state": "Empty",
                "members": 0,
                "lag": EXTRA,
                "type": "classic",
            }
            assert groups[kip848] == {
                "group": kip848,
                "state": "Empty",
                "members": 0,
                "lag": EXTRA,
                "type": "consumer",
            }
            assert groups[share] == {
                "group": share,
                "state": "Empty",
                "members": 0,
                "lag": EXTRA,
                "type": "share",
            }
            assert groups[streams]["type"] == "streams" and groups[streams]["members"] == 1
            assert groups[streams]["lag"] == EXTRA and groups[streams]["state"]  # Assigning..

            runner.run(member.leave())
        finally:
            runner.run(admin.close())

    # Nobody left reading: deleted, each kind shown before.
    code, _, err = run(capsys, kraft_cluster, "topics", "delete", topic, "--yes", "--if-unconsumed")
    assert code == 0, err
    assert f"Consumer groups with offsets on '{topic}':" in err
    assert f"'{classic}' (Empty, 0 members, lag {EXTRA})" in err
    assert f"'{kip848}' (consumer protocol, Empty, 0 members, lag {EXTRA})" in err
    assert f"'{share}' (share group, Empty, 0 members, lag {EXTRA})" in err
    assert f"'{streams}' (streams group, Empty, 0 members, lag {EXTRA})" in err


def test_members_of_a_share_group_and_a_kip848_group_keep_their_topics(
    kraft_cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    shared, consumed = topic_name("shared"), topic_name("consumed")
    share, kip848 = topic_name("share"), topic_name("kip848")
    servers = kraft_cluster.bootstrap_servers

    async def prepare(admin: KafkaAdmin) -> None:
        await create(servers, TopicSpec(shared, 1, 2), TopicSpec(consumed, 1, 2))
        await produce_keyed(servers, shared, 1)
        await produce_keyed(servers, consumed, 1)
        await share_from_earliest(admin, share)

    async def joined(admin: KafkaAdmin) -> tuple[Readers, Readers]:
        def one_member(topic: str) -> Callable[[Readers], bool]:
            return lambda r: [g.members for g in r.of(topic)] == [1]

        return (
            await readers_until(admin, shared, one_member(shared)),
            await readers_until(admin, consumed, one_member(consumed)),
        )

    with asyncio.Runner() as runner:
        admin = runner.run(_connect(servers))
        try:
            runner.run(prepare(admin))
            with running(
                share_consumer(kraft_cluster, shared, share),
                consumer(kraft_cluster, consumed, kip848),
            ):
                by_share, by_consumer = runner.run(joined(admin))
                assert [(g.group, g.type, g.state, g.members) for g in by_share.of(shared)] == [
                    (share, "share", "Stable", 1)
                ]
                assert [(g.group, g.type, g.members) for g in by_consumer.of(consumed)] == [
                    (kip848, "consumer", 1)
                ]
                code, found = run_json(
                    capsys,
                    kraft_cluster,
                    "topics",
                    "delete",
                    shared,
                    consumed,
                    "--yes",
                    "--if-unconsumed",
                )
            assert code == 1, found
            results = cast(list[dict[str, Any]], found)
            assert [(r["topic"], r["error"]) for r in results] == [
                (shared, "TOPIC_IN_USE"),
                (consumed, "TOPIC_IN_USE"),
            ]
            first, second = results
            assert f"'{share}' (share group, Stable, 1 member, " in first["message"]
            assert f"'{kip848}' (consumer protocol, " in second["message"]
            assert [g["type"] for g in first["consumer_groups"]] == ["share"]
            assert [g["type"] for g in second["consumer_groups"]] == ["consumer"]
        finally:
            runner.run(admin.close())


async def _connect(servers: str) -> KafkaAdmin:
    admin = KafkaAdmin(ConnectionSettings(servers))
    await admin.connect()
    return admin


async def produce_extra(servers: str, topic: str) -> None:
    """EXTRA records into partition 0: every group that read everything is EXTRA behind."""
    producer = AIOKafkaProducer(bootstrap_servers=servers, acks="all")
    await producer.start()
    try:
        for i in range(EXTRA):
            await producer.send_and_wait(topic, b"v", key=f"x{i}".encode(), partition=0)
    finally:
        await producer.stop()
