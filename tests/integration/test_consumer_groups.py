"""Who reads a topic, before it is deleted: real consumer groups (a real aiokafka consumer that
committed and still runs, a group that committed and left), on both real clusters, and on the
secured KRaft cluster for a user who may not describe groups."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

from kafka_tui.admin import ConnectionSettings, KafkaAdmin, TopicSpec
from kafka_tui.admin.connection import security_kwargs
from kafka_tui.services.consumers import NOT_AUTHORIZED_NOTE
from kafka_tui.tui.screens.changes import DeleteConfirm
from kafka_tui.tui.screens.metadata import MetadataScreen

from ..conftest import Cluster, SecuredCluster
from ..tui.conftest import filter_to, loaded, settle
from .test_cli import run, run_json
from .test_security import kafka_tui, properties
from .test_tui import SIZE, app_for

Names = Callable[[str], str]
PER_PARTITION = 10


async def produce_keyed(
    bootstrap: str, topic: str, partitions: int, security: Mapping[str, Any] | None = None
) -> None:
    """PER_PARTITION keyed records into each partition, acknowledged by every in-sync
    replica: the high watermark (what lag is measured to) includes them all."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", **(security or {}))
    await producer.start()
    try:
        sent = [
            await producer.send(topic, b"v", key=f"k{p}-{i}".encode(), partition=p)
            for p in range(partitions)
            for i in range(PER_PARTITION)
        ]
        await asyncio.gather(*sent)
    finally:
        await producer.stop()


async def commit_and_leave(
    bootstrap: str,
    group: str,
    offsets: Mapping[tuple[str, int], int],
    security: Mapping[str, Any] | None = None,
) -> None:
    """A group that committed `offsets` and has no member left (state Empty)."""
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False, **(security or {})
    )
    await consumer.start()
    try:
        consumer.assign([TopicPartition(t, p) for t, p in offsets])
        await consumer.commit({TopicPartition(t, p): o for (t, p), o in offsets.items()})
    finally:
        await consumer.stop()


