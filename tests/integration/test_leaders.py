"""Preferred and unclean leader elections (ElectLeaders) on both real clusters: the admin
call, the preview, `kafka-tui leaders elect` and the TUI's filter and election key.

The dev clusters keep Kafka's default auto.leader.rebalance.enable=true: every
leader.imbalance.check.interval.seconds (300 s) the controller itself gives partitions back
to their preferred replica. A test that makes a leader not preferred therefore sets it up
again when the controller got there first (it cannot do so twice within a test's seconds),
and says so, rather than failing by chance. The clusters are shared by the whole run: a test
that stops brokers restores them in `finally`.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kafka_tui.admin import ConnectionFailed, KafkaAdmin, PartitionInfo, TopicSpec
from kafka_tui.admin import audit_log as audit
from kafka_tui.admin.connection import poll_until
from kafka_tui.admin.partition_moves import PartitionMove
from kafka_tui.cli import main
from kafka_tui.services.leader_elections import (
    ElectionType,
    TopicSelection,
    preview_election,
)
from kafka_tui.tui.screens.brokers import BrokersScreen
from kafka_tui.tui.widgets.topic_table import TopicTable

from ..conftest import Cluster, record_written
from .test_tui import SIZE, app_for, loaded, settle, shown

Names = Callable[..., str]
PREFERRED = 2  # the broker a test stops: the first replica of partition 0


class Rebalanced(Exception):
    """The controller's own rebalance elected the preferred leader before the test did."""


async def _create(admin: KafkaAdmin, name: str, assignment: dict[int, list[int]]) -> str:
    [result] = await admin.create_topics([TopicSpec(name, assignment=assignment)])
    assert result.ok, result.message
    return name


async def _partition_when(
    admin: KafkaAdmin,
    topic: str,
    ready: Callable[[PartitionInfo], bool],
    partition: int = 0,
    seconds: float = 90,
) -> PartitionInfo:
    """Poll Metadata until `partition` of `topic` satisfies `ready`; fail with what was seen."""
    seen: list[PartitionInfo] = []

    async def check() -> PartitionInfo | None:
        found, _ = await admin.describe_topics([topic], configs=False)
        if found:
            seen[:] = [found[0].partitions[partition]]
            if ready(seen[0]):
                return seen[0]
        return None

    found = await poll_until(check, time.monotonic() + seconds)
    assert found is not None, f"{topic}-{partition} never got there; last seen: {seen}"
    return found


def _replicas_are(replicas: list[int]) -> Callable[[PartitionInfo], bool]:
    return lambda p: list(p.replicas) == replicas


async def _cli(
    capsys: pytest.CaptureFixture[str], cluster: Cluster, *args: str
) -> tuple[int, str, str]:
    """The command in-process, in a thread of its own (it runs its own event loop)."""
    code = await asyncio.to_thread(main, ["--bootstrap-server", cluster.bootstrap_servers, *args])
    out, err = capsys.readouterr()
    return code, out, err


def _elections_logged(topic: str) -> list[dict[str, Any]]:
    path = audit.log_path()
    lines = path.read_text().splitlines() if path.exists() else []
    entries = [json.loads(line) for line in lines]
    return [e for e in entries if e["action"] == "leaders elect" and topic in e["topics"]]


async def _lead_elsewhere(cluster: Cluster, admin: KafkaAdmin, topic: str) -> None:
    """Stop the preferred leader's broker and start it again: another replica leads, and
    the preferred one comes back as a follower. While it is down, a preferred election
    cannot give it the leadership."""
    await asyncio.to_thread(cluster.dev.stop_broker, PREFERRED)
    await _partition_when(
        admin, topic, lambda p: p.leader not in (-1, PREFERRED) and PREFERRED not in p.isr
    )
    [refused] = await admin.elect_leaders([(topic, 0)])
    assert (refused.ok, refused.error) == (False, "PREFERRED_LEADER_NOT_AVAILABLE")
    assert "cannot lead now" in refused.message
    await asyncio.to_thread(cluster.dev.start_broker, PREFERRED)
    await _partition_when(admin, topic, lambda p: PREFERRED in p.isr)
    await _every_broker_shows(cluster, admin, topic, lambda p: PREFERRED in p.isr_nodes)


