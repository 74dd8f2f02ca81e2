"""The groups screens against the real KRaft cluster, driven with Pilot: a group that committed
and left shows with its lag in records and time and STOP; its detail, the readers of one
topic, a reset previewed and executed, and the refusals while a group has a member."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

from aiokafka import AIOKafkaProducer
from textual.pilot import Pilot
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, DataTable, Input, Select, Sparkline, Static

from kafka_tui.admin import KafkaAdmin, TopicSpec
from kafka_tui.services import group_reset as reset
from kafka_tui.services.groups import age, describe_groups
from kafka_tui.tui.app import KafkaTuiApp
from kafka_tui.tui.screens.detail import TopicDetailScreen
from kafka_tui.tui.screens.group_changes import GroupDeleteConfirm, GroupResetDialog
from kafka_tui.tui.screens.groups import GroupDetailScreen, GroupsScreen, GroupTable

from ..conftest import Cluster
from ..tui.conftest import filter_to, loaded, settle
from .test_consumer_groups import ActiveMember, commit_and_leave, create
from .test_tui import SIZE, app_for

Names = Callable[[str], str]
PARTITIONS, RECORDS = 3, 10
STEP_MS = 15 * 60_000
SMALL = (80, 24)
COMMITTED = {0: 3, 1: 5, 2: 9}  # 7 + 5 + 1 = 13 records behind


async def _topic_with_records(cluster: Cluster, topic: str) -> None:
    """RECORDS per partition, the i-th stamped 3 h ago + i * 15 min."""
    await create(cluster.bootstrap_servers, TopicSpec(topic, PARTITIONS, 2))
    base = int(time.time() * 1000) - 3 * 3600_000
    producer = AIOKafkaProducer(bootstrap_servers=cluster.bootstrap_servers, acks="all")
    await producer.start()
    try:
        sent = [
            await producer.send(topic, b"v", partition=p, timestamp_ms=base + i * STEP_MS)
            for p in range(PARTITIONS)
            for i in range(RECORDS)
        ]
        await asyncio.gather(*sent)
    finally:
        await producer.stop()


async def _left_group(cluster: Cluster, topic: str, group: str) -> None:
    await _topic_with_records(cluster, topic)
    offsets = {(topic, p): o for p, o in COMMITTED.items()}
    await commit_and_leave(cluster.bootstrap_servers, group, offsets)


def _row(screen: GroupsScreen, group: str) -> list[str]:
    table = screen.query_one(GroupTable)
    return [str(cell) for cell in table.get_row(group)]


def _cells(table: DataTable[object]) -> list[list[str]]:
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def _open_group(app: KafkaTuiApp, pilot: Pilot[None], group: str) -> GroupsScreen:
    """The groups screen (`g` from the topics screen), filtered to `group`."""
    await loaded(app, pilot)
    await pilot.press("g")
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, GroupsScreen)
    await pilot.press("slash", *group, "enter")
    await pilot.pause()
    return screen


def wholly_shown(app: KafkaTuiApp, *selectors: str) -> None:
    """Each selector's first widget on the current screen drawn whole (80x24: the title, the
    group acted on and the buttons stay on screen; the body scrolls)."""
    screen = app.screen
    for selector in selectors:
        widget = screen.query(selector).first()
        geometry = screen.find_widget(widget)
        assert geometry.visible_region == geometry.region, f"{selector} is cut: {geometry}"
        assert screen.region.contains_region(geometry.region), f"{selector} is off screen"


async def calm(app: KafkaTuiApp, pilot: Pilot[None]) -> Screen[object]:
    """The dialog on top, its own workers done (the screen below waits on the dialog in a
    worker of its own, so `settle` would wait for ever)."""
    for _ in range(200):
        await pilot.pause()
        if isinstance(app.screen, ModalScreen):
            break
    dialog = app.screen
    for _ in range(20):
        mine = [w for w in app.workers if w.node is dialog]
        if mine:  # an empty list would wait for every worker
            await app.workers.wait_for_complete(mine)
        await pilot.pause()
        if not any(w.is_running for w in app.workers if w.node is dialog):
            break
    return dialog


async def test_a_group_that_left_shows_its_lag_status_detail_and_readers(
    kraft_cluster: Cluster, topic_name: Names
) -> None:
    topic, group = topic_name(), topic_name("g")
    await _left_group(kraft_cluster, topic, group)
    app = app_for(kraft_cluster)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_group(app, pilot, group)
        assert list(screen.query_one(GroupTable).rows) == [group]  # the filter
        view = screen.views[group]
        # The oldest unconsumed record is partition 0's offset 3, stamped 2 h 15 min ago.
        assert view.lag_seconds is not None and 2 * 3600 + 15 * 60 <= view.lag_seconds < 3 * 3600
        assert _row(screen, group) == [
            group,
            "classic",
            "Empty",
            "STOP",
            "0",
            "13",
            age(view.lag_seconds),
        ]
        await pilot.press("enter")
        await settle(app, pilot)
        detail = app.screen
        assert isinstance(detail, GroupDetailScreen)
        status = str(detail.query_one("#group-status", Static).render())
        assert status.startswith("Status STOP: 13 records behind on 3 partition(s)")
        rows = _cells(detail.query_one("#group-offsets", DataTable))
        assert [r[:6] for r in rows] == [
            [topic, "0", "3", "0", "10", "7"],
            [topic, "1", "5", "0", "10", "5"],
            [topic, "2", "9", "0", "10", "1"],
        ]
        assert detail.query_one(Sparkline).data == [13.0]
        await pilot.press("r")  # a second look: the sparkline's second point
        await settle(app, pilot)
        assert detail.query_one(Sparkline).data == [13.0, 13.0]
        await pilot.press("escape", "escape", "escape")  # detail, filter, groups
        await settle(app, pilot)
        # The readers of the topic, from its detail.
        await filter_to(pilot, topic)
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, TopicDetailScreen)
        await pilot.press("g")
        await settle(app, pilot)
        readers = app.screen
        assert isinstance(readers, GroupsScreen) and readers.topic == topic
        assert list(readers.query_one(GroupTable).rows) == [group]


async def test_reset_previews_the_plan_and_executes_it_after_the_typed_name(
    kraft_cluster: Cluster, kadmin: KafkaAdmin, topic_name: Names
) -> None:
    topic, group = topic_name(), topic_name("g")
    await _left_group(kraft_cluster, topic, group)
    app = app_for(kraft_cluster)
    async with app.run_test(size=SIZE) as pilot:
        await _open_group(app, pilot, group)
        await pilot.press("enter")
        await settle(app, pilot)
        await pilot.press("R")
        dialog = await calm(app, pilot)
        assert isinstance(dialog, GroupResetDialog)
        preview = dialog.query_one("#reset-preview", DataTable)
        # to-earliest on all its topics: everything read again
        assert [r[2:] for r in _cells(preview)] == [
            ["3", "0", "0", "10", "re-read 3"],
            ["5", "0", "0", "10", "re-read 5"],
            ["9", "0", "0", "10", "re-read 9"],
        ]
        # shift by 2 on partitions 0 and 2: 3 -> 5, 9 -> 10 (clamped to the log end)
        dialog.query_one("#reset-mode", Select).value = reset.SHIFT_BY
        dialog.query_one("#reset-scope", Select).value = "topic"
        await calm(app, pilot)
        dialog.query_one("#reset-value", Input).value = "2"
        dialog.query_one("#reset-partitions", Input).value = "0,2"
        await calm(app, pilot)
        assert [r[1:] for r in _cells(preview)] == [
            ["0", "3", "5", "0", "10", "skip 2"],
            ["2", "9", "10", "0", "10", "skip 1"],
        ]
        summary = str(dialog.query_one("#reset-summary", Static).render())
        assert "is past the log end; set to 10" in summary
        execute = dialog.query_one("#reset-execute", Button)
        assert execute.disabled  # not confirmed yet
        dialog.query_one("#reset-confirm", Input).value = group
        await pilot.pause()
        assert not execute.disabled
        await pilot.click("#reset-execute")
        await calm(app, pilot)
        outcome = dialog.outcome
        assert outcome is not None and outcome.ok and outcome.rollback_file
        assert outcome.rollback_file in str(dialog.query_one("#reset-summary", Static).render())
        assert f"{topic},0,3" in await asyncio.to_thread(Path(outcome.rollback_file).read_text)
        await pilot.click("#reset-cancel")  # Close
        await settle(app, pilot)
        assert isinstance(app.screen, GroupDetailScreen)
    [view] = await describe_groups(kadmin, [group])
    assert {p.partition: p.committed for p in view.offsets} == {0: 5, 1: 5, 2: 10}


async def test_reset_and_delete_are_refused_while_a_member_reads_then_delete(
    kraft_cluster: Cluster, kadmin: KafkaAdmin, topic_name: Names
) -> None:
    topic, group = topic_name(), topic_name("g")
    await _topic_with_records(kraft_cluster, topic)
    app = app_for(kraft_cluster)
    async with app.run_test(size=SMALL) as pilot:  # a bastion host's terminal
        with ActiveMember(kraft_cluster.bootstrap_servers, topic, group, PARTITIONS * RECORDS):
            screen = await _open_group(app, pilot, group)
            wholly_shown(app, "#groups-header", "#group-filter", "Footer")
            await pilot.press("enter")
            await settle(app, pilot)
            wholly_shown(app, "#group-header", "Footer")
            await pilot.press("R")
            dialog = await calm(app, pilot)
            wholly_shown(app, ".dialog-title", "#reset-confirm", "#reset-execute", "#reset-cancel")
            assert isinstance(dialog, GroupResetDialog)
            summary = str(dialog.query_one("#reset-summary", Static).render())
            assert "Refused (NON_EMPTY_GROUP): Group" in summary and "1 active member" in summary
            dialog.query_one("#reset-confirm", Input).value = group
            await pilot.pause()
            assert dialog.query_one("#reset-execute", Button).disabled
            await pilot.press("escape")
            await settle(app, pilot)
            await pilot.press("d")
            confirm = await calm(app, pilot)
            assert isinstance(confirm, GroupDeleteConfirm)
            wholly_shown(app, ".dialog-title", "#group-delete", "#group-cancel")
            refusal = str(confirm.query_one("#group-delete-refusal", Static).render())
            assert "Kafka deletes only a group without members" in refusal
            assert confirm.query_one("#group-delete", Button).disabled
            await pilot.press("escape")
            await settle(app, pilot)
        # The member left: once the group is Empty, a refresh and a typed name delete it.
        for _ in range(600):
            [view] = await describe_groups(kadmin, [group])
            if view.state == "Empty":
                break
            await asyncio.sleep(0.05)
        await pilot.press("r")
        await settle(app, pilot)
        await pilot.press("d")
        assert isinstance(await calm(app, pilot), GroupDeleteConfirm)
        await pilot.press(*group, "enter")
        await settle(app, pilot)
        assert app.screen is screen  # the detail closed with its group
        assert group not in screen.views
    [view] = await describe_groups(kadmin, [group])
    assert view.error == "GROUP_ID_NOT_FOUND"