class ActiveMember:
    """A consumer of `group` subscribed to `topic` that read all `count` records and committed
    them, kept in the group (heartbeating) by its own event loop in a thread until the block
    ends: the command under test runs its own asyncio.run meanwhile."""

    def __init__(self, bootstrap: str, topic: str, group: str, count: int) -> None:
        self.bootstrap, self.topic, self.group, self.count = bootstrap, topic, group, count
        self.ready = threading.Event()
        self.failure: BaseException | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.stop: asyncio.Event | None = None
        self.thread = threading.Thread(target=self._main, daemon=True)

    def __enter__(self) -> ActiveMember:
        self.thread.start()
        assert self.ready.wait(120), "the consumer did not join and commit within 120 s"
        if self.failure is not None:
            raise self.failure
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.loop is not None and self.stop is not None:
            self.loop.call_soon_threadsafe(self.stop.set)
        self.thread.join(60)

    def _main(self) -> None:
        try:
            asyncio.run(self._run())
        except BaseException as exc:  # reported by __enter__
            self.failure = exc
            self.ready.set()

    async def _run(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.stop = asyncio.Event()
        consumer = AIOKafkaConsumer(
            self.topic,
            bootstrap_servers=self.bootstrap,
            group_id=self.group,
            auto_offset_reset="earliest",
            enable_auto_commit=False,
        )
        await consumer.start()
        try:
            seen = 0
            while seen < self.count:
                batches = await consumer.getmany(timeout_ms=1000)
                seen += sum(len(records) for records in batches.values())
            await consumer.commit()
            self.ready.set()
            await self.stop.wait()
        finally:
            await consumer.stop()


async def create(bootstrap: str, *specs: TopicSpec) -> None:
    async with KafkaAdmin(ConnectionSettings(bootstrap)) as admin:
        results = await admin.create_topics(list(specs))
    assert all(r.ok for r in results), results


def test_delete_shows_each_group_with_its_state_members_and_lag(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    topic, reading, idle = topic_name(), topic_name("reading"), topic_name("idle")
    servers = cluster.bootstrap_servers
    asyncio.run(create(servers, TopicSpec(topic, 3, 2)))
    asyncio.run(produce_keyed(servers, topic, 3))
    # 0 + 6 + 10 records behind, summed over the partitions.
    asyncio.run(commit_and_leave(servers, idle, {(topic, 0): 10, (topic, 1): 4, (topic, 2): 0}))
    with ActiveMember(servers, topic, reading, 3 * PER_PARTITION):
        code, results = run_json(capsys, cluster, "topics", "delete", topic, "--yes")
    assert code == 0, results
    [result] = results  # type: ignore[misc]
    # Every field a deletion's result had, as it was; consumer_groups added.
    assert result["ok"] and result["message"] == f"Topic '{topic}' deleted."
    assert set(result) >= {"topic", "ok", "error", "message"}
    groups = sorted(result["consumer_groups"], key=lambda g: g["group"])
    assert groups == sorted(
        [
            {"group": reading, "state": "Stable", "members": 1, "lag": 0, "type": "classic"},
            {"group": idle, "state": "Empty", "members": 0, "lag": 16, "type": "classic"},
        ],
        key=lambda g: str(g["group"]),
    )
    assert "consumer_groups_note" not in result


def test_the_groups_are_shown_before_the_confirmation(
    kraft_cluster: Cluster,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    topic_name: Names,
) -> None:
    topic, idle = topic_name(), topic_name("idle")
    servers = kraft_cluster.bootstrap_servers
    asyncio.run(create(servers, TopicSpec(topic, 1, 1)))
    asyncio.run(produce_keyed(servers, topic, 1))
    asyncio.run(commit_and_leave(servers, idle, {(topic, 0): 7}))
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    prompts: list[str] = []

    def answer(prompt: str) -> str:
        prompts.append(capsys.readouterr().err)  # what was shown before the question
        return "no"

    monkeypatch.setattr("builtins.input", answer)
    code, _, err = run(capsys, kraft_cluster, "topics", "delete", topic)
    assert code == 1 and "confirmation did not match" in err
    [shown] = prompts
    assert f"Consumer groups with offsets on '{topic}':" in shown
    assert f"'{idle}' (Empty, 0 members, lag 3)" in shown
    assert shown.index("Consumer groups") < shown.index("About to delete")


def test_if_unconsumed_deletes_the_unread_topic_and_refuses_the_read_one(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    used, unused = topic_name("used"), topic_name("unused")
    reading, idle = topic_name("reading"), topic_name("idle")
    servers = cluster.bootstrap_servers
    asyncio.run(create(servers, TopicSpec(used, 2, 2), TopicSpec(unused, 2, 2)))
    asyncio.run(produce_keyed(servers, used, 2))
    asyncio.run(produce_keyed(servers, unused, 2))
    # A group without members that read `unused` does not keep it: nobody reads it now.
    asyncio.run(commit_and_leave(servers, idle, {(unused, 0): 10, (unused, 1): 10}))
    with ActiveMember(servers, used, reading, 2 * PER_PARTITION):
        code, results = run_json(
            capsys, cluster, "topics", "delete", used, unused, "--yes", "--if-unconsumed"
        )
        assert code == 1, results
        refused, deleted = results  # type: ignore[misc]
        assert (refused["topic"], refused["ok"], refused["error"]) == (used, False, "TOPIC_IN_USE")
        assert f"'{reading}' (Stable, 1 member, lag 0)" in refused["message"]
        assert refused["message"].startswith(f"Topic '{used}' was not deleted")
        assert refused["consumer_groups"] == [
            {"group": reading, "state": "Stable", "members": 1, "lag": 0, "type": "classic"}
        ]
        assert (deleted["topic"], deleted["ok"]) == (unused, True)
        assert deleted["consumer_groups"] == [
            {"group": idle, "state": "Empty", "members": 0, "lag": 0, "type": "classic"}
        ]
        code, described = run_json(capsys, cluster, "topics", "describe", used, "--no-configs")
        assert code == 0 and [t["topic"] for t in described] == [used]  # type: ignore[union-attr]
    code, gone = run_json(capsys, cluster, "topics", "describe", unused)
    assert code == 1 and gone == []


def test_a_topic_nobody_reads_has_no_groups(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    topic = topic_name()
    asyncio.run(create(cluster.bootstrap_servers, TopicSpec(topic, 1, 1)))
    code, results = run_json(capsys, cluster, "topics", "delete", topic, "--yes", "--if-unconsumed")
    assert code == 0, results
    [result] = results  # type: ignore[misc]
    assert result["ok"] and result["consumer_groups"] == []
    assert "consumer_groups_note" not in result


def test_a_user_who_may_not_describe_groups_gets_a_note_not_a_failure(
    secured_kraft_cluster: SecuredCluster, tmp_path: Path, topic_name: Names
) -> None:
    cluster = secured_kraft_cluster
    topic, group = topic_name("team"), topic_name("group")
    topic = "team-" + topic  # `creator` may delete topics prefixed team-
    settings = cluster.settings("admin")
    security = security_kwargs(settings)

    async def prepare() -> None:
        async with KafkaAdmin(settings) as admin:
            assert (await admin.create_topics([TopicSpec(topic, 1, 2)]))[0].ok
        await produce_keyed(cluster.bootstrap_servers, topic, 1, security)
        await commit_and_leave(cluster.bootstrap_servers, group, {(topic, 0): 5}, security)

    asyncio.run(prepare())
    config = properties(tmp_path, cluster, "creator")
    # Not knowing who reads it, an unconsumed-only deletion refuses.
    guarded = kafka_tui(cluster, config, "topics", "delete", topic, "--yes", "--if-unconsumed")
    [refused] = json.loads(guarded.stdout)
    assert guarded.returncode == 1, guarded.stderr
    assert refused["error"] == "GROUPS_NOT_CHECKED"
    assert NOT_AUTHORIZED_NOTE in refused["message"]
    done = kafka_tui(cluster, config, "topics", "delete", topic, "--yes")
    assert done.returncode == 0, done.stderr
    [deleted] = json.loads(done.stdout)
    assert deleted["ok"] and deleted["consumer_groups"] == []
    assert deleted["consumer_groups_note"] == NOT_AUTHORIZED_NOTE


async def test_the_delete_dialog_lists_the_groups(
    kraft_cluster: Cluster, kadmin: KafkaAdmin, topic_name: Names
) -> None:
    topic, idle = topic_name(), topic_name("idle")
    servers = kraft_cluster.bootstrap_servers
    assert (await kadmin.create_topics([TopicSpec(topic, 2, 1)]))[0].ok
    await produce_keyed(servers, topic, 2)
    await commit_and_leave(servers, idle, {(topic, 0): 10, (topic, 1): 1})
    app = app_for(kraft_cluster)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await filter_to(pilot, topic)
        await pilot.press("d")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, DeleteConfirm)
        # Not every worker: the deletion's own waits for this dialog. (An empty list would
        # mean every worker to wait_for_complete: the lookup may be done already.)
        lookups = [w for w in app.workers if w.group == "readers"]
        assert lookups or dialog.readers is not None
        if lookups:
            await app.workers.wait_for_complete(lookups)
        await pilot.pause()
        text = str(dialog.query_one("#delete-readers").render())
        assert "Consumer groups with offsets on it:" in text
        assert f"'{idle}' (Empty, 0 members, lag 9)" in text
        await pilot.press(*topic, "enter")
        await settle(app, pilot)
        await settle(app, pilot)
        assert isinstance(app.screen, MetadataScreen)