async def _every_broker_shows(
    cluster: Cluster,
    admin: KafkaAdmin,
    topic: str,
    ready: Callable[[Any], bool],
    seconds: float = 30,
) -> None:
    """Wait until every live broker's Metadata shows partition 0 of `topic` as `ready` asks
    (e.g. PREFERRED back in the ISR).

    Learnt the hard way on the ZooKeeper-mode cluster: the brokers learn an ISR change from
    the controller's UpdateMetadata one by one, so for a moment one broker shows the replica
    in sync and another does not. The command under test opens a connection of its own,
    whose reads may go to any broker: it predicted PREFERRED_LEADER_NOT_AVAILABLE ("not in
    sync") from a broker that had not caught up, after the test had seen the ISR elsewhere.
    Every running broker of the dev cluster, not the live ones a DescribeCluster lists: that
    answer too comes from some broker, which may not know yet that a restarted one is back
    (CI: broker 2 left unchecked, and the command's reads went to it)."""
    brokers = [b["id"] for b in cluster.dev.status()["brokers"] if b["running"]]

    async def check() -> bool | None:
        for broker in brokers:
            try:  # from `broker` itself, not another one if its link fails
                metadata = await admin._metadata_from([topic], broker, retry=False)
            except ConnectionFailed:
                await admin._refresh_brokers()  # it may not list the restarted broker yet
                return None
            [answer] = metadata.topics
            if not answer.partitions or not ready(answer.partitions[0]):
                return None
        return True

    assert await poll_until(check, time.monotonic() + seconds), (
        f"some broker never showed {topic}-0 as expected"
    )


async def _elect_back(
    cluster: Cluster,
    admin: KafkaAdmin,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    topic: str,
) -> None:
    """Preview, validate only, run: partition 0 goes back to broker 2, partition 1 (led by
    its preferred replica all along) needs no election. While broker 2 was down, both Kafka
    3.9 and 4.1 gave partition 0 to broker 1, the next replica in sync."""
    preview = await preview_election(admin, ElectionType.PREFERRED, TopicSelection([topic]))
    p0, p1 = preview.results
    if p0.error == "ELECTION_NOT_NEEDED":
        raise Rebalanced
    other = 1
    assert (p0.ok, p0.error, p0.leader_before, p0.leader_after) == (True, None, 1, PREFERRED)
    assert (p1.ok, p1.error, p1.leader_before, p1.leader_after) == (
        True,
        "ELECTION_NOT_NEEDED",
        1,
        1,
    )
    assert preview.changes == [p0] and preview.topics == [topic]
    # This topic's leaders per broker, every live broker counted.
    assert preview.leaders_before == {1: 2, 2: 0, 3: 0}
    assert preview.leaders_after == {1: 1, 2: 1, 3: 0}

    sent = record_written(monkeypatch)
    logged = len(_elections_logged(topic))
    code, out, err = await _cli(capsys, cluster, "leaders", "elect", topic, "--validate-only")
    if f"{topic}\t0\t{PREFERRED}\t{PREFERRED}\tELECTION_NOT_NEEDED" in out:
        raise Rebalanced
    assert code == 0, err
    assert "ElectLeadersRequest" not in sent and len(_elections_logged(topic)) == logged
    assert out.splitlines() == [
        "TOPIC\tPARTITION\tLEADER_BEFORE\tLEADER_AFTER\tRESULT",
        f"{topic}\t0\t{other}\t{PREFERRED}\twould elect",
        f"{topic}\t1\t1\t1\tELECTION_NOT_NEEDED",
    ]
    assert "Validate only: nothing was sent. 1 partition(s) would change leader" in err
    assert "Leaders per broker (before -> after): 1: 2 -> 1, 2: 0 -> 1, 3: 0 -> 0" in err
    code, out, _ = await _cli(
        capsys, cluster, "--output", "json", "leaders", "elect", topic, "--validate-only"
    )
    predicted = json.loads(out)
    if predicted[0]["error"] == "ELECTION_NOT_NEEDED":
        raise Rebalanced
    assert code == 0 and [r["leader_after"] for r in predicted] == [PREFERRED, 1]

    code, out, err = await _cli(capsys, cluster, "--output", "json", "leaders", "elect", topic)
    assert "ElectLeadersRequest" in sent
    rows = json.loads(out)
    if rows[0]["error"] == "ELECTION_NOT_NEEDED":
        raise Rebalanced
    assert code == 0, err
    assert [set(r) for r in rows] == [
        {"topic", "partition", "leader_before", "leader_after", "ok", "error", "message"}
    ] * 2
    assert [
        (r["partition"], r["leader_before"], r["leader_after"], r["ok"], r["error"]) for r in rows
    ] == [(0, other, PREFERRED, True, None), (1, 1, 1, True, "ELECTION_NOT_NEEDED")]
    assert f"Leader: {other} -> {PREFERRED}." in rows[0]["message"]
    *_, entry = _elections_logged(topic)
    assert len(_elections_logged(topic)) == logged + 1
    assert entry["request"] == {"election": "preferred", "partitions": 2}
    assert entry["result"]["status"] == "ok"
    assert [(o["partition"], o["error"]) for o in entry["result"]["topics"]] == [
        (0, None),
        (1, "ELECTION_NOT_NEEDED"),
    ]


