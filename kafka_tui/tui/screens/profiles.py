"""Choose a cluster profile when the config file has several and none was named."""

from __future__ import annotations

from typing import cast

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from ...config import Profile
from ..widgets.footer import KeysFooter
from .base import KafkaHost


class ProfilePicker(Screen[None]):
    def __init__(self, profiles: list[Profile]) -> None:
        super().__init__()
        self.profiles = profiles

    def compose(self) -> ComposeResult:
        with Vertical(id="profile-picker", classes="dialog"):
            yield Label("Choose a cluster profile", classes="dialog-title")
            if not self.profiles:
                yield Label("No profiles: pass --bootstrap-server or write a config file.")
            yield OptionList(
                *(
                    Option(
                        f"{p.name}  {p.connection.bootstrap_servers}"
                        + ("  (read-only)" if p.read_only else ""),
                        id=p.name,
                    )
                    for p in self.profiles
                ),
                id="profiles",
            )
        yield KeysFooter()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        profile = next(p for p in self.profiles if p.name == event.option.id)
        cast(KafkaHost, self.app).open_profile(profile)
