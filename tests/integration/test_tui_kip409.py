"""KIP-409 in the TUI, against the real KRaft cluster with broker 3 stopped: the create form's
refusal, its exact under-replicated preview (sent as shown), placeholders in the preview and
the topic detail, and the brokers screen."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Label, Select, Static

from kafka_tui.admin import ConnectionSettings, KafkaAdmin, TopicSpec
from kafka_tui.admin.placeholders import PlaceholderStore
from kafka_tui.config import Profile, Settings
from kafka_tui.services.placing import PlacementOptions, create_topics
from kafka_tui.services.records import forget_placeholders, stored_placeholders
from kafka_tui.services.snapshot import take_snapshot
from kafka_tui.tui.app import KafkaTuiApp, make_app
from kafka_tui.tui.screens.brokers import BrokersScreen
from kafka_tui.tui.screens.changes import DeleteConfirm
from kafka_tui.tui.screens.create import CreateTopicScreen
from kafka_tui.tui.screens.detail import TopicDetailScreen
from kafka_tui.tui.screens.forms import FormScreen
from kafka_tui.tui.screens.metadata import MetadataScreen
from kafka_tui.tui.widgets.broker_table import BrokerTable
from kafka_tui.tui.widgets.tables import PartitionTable, PreviewTable
from kafka_tui.tui.widgets.topic_table import TopicTable

from ..conftest import Cluster

Names = Callable[[str], str]
SIZE = (110, 50)
STOPPED = 3


@pytest.fixture(scope="module")
def broker_3_stopped(kraft_cluster: Cluster) -> Iterator[Cluster]:
    kraft_cluster.dev.stop_broker(STOPPED)
    try:
        yield kraft_cluster
    finally:
        kraft_cluster.restore()


@pytest.fixture
async def kadmin(broker_3_stopped: Cluster) -> AsyncIterator[KafkaAdmin]:
    async with KafkaAdmin(ConnectionSettings(broker_3_stopped.bootstrap_servers)) as client:
        yield client


def profile_for(cluster: Cluster, *, read_only: bool = False) -> Profile:
    return Profile("test", ConnectionSettings(cluster.bootstrap_servers), read_only=read_only)


def app_for(cluster: Cluster, *, read_only: bool = False) -> KafkaTuiApp:
    profile = profile_for(cluster, read_only=read_only)
    return make_app(Settings(profiles={"test": profile}), profile, refresh_seconds=0)


async def settle(app: KafkaTuiApp, pilot: Pilot[None]) -> None:
    await app.workers.wait_for_complete()
    await pilot.pause()


async def loaded(app: KafkaTuiApp, pilot: Pilot[None]) -> MetadataScreen:
    screen = app.screen
    assert isinstance(screen, MetadataScreen)
    await asyncio.wait_for(screen.loaded.wait(), 30)
    await settle(app, pilot)
    return screen


async def form_ready(app: KafkaTuiApp, pilot: Pilot[None]) -> FormScreen:
    screen = app.screen
    assert isinstance(screen, FormScreen)
    await asyncio.wait_for(screen.snapshot_ready.wait(), 30)
    await settle(app, pilot)
    assert screen.snapshot is not None
    return screen


def text(screen: FormScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


def preview_rows(screen: FormScreen) -> list[str]:
    table = screen.query_one(PreviewTable)
    return [str(table.get_row_at(i)[1]) for i in range(table.row_count)] if table.display else []


async def observed_count(admin: KafkaAdmin) -> int:
    return len((await admin.describe_cluster()).brokers)


async def with_placeholders(
    cluster: Cluster, kadmin: KafkaAdmin, name: str, partitions: int
) -> PlaceholderStore:
    """Create `name` with one replica more than there are observed brokers (KIP-409,
    enabled): each partition gets a placeholder; the profile's store records them."""
    profile = profile_for(cluster)
    store = PlaceholderStore(profile.connection, profile.placeholders_topic)
    snapshot = await take_snapshot(kadmin, store=store)
    spec = TopicSpec(name, partitions, await observed_count(kadmin) + 1)
    options = PlacementOptions("enabled", 1)
    [result] = await create_topics(kadmin, snapshot, [spec], options, store)
    assert result.ok and result.warning == "CREATED_UNDER_REPLICATED", result.message
    return store


async def choose(pilot: Pilot[None], downs: int) -> None:
    """Open the focused Select and pick the option `downs` below the current one."""
    await pilot.press("enter", *(["down"] * downs), "enter")
    await pilot.pause()


async def test_create_refuses_then_previews_under_replication_and_sends_exactly_that(
    broker_3_stopped: Cluster, kadmin: KafkaAdmin, topic_name: Names
) -> None:
    name = topic_name()
    rf = await observed_count(kadmin)  # every broker, the stopped one too: 3
    app = app_for(broker_3_stopped)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("c")
        screen = await form_ready(app, pilot)
        assert isinstance(screen, CreateTopicScreen)
        await pilot.press(*name, "tab", "4", "tab", str(rf))
        await pilot.pause()
        # disabled (the profile's default): refused next to the RF, naming broker 3
        refusal = str(screen.query_one("#rf-error", Label).render())
        assert screen.query_one("#rf-error", Label).display
        assert f"broker {STOPPED} is offline" in refusal and "mode 'enabled'" in refusal
        assert screen.query_one("#apply", Button).disabled
        assert preview_rows(screen) == []
        # enabled, minimum 2
        await pilot.press("tab", "tab", "tab")
        assert screen.focused is screen.query_one("#mode", Select)
        await choose(pilot, 1)
        assert screen.query_one("#mode", Select).value == "enabled"
        await pilot.press("tab", "2")
        await pilot.pause()
        assert not screen.query_one("#rf-error", Label).display
        rows = preview_rows(screen)
        assert len(rows) == 4 and all(f"{STOPPED}!" in row.split() for row in rows)
        warning = text(screen, "#under-replicated")
        assert "All 4 partitions will be under-replicated" in warning
        assert f"broker {STOPPED} is offline" in warning
        assert f"{STOPPED}!: 4 (0 leading)" in text(screen, "#preview-summary")
        assert not screen.query_one("#apply", Button).disabled
        assert screen.planned is not None and screen.planned.placement is not None
        previewed = [list(r) for r in screen.planned.placement.assignment]
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert isinstance(app.screen, MetadataScreen)
        warnings = [n for n in app._notifications if n.severity == "warning"]
        assert any("CREATED_UNDER_REPLICATED" in n.title for n in warnings)
    found, _ = await kadmin.describe_topics([name], configs=False)
    assert [list(p.replicas) for p in found[0].partitions] == previewed


