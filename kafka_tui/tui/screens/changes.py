"""Deletion, read top to bottom: refuse internal topics, show who reads them, confirm by
typing, delete, report."""

from __future__ import annotations

from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from ...admin import AdminError
from ...config import Profile
from ...services.consumers import Readers, readers_of
from ...services.ports import AdminPort
from ...services.records import delete_topics
from .. import notices
from .base import KafkaScreen, placeholder_store


def readers_text(names: list[str], readers: Readers | None) -> str:
    """The consumer groups with offsets on the topics, as the dialog shows them."""
    if readers is None:
        return "Checking which consumer groups read it and which producers write to it…"
    lines = []
    for name in names:
        found = readers.of(name)
        if found:
            where = "it" if len(names) == 1 else name
            lines.append(f"Consumer groups with offsets on {where}:")
            lines += [f"  {r.describe()}" for r in found]
    if not lines:
        what = "it" if len(names) == 1 else "them"
        lines.append(f"No consumer group has committed offsets on {what}.")
    if any(readers.active(n) for n in names):
        lines.append("A group with members is still reading: its consumers will fail.")
    if readers.note:
        lines.append(f"Note: {readers.note}.")
    for name in names:
        writers = readers.writers_of(name)
        if writers:
            where = "its leaders" if len(names) == 1 else f"the leaders of {name}"
            lines.append(f"Producers still known to {where}:")
            lines += [
                f"  {w.describe(readers.checked_at_ms)}{'' if w.live else ' (expired)'}"
                for w in writers
            ]
        warning = readers.writer_warning(name)
        if warning:
            where = "it" if len(names) == 1 else f"'{name}'"
            text = warning.replace("to it", f"to {where}", 1)
            lines.append(f"Warning: {text[0].upper()}{text[1:]}.")
    if readers.writers_note:
        lines.append(f"Note: {readers.writers_note}.")
    return "\n".join(lines)


def in_use(names: list[str], readers: Readers | None) -> bool:
    """A group with members reads one of the topics, or a live producer writes to it."""
    return readers is not None and any(readers.active(n) or readers.live_writers(n) for n in names)


class DeleteConfirm(ModalScreen[bool]):
    """Typing the topic name (or, for several, their number) enables Delete. With `admin`,
    the consumer groups reading the topics are looked up and shown meanwhile (`readers`:
    already known)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(
        self,
        names: list[str],
        *,
        admin: AdminPort | None = None,
        readers: Readers | None = None,
    ) -> None:
        super().__init__()
        self.names = names
        self.expected = names[0] if len(names) == 1 else str(len(names))
        self.admin = admin
        self.readers = readers

    def compose(self) -> ComposeResult:
        one = len(self.names) == 1
        what = f"topic '{self.names[0]}'" if one else f"{len(self.names)} topics"
        prompt = "its name" if one else "their number"
        with VerticalScroll(id="delete-dialog", classes="dialog"):
            yield Label(f"Delete {what}?", classes="dialog-title", markup=False)
            if not one:  # the names scroll with the body; the count stays in the title
                yield Label(", ".join(self.names), id="delete-names", markup=False)
            yield Label("This deletes the data too and cannot be undone.", markup=False)
            yield Static("", id="delete-readers", markup=False)
            with Vertical(classes="dialog-foot"):
                yield Label(f"Type {prompt} ({self.expected}) to confirm:", markup=False)
                yield Input(id="confirm-input")
                with Horizontal(classes="buttons"):
                    yield Button("Delete", variant="error", id="delete", disabled=True)
                    yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        # The dialog is a scroll (focusable, for its body): the typing goes to the input.
        self.query_one("#confirm-input", Input).focus()
        self.show_readers()
        if self.readers is None and self.admin is not None:
            self.load_readers()

    @work(exclusive=True, group="readers", exit_on_error=False)
    async def load_readers(self) -> None:
        assert self.admin is not None
        self.readers = await readers_of(self.admin, self.names)  # notes, never raises
        self.show_readers()

    def show_readers(self) -> None:
        shown = self.query_one("#delete-readers", Static)
        shown.display = self.readers is not None or self.admin is not None
        shown.update(readers_text(self.names, self.readers))
        shown.set_class(in_use(self.names, self.readers), "in-use")

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


async def run_deletion(
    screen: KafkaScreen, admin: AdminPort, names: list[str], internal: list[str]
) -> bool:
    """True when a deletion was sent (whatever each topic's result)."""
    if internal:
        screen.tell(
            notices.failed(
                f"Kafka's internal topics are never deleted: {', '.join(internal)}", "Refused"
            )
        )
        names = [n for n in names if n not in internal]
        if not names:
            return False
    if not await screen.app.push_screen_wait(DeleteConfirm(names, admin=admin)):
        screen.tell(notices.note("Nothing deleted."))
        return False
    profile = getattr(screen, "profile", None)
    store = placeholder_store(screen, profile) if isinstance(profile, Profile) else None
    try:
        results, warning = await delete_topics(admin, store, names)
    except AdminError as exc:
        screen.tell(notices.failed(exc.message, "Delete failed"))
        return False
    screen.tell(*notices.for_topic_results(results))
    if warning:
        screen.tell(notices.warning(warning))
    return True