async def test_a_preferred_election_gives_the_leadership_back_to_the_first_replica(
    cluster: Cluster,
    admin: KafkaAdmin,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    topic_name: Names,
) -> None:
    topic = await _create(admin, topic_name(), {0: [PREFERRED, 1, 3], 1: [1, 3, PREFERRED]})
    try:
        for _ in range(3):
            await _lead_elsewhere(cluster, admin, topic)
            try:
                await _elect_back(cluster, admin, capsys, monkeypatch, topic)
                break
            except Rebalanced:
                found = await _partition_when(admin, topic, lambda p: True)
                assert found.leader == PREFERRED  # the only reason to set it up again
        else:
            pytest.fail("the controller's rebalance beat the election three times")
    finally:
        await asyncio.to_thread(cluster.restore)
    led = await _partition_when(admin, topic, lambda p: p.leader == PREFERRED, seconds=5)
    assert led.replicas[0] == PREFERRED
    # Again: nothing to do, and that is no failure.
    code, out, err = await _cli(capsys, cluster, "leaders", "elect", "--topic", topic)
    assert code == 0, err
    assert out.splitlines()[1:] == [
        f"{topic}\t0\t{PREFERRED}\t{PREFERRED}\tELECTION_NOT_NEEDED",
        f"{topic}\t1\t1\t1\tELECTION_NOT_NEEDED",
    ]
    assert "0 leader(s) elected, 2 partition(s) needed no election, 0 failed." in err


