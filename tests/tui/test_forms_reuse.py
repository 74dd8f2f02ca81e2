"""On a cluster whose read is costly (the topics screen's last refresh took REUSE_READ_COST of
CPU or more: ~100,000 partitions), the create and partitions forms place against the topics
screen's last read (issue 30: reading every topic again costs the broker seconds per form), so
opening a form asks for no topic; ctrl+r reads the cluster afresh, and on an unchanged cluster
gives the same preview. Below that, a form reads the cluster itself, as before."""

from __future__ import annotations

from collections import Counter

from textual.pilot import Pilot

from kafka_tui.tui.app import KafkaTuiApp
from kafka_tui.tui.screens.create import CreateTopicScreen
from kafka_tui.tui.screens.metadata import REUSE_READ_COST, MetadataScreen
from kafka_tui.tui.screens.partitions import IncreasePartitionsScreen
from kafka_tui.tui.widgets.tables import PreviewTable

from .conftest import SIZE, filter_to, loaded, recorded_app, settle
from .replay import ReplayAdmin


def _preview(pilot: Pilot[None]) -> list[list[str]]:
    table = pilot.app.screen.query_one(PreviewTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def _reads_then_reread(pilot: Pilot[None], admin: ReplayAdmin) -> list[list[str]]:
    """The preview placed against the screen's read; asserts the form read no topic, then
    that ctrl+r reads them (counted per broker, once) and previews the same."""
    before = Counter(admin.reads)
    await settle(pilot.app, pilot)  # type: ignore[arg-type]
    assert admin.reads == before, "opening the form read topics again"
    preview = _preview(pilot)
    assert preview
    await pilot.press("ctrl+r")
    await settle(pilot.app, pilot)  # type: ignore[arg-type]
    assert admin.reads - before == Counter({"topics_with_load": 1})
    assert _preview(pilot) == preview
    return preview


async def _topics_screen(pilot: Pilot[None]) -> tuple[MetadataScreen, ReplayAdmin]:
    """The topics screen loaded, and the replay admin under it."""
    app = pilot.app
    assert isinstance(app, KafkaTuiApp)
    screen = await loaded(app, pilot)
    assert isinstance(screen.admin, ReplayAdmin)
    return screen, screen.admin


async def test_the_create_form_places_against_the_topics_screen_read() -> None:
    app = recorded_app("kraft-demo")
    async with app.run_test(size=SIZE) as pilot:
        screen, admin = await _topics_screen(pilot)
        screen.refresh_cost = REUSE_READ_COST  # as the read of a big cluster measures
        before = Counter(admin.reads)
        await pilot.press("c", *"events", "tab", "6", "tab", "2")
        assert isinstance(app.screen, CreateTopicScreen)
        assert admin.reads == before
        assert len(await _reads_then_reread(pilot, admin)) == 6


async def test_the_partitions_form_places_against_the_topics_screen_read() -> None:
    app = recorded_app("kraft-demo")
    async with app.run_test(size=SIZE) as pilot:
        screen, admin = await _topics_screen(pilot)
        screen.refresh_cost = REUSE_READ_COST  # as the read of a big cluster measures
        await filter_to(pilot, "inventory")
        await settle(app, pilot)
        before = Counter(admin.reads)
        await pilot.press("p")
        await settle(app, pilot)
        form = app.screen
        assert isinstance(form, IncreasePartitionsScreen)
        current = len(form.topic.partitions)
        await pilot.press("ctrl+a", "backspace", *str(current + 2))
        assert admin.reads == before
        assert len(await _reads_then_reread(pilot, admin)) == 2


async def test_below_the_cost_a_form_reads_the_cluster_itself() -> None:
    app = recorded_app("kraft-demo")
    async with app.run_test(size=SIZE) as pilot:
        screen, admin = await _topics_screen(pilot)
        assert screen.refresh_cost < REUSE_READ_COST  # a small recording
        before = Counter(admin.reads)
        await pilot.press("c")
        await settle(app, pilot)
        assert isinstance(app.screen, CreateTopicScreen)
        assert admin.reads - before == Counter({"topics_with_load": 1})
