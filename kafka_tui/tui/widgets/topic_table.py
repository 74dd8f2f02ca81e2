"""The virtual topics table (a VirtualTable): only the visible lines are drawn, so 10,000
topics load and filter instantly (a DataTable takes about a second to add 10,000 rows)."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter, itemgetter, lt, ne
from typing import Any, ClassVar, overload

from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message

from ...admin import TopicDescription
from .virtual_table import VirtualTable


# Not frozen: a frozen dataclass's __init__ (object.__setattr__ per field) took ~2.5x as
# long, for every topic at every refresh (200,000 on the largest clusters). Nothing changes
# a row after it is made.
@dataclass(slots=True)
class TopicRow:
    name: str
    partitions: int
    replication_factor: int
    under_replicated: int
    offline_replicas: int
    unavailable: int
    internal: bool
    under_min_isr: int = 0
    at_min_isr: int = 0
    # Partitions led by a replica other than their preferred one (the first replica).
    not_preferred: int = 0
    # kafka-tui's own record topic (KIP-409 placeholders): shown like an internal topic and
    # left out of the health counts and the toggle filters, whose findings are the user's.
    own: bool = False

    @classmethod
    def of(
        cls,
        topic: TopicDescription,
        live: set[int] | None,
        min_isr: int | None,
        own: bool = False,
    ) -> TopicRow:
        """The topic's health counted over its partitions, column by column: every partition's
        leader, replicas and ISR taken apart in one zip, then counted by passes that run in
        C (this runs for every partition at every refresh: 2,000,000 on the largest
        clusters; ~40% faster than one Python loop over the partitions)."""
        parts = topic.partitions
        if not parts:
            return cls(topic.name, 0, 0, 0, 0, 0, topic.internal, own=own)
        _, leaders, replicas, isrs, offline, _, _ = zip(*parts, strict=True)
        counts = list(map(len, replicas))
        if min(leaders) < 0 or not min(counts):
            return cls.of_each(topic, live, min_isr, own)
        in_sync = list(map(len, isrs))
        under_min = at_min = 0
        if min_isr:
            under_min = sum(map(min_isr.__gt__, in_sync))
            at_min = in_sync.count(min_isr)
        return cls(
            topic.name,
            len(parts),
            max(counts),
            sum(map(lt, in_sync, counts)),
            sum(map(len, offline)),
            0 if live is None else len(leaders) - sum(map(live.__contains__, leaders)),
            topic.internal,
            under_min,
            at_min,
            sum(map(ne, leaders, map(_FIRST, replicas))),
            own,
        )

    @classmethod
    def of_each(
        cls,
        topic: TopicDescription,
        live: set[int] | None,
        min_isr: int | None,
        own: bool = False,
    ) -> TopicRow:
        """As `of`, one partition at a time: for a topic with a partition without a leader or
        without replicas."""
        replication_factor = under_replicated = offline = unavailable = under_min = at_min = 0
        not_preferred = 0
        for p in topic.partitions:
            replicas = p.replicas
            count = len(replicas)
            if count > replication_factor:
                replication_factor = count
            leader = p.leader
            in_sync = len(p.isr)
            if in_sync < count:
                under_replicated += 1
            if p.offline_replicas:
                offline += len(p.offline_replicas)
            if leader < 0:
                unavailable += 1
            else:
                if count and leader != replicas[0]:
                    not_preferred += 1
                if live is not None and leader not in live:
                    unavailable += 1
            if min_isr:
                if in_sync < min_isr:
                    under_min += 1
                elif in_sync == min_isr:
                    at_min += 1
        return cls(
            name=topic.name,
            partitions=len(topic.partitions),
            replication_factor=replication_factor,
            under_replicated=under_replicated,
            offline_replicas=offline,
            unavailable=unavailable,
            internal=topic.internal,
            under_min_isr=under_min,
            at_min_isr=at_min,
            not_preferred=not_preferred,
            own=own,
        )

    @property
    def marker(self) -> str:
        if self.own:
            return "  "
        if self.unavailable:
            return "!!"
        if self.under_replicated or self.offline_replicas:
            return "~ "
        if self.not_preferred:
            return "^ "
        return "  "


_NAME = attrgetter("name")
_FIRST = itemgetter(0)
# What a worker thread frees at a time (`let_go`): ~1-3 ms of the interpreter each.
RELEASE_SLICE = 5000


def let_go(*held: list[Any]) -> None:
    """Empties each list a slice at a time, from its end: what its items alone held is freed
    in steps the UI thread can run between (from a worker thread). The last read's 200,000
    rows, names and indexes freed at once, when the screen let go of them, held the UI
    thread ~50 ms (issue 52), and a real read's 2,000,000 partitions more."""
    for items in held:
        while items:
            del items[-RELEASE_SLICE:]