async def test_an_unclean_election_gives_a_leaderless_partition_its_live_replica(
    cluster: Cluster,
    admin: KafkaAdmin,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    topic_name: Names,
) -> None:
    topic = await _create(admin, topic_name(), {0: [2, 3]})
    try:
        await asyncio.to_thread(cluster.dev.stop_broker, 3)
        await _partition_when(admin, topic, lambda p: p.isr == (2,))
        await asyncio.to_thread(cluster.dev.stop_broker, 2)
        await _partition_when(admin, topic, lambda p: p.leader == -1)
        # No replica is live: nothing can lead, clean or not.
        code, out, err = await _cli(
            capsys, cluster, "--output", "json", "leaders", "elect", topic, "--type", "unclean",
            "--yes",
        )  # fmt: skip
        [row] = json.loads(out)
        assert (code, row["ok"], row["error"]) == (1, False, "ELIGIBLE_LEADERS_NOT_AVAILABLE")

        # Broker 3 comes back, out of sync: Kafka leaves the partition without a leader.
        await asyncio.to_thread(cluster.dev.start_broker, 3)
        still = await _partition_when(admin, topic, lambda p: 3 not in p.offline_replicas)
        assert still.leader == -1
        preview = await preview_election(admin, ElectionType.UNCLEAN, TopicSelection([topic]))
        [would] = preview.changes
        assert (would.leader_before, would.leader_after) == (None, 3)
        assert "messages only the old ISR had are lost" in would.message
        [refused] = await admin.elect_leaders([(topic, 0)])  # preferred: broker 2 is down
        assert refused.error == "PREFERRED_LEADER_NOT_AVAILABLE"

        sent = record_written(monkeypatch)
        code, _, err = await _cli(capsys, cluster, "leaders", "elect", topic, "--type", "unclean")
        assert code == 2 and "pass --yes" in err  # off a terminal: --yes or nothing
        assert "ElectLeadersRequest" not in sent
        # On a terminal: the topic's name typed, as for a deletion.
        monkeypatch.setattr("sys.stdin.isatty", lambda: True)
        answers = iter(["orders", topic])
        monkeypatch.setattr("builtins.input", lambda prompt: next(answers))
        code, _, err = await _cli(capsys, cluster, "leaders", "elect", topic, "--type", "unclean")
        assert code == 1 and "UNCLEAN leader election on topic" in err
        assert "confirmation did not match" in err and "ElectLeadersRequest" not in sent
        code, out, err = await _cli(
            capsys, cluster, "--output", "json", "leaders", "elect", topic, "--type", "unclean"
        )
        [row] = json.loads(out)
        assert code == 0, err
        assert (row["leader_before"], row["leader_after"], row["ok"], row["error"]) == (
            None,
            3,
            True,
            None,
        )
        code, out, _ = await _cli(
            capsys, cluster, "--output", "json", "leaders", "elect", topic, "--type", "unclean",
            "--yes",
        )  # fmt: skip
        assert code == 0 and json.loads(out)[0]["error"] == "ELECTION_NOT_NEEDED"
        assert [e["request"]["election"] for e in _elections_logged(topic)] == [
            "unclean",
            "preferred",
            "unclean",
            "unclean",
        ]
    finally:
        await asyncio.to_thread(cluster.restore)


async def test_leaders_elect_needs_topics_and_refuses_changes_on_read_only_profiles(
    kraft_cluster: Cluster,
    kadmin: KafkaAdmin,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    topic_name: Names,
) -> None:
    for args in (["leaders", "elect"], ["leaders", "elect", "--all", "--topic", "x.*"]):
        code, _, err = await _cli(capsys, kraft_cluster, *args)
        assert code == 2 and err.count("\n") == 1 and "leaders elect:" in err
    code, out, err = await _cli(capsys, kraft_cluster, "leaders", "elect", "no-such-topic-here")
    assert code == 1 and "no-such-topic-here\t-\t-\t-\tUNKNOWN_TOPIC_OR_PARTITION" in out
    assert "Error (UNKNOWN_TOPIC_OR_PARTITION): Topic 'no-such-topic-here' does not exist" in err

    config = tmp_path / "ro.toml"
    config.write_text(
        f'[profiles.ro]\nbootstrap_servers = "{kraft_cluster.bootstrap_servers}"\n'
        "read_only = true\n"
    )
    base = ["--config-file", str(config), "--profile", "ro", "leaders", "elect"]
    assert await asyncio.to_thread(main, [*base, "--all"]) == 2
    assert "read-only" in capsys.readouterr().err
    # A validate-only run changes nothing: allowed. On a topic of its own (one replica, so
    # led by its preferred replica), not --all: another test's topic whose preferred replica
    # is still catching up after a restart makes a whole-cluster preview exit 1.
    topic = await _create(kadmin, topic_name(), {0: [1]})
    assert await asyncio.to_thread(main, [*base, topic, "--validate-only"]) == 0
    assert "ELECTION_NOT_NEEDED" in capsys.readouterr().out


