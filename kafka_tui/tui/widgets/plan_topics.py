"""The plan screen's topics: one line per topic of the plan document, with its action, counts,
config changes, the share of keyed records a grow moves (from the topic's fresh key count;
"unknown" without one) and result (planned, refused, or what applying it answered). A
VirtualTable: a 1,000,000-partition plan (200,000 topics) shows at once and a key costs the
same as on a small one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from rich.style import Style
from textual.geometry import Size
from textual.message import Message

from ...services.key_reports_saved import GrowKeys
from .virtual_table import VirtualTable

_COLUMNS: list[tuple[str, int]] = [("Action", 6), ("Partitions", 10), ("RF", 3), ("Configs", 7)]
_MOVING = ("Moving", 7)  # only for a plan that grows topics
_RESULT = 40  # the result column's width (an error name, "planned", "ok")


def _configs(entry: dict[str, Any]) -> str:
    """How many overrides the plan changes on an existing topic ("-": none, or refused)."""
    changes = entry.get("config_changes") or []
    return str(len(changes)) if changes and not entry["error"] else "-"


def _moving(entry: dict[str, Any], moves: dict[str, GrowKeys]) -> str:
    """The share of a grown topic's keyed records that move ("unknown": no fresh count)."""
    found = moves.get(entry["topic"])
    if found is None or entry["action"] != "grow" or entry["error"]:
        return "-"
    return "unknown" if found.recent is None else f"{found.recent.grow.records_moving:.1%}"


class PlanTopics(VirtualTable):
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "plan-topics--header",
        "plan-topics--cursor",
        "plan-topics--refused",
        "plan-topics--failed",
    }
    CURSOR_CLASS = "plan-topics--cursor"

    class Highlighted(Message):
        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: Sequence[dict[str, Any]] = ()
        self.index: dict[str, int] = {}
        self.results: dict[str, str] = {}  # topic -> "ok" or the error applying it met
        self.moves: dict[str, GrowKeys] = {}  # grown topic -> what it moves (key_moves)
        self._name_column = 10

    @property
    def columns(self) -> list[tuple[str, int]]:
        return [*_COLUMNS, _MOVING] if self.moves else _COLUMNS

    @property
    def row_count(self) -> int:
        return len(self.entries)

    def show(
        self, entries: Sequence[dict[str, Any]], moves: dict[str, GrowKeys] | None = None
    ) -> None:
        """The document's topics, in its order; the cursor on the first."""
        self.entries = entries
        self.moves = moves or {}
        self.index = {e["topic"]: i for i, e in enumerate(entries)}
        self.results = {}
        longest = max((len(e["topic"]) for e in entries), default=10)
        self._name_column = max(10, min(longest, 60))
        self.cursor = 0
        width = self._name_column + sum(w + 1 for _, w in self.columns) + 1 + _RESULT
        self.virtual_size = Size(width, len(entries) + 1)
        self.scroll_to(y=0, animate=False)
        self.refresh()
        if entries:
            self.highlighted()

    def set_result(self, topic: str, text: str) -> None:
        if topic in self.index:
            self.results[topic] = text
            self.refresh()

    def result(self, index: int) -> str:
        entry = self.entries[index]
        return self.results.get(entry["topic"]) or entry["error"] or "planned"

    def entry(self, topic: str) -> dict[str, Any] | None:
        """The document's entry of `topic`, if the plan has it."""
        index = self.index.get(topic)
        return None if index is None else self.entries[index]

    def topic_at(self, index: int) -> str:
        return str(self.entries[index]["topic"])

    def highlighted(self) -> None:
        if self.entries:
            self.post_message(self.Highlighted(self.topic_at(self.cursor)))

    # -- drawing ---------------------------------------------------------------------------

    def header_text(self) -> str:
        cells = ["Topic".ljust(self._name_column), "Action"]
        cells += [h.rjust(w) for h, w in self.columns[1:]]
        return " ".join([*cells, "Result"])

    def header_style(self) -> Style:
        return self.get_component_rich_style("plan-topics--header")

    def row_text(self, index: int) -> str:
        entry = self.entries[index]
        width = self._name_column
        name = entry["topic"]
        name = name if len(name) <= width else name[: width - 1] + "…"
        values = [entry["partitions"], entry["replication_factor"], _configs(entry)]
        if self.moves:
            values.append(_moving(entry, self.moves))
        cells = [name.ljust(width), entry["action"].ljust(_COLUMNS[0][1])]
        cells += [str(v).rjust(w) for v, (_, w) in zip(values, self.columns[1:], strict=True)]
        return " ".join([*cells, self.result(index)])

    def row_style(self, index: int) -> Style:
        entry = self.entries[index]
        applied = self.results.get(entry["topic"])
        if entry["error"]:
            return self.get_component_rich_style("plan-topics--refused")
        if applied is not None and applied != "ok":
            return self.get_component_rich_style("plan-topics--failed")
        return Style()