class TopicRows(Sequence[TopicRow]):
    """Every topic's row, in the topics' (name) order, each counted the first time it is
    asked for: the topics screen's first frame draws the 40 rows it shows instead of waiting
    for 200,000 (~6 us a topic: 1.2 s on the largest clusters; issue 52); `fill` counts the
    rest, off the UI thread, for the health line and the toggle filters. `names`: the topics'
    names, known without a row. A row is counted at most once per thread that asks for it
    (two threads may both count one; they count the same)."""

    __slots__ = ("_filled", "_live", "_min_isr", "_own", "_rows", "names", "topics")

    def __init__(
        self,
        topics: Sequence[TopicDescription],
        live: set[int] | None,
        min_isr: Mapping[str, int],
        own: str | None,
    ) -> None:
        self.topics = topics
        self.names = [t.name for t in topics]
        self._live, self._min_isr, self._own = live, min_isr, own
        self._rows: list[TopicRow | None] = [None] * len(topics)
        self._filled = False

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, index: int) -> TopicRow: ...

    @overload
    def __getitem__(self, index: slice) -> list[TopicRow]: ...

    def __getitem__(self, index: int | slice) -> TopicRow | list[TopicRow]:
        if isinstance(index, slice):
            return [self[i] for i in range(len(self))[index]]
        row = self._rows[index]
        if row is None:
            topic = self.topics[index]
            name = topic.name
            row = TopicRow.of(topic, self._live, self._min_isr.get(name), name == self._own)
            self._rows[index] = row
        return row

    def __iter__(self) -> Iterator[TopicRow]:
        """Every row (a toggle filter's pass): counted first, then walked in C."""
        return iter(self.fill())

    def release(self) -> None:
        """Every row, name and topic let go of (`let_go`): once no screen shows these rows
        and no thread counts them. Empties `topics`, which the caller handed over."""
        topics = self.topics
        self.topics = ()
        let_go(self._rows, self.names, *([topics] if isinstance(topics, list) else []))

    def fill(self) -> list[TopicRow]:
        """Every row counted; the rows, as a list."""
        rows = self._rows
        if not self._filled:
            live, min_isr, own = self._live, self._min_isr, self._own
            rows[:] = [
                TopicRow.of(t, live, min_isr.get(t.name), t.name == own) if r is None else r
                for r, t in zip(rows, self.topics, strict=True)
            ]
            self._filled = True
        return rows  # type: ignore[return-value]  # no None left


class ShownRows(Sequence[TopicRow]):
    """Some of `rows` (a filter's matches), by their indexes in `rows`, ascending: a row
    is counted when drawn, not when matched."""

    __slots__ = ("indexes", "rows")

    def __init__(self, rows: Sequence[TopicRow], indexes: list[int]) -> None:
        self.rows = rows
        self.indexes = indexes

    def __len__(self) -> int:
        return len(self.indexes)

    @overload
    def __getitem__(self, index: int) -> TopicRow: ...

    @overload
    def __getitem__(self, index: slice) -> list[TopicRow]: ...

    def __getitem__(self, index: int | slice) -> TopicRow | list[TopicRow]:
        if isinstance(index, slice):
            return [self.rows[i] for i in self.indexes[index]]
        return self.rows[self.indexes[index]]

    def __iter__(self) -> Iterator[TopicRow]:
        rows = self.rows.fill() if isinstance(self.rows, TopicRows) else self.rows
        return map(rows.__getitem__, self.indexes)


_COLUMNS: list[tuple[str, int]] = [
    ("Partitions", 10),
    ("RF", 3),
    ("Under-repl", 10),
    ("Offline", 7),
    ("No leader", 9),
    ("Internal", 8),
]