async def _not_preferred_shown(
    cluster: Cluster, kadmin: KafkaAdmin, app: Any, pilot: Any, topic: str
) -> None:
    """Swap `topic`'s partition 0 replicas until the topics screen (filter `l`) shows its
    leader as not preferred; the controller's rebalance may move it back meanwhile."""
    for _ in range(3):
        found = await _partition_when(kadmin, topic, lambda p: True)
        swapped = list(reversed(found.replicas))
        [moved] = await kadmin.alter_partition_reassignments([PartitionMove(topic, 0, swapped)])
        assert moved.ok, moved.message
        await _partition_when(kadmin, topic, _replicas_are(swapped))
        # The app's own connection may read another broker, which learns the new order
        # a moment later (a loaded CI run refreshed from one that had not).
        await _every_broker_shows(
            cluster, kadmin, topic, lambda p, s=swapped: list(p.replica_nodes) == s
        )
        await pilot.press("r")
        await settle(app, pilot)
        if topic in shown(app):
            return
        # Shown as preferred: the controller's rebalance moved the leader meanwhile.
        led = await _partition_when(kadmin, topic, lambda p: True)
        assert led.leader == led.replicas[0]
    pytest.fail("the controller's rebalance beat the test three times")


async def test_the_topics_filter_and_the_brokers_election_key(
    kraft_cluster: Cluster, kadmin: KafkaAdmin, topic_name: Names
) -> None:
    """Swapping a partition's replica order moves no leader (on both kinds of cluster): the
    quickest way to a leader that is not the preferred replica."""
    topic = await _create(kadmin, topic_name(), {0: [1, 2]})
    app = app_for(kraft_cluster)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(app, pilot)
        await pilot.press("l")
        assert topic not in shown(app)
        assert "[x]l not preferred" in str(screen.query_one("#toggles").render())
        # The controller's rebalance can get there first twice over: before the refresh shows
        # the topic, and between the refresh and the election key (a CI run: "0 partition(s)
        # got their preferred leader back, 403 had it already"). Either way, set up again.
        for _ in range(3):
            await _not_preferred_shown(kraft_cluster, kadmin, app, pilot, topic)
            table = screen.query_one(TopicTable)
            index = next(i for i, r in enumerate(table.rows) if r.name == topic)
            assert table.rows[index].not_preferred == 1
            assert table.row_text(index).startswith(f"^ {topic}")

            await pilot.press("b")
            await settle(app, pilot)
            brokers = app.screen
            assert isinstance(brokers, BrokersScreen)
            assert brokers.check_action("elect", ()) is True
            await pilot.press("e")
            await settle(app, pilot)
            note = [n for n in app._notifications if n.title == "Preferred leader election"][-1]
            pattern = r"(\d+) partition\(s\) got their preferred leader back"
            elected = re.match(pattern, note.message)
            assert elected, note.message
            if int(elected.group(1)) >= 1:
                break
            led = await _partition_when(kadmin, topic, lambda p: True)
            assert led.leader == led.replicas[0], note.message
            await pilot.press("escape")
            await settle(app, pilot)
        else:
            pytest.fail("the controller's rebalance beat the election key three times")
        await _partition_when(kadmin, topic, lambda p: p.leader == p.replicas[0], seconds=5)
        await pilot.press("escape", "r")
        await settle(app, pilot)
        assert topic not in shown(app)
    read_only = app_for(kraft_cluster, read_only=True)
    async with read_only.run_test(size=SIZE) as pilot:
        await loaded(read_only, pilot)
        await pilot.press("b")
        await settle(read_only, pilot)
        refusing = read_only.screen
        assert isinstance(refusing, BrokersScreen) and refusing.check_action("elect", ()) is False
        await pilot.press("e")
        await settle(read_only, pilot)
        assert not [w for w in read_only.workers if w.group == "elect"]
