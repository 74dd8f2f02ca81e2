"""Shared Pilot helpers of the screen tests, and apps over recorded clusters (replay.py)."""

from __future__ import annotations

import asyncio
from functools import cache

from textual.pilot import Pilot

from kafka_tui.config import Settings
from kafka_tui.tui.app import KafkaTuiApp, make_app
from kafka_tui.tui.screens.metadata import MetadataScreen
from kafka_tui.tui.widgets.topic_table import TopicTable

from .replay import Recording, ReplayAdmin, ReplayStore

# One terminal for every full-screen snapshot.
SIZE = (120, 40)


@cache
def recording(name: str) -> Recording:
    return Recording.load(name)


def recorded_app(
    name: str, *, read_only: bool = False, under_replicated: str = "disabled"
) -> KafkaTuiApp:
    """The app on the recorded cluster `name` (tests/data), as the CLI opens it."""
    data = recording(name)
    profile = data.profile(read_only=read_only, under_replicated=under_replicated)
    return make_app(
        Settings(profiles={profile.name: profile}),
        profile,
        admin_factory=lambda _: ReplayAdmin(data),
        store_factory=lambda _: ReplayStore(data),
        refresh_seconds=0,
    )


async def settle(app: KafkaTuiApp, pilot: Pilot[None]) -> None:
    await app.workers.wait_for_complete()
    await pilot.pause()


async def loaded(app: KafkaTuiApp, pilot: Pilot[None]) -> MetadataScreen:
    screen = app.screen
    assert isinstance(screen, MetadataScreen)
    await asyncio.wait_for(screen.loaded.wait(), 30)
    await settle(app, pilot)
    return screen


async def filter_to(pilot: Pilot[None], text: str) -> None:
    await pilot.press("slash", *text, "enter")


def shown(app: KafkaTuiApp) -> list[str]:
    return [r.name for r in app.screen.query_one(TopicTable).rows]
