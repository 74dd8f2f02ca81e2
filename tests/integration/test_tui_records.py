"""The records screen's produce form and start box against the real KRaft cluster, driven with
Pilot at 80x24: a bad header and a value that is not JSON refused at their fields, a record
produced through the form shown where it landed, a start from an offset (refused in one
sentence past a partition's end) and from a time, Kafka's refusal of a record too large shown in
the form; read-only profiles have no produce; S searches the whole partition with the jq filter
(records older than the window's too, at most the window's matches)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime

from textual.pilot import Pilot
from textual.widgets import Button, DataTable, Input, Label, Select, Static, TextArea

from kafka_tui.admin import TopicSpec
from kafka_tui.tui.screens.produce import ProduceDialog
from kafka_tui.tui.screens.records import RecordsScreen

from ..conftest import Cluster
from ..tui.conftest import filter_to, loaded
from .test_consumer_groups import create
from .test_messages import send
from .test_tui import app_for
from .test_tui_groups import SMALL, wholly_shown

Names = Callable[[str], str]


async def until(pilot: Pilot[None], done: Callable[[], bool], what: Callable[[], object]) -> None:
    deadline = time.monotonic() + 30
    while not done():
        assert time.monotonic() < deadline, what()
        await pilot.pause(0.05)


async def typed(pilot: Pilot[None], widget: Input | TextArea, text: str) -> None:
    """`text` typed into `widget` from empty, as a user would (each key an edit)."""
    widget.clear()
    widget.focus()
    await pilot.pause()
    await pilot.press(*text)


async def test_produce_through_the_form_then_start_from_an_offset_and_a_time_at_80x24(
    kraft_cluster: Cluster, topic_name: Names
) -> None:
    topic = topic_name()
    servers = kraft_cluster.bootstrap_servers
    await create(servers, TopicSpec(topic, 2, 1, configs={"max.message.bytes": "1000"}))
    base = (int(time.time()) // 60 - 60) * 60_000  # an hour ago, on the minute
    await send(
        servers,
        topic,
        [
            {"value": json.dumps({"n": n}).encode(), "partition": 0, "timestamp_ms": base + n}
            for n in range(4)
        ],
    )
    app = app_for(kraft_cluster)
    async with app.run_test(size=SMALL) as pilot:
        await loaded(app, pilot)
        await filter_to(pilot, topic)
        await pilot.press("v")
        screen = app.screen
        assert isinstance(screen, RecordsScreen)
        status = screen.query_one("#records-status", Static)

        def values() -> list[object]:
            return [d["value"] for d in screen.shown]

        await until(pilot, lambda: screen.loads == 1 and len(screen.shown) == 4, values)
        wholly_shown(app, "#records-header", "#records-filter", "#records-start")
        assert topic in str(screen.query_one("#records-header", Static).render())
        read_only = RecordsScreen(replace(screen.profile, read_only=True), screen.admin, topic)
        assert read_only.check_action("produce", ()) is False
        assert screen.check_action("produce", ()) is not False

        await pilot.press("P")
        await until(pilot, lambda: isinstance(app.screen, ProduceDialog), lambda: app.screen)
        dialog = app.screen
        assert isinstance(dialog, ProduceDialog)
        await pilot.pause()
        wholly_shown(app, "#produce-dialog .dialog-title", "#produce-send", "#produce-cancel")
        assert topic in str(dialog.query_one("#produce-dialog .dialog-title", Label).render())
        send_button = dialog.query_one("#produce-send", Button)

        def error(field: str) -> str:
            label = dialog.query_one(f"#{field}-error", Label)
            return str(label.render()) if label.display else ""

        # refused at the field, once touched; the others stay quiet
        await typed(pilot, dialog.query_one("#headers", TextArea), "origin")
        await pilot.pause()
        assert "'origin' is not NAME=VALUE" in error("headers")
        assert error("value") == "" and send_button.disabled
        dialog.query_one("#value-format", Select).value = "json"
        await typed(pilot, dialog.query_one("#value", TextArea), "{nope")
        await pilot.pause()
        assert error("value") and error("key") == ""
        await typed(pilot, dialog.query_one("#headers", TextArea), "origin=ops,trace=t1")
        await typed(pilot, dialog.query_one("#value", TextArea), '{"n": 9}')
        await typed(pilot, dialog.query_one("#key", Input), "k-9")
        await typed(pilot, dialog.query_one("#partition", Input), "1")
        await pilot.pause()
        assert (error("headers"), error("value")) == ("", "")
        assert not send_button.disabled
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.screen is screen, lambda: error("value"))

        # the record read back from Kafka, highlighted, where the form said it landed
        def produced() -> list[object]:
            return [d for d in screen.shown if d["value"] == {"n": 9}]

        await until(pilot, lambda: bool(produced()), values)
        (record,) = produced()
        assert (record["partition"], record["offset"], record["key"]) == (1, 0, "k-9")
        assert record["headers"] == [["origin", "ops"], ["trace", "t1"]]
        assert screen.written == "partition 1, offset 0"
        assert "last produced: partition 1, offset 0" in str(status.render())
        table = screen.query_one("#records", DataTable)
        assert screen.shown[table.cursor_row] is record
        detail = str(screen.query_one("#record-detail", Static).render())
        assert "origin: ops" in detail and "trace: t1" in detail and '"n": 9' in detail

        # Kafka's refusal in one sentence, in the form, which stays open
        await pilot.press("P")
        await until(pilot, lambda: isinstance(app.screen, ProduceDialog), lambda: app.screen)
        dialog = app.screen
        assert isinstance(dialog, ProduceDialog)
        dialog.query_one("#value", TextArea).text = "x" * 2000
        await pilot.press("ctrl+s")
        verdict = dialog.query_one("#produce-verdict", Static)
        await until(pilot, lambda: bool(str(verdict.render())), lambda: app.screen)
        said = str(verdict.render())
        # Kafka's name for code 10 (aiokafka's is MESSAGE_SIZE_TOO_LARGE) and its sentence
        assert app.screen is dialog and "larger than the topic accepts" in said, said
        assert "max.message.bytes" in said, said
        assert "\n" not in said and said.endswith("."), said
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, lambda: app.screen)

        async def start(text: str, loads: int) -> None:
            await typed(pilot, screen.query_one("#records-start", Input), text)
            await pilot.press("enter")
            await until(pilot, lambda: screen.loads == loads, lambda: status.render())

        # offset 2 of every partition: partition 1 ends at 1, said in one sentence
        await typed(pilot, screen.query_one("#records-start", Input), "2")
        await pilot.press("enter")
        await until(pilot, lambda: "past the end of partition 1" in str(status.render()), values)
        loaded_before = screen.loads
        await pilot.press("p")  # partition 0, from offset 2, oldest first
        await until(pilot, lambda: screen.loads > loaded_before, lambda: status.render())
        await until(pilot, lambda: values() == [{"n": 2}, {"n": 3}], values)
        assert [d["offset"] for d in screen.shown] == [2, 3]
        header = str(screen.query_one("#records-header", Static).render())
        assert "partition 0, from offset 2, oldest first" in header
        wholly_shown(app, "#records-header", "#records-start")

        moment = datetime.fromtimestamp((base + 1) / 1000, UTC).isoformat()
        await start(moment, screen.loads + 1)
        # the filter's thread shows a read after it is counted: waited for, not assumed
        await until(pilot, lambda: values() == [{"n": 1}, {"n": 2}, {"n": 3}], values)
        # a read stopped by the window: a follow goes on from where it stopped, the oldest
        # leaving the window as new ones come
        screen.WINDOW = 2
        await start("0", screen.loads + 1)
        await until(pilot, lambda: values() == [{"n": 0}, {"n": 1}], values)
        screen.query_one("#records", DataTable).focus()
        await pilot.press("f")
        await until(pilot, lambda: values() == [{"n": 2}, {"n": 3}], values)
        await pilot.press("f")
        await typed(pilot, screen.query_one("#records-start", Input), "soon")
        await pilot.press("enter")
        await until(pilot, lambda: "neither an offset nor" in str(status.render()), values)

        # S searches the whole partition shown with the filter typed (record_search.py), as
        # `messages search` does: older records than the window's too, at most WINDOW matches
        table = screen.query_one("#records", DataTable)
        table.focus()
        await pilot.press("S")  # no filter yet: a hint, nothing runs
        await pilot.pause()
        assert screen.search_note is None
        await typed(pilot, screen.query_one("#records-filter", Input), ".value.n >= 1")
        await pilot.press("enter")
        await until(pilot, lambda: values() == [{"n": 2}, {"n": 3}], values)
        await pilot.press("S")
        await until(pilot, lambda: (screen.search_note or "").startswith("searched"), values)
        await until(pilot, lambda: values() == [{"n": 1}, {"n": 2}], values)
        said = str(status.render())
        assert "2 matches in" in said and "the first 2 kept" in said, said
        assert not screen.query("#records-search-progress")  # the bar leaves when done
