"""SVG snapshots of screen states whose data is fixed (no cluster): the replica markers,
the create form with errors and with its exact (KIP-409) previews, the delete confirmation,
the topics table's health marks, the brokers table.

Update after an intended change: pytest tests/tui/test_tui_snapshots.py --snapshot-update
"""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.pilot import Pilot

from kafka_tui.admin import (
    BrokerInfo,
    ClusterInfo,
    ConnectionSettings,
    KafkaAdmin,
    PartitionInfo,
    TopicDescription,
)
from kafka_tui.planning.placement import Broker, Load
from kafka_tui.services.snapshot import Snapshot
from kafka_tui.tui.screens.changes import DeleteConfirm
from kafka_tui.tui.screens.create import CreateTopicScreen
from kafka_tui.tui.widgets.broker_table import BrokerTable
from kafka_tui.tui.widgets.styled import ReplicaLegend
from kafka_tui.tui.widgets.tables import PartitionTable, PreviewTable
from kafka_tui.tui.widgets.topic_table import TopicRow, TopicTable

from .conftest import still

CSS = "kafka_tui/tui/kafka_tui.tcss"
CLUSTER = ClusterInfo(
    "fixed-cluster-id",
    1,
    [
        BrokerInfo(1, "k1", 9092, "rack-a"),
        BrokerInfo(2, "k2", 9092, "rack-b"),
        BrokerInfo(3, "k3", 9092, "rack-c", fenced=True),
    ],
    lists_fenced_brokers=True,
)
# An admin that is never connected: these screens only call it on submit.
IDLE_ADMIN = KafkaAdmin(ConnectionSettings("127.0.0.1:1"))
# What the forms plan on, given instead of read from a cluster: broker 3 offline.
SNAPSHOT = Snapshot(
    brokers=[Broker(1, "rack-a", True), Broker(2, "rack-b", True), Broker(3, "rack-c", False)],
    load=Load.from_assignments([[1, 2], [2, 1], [1, 3]]),
    topics={},
    defaults={"num.partitions": "1", "default.replication.factor": "1"},
)


def create_form() -> CreateTopicScreen:
    return CreateTopicScreen(IDLE_ADMIN, CLUSTER, snapshot=SNAPSHOT)


class Harness(App[None]):
    CSS_PATH = "../../kafka_tui/tui/kafka_tui.tcss"

    def __init__(self, *widgets: Any, screen: Any = None) -> None:
        super().__init__()
        self.widgets = widgets
        self.start_screen = screen

    def compose(self) -> ComposeResult:
        yield from self.widgets

    def on_mount(self) -> None:
        if self.start_screen is not None:
            self.push_screen(self.start_screen)


def test_replica_states_are_marked_and_styled(snap_compare: Any) -> None:
    partitions = [
        PartitionInfo(0, 1, (1, 2, 3), (1, 2), (3,)),  # 3 offline
        PartitionInfo(1, 2, (2, 1, 3), (2,), (3,)),  # 1 not in sync, 3 offline
        PartitionInfo(2, -1, (3,), (), (3,)),  # no leader
        PartitionInfo(3, 1, (1, 2, 4), (1, 2), ()),  # reassignment: 4 added, 2 removed
    ]
    table = PartitionTable()
    preview = PreviewTable()

    async def fill(pilot: Pilot[None]) -> None:
        table.show(partitions, {3}, {3: ([4], [2])})
        preview.show(0, [[1, 2, -1], [2, -2, -3]], {3})  # KIP-409 placeholders
        await still(pilot)

    app = Harness(ReplicaLegend(), table, preview)
    assert snap_compare(app, terminal_size=(100, 17), run_before=fill)


def test_create_form_shows_errors_next_to_fields(snap_compare: Any) -> None:
    async def type_bad_input(pilot: Pilot[None]) -> None:
        await pilot.press(*"orders v2", "tab", "0", "tab", "tab", *"1:2,2:3,3:1")
        await still(pilot)

    app = Harness(screen=create_form())
    assert snap_compare(app, terminal_size=(80, 30), run_before=type_bad_input)


def test_create_form_previews_a_manual_assignment(snap_compare: Any) -> None:
    async def type_assignment(pilot: Pilot[None]) -> None:
        await pilot.press(*"orders", "tab", "tab", "tab", *"1:2,2:1,1:2")
        await still(pilot)

    app = Harness(screen=create_form())
    assert snap_compare(app, terminal_size=(80, 44), run_before=type_assignment)


def test_create_form_refuses_an_offline_broker_in_a_manual_assignment(snap_compare: Any) -> None:
    """KIP-409's disabled mode holds a typed assignment to live brokers, as a placed one."""

    async def type_assignment(pilot: Pilot[None]) -> None:
        await pilot.press(*"orders", "tab", "tab", "tab", *"1:2,2:3,3:1")
        await still(pilot)

    app = Harness(screen=create_form())
    assert snap_compare(app, terminal_size=(80, 44), run_before=type_assignment)


def test_create_form_previews_an_under_replicated_placement(snap_compare: Any) -> None:
    async def type_kip409(pilot: Pilot[None]) -> None:
        # RF 3 with broker 3 offline, a minimum of 2 (which implies mode enabled)
        await pilot.press(*"orders", "tab", "4", "tab", "3", "tab", "tab", "tab", "tab", "2")
        await still(pilot)

    app = Harness(screen=create_form())
    assert snap_compare(app, terminal_size=(90, 50), run_before=type_kip409)


def test_brokers_table_marks_the_offline_broker(snap_compare: Any) -> None:
    table = BrokerTable()

    async def fill(pilot: Pilot[None]) -> None:
        table.show(SNAPSHOT)
        await still(pilot)

    assert snap_compare(Harness(table), terminal_size=(80, 6), run_before=fill)


def test_delete_confirmation_for_several_topics(snap_compare: Any) -> None:
    app = Harness(screen=DeleteConfirm(["orders", "payments"]))
    assert snap_compare(app, terminal_size=(80, 20))


def test_topics_table_marks_unhealthy_topics(snap_compare: Any) -> None:
    def topic(name: str, parts: list[PartitionInfo], internal: bool = False) -> TopicDescription:
        return TopicDescription(name, None, internal, parts)

    healthy = [PartitionInfo(0, 1, [1, 2], [1, 2], [])]
    degraded = [PartitionInfo(0, 1, [1, 3], [1], [3])]
    leaderless = [PartitionInfo(0, -1, [3], [], [3])]
    rows = [
        TopicRow.of(topic("__consumer_offsets", healthy, True), {1, 2}, None),
        TopicRow.of(topic("audit", healthy), {1, 2}, None),  # a KIP-409 placeholder
        TopicRow.of(topic("inventory", leaderless), {1, 2}, None),
        TopicRow.of(topic("orders", degraded), {1, 2}, None),
        TopicRow.of(topic("payments", healthy), {1, 2}, None),
    ]
    table = TopicTable()

    async def fill(pilot: Pilot[None]) -> None:
        table.set_rows(rows)
        table.marked.add("payments")
        table.placeholders = frozenset({"audit"})
        table.focus()
        await still(pilot)

    assert snap_compare(Harness(table), terminal_size=(80, 9), run_before=fill)
