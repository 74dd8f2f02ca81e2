"""The reassign screen against the real KRaft cluster: RF 1 -> 2 previewed (`+N`) and applied
as previewed, leaders kept; a throttled reassignment cancelled with `esc` reverts and leaves
no throttle behind."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from textual.pilot import Pilot
from textual.widgets import Input, Label, ProgressBar, Static

from kafka_tui.admin import KafkaAdmin, TopicSpec
from kafka_tui.admin.reassignments import (
    FOLLOWER_RATE,
    FOLLOWER_REPLICAS,
    LEADER_RATE,
    LEADER_REPLICAS,
)
from kafka_tui.tui.app import KafkaTuiApp
from kafka_tui.tui.screens.detail import TopicDetailScreen
from kafka_tui.tui.screens.metadata import MetadataScreen
from kafka_tui.tui.screens.reassign import ReassignScreen
from kafka_tui.tui.widgets.moves import MoveTable
from kafka_tui.tui.widgets.tables import PartitionTable
from kafka_tui.tui.widgets.topic_table import TopicTable

from ..conftest import Cluster
from .test_alter_rf import produce
from .test_reassign import throttles
from .test_tui import app_for

Names = Callable[[str], str]
SIZE = (120, 40)


async def open_screen(app: KafkaTuiApp, pilot: Pilot[None], topic: str) -> ReassignScreen:
    home = app.screen
    assert isinstance(home, MetadataScreen) and app.profile and app.admin
    await asyncio.wait_for(home.loaded.wait(), 30)
    screen = ReassignScreen(app.profile, app.admin, topic)
    await app.push_screen(screen)
    await asyncio.wait_for(screen.ready.wait(), 30)
    await pilot.pause()
    return screen


def cells(screen: ReassignScreen) -> list[list[str]]:
    table = screen.query_one(MoveTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def until(pilot: Pilot[None], ready: Callable[[], bool], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not ready():
        assert time.monotonic() < deadline, "timed out"
        await pilot.pause(0.1)


async def _slow_to_copy(cluster: Cluster, kadmin: KafkaAdmin, topic: str) -> str:
    """A 1-partition topic on broker 1 holding 4 MB: a throttled copy's first fetch takes at
    most 1 MB, then 1 KB/s holds it for long."""
    assert (await kadmin.create_topics([TopicSpec(topic, assignment={0: [1]})]))[0].ok
    await produce(cluster.bootstrap_servers, topic, 400, size=10_000, partitions=1)
    return topic


async def _rates_shown(
    kadmin: KafkaAdmin, pilot: Pilot[None], brokers: tuple[int, ...], rate: str, key: str
) -> None:
    """Until every broker of `brokers` describes `rate` as both throttle rates."""
    deadline = time.monotonic() + 30
    for broker in brokers:
        while (await kadmin.broker_configs(broker, [LEADER_RATE, FOLLOWER_RATE])) != {
            LEADER_RATE: rate,
            FOLLOWER_RATE: rate,
        }:
            assert time.monotonic() < deadline, f"{key}: the brokers never showed {rate}"
            await pilot.pause(0.2)


async def test_raising_the_replication_factor_previews_and_applies_the_moves(
    kraft_cluster: Cluster, kadmin: KafkaAdmin, topic_name: Names
) -> None:
    topic = topic_name()
    assert (await kadmin.create_topics([TopicSpec(topic, assignment={0: [1], 1: [2], 2: [3]})]))[
        0
    ].ok
    app = app_for(kraft_cluster)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(app, pilot, topic)
        await pilot.press("2")
        rows = cells(screen)
        assert [r[0] for r in rows] == ["0", "1", "2"]
        for partition, before, after, changes, leader, _ in rows:
            (added,) = changes.split()
            assert added.startswith("+") and int(added[1:]) != int(partition) + 1
            assert before == f"{int(partition) + 1}*"  # the leader, nothing removed
            assert after == f"{before} {added}" and leader.endswith("kept")
        summary = str(screen.query_one("#reassign-summary", Static).render())
        assert "would move 3 partition(s): 3 replica(s) added, 0 removed" in summary
        planned = {int(r[0]): [int(r[1][:-1]), int(r[3][1:])] for r in rows}
        await pilot.press("ctrl+s")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not screen.running and screen.finished
        assert "moved 3 partition(s)" in str(screen.query_one("#reassign-status", Label).render())
    found, _ = await kadmin.describe_topics([topic], configs=False)
    assert found[0].replication_factor == 2
    assert {p.partition: list(p.replicas) for p in found[0].partitions} == planned
    assert [p.leader for p in found[0].partitions] == [1, 2, 3]  # leaders kept


async def test_esc_cancels_a_throttled_reassignment_and_removes_the_throttles(
    kraft_cluster: Cluster, kadmin: KafkaAdmin, topic_name: Names
) -> None:
    topic = await _slow_to_copy(kraft_cluster, kadmin, topic_name())
    app = app_for(kraft_cluster)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(app, pilot, topic)
        await pilot.press("2")
        [[_, _, _, changes, _, to_copy]] = cells(screen)
        assert changes.startswith("+") and to_copy.endswith("MB")
        screen.query_one("#throttle", Input).value = "1000"
        await pilot.press("ctrl+s")
        await until(
            pilot,
            lambda: "partitions done" in str(screen.query_one("#reassign-status", Label).render()),
        )
        assert screen.running
        # the bar follows the bytes the new replica holds (its broker's DescribeLogDirs)
        bar = screen.query_one(ProgressBar)
        await until(pilot, lambda: (bar.progress or 0) > 0)
        assert bar.total is not None and bar.progress < bar.total and screen.running
        ongoing = await kadmin.list_partition_reassignments([topic])
        assert [(r.partition, r.adding) for r in ongoing] == [(0, [int(changes[1:])])]
        _, throttled = await throttles(kraft_cluster, topic)
        assert throttled[FOLLOWER_REPLICAS] == f"0:{changes[1:]}"
        # ctrl+t sets the throttle field's new rate on both brokers while it runs.
        screen.query_one("#throttle", Input).value = "5000"
        await pilot.press("ctrl+t")
        await _rates_shown(kadmin, pilot, (1, int(changes[1:])), "5000", "ctrl+t")
        # The topics table underneath marks the topic being reassigned after a refresh.
        home = next(s for s in app.screen_stack if isinstance(s, MetadataScreen))
        home.action_refresh()
        await until(pilot, lambda: topic in home.query_one(TopicTable).reassigning)
        table = home.query_one(TopicTable)
        index = next(i for i, r in enumerate(table.rows) if r.name == topic)
        assert table.row_text(index).startswith("> ")
        # Topic detail draws the replica being added with the one renderer: `+N`.
        detail = TopicDetailScreen(home.profile, home.admin, topic, None)
        await app.push_screen(detail)
        partitions = detail.query_one(PartitionTable)
        await until(pilot, lambda: partitions.row_count == 1)
        replicas = partitions.cells(0)[2]
        assert f"+{changes[1:]}" in str(replicas).split(), replicas
        app.pop_screen()
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("escape")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not screen.running and app.screen is screen  # esc cancelled, did not leave
        assert "Cancelled: 1 partition(s)" in str(
            screen.query_one("#reassign-status", Label).render()
        )
    assert await kadmin.list_partition_reassignments([topic]) == []
    deadline = time.monotonic() + 30
    while True:
        found, _ = await kadmin.describe_topics([topic], configs=False)
        if found[0].partitions[0].replicas == (1,) or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.2)
    assert found[0].partitions[0].replicas == (1,)
    rates, throttled = await throttles(kraft_cluster, topic)
    assert all(r == [None, None] for r in rates.values())
    assert throttled == {LEADER_REPLICAS: None, FOLLOWER_REPLICAS: None}


async def test_ctrl_g_lets_the_rate_follow_the_brokers_until_the_move_ends(
    kraft_cluster: Cluster, kadmin: KafkaAdmin, topic_name: Names
) -> None:
    """ctrl+g runs `reassignments throttle --auto`'s rule on a running move (pressed right
    after ctrl+s, it waits for the moves to be sent): its first step lifts a 1 KB/s throttle
    to the rule's floor (1 MB/s) on both brokers; ctrl+g again stops it; the move ends and
    the screen removes the throttle it set."""
    topic = await _slow_to_copy(kraft_cluster, kadmin, topic_name())
    app = app_for(kraft_cluster)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(app, pilot, topic)
        await pilot.press("2")
        [[_, _, _, changes, _, _]] = cells(screen)
        added = int(changes[1:])
        screen.query_one("#throttle", Input).value = "1000"
        await pilot.press("ctrl+g")  # before the run: a hint, no loop
        assert not screen.auto_running
        await pilot.press("ctrl+s")
        await until(pilot, lambda: screen.running)
        await pilot.press("ctrl+g")
        await until(pilot, lambda: screen.query_one("#throttle", Input).value == "1000000")
        await _rates_shown(kadmin, pilot, (1, added), "1000000", "ctrl+g")
        await pilot.press("ctrl+g")  # again: the loop stops, the rate stays
        assert not screen.auto_running
        await until(pilot, lambda: screen.finished, 60)
        assert "moved 1 partition(s)" in str(screen.query_one("#reassign-status", Label).render())
    found, _ = await kadmin.describe_topics([topic], configs=False)
    assert sorted(found[0].partitions[0].replicas) == sorted([1, added])
    rates, throttled = await throttles(kraft_cluster, topic)
    assert all(r == [None, None] for r in rates.values())
    assert throttled == {LEADER_REPLICAS: None, FOLLOWER_REPLICAS: None}
