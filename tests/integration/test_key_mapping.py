"""Partition increases that move keys: a compacted topic (asks first, --yes skips), a topic
whose recent records carry keys (warns), one whose records carry none (silent), on both real
clusters; the grow form's warning next to the partition count (Pilot, KRaft)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from aiokafka import AIOKafkaProducer
from textual.widgets import Static

from kafka_tui.admin import KafkaAdmin, TopicSpec
from kafka_tui.services.keys import KEY_MAPPING_WARNING, moved_share
from kafka_tui.tui.screens.partitions import IncreasePartitionsScreen

from ..conftest import Cluster
from ..tui.conftest import filter_to, loaded
from .test_cli import run, run_json
from .test_consumer_groups import create, produce_keyed
from .test_tui import SIZE, app_for

Names = Callable[[str], str]
COMPACTED = {"cleanup.policy": "compact"}
EXIT_USAGE = 2


async def produce_unkeyed(bootstrap: str, topic: str, partitions: int) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
    await producer.start()
    try:
        sent = [await producer.send(topic, b"v", partition=p) for p in range(partitions)]
        await asyncio.gather(*sent)
    finally:
        await producer.stop()


def partition_count(capsys: pytest.CaptureFixture[str], cluster: Cluster, topic: str) -> int:
    code, described = run_json(capsys, cluster, "topics", "describe", topic, "--no-configs")
    assert code == 0, described
    return len(described[0]["partitions"])  # type: ignore[index]


def test_moved_share_follows_the_default_partitioner() -> None:
    # murmur2(key) mod n: h keeps its partition iff h mod n == h mod m.
    for n, m in ((2, 3), (3, 6), (3, 4), (4, 8), (5, 7)):
        kept = sum(1 for h in range(n * m * 7) if h % n == h % m) / (n * m * 7)
        assert moved_share(n, m) == pytest.approx(1 - kept)


def test_growing_a_compacted_topic_asks_first_and_warns(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    topic = topic_name()
    servers = cluster.bootstrap_servers
    asyncio.run(create(servers, TopicSpec(topic, 2, 2, configs=COMPACTED)))
    asyncio.run(produce_keyed(servers, topic, 2))
    grow = ("topics", "alter", topic, "--partitions", "3")

    # Off a terminal and without --yes: refused as a usage error, nothing changed.
    code, out, err = run(capsys, cluster, "--output", "json", *grow)
    assert code == EXIT_USAGE and out == ""
    assert f"refusing to grow compacted topic '{topic}'" in err and "pass --yes" in err
    assert partition_count(capsys, cluster, topic) == 2

    # Validating changes nothing, so it needs no confirmation; it warns already.
    code, validated = run_json(capsys, cluster, *grow, "--validate-only")
    assert code == 0, validated
    assert validated[0]["warning"] == KEY_MAPPING_WARNING  # type: ignore[index]
    assert partition_count(capsys, cluster, topic) == 2

    code, grown = run_json(capsys, cluster, *grow, "--yes")
    assert code == 0, grown
    [result] = grown  # type: ignore[misc]
    assert result["ok"] and result["partitions"] == 3
    assert result["warning"] == KEY_MAPPING_WARNING and "warnings" not in result
    assert f"Topic '{topic}' is compacted" in result["message"]
    assert "about 67% of keys" in result["message"]  # 2 -> 3: h mod 2 == h mod 3 for 2 of 6
    assert partition_count(capsys, cluster, topic) == 3


def test_on_a_terminal_the_operator_confirms_a_compacted_grow(
    kraft_cluster: Cluster,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    topic_name: Names,
) -> None:
    topic = topic_name()
    asyncio.run(create(kraft_cluster.bootstrap_servers, TopicSpec(topic, 1, 1, configs=COMPACTED)))
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    answers = iter(["no", "yes"])
    monkeypatch.setattr("builtins.input", lambda prompt: next(answers))
    code, _, err = run(capsys, kraft_cluster, "topics", "alter", topic, "--partitions", "2")
    assert code == 1 and "Nothing changed" in err and f"Topic '{topic}' is compacted" in err
    assert partition_count(capsys, kraft_cluster, topic) == 1
    code, out, err = run(capsys, kraft_cluster, "topics", "alter", topic, "--partitions", "2")
    assert code == 0, err
    assert f"WARNING: {KEY_MAPPING_WARNING}" in err and "is compacted" in out
    assert partition_count(capsys, kraft_cluster, topic) == 2


def test_keyed_records_warn_and_unkeyed_ones_do_not(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    keyed, unkeyed, empty = topic_name("keyed"), topic_name("unkeyed"), topic_name("empty")
    servers = cluster.bootstrap_servers
    asyncio.run(create(servers, *(TopicSpec(t, 3, 2) for t in (keyed, unkeyed, empty))))
    asyncio.run(produce_keyed(servers, keyed, 3))
    asyncio.run(produce_unkeyed(servers, unkeyed, 3))
    # Not compacted: no confirmation needed (stdin is not a terminal here, and no --yes).
    args = ("topics", "alter", keyed, unkeyed, empty, "--partitions", "4")
    code, results = run_json(capsys, cluster, *args)
    assert code == 0, results
    by_topic = {r["topic"]: r for r in results}  # type: ignore[union-attr]
    assert by_topic[keyed]["warning"] == KEY_MAPPING_WARNING
    assert f"Recent records of topic '{keyed}' carry keys" in by_topic[keyed]["message"]
    assert "about 75% of keys" in by_topic[keyed]["message"]  # 3 -> 4
    for quiet in (unkeyed, empty):
        assert by_topic[quiet]["ok"] and "warning" not in by_topic[quiet], by_topic[quiet]
        assert "keys" not in by_topic[quiet]["message"]


def test_a_grow_placed_under_replicated_that_moves_keys_keeps_both_warnings(
    kraft_cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    """`warning` keeps CREATED_UNDER_REPLICATED (what it always said); `warnings` lists both."""
    kraft_cluster.restore()
    topic = topic_name()
    servers = kraft_cluster.bootstrap_servers
    asyncio.run(create(servers, TopicSpec(topic, 1, 3, configs=COMPACTED)))
    asyncio.run(produce_keyed(servers, topic, 1))
    kraft_cluster.dev.stop_broker(3)
    try:
        code, results = run_json(
            capsys,
            kraft_cluster,
            *("topics", "alter", topic, "--partitions", "2", "--yes"),
            *("--under-replicated", "enabled", "--min-required-replication-factor", "2"),
        )
    finally:
        kraft_cluster.restore()
    assert code == 0, results
    [result] = results  # type: ignore[misc]
    assert result["warning"] == "CREATED_UNDER_REPLICATED"
    assert result["warnings"] == ["CREATED_UNDER_REPLICATED", KEY_MAPPING_WARNING]
    assert "is compacted" in result["message"]


async def test_the_grow_form_warns_next_to_the_partition_count(
    kraft_cluster: Cluster, kadmin: KafkaAdmin, topic_name: Names
) -> None:
    compacted, plain = topic_name("compacted"), topic_name("plain")
    specs = [TopicSpec(compacted, 2, 1, configs=COMPACTED), TopicSpec(plain, 2, 1)]
    assert all(r.ok for r in await kadmin.create_topics(specs))
    await produce_unkeyed(kraft_cluster.bootstrap_servers, plain, 2)
    for topic, warned in ((compacted, True), (plain, False)):
        app = app_for(kraft_cluster)
        async with app.run_test(size=SIZE) as pilot:
            await loaded(app, pilot)
            await filter_to(pilot, topic)
            await pilot.press("p")
            form = app.screen
            assert isinstance(form, IncreasePartitionsScreen) and form.topic.name == topic
            reads = [w for w in app.workers if w.group in ("keys", "snapshot")]
            if reads:  # none left: done already (an empty list means every worker)
                await app.workers.wait_for_complete(reads)
            await pilot.press("4")
            await pilot.pause()
            note = form.query_one("#key-mapping", Static)
            assert note.display is warned
            if warned:
                text = str(note.render())
                assert f"Topic '{compacted}' is compacted" in text
                assert "from 2 to 4 partitions sends about 50% of keys" in text