class TopicTable(VirtualTable):
    """Topics with their health. Enter opens one; space marks topics (for deletion)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "topic-table--header",
        "topic-table--cursor",
        "topic-table--warning",
        "topic-table--error",
        "topic-table--marked",
        "topic-table--placeholder",
        "topic-table--not-preferred",
        "topic-table--own",
    }
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "choose", "Open", id="topics.open"),
        Binding("space", "mark", "Mark", id="topics.mark", show=False),
    ]
    CURSOR_CLASS = "topic-table--cursor"

    class Chosen(Message):
        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: Sequence[TopicRow] = []
        self._name_column = 10
        self.marked: set[str] = set()
        # Topics with open KIP-409 placeholders (replicas no broker could take yet).
        self.placeholders: frozenset[str] = frozenset()
        # Topics with partitions being reassigned (ListPartitionReassignments).
        self.reassigning: frozenset[str] = frozenset()

    # -- data ------------------------------------------------------------------------------

    @property
    def row_count(self) -> int:
        return len(self.rows)

    @property
    def current(self) -> TopicRow | None:
        return self.rows[self.cursor] if 0 <= self.cursor < len(self.rows) else None

    def set_rows(self, rows: Sequence[TopicRow], longest_name: int | None = None) -> None:
        """Replace the rows, keeping the cursor on the same topic and the scroll position.

        `rows` come in name order (the admin lists topics so, and filters keep the order):
        the cursor's topic is found by bisection. `longest_name`: the length of the longest
        name in `rows`, when the caller knows it already. Runs at every filter keystroke:
        nothing here walks the rows in Python (100,000 of them on a large cluster)."""
        previous = self.current.name if self.current else None
        # Kept, not copied: the caller hands over rows it no longer changes (a list, or a
        # sequence whose rows are counted as they are drawn: TopicRows, ShownRows).
        self.rows = rows
        if longest_name is None:
            longest_name = max(map(len, map(_NAME, self.rows)), default=10)
        # Computed once per data change: render_line runs for every visible line.
        self._name_column = max(10, min(longest_name, 80))
        found = self._index_of(previous) if previous is not None else None
        if found is not None:
            self.cursor = found
        else:
            self.cursor = max(min(self.cursor, len(self.rows) - 1), 0)
        if self.marked:
            self.marked = {n for n in self.marked if self._index_of(n) is not None}
        self._resize(Size(self._width(), len(self.rows) + 1))
        self.scroll_cursor_into_view()
        self.refresh()
        self.highlighted()

    def _resize(self, size: Size) -> None:
        """The scrollable size for `size`'s rows. Setting `virtual_size` lays the whole screen
        out again and draws every widget of it (~2-3 ms of a keystroke's CPU); where the
        scroll bars stay as they are (rows taller than the table before and after, no row
        wider than it), only the vertical bar's length is told and the table redrawn."""
        before = self.virtual_size
        shown = self.scrollable_content_region
        if (
            size != before
            and self.show_vertical_scrollbar
            and not self.show_horizontal_scrollbar
            and min(before.height, size.height) > shown.height
            and max(before.width, size.width) <= shown.width
        ):
            self.set_reactive(VirtualTable.virtual_size, size)
            self.vertical_scrollbar.window_virtual_size = size.height
            self.vertical_scrollbar.refresh()
        else:
            self.virtual_size = size

    def _index_of(self, name: str) -> int | None:
        index = bisect_left(self.rows, name, key=_NAME)
        return index if index < len(self.rows) and self.rows[index].name == name else None

    def _width(self) -> int:
        return 2 + self._name_column + sum(w + 1 for _, w in _COLUMNS)

    # -- drawing ---------------------------------------------------------------------------

    def header_text(self) -> str:
        cells = ["  " + "Topic".ljust(self._name_column)] + [h.rjust(w) for h, w in _COLUMNS]
        return " ".join(cells)

    def header_style(self) -> Style:
        return self.get_component_rich_style("topic-table--header")

    def row_text(self, index: int) -> str:
        row = self.rows[index]
        name_width = self._name_column
        values = [
            row.partitions,
            row.replication_factor,
            row.under_replicated or "",
            row.offline_replicas or "",
            row.unavailable or "",
            "tui" if row.own else "yes" if row.internal else "",
        ]
        marker = (
            "+ "
            if row.name in self.marked
            else "? "
            if row.name in self.placeholders and not row.unavailable and not row.own
            else "> "
            if row.name in self.reassigning and not row.unavailable
            else row.marker
        )
        name = row.name if len(row.name) <= name_width else row.name[: name_width - 1] + "…"
        cells = [marker + name.ljust(name_width)]
        cells += [str(v).rjust(w) for v, (_, w) in zip(values, _COLUMNS, strict=True)]
        return " ".join(cells)

    def row_style(self, index: int) -> Style:
        row = self.rows[index]
        style = Style()
        if row.own:
            style += self.get_component_rich_style("topic-table--own")
        elif row.unavailable:
            style += self.get_component_rich_style("topic-table--error")
        elif row.name in self.placeholders:
            style += self.get_component_rich_style("topic-table--placeholder")
        elif row.under_replicated or row.offline_replicas:
            style += self.get_component_rich_style("topic-table--warning")
        elif row.not_preferred:
            style += self.get_component_rich_style("topic-table--not-preferred")
        if row.name in self.marked:
            style += self.get_component_rich_style("topic-table--marked")
        return style

    # -- acting ----------------------------------------------------------------------------

    def action_choose(self) -> None:
        if self.current:
            self.post_message(self.Chosen(self.current.name))

    def action_mark(self) -> None:
        if self.current:
            self.marked ^= {self.current.name}
            self.action_cursor(1)
            self.refresh()

    def on_click(self, event: events.Click) -> None:
        if event.y >= 1:
            index = event.y - 1 + self.scroll_offset.y
            if index == self.cursor and event.chain >= 2:
                self.action_choose()
            self.move_to(index)
