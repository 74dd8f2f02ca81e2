"""Every screen and dialog at 80x24, a bastion host's terminal (issue 53.1): the title, the
object acted on (topic, broker) and the buttons stay on screen, the body scrolls between
them. Each is a snapshot on the recorded clusters (no JVM) and an assertion that those
widgets are wholly visible, so a layout change that pushes one off fails with its name."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Button, Footer

from kafka_tui.config import Profile
from kafka_tui.secrets import SecretSource
from kafka_tui.tui.screens.changes import DeleteConfirm
from kafka_tui.tui.screens.create import CreateTopicScreen
from kafka_tui.tui.screens.drain import DrainConfirm
from kafka_tui.tui.screens.error import ErrorScreen
from kafka_tui.tui.screens.plan import PlanScreen
from kafka_tui.tui.screens.profiles import ProfilePicker
from kafka_tui.tui.screens.reassign import RollbackConfirm
from kafka_tui.tui.screens.secret import SecretDialog

from .conftest import loaded, recorded_app, settle
from .replay import DATA
from .test_screens import app_of, open_topic
from .test_tui_snapshots import IDLE_ADMIN, Harness

SMALL = (80, 24)
Before = Callable[[Pilot[Any]], Awaitable[None]]


def wholly_shown(pilot: Pilot[Any], *selectors: str) -> None:
    """Each selector's first widget on the current screen, drawn whole (not scrolled away,
    not clipped by the terminal)."""
    screen = pilot.app.screen
    for selector in selectors:
        widget: Widget = screen.query(selector).first()
        assert widget.is_on_screen, f"{selector} is not on screen"
        geometry = screen.find_widget(widget)
        assert geometry.visible_region == geometry.region, f"{selector} is cut: {geometry}"
        assert screen.region.contains_region(geometry.region), f"{selector} is off screen"


def buttons(pilot: Pilot[Any]) -> list[str]:
    return [f"#{b.id}" for b in pilot.app.screen.query(Button)]


# -- screens ------------------------------------------------------------------------------


async def _topics(pilot: Pilot[Any]) -> None:
    await loaded(app_of(pilot), pilot)
    wholly_shown(pilot, "#cluster-header", "#filter", Footer.__name__)


async def _detail(pilot: Pilot[Any]) -> None:
    await open_topic(pilot, "moving", "enter")
    wholly_shown(pilot, "#detail-header", Footer.__name__)


async def _create_form(pilot: Pilot[Any]) -> None:
    app = app_of(pilot)
    await loaded(app, pilot)
    await pilot.press("c")
    await settle(app, pilot)
    await pilot.press(*"orders v2", "tab", "0")
    await settle(app, pilot)
    assert isinstance(app.screen, CreateTopicScreen)
    wholly_shown(pilot, ".dialog-title", "#apply", "#validate", "#cancel")


async def _partitions_form(pilot: Pilot[Any]) -> None:
    await open_topic(pilot, "payments", "p")
    await pilot.press("5")
    await settle(app_of(pilot), pilot)
    wholly_shown(pilot, ".dialog-title", "#apply", "#cancel")


async def _brokers(pilot: Pilot[Any]) -> None:
    app = app_of(pilot)
    await loaded(app, pilot)
    await pilot.press("b")
    await settle(app, pilot)
    wholly_shown(pilot, "#brokers-header", Footer.__name__)


async def _reassign(pilot: Pilot[Any]) -> None:
    await open_topic(pilot, "orders", "enter", "f")
    await pilot.press("2")
    await settle(app_of(pilot), pilot)
    wholly_shown(pilot, "#reassign-header", "#kind", "#value", Footer.__name__)


async def _plan(pilot: Pilot[Any]) -> None:
    app = app_of(pilot)
    await loaded(app, pilot)
    await pilot.press("P")
    await settle(app, pilot)
    assert isinstance(app.screen, PlanScreen)
    await pilot.press(*"plan-small.csv", "enter")
    await settle(app, pilot)
    wholly_shown(pilot, "#plan-header", "#plan-path", Footer.__name__)


async def _help(pilot: Pilot[Any]) -> None:
    await loaded(app_of(pilot), pilot)
    await pilot.press("question_mark")
    await settle(app_of(pilot), pilot)


SCREENS: dict[str, Before] = {
    "topics": _topics,
    "topic-detail": _detail,
    "create-form": _create_form,
    "partitions-form": _partitions_form,
    "brokers": _brokers,
    "reassign": _reassign,
    "plan": _plan,
    "help": _help,
}


@pytest.mark.parametrize("name", list(SCREENS))
def test_each_screen_at_80x24(
    snap_compare: Any, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.chdir(DATA)  # the plan file's name as the screen shows it
    app = recorded_app("kraft-demo")
    assert snap_compare(app, terminal_size=SMALL, run_before=SCREENS[name])


# -- dialogs ------------------------------------------------------------------------------


async def _until(pilot: Pilot[Any], done: Callable[[], bool]) -> None:
    """A dialog pushed by a worker that awaits it: waiting for the workers would never end."""
    for _ in range(600):
        if done():
            break
        await pilot.pause(0.05)
    assert done()


async def _delete(pilot: Pilot[Any]) -> None:
    """From the topics screen, as an operator opens it: the groups and producers looked up
    (the recording has none of either: notes say so)."""
    await open_topic(pilot, "orders")
    await pilot.press("d")
    await _until(pilot, lambda: isinstance(pilot.app.screen, DeleteConfirm))
    dialog = pilot.app.screen
    assert isinstance(dialog, DeleteConfirm)
    await _until(pilot, lambda: dialog.readers is not None)
    wholly_shown(pilot, ".dialog-title", "#confirm-input", *buttons(pilot))
    assert pilot.app.focused is dialog.query_one("#confirm-input")  # typing confirms


async def _drain(pilot: Pilot[Any]) -> None:
    app = app_of(pilot)
    await loaded(app, pilot)
    await pilot.press("b")
    await settle(app, pilot)
    await pilot.press("d")  # the first broker
    await _until(pilot, lambda: isinstance(app.screen, DrainConfirm))
    title = str(app.screen.query_one(".dialog-title").render())
    assert title == "Drain broker 1?"
    wholly_shown(pilot, ".dialog-title", "#drain-batch", *buttons(pilot))


DIALOGS: dict[str, Before] = {"delete": _delete, "drain": _drain}


@pytest.mark.parametrize("name", list(DIALOGS))
def test_each_dialog_at_80x24(snap_compare: Any, name: str) -> None:
    assert snap_compare(recorded_app("kraft-demo"), terminal_size=SMALL, run_before=DIALOGS[name])


LONG = "\n".join(f"  line {i} of a long message" for i in range(60))
ALONE: dict[str, Callable[[], Any]] = {
    "delete-many": lambda: DeleteConfirm([f"topic-{i:03}" for i in range(200)]),
    "error": lambda: ErrorScreen(f"Traceback (most recent call last):\n{LONG}", "load"),
    "rollback": lambda: RollbackConfirm("/var/lib/kafka-tui/rollback/" + "r" * 150 + ".json"),
    "secret": lambda: SecretDialog(
        SecretSource("sasl_password", "prompt", "user admin", "config.toml: profile 'prod'")
    ),
    "profiles": lambda: ProfilePicker(
        [Profile(f"cluster-{i}", IDLE_ADMIN.settings) for i in range(30)]
    ),
}
ALONE_SHOWN = {
    "delete-many": (".dialog-title", "#confirm-input", "#delete", "#cancel"),
    "error": (".dialog-title", "#close"),
    "rollback": (".dialog-title", "#rollback-yes", "#rollback-no"),
    "secret": (".dialog-title", "#secret", "#connect", "#cancel"),
    "profiles": (".dialog-title", "#profiles"),
}


@pytest.mark.parametrize("name", list(ALONE))
def test_each_dialog_with_a_long_body_at_80x24(snap_compare: Any, name: str) -> None:
    """The dialogs that need no cluster, each with more than 24 lines to show."""

    async def shown(pilot: Pilot[Any]) -> None:
        await pilot.pause()
        wholly_shown(pilot, *ALONE_SHOWN[name])

    app: App[None] = Harness(screen=ALONE[name]())
    assert snap_compare(app, terminal_size=SMALL, run_before=shown)
