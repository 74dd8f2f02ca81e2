"""Shared Pilot helpers of the screen tests, and apps over recorded clusters (replay.py)."""

from __future__ import annotations

import asyncio
import difflib
import html
import pickle
import re
from functools import cache
from typing import Any

import pytest
from pytest_textual_snapshot import node_to_report_path
from textual.pilot import Pilot
from textual.widgets import DataTable, Input

from kafka_tui.tui.app import KafkaTuiApp
from kafka_tui.tui.screens.metadata import MetadataScreen
from kafka_tui.tui.widgets.topic_table import TopicTable

from .replay import Recording, replay_app

# One terminal for every full-screen snapshot.
SIZE = (120, 40)


_TEXT = re.compile(r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>')


def svg_lines(svg: str) -> list[str]:
    """The text of a screenshot, line by line (its <text> elements by position)."""
    rows: dict[float, list[tuple[float, str]]] = {}
    for x, y, text in _TEXT.findall(svg):
        rows.setdefault(float(y), []).append((float(x), html.unescape(text)))
    return [
        "".join(t for _, t in sorted(row)).replace("\xa0", " ").rstrip()
        for _, row in sorted(rows.items())
    ]


def _tables(pilot: Pilot[Any]) -> list[str]:
    return [
        f"{t.id or type(t).__name__}: {t.row_count} rows, {len(t.columns)} columns, "
        f"size {tuple(t.size)}, virtual {tuple(t.virtual_size)}, region {tuple(t.region)}"
        for t in pilot.app.screen.walk_children()
        if isinstance(t, DataTable)  # query(DataTable) misses the replica tables
    ]


@pytest.fixture
def snap_compare(snap_compare: Any, request: pytest.FixtureRequest) -> Any:
    """The plugin's, and on a mismatch the two screens' text side by side in the test's
    output, with the tables' state when the screenshot was taken: CI keeps no HTML report."""

    def compare(app: Any, *args: Any, run_before: Any = None, **kwargs: Any) -> bool:
        state: list[str] = []

        async def before(pilot: Pilot[Any]) -> None:
            if run_before is not None:
                await run_before(pilot)
            # Every screenshot of a steady screen, also where the test waits for nothing: a
            # loaded machine took the delete dialog's after its input's first blink (CI).
            await still(pilot)
            state.extend(_tables(pilot))

        matched: bool = snap_compare(app, *args, run_before=before, **kwargs)
        if not matched:
            data = pickle.loads(node_to_report_path(request.node).read_bytes())
            expected, actual = svg_lines(data[1]), svg_lines(data[2])
            diff = difflib.unified_diff(expected, actual, "expected", "actual", lineterm="")
            print("\n".join(diff))
            print("tables at the screenshot:", *state, sep="\n  ")
        return matched

    return compare


@cache
def recording(name: str) -> Recording:
    return Recording.load(name)


def recorded_app(
    name: str, *, read_only: bool = False, under_replicated: str = "disabled"
) -> KafkaTuiApp:
    """The app on the recorded cluster `name` (tests/data), as the CLI opens it."""
    data = recording(name)
    return replay_app(data, data.profile(read_only=read_only, under_replicated=under_replicated))


async def settle(app: KafkaTuiApp, pilot: Pilot[None]) -> None:
    """Until the screen is still: its workers done (also those a screen mounted meanwhile
    starts: a form reads its snapshot in a worker of its own, which a busy machine starts
    after a first wait), a form's snapshot read, the inputs' cursors steady (a cursor
    blinks every half second: a slow run caught it off), the tables' new rows laid out."""
    for _ in range(20):
        await app.workers.wait_for_complete()
        await pilot.pause()
        if not any(w.is_running for w in app.workers):
            break
    ready = getattr(app.screen, "snapshot_ready", None)
    if isinstance(ready, asyncio.Event):
        await asyncio.wait_for(ready.wait(), 30)
        await app.workers.wait_for_complete()
        await pilot.pause()
    await still(pilot)


async def still(pilot: Pilot[Any]) -> None:
    """The screen drawn as it will stay: the inputs' cursors steady, the tables' new rows
    and the layout done (for a screenshot; no worker is waited for).

    Quiet twice in a row, every stage looked at: a DataTable lays out rows added on its
    next Idle event, then marks itself for layout, then posts a Layout message the screen
    handles later still. A loaded machine took the screenshot between two of those stages
    (the create form's preview with 2 of its 3 rows, CI under load)."""
    app = pilot.app
    for field in app.screen.query(Input):
        field.cursor_blink = False
    await pilot.pause()
    quiet = 0
    for _ in range(200):
        screen = app.screen
        widgets = list(screen.walk_children())
        tables = [w for w in widgets if isinstance(w, DataTable)]
        pending = (
            any(t._require_update_dimensions or t._updated_cells for t in tables)
            or any(w._layout_required or w._repaint_required for w in widgets)
            or screen._layout_required
            or screen._dirty_widgets
            or not screen._message_queue.empty()
        )
        quiet = 0 if pending else quiet + 1
        if quiet >= 2:
            break
        await pilot.pause(0.02)


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
