"""Per-broker bars before -> after (replicas and leaders of a plan), drawn with Rich text.

Every bar also reads without colour: `█` what the broker holds before, `▒` what the plan adds,
`░` what it takes away; an offline broker's id is marked `!` like the replica renderer's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.style import Style
from rich.text import Text
from textual.widget import Widget

KEPT, ADDED, REMOVED = "█", "▒", "░"


@dataclass(frozen=True)
class BrokerBars:
    broker: int
    rack: str | None
    live: bool
    replicas_before: int
    replicas_after: int
    leaders_before: int
    leaders_after: int

    @classmethod
    def from_document(cls, row: dict[str, Any]) -> BrokerBars:
        """A broker row of a plan document (`plan preview --output json`)."""
        return cls(
            row["id"],
            row["rack"],
            row["live"],
            row["replicas_before"],
            row["replicas_after"],
            row["leaders_before"],
            row["leaders_after"],
        )


def bar(
    before: int, after: int, most: int, width: int, styles: tuple[Style | str, Style | str]
) -> Text:
    """One bar `width` cells wide, scaled so that `most` fills it."""
    scale = width / most if most > 0 else 0.0
    kept = round(min(before, after) * scale)
    end = round(max(before, after) * scale)
    text = Text(KEPT * kept, style=styles[0])
    text.append((ADDED if after >= before else REMOVED) * (end - kept), style=styles[1])
    text.append(" " * max(0, width - end))
    return text


def chart_text(
    rows: Sequence[BrokerBars],
    width: int,
    styles: tuple[Style | str, Style | str] = ("", ""),
) -> Text:
    """The whole chart: a header and one line per broker, fitted to `width` cells."""
    if not rows:
        return Text("No brokers.")
    racks = max(len(r.rack or "-") for r in rows)
    label = 6 + racks  # "  12! " + rack
    numbers = max(len(f"{r.replicas_before}->{r.replicas_after}") for r in rows)
    lead_numbers = max(len(f"{r.leaders_before}->{r.leaders_after}") for r in rows)
    room = max(10, width - label - numbers - lead_numbers - 6)
    bars = max(4, room // 2)
    most_replicas = max(max(r.replicas_before, r.replicas_after) for r in rows)
    most_leaders = max(max(r.leaders_before, r.leaders_after) for r in rows)
    text = Text(" " * label)
    text.append(f"{'replicas before -> after':<{bars + numbers + 3}}", style="bold")
    text.append("leaders before -> after", style="bold")
    for r in rows:
        text.append(f"\n{r.broker:>4}{'' if r.live else '!'}", style="" if r.live else "bold")
        text.append(" " * (2 - (not r.live)))
        text.append(f"{r.rack or '-':<{racks}} ")
        text.append_text(bar(r.replicas_before, r.replicas_after, most_replicas, bars, styles))
        text.append(f" {f'{r.replicas_before}->{r.replicas_after}':<{numbers}}  ")
        text.append_text(bar(r.leaders_before, r.leaders_after, most_leaders, bars, styles))
        text.append(f" {r.leaders_before}->{r.leaders_after}")
    text.append(f"\n{' ' * label}{KEPT} before  {ADDED} added  {REMOVED} removed  ! offline")
    return text


class BrokerChart(Widget):
    """The chart as a widget; redrawn to the widget's width."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"broker-chart--before", "broker-chart--added"}

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: list[BrokerBars] = []

    def show(self, rows: Sequence[BrokerBars]) -> None:
        self.rows = list(rows)
        self.refresh(layout=True)

    def render(self) -> Text:
        if not self.rows:
            return Text("")
        styles = (
            self.get_component_rich_style("broker-chart--before", partial=True),
            self.get_component_rich_style("broker-chart--added", partial=True),
        )
        return chart_text(self.rows, max(40, self.size.width - 2), styles)

    def get_content_height(self, container: Any, viewport: Any, width: int) -> int:
        return len(self.rows) + 2 if self.rows else 0
