"""A secret the profile needs and no source gives, asked in a dialog before connecting (the
CLI asks on the terminal). The answer is kept in memory for the process, never written."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any, ClassVar, cast

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from ...config import Profile
from ...secrets import SecretError, SecretSource, answered, prompt_text, questions, read_sources
from ...secrets import remember as remember_answer
from .. import notices
from ..notices import Told
from .base import KafkaHost


class SecretDialog(ModalScreen[str | None]):
    """Hidden input for one secret; Enter connects, Escape or Cancel gives up."""

    DEFAULT_CSS = """
    SecretDialog { align: center middle; }
    #secret-buttons { height: auto; margin-top: 1; }
    #secret-buttons Button { margin-right: 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, question: SecretSource) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="secret-dialog", classes="dialog"):
            yield Label(f"{self.question.setting} needed", classes="dialog-title", markup=False)
            yield Static(prompt_text(self.question), id="secret-for", markup=False)
            with Vertical(classes="dialog-foot"):
                yield Input(password=True, id="secret", placeholder="typed hidden, kept in memory")
                with Horizontal(id="secret-buttons"):
                    yield Button("Connect", variant="primary", id="connect")
                    yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#secret", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._connect()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "connect":
            self._connect()
        else:
            self.action_cancel()

    def _connect(self) -> None:
        value = self.query_one("#secret", Input).value
        if value:
            self.dismiss(value)
        else:
            self.app.post_message(Told(notices.hint("Nothing typed")))

    def action_cancel(self) -> None:
        self.dismiss(None)


async def unlock(app: App[Any], profile: Profile) -> Profile | None:
    """`profile` with its secrets read (command, keyring) or asked; None when one cannot be
    had or the operator cancels (then the app says why: it exits when it has nothing else to
    show, or stays on the profile picker)."""
    where = profile.secrets_where
    try:
        connection = await asyncio.to_thread(read_sources, profile.connection, profile.secrets)
        connection = answered(connection, where)
        for question in questions(connection, where, profile.secrets):
            value = await app.push_screen_wait(SecretDialog(question))
            if value is None:
                _give_up(app, f"{where}: no {question.setting} was given; not connected")
                return None
            connection = remember_answer(connection, question, value)
    except SecretError as exc:
        _give_up(app, str(exc))
        return None
    return replace(profile, connection=connection, secrets=())


def _give_up(app: App[Any], message: str) -> None:
    if len(app.screen_stack) <= 1:  # nothing but the empty default screen: leave cleanly
        # the CLI prints it on exit, one line as its other errors (Textual's exit message
        # would wrap and crop it at the terminal's width)
        cast(KafkaHost, app).exit_note = message
        app.exit(return_code=2)
    else:
        app.post_message(Told(notices.failed(message, "Not connected")))
