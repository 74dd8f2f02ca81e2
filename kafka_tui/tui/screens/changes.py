"""Deletion, read top to bottom: refuse internal topics, confirm by typing, delete, report."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Input, Label

from ...admin import AdminError, TopicResult
from ...config import Profile
from ...services.placing import UNDER_REPLICATED_WARNING
from ...services.ports import AdminPort
from ...services.records import delete_topics
from .base import placeholder_store


class DeleteConfirm(ModalScreen[bool]):
    """Typing the topic name (or, for several, their number) enables Delete."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, names: list[str]) -> None:
        super().__init__()
        self.names = names
        self.expected = names[0] if len(names) == 1 else str(len(names))

    def compose(self) -> ComposeResult:
        what = (
            f"topic '{self.names[0]}'"
            if len(self.names) == 1
            else f"{len(self.names)} topics: {', '.join(self.names)}"
        )
        prompt = "its name" if len(self.names) == 1 else "their number"
        with Vertical(id="delete-dialog", classes="dialog"):
            yield Label(f"Delete {what}?", classes="dialog-title", markup=False)
            yield Label("This deletes the data too and cannot be undone.", markup=False)
            yield Label(f"Type {prompt} ({self.expected}) to confirm:", markup=False)
            yield Input(id="confirm-input")
            with Horizontal(classes="buttons"):
                yield Button("Delete", variant="error", id="delete", disabled=True)
                yield Button("Cancel", id="cancel")

    @on(Input.Changed, "#confirm-input")
    def typed(self, event: Input.Changed) -> None:
        self.query_one("#delete", Button).disabled = event.value.strip() != self.expected

    @on(Input.Submitted, "#confirm-input")
    def submitted(self, event: Input.Submitted) -> None:
        if event.value.strip() == self.expected:
            self.dismiss(True)

    @on(Button.Pressed, "#delete")
    def confirm(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(False)


def notify_results(screen: Screen[object], results: list[TopicResult]) -> None:
    """A KIP-409 creation under-replicated is one warning (its message says why); a name
    that collides with another ('.' vs '_') is a success plus a warning."""
    for r in results:
        if r.ok and r.warning == UNDER_REPLICATED_WARNING:
            screen.notify(
                r.message, title=f"{r.topic}: {r.warning}", severity="warning", timeout=12
            )
        elif r.ok and r.warning:
            screen.notify(r.message, title=r.topic)
            screen.notify(r.warning, title=r.topic, severity="warning")
        elif r.ok:
            screen.notify(r.message, title=r.topic)
        else:
            screen.notify(r.message, title=f"{r.topic}: {r.error}", severity="error", timeout=12)


async def run_deletion(
    screen: Screen[object], admin: AdminPort, names: list[str], internal: list[str]
) -> bool:
    """True when a deletion was sent (whatever each topic's result)."""
    if internal:
        screen.notify(
            f"Kafka's internal topics are never deleted: {', '.join(internal)}",
            title="Refused",
            severity="error",
        )
        names = [n for n in names if n not in internal]
        if not names:
            return False
    if not await screen.app.push_screen_wait(DeleteConfirm(names)):
        screen.notify("Nothing deleted.")
        return False
    profile = getattr(screen, "profile", None)
    store = placeholder_store(screen, profile) if isinstance(profile, Profile) else None
    try:
        results, warning = await delete_topics(admin, store, names)
    except AdminError as exc:
        screen.notify(exc.message, title="Delete failed", severity="error", timeout=12)
        return False
    notify_results(screen, results)
    if warning:
        screen.notify(warning, severity="warning", timeout=12)
    return True