async def test_an_rf_above_the_observed_brokers_previews_placeholders(
    broker_3_stopped: Cluster, kadmin: KafkaAdmin, topic_name: Names
) -> None:
    rf = await observed_count(kadmin) + 1
    app = app_for(broker_3_stopped)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("c")
        screen = await form_ready(app, pilot)
        await pilot.press(*topic_name(), "tab", "2", "tab", str(rf))
        await pilot.press("tab", "tab", "tab", "tab", "2")  # a minimum alone implies enabled
        await pilot.pause()
        assert screen.query_one("#mode", Select).value == "disabled"
        rows = preview_rows(screen)
        assert len(rows) == 2 and all(row.split()[-1] == "(-1)" for row in rows)
        assert "placeholder (-1)" in text(screen, "#under-replicated")
        assert "Placeholders: 2" in text(screen, "#preview-summary")
        # Kafka placing knows nothing of KIP-409: refused next to the placement field
        await pilot.press("tab")
        await choose(pilot, 1)
        error = screen.query_one("#placement-error", Label)
        assert error.display and "works only with mode disabled" in str(error.render())
        assert screen.query_one("#apply", Button).disabled


async def test_topic_detail_and_brokers_screen_show_placeholders_and_the_offline_broker(
    broker_3_stopped: Cluster, kadmin: KafkaAdmin, topic_name: Names
) -> None:
    name = topic_name()
    store = await with_placeholders(broker_3_stopped, kadmin, name, partitions=2)
    try:
        app = app_for(broker_3_stopped)
        async with app.run_test(size=SIZE) as pilot:
            metadata = await loaded(app, pilot)
            await pilot.press("slash", *name, "enter")
            topics = metadata.query_one(TopicTable)
            assert name in topics.placeholders and metadata.placeholders.open >= 2
            assert topics.row_text(topics.cursor).startswith(f"? {name}")
            await pilot.press("enter")
            await settle(app, pilot)
            assert isinstance(app.screen, TopicDetailScreen)
            table = app.screen.query_one(PartitionTable)
            replicas = [str(table.cells(i)[2]) for i in range(table.row_count)]
            assert len(replicas) == 2 and all(r.split()[-1] == "(-1)" for r in replicas)
            assert "2 placeholder(s)" in str(app.screen.query_one("#detail-header").render())
            await pilot.press("escape", "b")
            await settle(app, pilot)
            brokers = app.screen
            assert isinstance(brokers, BrokersScreen)
            rows = brokers.query_one(BrokerTable)
            states = {
                str(rows.get_row_at(i)[0]): str(rows.get_row_at(i)[2])
                for i in range(rows.row_count)
            }
            assert states[f"{STOPPED}!"] == "offline"
            assert {k: v for k, v in states.items() if k != f"{STOPPED}!"} == dict.fromkeys(
                [k for k in states if k != f"{STOPPED}!"], "live"
            )
            line = str(brokers.query_one("#placeholders-line", Static).render())
            assert "open placeholder(s)" in line and "none can be filled" in line
            assert brokers.check_action("fill", ()) is True
    finally:
        await kadmin.delete_topics([name])
        await forget_placeholders(kadmin, store, [name])


async def test_deleting_a_topic_in_the_tui_removes_its_placeholder_record(
    broker_3_stopped: Cluster, kadmin: KafkaAdmin, topic_name: Names
) -> None:
    name = topic_name()
    store = await with_placeholders(broker_3_stopped, kadmin, name, partitions=1)
    assert name in await stored_placeholders(kadmin, store)
    app = app_for(broker_3_stopped)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("slash", *name, "enter", "d")
        await pilot.pause()
        assert isinstance(app.screen, DeleteConfirm)
        await pilot.press(*name, "enter")
        await settle(app, pilot)
        await settle(app, pilot)
        assert isinstance(app.screen, MetadataScreen)
    assert name not in await stored_placeholders(kadmin, store)
    _, errors = await kadmin.describe_topics([name])
    assert errors[0].error == "UNKNOWN_TOPIC_OR_PARTITION"


async def test_a_read_only_profile_cannot_fill(broker_3_stopped: Cluster) -> None:
    app = app_for(broker_3_stopped, read_only=True)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("ctrl+p", *"brokers", "enter")  # the palette reaches it too
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, BrokersScreen)
        assert screen.check_action("fill", ()) is False
        assert not [c for c in screen.palette_commands() if "placeholders" in c.title]
        await pilot.press("f")
        await settle(app, pilot)
        assert not [w for w in app.workers if w.group == "fill"]
