"""The error modal for unexpected failures: the app stays usable behind it."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static


class ErrorScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,enter", "dismiss", "Close")]

    def __init__(self, message: str, task: str) -> None:
        super().__init__()
        self.message = message
        self.task_name = task

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="error-dialog", classes="dialog"):
            yield Label(
                f"Unexpected failure in {self.task_name}", classes="dialog-title", markup=False
            )
            yield Static(self.message, id="error-message", markup=False)
            with Vertical(classes="dialog-foot"):
                yield Static("The screen behind kept its last good state. Press Enter to close.")
                yield Button("Close", variant="error", id="close")

    def on_mount(self) -> None:
        self.query_one("#close", Button).focus()

    def on_button_pressed(self) -> None:
        self.dismiss()
