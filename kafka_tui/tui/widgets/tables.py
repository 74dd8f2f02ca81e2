"""DataTables that draw replica lists with the shared replica styles."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widgets import DataTable

from ...admin import PartitionInfo
from .replicas import ReplicaState, ReplicaView, replica_text
from .styled import REPLICA_CLASSES, ReplicaStyled
from .virtual_table import VirtualTable


def fit_height(table: DataTable[object]) -> None:
    """The table's height set from its rows as they are added (max-height in the .tcss still
    caps it), not left to `height: auto`: that reads the virtual size the table computes on
    its next idle, and under load the form's layout once kept the height from before the rows
    (the create form's preview drawn as its header alone, its one row clipped)."""
    rows = sum(row.height for row in table.rows.values())
    table.styles.height = rows + (table.header_height if table.show_header else 0)


class PartitionTable(ReplicaStyled, VirtualTable, inherit_bindings=False):
    """Partition, leader, replicas (marked), ISR, eligible leader replicas (KIP-966), offline
    replicas; problems stand out. A VirtualTable: only the visible lines are drawn, so a topic
    of 50,000 partitions opens at once (a DataTable measured every cell of every row: 12 s of
    CPU for 50,000, issue 52). Column widths come from the distinct replica lists, which the
    decoder shares between partitions."""

    COLUMNS = ("Partition", "Leader", "Replicas", "ISR", "ELR", "Offline", "Health")
    COMPONENT_CLASSES: ClassVar[set[str]] = REPLICA_CLASSES | {
        "partition-table--header",
        "partition-table--cursor",
    }
    DEFAULT_CSS = """
    PartitionTable > .partition-table--header { text-style: bold; background: $panel; }
    PartitionTable > .partition-table--cursor { background: $accent; color: $text; }
    """
    CURSOR_CLASS = "partition-table--cursor"
    # A DataTable's keys: g and G stay the detail screen's (its readers).
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "jump(0)", "First", show=False),
        Binding("end", "jump(-1)", "Last", show=False),
        Binding("left", "scroll_left", "Scroll left", show=False),
        Binding("right", "scroll_right", "Scroll right", show=False),
        Binding("ctrl+pageup", "page_left", "Page left", show=False),
        Binding("ctrl+pagedown", "page_right", "Page right", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.partitions: Sequence[PartitionInfo] = ()
        self.offline_brokers: Collection[int] = frozenset()
        self.moving: Mapping[int, tuple[Collection[int], Collection[int]]] = {}
        self.widths = [len(h) for h in self.COLUMNS]
        self._states: dict[ReplicaState, Style] = {}

    @property
    def row_count(self) -> int:
        return len(self.partitions)

    def show(
        self,
        partitions: Sequence[PartitionInfo],
        offline_brokers: Collection[int],
        moving: Mapping[int, tuple[Collection[int], Collection[int]]] | None = None,
    ) -> None:
        """`moving`: partition -> (replicas being added, being removed) by a reassignment."""
        self.partitions, self.offline_brokers = partitions, frozenset(offline_brokers)
        self.moving = moving or {}
        self.widths = self._column_widths()
        self.virtual_size = Size(sum(w + 2 for w in self.widths), len(partitions) + 1)
        self.styles.height = len(partitions) + 1  # see fit_height; max-height caps it
        if partitions:
            self.move_to(min(self.cursor, len(partitions) - 1))
        self.refresh()

    def _column_widths(self) -> list[int]:
        """Each column as wide as its widest cell, from the distinct values (a few hundred
        for 50,000 partitions): a replica takes its id and one marker (`*`, `~`, `!`, `+`,
        `-`), a placeholder its parentheses."""
        parts = self.partitions
        cells = [
            len(str(parts[-1].partition)) if parts else 0,
            max((len(str(b) if b >= 0 else "none") for b in {p.leader for p in parts}), default=0),
            max(map(_replicas_width, {p.replicas for p in parts}), default=0),
            max((len(_ids(r)) for r in {p.isr for p in parts}), default=0),
            max(
                map(len, map(_elr_text, {(p.elr, p.last_known_elr): p for p in parts}.values())),
                default=0,
            ),
            max((len(_ids(r)) for r in {p.offline_replicas for p in parts}), default=0),
            _health_width(parts, self.offline_brokers),
        ]
        return [max(len(h), w) for h, w in zip(self.COLUMNS, cells, strict=True)]

    def cells(self, index: int) -> list[Text]:
        """The row's cells as drawn (tests read them)."""
        p = self.partitions[index]
        adding, removing = self.moving.get(p.partition, ((), ()))
        view = ReplicaView(p.replicas, p.leader, p.isr, p.offline_replicas, adding, removing)
        if p.leader < 0 or p.leader in self.offline_brokers:
            health = Text("NO LEADER", style=self._style(ReplicaState.OFFLINE))
        elif p.under_replicated:
            health = Text("under-replicated", style=self._style(ReplicaState.OUT_OF_SYNC))
        else:
            health = Text("ok")
        return [
            Text(str(p.partition)),
            Text(str(p.leader) if p.leader >= 0 else "none"),
            replica_text(view, self.offline_brokers, self._style),
            Text(_ids(p.isr)),
            Text(_elr_text(p)),
            Text(_ids(p.offline_replicas)),
            health,
        ]

    def _style(self, state: ReplicaState) -> Style:
        if state not in self._states:
            self._states[state] = self.replica_style(state)
        return self._states[state]

    def header_text(self) -> str:
        return "".join(f" {h.ljust(w)} " for h, w in zip(self.COLUMNS, self.widths, strict=True))

    def header_style(self) -> Style:
        return self.get_component_rich_style("partition-table--header")

    def row_text(self, index: int) -> str:
        return "".join(
            f" {c.plain.ljust(w)} " for c, w in zip(self.cells(index), self.widths, strict=True)
        )

    def render_lines(self, crop: Region) -> list[Strip]:
        self._states.clear()  # the theme's styles, looked up once a redraw
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        index = y - 1 + self.scroll_offset.y
        if y == 0 or index >= self.row_count:
            return super().render_line(y)
        base = self.rich_style if self._base_style is None else self._base_style
        row = base + self._cursor_style(index)
        line = Text(style=row, end="")
        for cell, width in zip(self.cells(index), self.widths, strict=True):
            line.append(" ")
            line.append_text(cell)
            line.append(" " * (width - cell.cell_len + 1))
        scroll_x, width = self.scroll_offset.x, self.size.width
        strip = Strip(line.render(self.app.console))
        return strip.crop(scroll_x, scroll_x + width).extend_cell_length(width, row)


def _health_width(parts: Sequence[PartitionInfo], offline: Collection[int]) -> int:
    """The widest health a partition has (at most: "under-replicated" may be a "NO LEADER")."""
    if any(len(isr) < len(replicas) for replicas, isr in {(p.replicas, p.isr) for p in parts}):
        return len("under-replicated")
    if any(leader < 0 or leader in offline for leader in {p.leader for p in parts}):
        return len("NO LEADER")
    return len("ok") if parts else 0


def _replicas_width(replicas: Sequence[int]) -> int:
    return sum(len(str(b)) + (2 if b < 0 else 1) for b in replicas) + len(replicas) - 1


def _ids(brokers: Sequence[int]) -> str:
    return ",".join(map(str, brokers))


def _elr_text(p: PartitionInfo) -> str:
    """Eligible leader replicas, then the last known ones after `/`; `?` where the broker
    cannot say (before Kafka 3.8, ZooKeeper mode)."""
    if p.elr is None:
        return "?"
    last = ",".join(map(str, p.last_known_elr or ()))
    return ",".join(map(str, p.elr)) + (f" / {last}" if last else "")


class PreviewTable(ReplicaStyled, DataTable[object]):
    """A proposed assignment (first replica = preferred leader), before it is sent."""

    COMPONENT_CLASSES: ClassVar[set[str]] = DataTable.COMPONENT_CLASSES | REPLICA_CLASSES

    def on_mount(self) -> None:
        self.add_columns("Partition", "Replicas (first = leader)")

    def show(
        self, first_partition: int, lists: Sequence[Sequence[int]], offline: Collection[int]
    ) -> None:
        self.clear()
        for offset, replicas in enumerate(lists):
            view = ReplicaView(replicas, leader=replicas[0] if replicas else None)
            self.add_row(
                str(first_partition + offset), replica_text(view, offline, self.replica_style)
            )
        fit_height(self)
