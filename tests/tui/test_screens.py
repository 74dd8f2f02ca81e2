"""Full-screen SVG snapshots of every screen, on clusters recorded from the real dev clusters
(tests/data, replayed by replay.py; no JVM). Only reads reach the recorded admin: a test
that would change the cluster belongs in tests/integration, and the replay refuses it.

Update after an intended change: pytest tests/tui/test_screens.py --snapshot-update
(after re-recording with tests/data/record.py every snapshot changes: Kafka places
replicas from a random start, and topic ids and ports are new).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from kafka_tui.tui.app import KafkaTuiApp
from kafka_tui.tui.screens.plan import PlanScreen
from kafka_tui.tui.widgets.plan_topics import PlanTopics

from .conftest import SIZE, filter_to, loaded, recorded_app, settle, shown
from .replay import DATA, ReplayAdmin, ReplayChangeRefused, ReplayGap, load_recording

Before = Any  # run_before: an async callable taking the Pilot


def app_of(pilot: Pilot[None]) -> KafkaTuiApp:
    app = pilot.app
    assert isinstance(app, KafkaTuiApp)
    return app


async def home(pilot: Pilot[None]) -> None:
    await loaded(app_of(pilot), pilot)


async def open_topic(pilot: Pilot[None], name: str, *keys: str) -> None:
    """The topics screen filtered to `name`, then `keys` pressed on it (enter: its detail)."""
    app = app_of(pilot)
    await loaded(app, pilot)
    await filter_to(pilot, name)
    assert shown(app)[0] == name
    await pilot.press(*keys)
    await settle(app, pilot)


# -- topics -------------------------------------------------------------------------------


def test_topics_of_an_empty_cluster(snap_compare: Any) -> None:
    assert snap_compare(recorded_app("kraft-empty"), terminal_size=SIZE, run_before=home)


def test_topics_with_a_broker_down_and_placeholders(snap_compare: Any) -> None:
    """KRaft: broker 3 stopped (fenced), `inventory` without a leader, `audit-log` with
    KIP-409 placeholders, `moving` in a reassignment waiting for broker 3."""
    assert snap_compare(recorded_app("kraft-demo"), terminal_size=SIZE, run_before=home)


def test_topics_when_placeholders_can_be_filled(snap_compare: Any) -> None:
    """Broker 4 joined: the banner says how many placeholders a live broker can take."""
    assert snap_compare(recorded_app("kraft-fill"), terminal_size=SIZE, run_before=home)


def test_topics_with_a_filter(snap_compare: Any) -> None:
    async def filtered(pilot: Pilot[None]) -> None:
        await loaded(app_of(pilot), pilot)
        await filter_to(pilot, "o")
        await pilot.press("u")  # under-replicated only

    assert snap_compare(recorded_app("kraft-demo"), terminal_size=SIZE, run_before=filtered)


def test_topics_read_only_profile_hides_change_keys(snap_compare: Any) -> None:
    app = recorded_app("kraft-fill", read_only=True)
    assert snap_compare(app, terminal_size=SIZE, run_before=home)


def test_topics_zookeeper_mode(snap_compare: Any) -> None:
    """ZooKeeper mode lists live brokers only: broker 3 is simply absent."""
    assert snap_compare(recorded_app("zk-demo"), terminal_size=SIZE, run_before=home)


def test_topics_ten_thousand(snap_compare: Any) -> None:
    async def at_the_end(pilot: Pilot[None]) -> None:
        await loaded(app_of(pilot), pilot)
        await pilot.press("end")

    assert snap_compare(recorded_app("kraft-10k"), terminal_size=SIZE, run_before=at_the_end)


# -- topic detail -------------------------------------------------------------------------


@pytest.mark.parametrize("topic", ["audit-log", "inventory", "moving"])
def test_topic_detail(snap_compare: Any, topic: str) -> None:
    """Placeholders drawn after the real replicas; a partition without a leader; a
    reassignment in progress (broker 3 being added)."""

    async def detail(pilot: Pilot[None]) -> None:
        await open_topic(pilot, topic, "enter")

    assert snap_compare(recorded_app("kraft-demo"), terminal_size=SIZE, run_before=detail)


# -- forms --------------------------------------------------------------------------------


async def create_form(pilot: Pilot[None], *keys: str) -> None:
    app = app_of(pilot)
    await loaded(app, pilot)
    await pilot.press("c")
    await settle(app, pilot)
    await pilot.press(*keys)
    await settle(app, pilot)


def test_create_form_empty(snap_compare: Any) -> None:
    async def empty(pilot: Pilot[None]) -> None:
        await create_form(pilot)

    assert snap_compare(recorded_app("kraft-demo"), terminal_size=SIZE, run_before=empty)


def test_create_form_errors_next_to_fields(snap_compare: Any) -> None:
    """A name Kafka refuses, no partitions, a configs entry without a value."""

    async def errors(pilot: Pilot[None]) -> None:
        await create_form(pilot, *"orders v2", "tab", "0", "tab", "tab", "tab", *"retention.ms")

    assert snap_compare(recorded_app("kraft-demo"), terminal_size=SIZE, run_before=errors)


def test_create_form_under_replicated_preview(snap_compare: Any) -> None:
    """RF 3 with broker 3 offline and a minimum of 2 live replicas (implies `enabled`)."""

    async def kip409(pilot: Pilot[None]) -> None:
        keys = (*"events", "tab", "4", "tab", "3", "tab", "tab", "tab", "tab", "2")
        await create_form(pilot, *keys)

    assert snap_compare(recorded_app("kraft-demo"), terminal_size=(120, 52), run_before=kip409)


def test_partitions_form(snap_compare: Any) -> None:
    async def grow(pilot: Pilot[None]) -> None:
        await open_topic(pilot, "payments", "p")
        await pilot.press(*"5")
        await settle(app_of(pilot), pilot)

    assert snap_compare(recorded_app("kraft-demo"), terminal_size=SIZE, run_before=grow)


# -- brokers, reassignment, plan, help ----------------------------------------------------


@pytest.mark.parametrize("name", ["kraft-demo", "kraft-fill", "zk-demo"])
def test_brokers(snap_compare: Any, name: str) -> None:
    async def brokers(pilot: Pilot[None]) -> None:
        app = app_of(pilot)
        await loaded(app, pilot)
        await pilot.press("b")
        await settle(app, pilot)

    assert snap_compare(recorded_app(name), terminal_size=SIZE, run_before=brokers)


def test_reassignment_preview(snap_compare: Any) -> None:
    """`orders` from replication factor 3 to 2: the moves, before anything is sent."""

    async def preview(pilot: Pilot[None]) -> None:
        await open_topic(pilot, "orders", "enter", "f")
        await pilot.press("2")
        await settle(app_of(pilot), pilot)

    assert snap_compare(recorded_app("kraft-demo"), terminal_size=SIZE, run_before=preview)


def test_plan_chart(snap_compare: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """tests/data/plan-small.csv placed by the local engine (pure; nothing sent)."""
    monkeypatch.chdir(DATA)  # the file's name as the screen shows it, not a full path

    async def plan(pilot: Pilot[None]) -> None:
        app = app_of(pilot)
        await loaded(app, pilot)
        await pilot.press("P")
        await settle(app, pilot)
        assert isinstance(app.screen, PlanScreen)
        await pilot.press(*"plan-small.csv", "enter")
        await settle(app, pilot)
        assert app.screen.query_one(PlanTopics).row_count == 4

    assert snap_compare(recorded_app("kraft-demo"), terminal_size=(120, 48), run_before=plan)


def test_help(snap_compare: Any) -> None:
    async def help_panel(pilot: Pilot[None]) -> None:
        await loaded(app_of(pilot), pilot)
        await pilot.press("question_mark")
        await settle(app_of(pilot), pilot)

    assert snap_compare(recorded_app("kraft-demo"), terminal_size=SIZE, run_before=help_panel)


# -- the replay itself --------------------------------------------------------------------


async def test_the_replay_refuses_changes_and_unrecorded_reads() -> None:
    from kafka_tui.admin import TopicSpec

    from .conftest import recording

    admin = ReplayAdmin(recording("kraft-demo"))
    with pytest.raises(ReplayChangeRefused, match="tests/integration"):
        await admin.create_topics([TopicSpec("x", 1, 1)], validate_only=True)
    with pytest.raises(ReplayChangeRefused):
        await admin.delete_topics(["orders"])
    with pytest.raises(ReplayGap):
        await admin.describe_topics(["never-recorded"])
    found, errors = await admin.describe_topics(["orders"])
    assert found[0].configs["min.insync.replicas"].value == "2" and not errors


async def test_the_replay_answers_eligible_leader_replicas_as_kafka_4_4_did() -> None:
    """Recorded from KRaft 4.4 (ELR on, Kafka's default for a new cluster): `inventory`'s
    partition 0, whose one replica is on the stopped broker 3, has no leader, an empty ISR,
    and broker 3 as its eligible and last known eligible leader replica; the topic detail
    shows it. As on a real cluster, only a read that asks for ELR gets it (Metadata carries
    none), and ZooKeeper mode cannot say (None: shown as `?`)."""
    from .conftest import recording

    demo = recording("kraft-demo")
    assert load_recording("kraft-demo")["recorded"]["kafka_version"] == "4.4.0"
    assert demo.releases == {1: "4.4+", 2: "4.4+"}  # the live brokers' ApiVersions
    admin = ReplayAdmin(demo)
    (inventory,), _ = await admin.describe_topics(["inventory"], elr=True)
    elr = [(p.leader, p.isr, p.elr, p.last_known_elr) for p in inventory.partitions]
    assert elr == [(-1, (), (3,), (3,)), (1, (1,), (), ()), (2, (2,), (), ())]
    (plain,), _ = await admin.describe_topics(["inventory"], configs=False)
    listed = next(t for t in await admin.list_topics() if t.name == "inventory")
    assert {p.elr for p in plain.partitions + listed.partitions} == {None}
    zk = ReplayAdmin(recording("zk-demo"))
    (inventory,), _ = await zk.describe_topics(["inventory"], elr=True)
    assert {(p.elr, p.last_known_elr) for p in inventory.partitions} == {(None, None)}


def test_recordings_are_small() -> None:
    sizes = {p.name: p.stat().st_size for p in Path(DATA).glob("*.json*")}
    assert sizes and all(size < 400_000 for size in sizes.values()), sizes
