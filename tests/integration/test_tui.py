"""The app against the real KRaft cluster, driven with Pilot: every flow an operator uses."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from textual.widgets import Button, Input, Label, Static

from kafka_tui.admin import ConnectionSettings, KafkaAdmin, TopicSpec
from kafka_tui.config import Profile, Settings
from kafka_tui.tui.app import KafkaTuiApp, make_app
from kafka_tui.tui.screens.changes import DeleteConfirm
from kafka_tui.tui.screens.create import CreateTopicScreen
from kafka_tui.tui.screens.detail import TopicDetailScreen
from kafka_tui.tui.screens.metadata import MetadataScreen
from kafka_tui.tui.screens.partitions import IncreasePartitionsScreen
from kafka_tui.tui.screens.profiles import ProfilePicker
from kafka_tui.tui.widgets.tables import PartitionTable
from kafka_tui.tui.widgets.topic_table import TopicTable

from ..conftest import Cluster
from ..tui.conftest import filter_to, loaded, settle, shown

Names = Callable[[str], str]
SIZE = (100, 30)


def app_for(cluster: Cluster, *, read_only: bool = False) -> KafkaTuiApp:
    profile = Profile("test", ConnectionSettings(cluster.bootstrap_servers), read_only=read_only)
    return make_app(Settings(profiles={"test": profile}), profile, refresh_seconds=0)


async def test_topics_table_filters_as_you_type_and_by_health(
    kraft_cluster: Cluster, kadmin: KafkaAdmin, topic_name: Names
) -> None:
    names = sorted(topic_name(s) for s in ("a", "b", "c"))
    assert all(r.ok for r in await kadmin.create_topics([TopicSpec(n, 2, 3) for n in names]))
    app = app_for(kraft_cluster)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        assert set(names) <= set(shown(app))
        await filter_to(pilot, names[0].rsplit("-", 2)[0])  # the stem the three share
        assert shown(app) == names
        await pilot.press("u")  # under-replicated only: none of them
        assert shown(app) == []
        assert "[x]u under-replicated" in str(app.screen.query_one("#toggles", Static).render())
        await pilot.press("u", "escape")
        assert set(names) <= set(shown(app)) and app.screen.query_one(Input).value == ""
        # a refresh keeps the selected topic and the scroll position
        table = app.screen.query_one(TopicTable)
        await pilot.press("end", "up", "up")
        selected, scroll = table.current, table.scroll_offset.y
        assert selected is not None
        await pilot.press("r")
        await settle(app, pilot)
        # The same topic (its health may have changed meanwhile: Kafka moves leaders back to
        # their preferred replicas on its own) at the same place.
        assert table.current is not None and table.current.name == selected.name
        assert table.scroll_offset.y == scroll


async def test_create_a_topic(
    kraft_cluster: Cluster, kadmin: KafkaAdmin, topic_name: Names
) -> None:
    name = topic_name()
    app = app_for(kraft_cluster)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("c")
        assert isinstance(app.screen, CreateTopicScreen)
        await pilot.press(*name, "tab", "3", "tab", "2", "tab", "tab", *"retention.ms=60000")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert isinstance(app.screen, MetadataScreen)
        await settle(app, pilot)
        assert name in shown(app)
    found, _ = await kadmin.describe_topics([name])
    assert len(found[0].partitions) == 3 and found[0].replication_factor == 2
    assert found[0].configs["retention.ms"].value == "60000"


async def test_a_rejected_create_shows_the_error_next_to_the_field(
    kraft_cluster: Cluster, kadmin: KafkaAdmin, topic_name: Names
) -> None:
    taken = topic_name()
    assert (await kadmin.create_topics([TopicSpec(taken, 1, 1)]))[0].ok
    app = app_for(kraft_cluster)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("c", *taken, "tab", "1", "tab", "1", "ctrl+s")
        await settle(app, pilot)
        assert isinstance(app.screen, CreateTopicScreen)  # nothing lost: the form stays
        error = app.screen.query_one("#name-error", Label)
        assert error.display and "TOPIC_ALREADY_EXISTS" in str(error.render())
        assert app.screen.query_one("#name", Input).value == taken


async def test_validate_only_shows_the_verdict_and_creates_nothing(
    kraft_cluster: Cluster, kadmin: KafkaAdmin, topic_name: Names
) -> None:
    name = topic_name()
    app = app_for(kraft_cluster)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("c", *name, "tab", "2", "tab", "9")
        screen = app.screen
        assert isinstance(screen, CreateTopicScreen)
        await asyncio.wait_for(screen.snapshot_ready.wait(), 30)  # the placer's verdict
        await settle(app, pilot)
        assert screen.query_one("#apply", Button).disabled  # RF 9 > 3 brokers
        assert "needs 9 live brokers, but only 3 are live" in str(
            screen.query_one("#rf-error", Label).render()
        )
        await pilot.press("backspace", "3", "tab", "tab", *"min.insync.replicas=4")
        await pilot.pause()
        assert "above the replication factor 3" in str(
            screen.query_one("#configs-error", Label).render()
        )
        await pilot.press(*(["backspace"] * 22))
        await pilot.press("f2")
        await settle(app, pilot)
        verdict = str(screen.query_one("#verdict", Static).render())
        assert verdict.startswith("OK:") and "would be created" in verdict
        assert isinstance(app.screen, CreateTopicScreen)
    _, errors = await kadmin.describe_topics([name])
    assert errors[0].error == "UNKNOWN_TOPIC_OR_PARTITION"


async def test_increase_partitions_with_an_assignment(
    kraft_cluster: Cluster, kadmin: KafkaAdmin, topic_name: Names
) -> None:
    name = topic_name()
    assert (await kadmin.create_topics([TopicSpec(name, 2, 2)]))[0].ok
    app = app_for(kraft_cluster)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await filter_to(pilot, name)
        await pilot.press("p")
        assert isinstance(app.screen, IncreasePartitionsScreen)
        await pilot.press("2")
        await pilot.pause()
        assert "Topic already has 2" in str(
            app.screen.query_one("#partitions-error", Label).render()
        )
        await pilot.press("backspace", "4", "tab", *"3:1,1:2", "ctrl+s")
        await settle(app, pilot)
        assert isinstance(app.screen, MetadataScreen)
    found, _ = await kadmin.describe_topics([name], configs=False)
    assert [p.replicas for p in found[0].partitions[2:]] == [(3, 1), (1, 2)]


async def test_delete_needs_the_typed_topic_name(
    kraft_cluster: Cluster, kadmin: KafkaAdmin, topic_name: Names
) -> None:
    name = topic_name()
    assert (await kadmin.create_topics([TopicSpec(name, 1, 1)]))[0].ok
    app = app_for(kraft_cluster)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await filter_to(pilot, name)
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, DeleteConfirm)
        await pilot.press(*"wrong", "enter")
        assert isinstance(app.screen, DeleteConfirm)
        assert app.screen.query_one("#delete", Button).disabled
        await pilot.press(*(["backspace"] * 5), *name, "enter")
        await settle(app, pilot)
        await settle(app, pilot)
        assert isinstance(app.screen, MetadataScreen)
        assert name not in shown(app)
    _, errors = await kadmin.describe_topics([name])
    assert errors[0].error == "UNKNOWN_TOPIC_OR_PARTITION"


async def test_internal_topics_are_refused_before_any_confirmation(
    kraft_cluster: Cluster, topic_name: Names
) -> None:
    app = app_for(kraft_cluster)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(app, pilot)
        screen.delete_topics(["__consumer_offsets"])
        await settle(app, pilot)
        assert isinstance(app.screen, MetadataScreen)
        assert any("internal" in n.message for n in app._notifications)


async def test_topic_detail_marks_the_offline_replica(
    kraft_cluster: Cluster, kadmin: KafkaAdmin, topic_name: Names
) -> None:
    name = topic_name()
    assert (await kadmin.create_topics([TopicSpec(name, assignment={0: [2, 1], 1: [1, 3]})]))[0].ok
    await asyncio.to_thread(kraft_cluster.dev.stop_broker, 2)
    try:
        app = app_for(kraft_cluster)
        async with app.run_test(size=SIZE) as pilot:
            await loaded(app, pilot)
            await filter_to(pilot, name)
            row = app.screen.query_one(TopicTable).current
            assert row is not None and row.under_replicated == 1 and row.marker == "~ "
            await pilot.press("enter")
            await settle(app, pilot)
            assert isinstance(app.screen, TopicDetailScreen)
            table = app.screen.query_one(PartitionTable)
            replicas = [str(table.cells(i)[2]) for i in range(table.row_count)]
            assert replicas == ["2! 1*", "1* 3"]
            health = PartitionTable.COLUMNS.index("Health")
            assert [str(table.cells(i)[health]) for i in range(2)] == [
                "under-replicated",
                "ok",
            ]
            header = str(app.screen.query_one("#detail-header", Static).render())
            assert "1 under-replicated" in header
    finally:
        await asyncio.to_thread(kraft_cluster.restore)


async def test_a_read_only_profile_offers_no_changes(
    kraft_cluster: Cluster, topic_name: Names
) -> None:
    app = app_for(kraft_cluster, read_only=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(app, pilot)
        for action in ("create", "increase", "delete"):
            assert screen.check_action(action, ()) is False
        await pilot.press("c", "d", "p")
        await pilot.pause()
        assert app.screen is screen
        commands = [c.title for c in screen.palette_commands()]
        assert "Refresh the cluster metadata" in commands
        assert "Create a topic" not in commands


async def test_an_unreachable_cluster_shows_a_banner_and_the_app_keeps_working() -> None:
    profile = Profile("gone", ConnectionSettings("127.0.0.1:1", request_timeout_ms=2000))
    app = make_app(Settings(profiles={"gone": profile}), profile, refresh_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        banner = app.screen.query_one("#banner", Static)
        assert banner.display and "Cannot connect to Kafka at 127.0.0.1:1" in str(banner.render())
        await pilot.press("question_mark")  # still responsive
        await pilot.press("r")
        await settle(app, pilot)
        assert isinstance(app.screen, MetadataScreen)


async def test_keys_can_be_remapped_from_the_config_file(kraft_cluster: Cluster) -> None:
    profile = Profile("test", ConnectionSettings(kraft_cluster.bootstrap_servers))
    settings = Settings(profiles={"test": profile}, key_bindings={"topics.create": "n"})
    app = make_app(settings, profile, refresh_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, CreateTopicScreen)


async def test_the_profile_picker_opens_the_chosen_cluster(kraft_cluster: Cluster) -> None:
    local = Profile("local", ConnectionSettings(kraft_cluster.bootstrap_servers))
    prod = Profile("prod", ConnectionSettings("127.0.0.1:1"), read_only=True)
    app = make_app(Settings(profiles={"local": local, "prod": prod}), refresh_seconds=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ProfilePicker)
        await pilot.press("down", "enter")  # the list is sorted: local, prod -> second is prod
        await pilot.pause()
        await pilot.press("ctrl+p", *"switch", "enter")  # back to the picker via the palette
        await pilot.pause()
        assert isinstance(app.screen, ProfilePicker)
        await pilot.press("home", "enter")
        screen = await loaded(app, pilot)
        assert app.profile is local and screen.profile is local
        assert app.sub_title == "local"
