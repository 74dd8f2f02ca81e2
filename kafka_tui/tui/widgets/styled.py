"""Theme-driven styles for replica states, shared by every widget that draws replica lists."""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.widget import Widget
from textual.widgets import Static

from .replicas import ReplicaState, legend_text

REPLICA_CLASSES = {f"replica--{state.value}" for state in ReplicaState}


class ReplicaStyled(Widget):
    """Mixin: component classes `replica--<state>`, styled in kafka_tui.tcss with $variables."""

    COMPONENT_CLASSES: ClassVar[set[str]] = REPLICA_CLASSES

    def replica_style(self, state: ReplicaState) -> Style:
        return self.get_component_rich_style(f"replica--{state.value}", partial=True)


class ReplicaLegend(ReplicaStyled, Static):
    """One line explaining the markers: `1* leader  2 in sync  3~ not in sync ...`."""

    def on_mount(self) -> None:
        self.update(Text("Replicas: ").append_text(legend_text(self.replica_style)))
