"""Home: the cluster header, the topics table with `/` filter and health toggles."""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import compress, islice, repeat
from operator import contains, le
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.timer import Timer
from textual.widgets import Input, Static

from ...admin import AdminError, ClusterInfo, TopicDescription
from ...admin.batches import KNOWN_INTERNAL_TOPICS
from ...config import Profile
from ...services.ports import AdminPort
from ..widgets.footer import KeysFooter
from ..widgets.topic_table import ShownRows, TopicRow, TopicRows, TopicTable, let_go
from .base import KafkaScreen, placeholder_store, refresh_interval

if TYPE_CHECKING:
    from ...services.placeholder_view import PlaceholderState

# The placeholders' view (filling, the placer, throttles) and the min-ISR read load when
# first needed, after the first frame (issue 52.1: ~20 ms of imports before it).

TOGGLES = {
    "under_replicated": "u under-replicated",
    "under_min_isr": "m <min ISR",
    "at_min_isr": "a =min ISR",
    "unavailable": "x unavailable",
    "not_preferred": "l not preferred",
}


class NameMatches:
    """The rows whose name holds a text (any case), in name order, and the length of their
    longest name; the answers for the texts typed on the way to the current one are kept.
    A key that extends the text searches the previous text's matches only (or every name,
    where those are most: a pass over every name costs less than one through indexes), a
    backspace finds its answer kept (issue 52: 200,000 topics searched at every key took
    26 ms). Every pass runs in C. An answer is the rows' indexes (ShownRows), one list: a
    row matched is not counted until it is drawn (TopicRows), and a key leaves one new list
    of 200,000 for the garbage collector to go through, not three (their collection was
    half a first key's time). Kafka's topic names are ASCII, so a lowered name is as long
    as the name. `names`: the rows' names, when the caller has them (TopicRows.names)."""

    FEW = 20_000  # matches whose longest name is found by a pass over them (`_longest`)

    def __init__(self, rows: Sequence[TopicRow], names: list[str] | None = None) -> None:
        self._rows = rows
        if names is None:
            names = [r.name for r in rows]
        lowered = self._lowered = [n.lower() for n in names]
        # Every index, longest name first: a text's longest match is the first of these that
        # matches (found in C, where the matches are many; see `_longest`). Put in order a
        # length at a time, in loops a refresh's thread can be interrupted in (a sort in C
        # held the UI thread ~20 ms at 200,000 names).
        by_length: dict[int, list[int]] = {}
        for index, name in enumerate(lowered):
            by_length.setdefault(len(name), []).append(index)
        self._by_length = [i for n in sorted(by_length, reverse=True) for i in by_length[n]]
        self._all = list(range(len(lowered)))
        at = self._by_length[0] if lowered else -1
        # Per text: its matches' indexes, the longest one's length and index (-1: not known).
        self._kept: dict[str, tuple[list[int], int, int]] = {
            "": (self._all, len(lowered[at]) if lowered else 0, at)
        }

    def release(self) -> None:
        """Every name and index let go of, a slice at a time (`let_go`, a worker thread)."""
        self._kept.clear()
        let_go(self._by_length, self._all, self._lowered)

    def _longest(self, text: str, indexes: list[int], at: int) -> tuple[int, int]:
        """The length of the longest name of `indexes` (the names holding `text`), and its
        index (-1: not known); `at`: the index of the longest before (-1: not known)."""
        everything = self._lowered
        if at >= 0 and text in everything[at]:  # the longest before still matches
            return len(everything[at]), at
        if len(indexes) <= self.FEW:  # a pass over them: under a millisecond
            return max(map(len, map(everything.__getitem__, indexes)), default=0), -1
        order = self._by_length
        at = next(compress(order, map(contains, map(everything.__getitem__, order), repeat(text))))
        return len(everything[at]), at

    def __call__(self, text: str) -> tuple[Sequence[TopicRow], int]:
        kept = self._kept
        if text not in kept:
            # Only the texts on the way to this one are kept (each contains the ones before).
            for key in [k for k in kept if not text.startswith(k)]:
                del kept[key]
            indexes, longest, at = kept[max(kept, key=len)]
            everything = self._lowered
            if 3 * len(indexes) > 2 * len(everything):
                names: Iterable[str] = everything
                among = self._all
            else:
                names, among = map(everything.__getitem__, indexes), indexes
            found = list(compress(among, map(contains, names, repeat(text))))
            if len(found) < len(indexes):
                indexes = found
                longest, at = self._longest(text, indexes, at)
            kept[text] = indexes, longest, at
        indexes, longest, _ = kept[text]
        if indexes is self._all:
            return self._rows, longest
        return ShownRows(self._rows, indexes), longest


@dataclass
class Filters:
    text: str = ""
    on: set[str] = field(default_factory=set)

    @property
    def needs_min_isr(self) -> bool:
        return bool(self.on & {"under_min_isr", "at_min_isr"})

    def apply(self, names: NameMatches) -> tuple[Sequence[TopicRow], int]:
        """The rows to show, and the length of their longest name (the table's name column).
        Runs on every keystroke over every topic (200,000 on a large cluster). A toggle
        counts every row the name matches (TopicRows: those not counted yet are now)."""
        shown, longest = names(self.text)
        for name in sorted(self.on):
            shown = [r for r in shown if getattr(r, name) > 0 and not r.own]
        if self.on:
            longest = max((len(r.name) for r in shown), default=0)
        return shown, longest


@dataclass(frozen=True)
class TopicsView:
    """What the topics screen makes of one read: the topics by name, their rows in name
    order (each counted when first drawn: TopicRows), and the rows' name search. The health
    line is counted after the first frame (`health`)."""

    by_name: dict[str, TopicDescription]
    rows: TopicRows
    names: NameMatches

    @classmethod
    def of(
        cls, topics: list[TopicDescription], live: set[int], min_isr: dict[str, int], own: str
    ) -> TopicsView:
        by_name = {t.name: t for t in topics}
        names = [t.name for t in topics]
        if not all(map(le, names, islice(names, 1, None))):  # the table wants name order
            topics = sorted(topics, key=lambda t: t.name)
        rows = TopicRows(topics, live, min_isr, own)
        return cls(by_name, rows, NameMatches(rows, rows.names))

    def release(self) -> None:
        """The view let go of, a slice at a time, from a worker thread (`let_go`): once the
        table shows the next read and no thread counts these rows."""
        self.by_name.clear()
        self.names.release()
        self.rows.release()

    def health(self) -> tuple[str, int]:
        """The health line, and the partitions: every row counted (~6 us a topic; off the UI
        thread, in loops the UI thread can interrupt: one pass in C over 200,000 topics
        held it for ~100 ms)."""
        rows = self.rows.fill()
        urp = sum(1 for r in rows if r.under_replicated and not r.own)
        unavailable = sum(1 for r in rows if r.unavailable and not r.own)
        partitions = sum(r.partitions for r in rows)
        return f"{urp} under-replicated · {unavailable} unavailable", partitions


class _CollectionPause:
    """Python's cyclic garbage collector, paused while a refresh reads and builds its objects.

    A refresh makes about ten objects per partition (decoded dicts and lists, PartitionInfo,
    rows); on big clusters the collector's full passes in the middle of it were half of the
    refresh's CPU time (bench/README.md, "Figures behind constants"). None of these objects
    form cycles, so collecting after the refresh loses nothing. The
    pause lasts one read at most (bounded by the request timeout; connecting is outside it),
    and is counted because a refresh being cancelled can overlap the next one.
    """

    def __init__(self) -> None:
        self._holders = 0
        self._resume = False
        self._collected = time.monotonic()  # the last full collection (`settle`)
        # Whether `settle` froze the last read. Not gc.get_freeze_count(): it walks every
        # frozen object (2,700,000 at 2,000,000 partitions: 100-300 ms of the UI thread as
        # each refresh began; issue 52).
        self._frozen = False

    def __enter__(self) -> None:
        if self._holders == 0:
            if self._frozen:
                # The last big read is frozen (`settle`): a collection over what came since
                # is quick, and takes what became garbage since before the next freeze does.
                gc.collect()
            self._resume = gc.isenabled()
            gc.disable()
        self._holders += 1

    def __exit__(self, *exc: object) -> None:
        self._holders -= 1
        if self._holders == 0 and self._resume:
            gc.enable()

    def unfreeze(self) -> None:
        """Everything frozen back in the collector's view (also what a bench's app left)."""
        gc.unfreeze()
        self._frozen = False

    def settle(self, partitions: int, now: float | None = None) -> None:
        """Once a refresh of `partitions` is on screen (the UI thread): the collections the
        pause held back. Under FREEZE_AT_PARTITIONS, a full collection, as before. From
        there on (called before the pause ends), everything alive is moved out of the
        collector's view (gc.freeze): a full collection over 2,000,000 partitions' records
        took 0.6-1 s of the UI thread after every refresh (issue 52), and the next
        refresh's objects replace these (freed by their counts: no cycles). What became
        garbage between two refreshes is collected when the next begins (`__enter__`);
        what was alive at a freeze and has become garbage in a cycle since (a screen open
        across a refresh, then closed) by a full collection over everything, at most every
        FULL_COLLECTION_EVERY seconds."""
        if partitions < FREEZE_AT_PARTITIONS:
            self.unfreeze()  # (a cluster that has shrunk)
            gc.collect()
            return
        now = time.monotonic() if now is None else now
        if now - self._collected >= FULL_COLLECTION_EVERY:
            self.unfreeze()
            gc.collect()
            self._collected = now
        gc.freeze()
        self._frozen = True


# A refresh of at least this many partitions is frozen out of the garbage collector's view
# once on screen (_CollectionPause.settle); below, a full collection costs under ~30 ms.
FREEZE_AT_PARTITIONS = 100_000
# ...and a full collection runs at most this often there (0.6-1 s at 2,000,000 partitions).
FULL_COLLECTION_EVERY = 600.0

_COLLECTION_PAUSE = _CollectionPause()


# A form opened from the topics screen places against the screen's last read instead of a
# fresh one when that read cost at least this much CPU (about 100,000 partitions, 0.22 s):
# reading every topic again would cost the broker as much, per form. ctrl+r in the form
# reads afresh. Below it, forms read the cluster themselves (exact, and cheap).
REUSE_READ_COST = 0.2


def cluster_line(info: ClusterInfo, profile: Profile, *, controller: bool = True) -> Text:
    """`controller=False`: the controller is not known yet ("…")."""
    text = Text()
    text.append(f"{profile.name}", style="bold")
    shown = info.controller_id if controller else "…"
    text.append(f"  cluster {info.cluster_id}  controller {shown}  brokers ")
    for b in info.brokers:
        state = "offline" if b.fenced else "up"
        marker = "!" if b.fenced else ""
        text.append(f" {b.id}{marker}", style="bold" if not b.fenced else "reverse")
        text.append(f"({b.rack or '-'},{state})")
    return text


class MetadataScreen(KafkaScreen):
    profile: Profile
    CHANGE_ACTIONS = frozenset({"create", "increase", "delete"})
    # The table has the focus from the start: Textual's default ("*") focused the filter box
    # first and on_mount moved it, each move restyling both and refreshing the footer's keys.
    AUTO_FOCUS = "#topics"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "P",
            "plan",
            "Plan",
            id="topics.plan",
            tooltip="Bulk plan: open a plan file, or grow the marked topics",
        ),
        Binding(
            "slash",
            "focus_filter",
            "Filter",
            id="topics.filter",
            tooltip="Filter topics by name",
            key_display="/",
        ),
        Binding("escape", "clear_filter", "Clear filter", show=False),
        Binding(
            "r", "refresh", "Refresh", id="topics.refresh", tooltip="Refresh the cluster metadata"
        ),
        Binding(
            "u",
            "toggle_filter('under_replicated')",
            "Toggle under-replicated filter",
            id="topics.toggle_urp",
            show=False,
        ),
        Binding(
            "m",
            "toggle_filter('under_min_isr')",
            "Toggle under-min-ISR filter",
            id="topics.toggle_under_min_isr",
            show=False,
        ),
        Binding(
            "a",
            "toggle_filter('at_min_isr')",
            "Toggle at-min-ISR filter",
            id="topics.toggle_at_min_isr",
            show=False,
        ),
        Binding(
            "x",
            "toggle_filter('unavailable')",
            "Toggle unavailable filter",
            id="topics.toggle_unavailable",
            show=False,
        ),
        Binding(
            "l",
            "toggle_filter('not_preferred')",
            "Toggle not-preferred-leader filter",
            id="topics.toggle_not_preferred",
            show=False,
        ),
        Binding("c", "create", "Create", id="topics.create", tooltip="Create a topic"),
        Binding(
            "b",
            "brokers",
            "Brokers",
            id="topics.brokers",
            tooltip="Brokers, their load and KIP-409 placeholders",
        ),
        Binding(
            "v",
            "records",
            "Records",
            id="topics.records",
            tooltip="The selected topic's records: newest first, follow, jq filter",
            show=False,
        ),
        Binding(
            "g",
            "groups",
            "Groups",
            id="topics.groups",
            tooltip="Consumer groups of every kind: lag in records and time, reset, delete",
            show=False,  # in ? and the palette; the footer is full at 80 columns
            # before the topic table's own `g` (first row); typed into the filter as text
            priority=True,
        ),
        Binding(
            "p",
            "increase",
            "Partitions",
            id="topics.increase",
            tooltip="Increase the partitions of the selected topic",
        ),
        Binding(
            "d",
            "delete",
            "Delete",
            id="topics.delete",
            tooltip="Delete the selected or marked topics",
        ),
    ]

    def __init__(self, profile: Profile, admin: AdminPort, refresh_seconds: float) -> None:
        super().__init__()
        self.profile = profile
        self.admin = admin
        self.refresh_seconds = refresh_seconds
        # The interval in use (refresh_interval) and the CPU time of the last refresh.
        self.interval = refresh_seconds
        self.refresh_cost = 0.0
        self._next_refresh: Timer | None = None
        self._shown_count = 0
        self.filters = Filters()
        self.topics: dict[str, TopicDescription] = {}
        self.rows: Sequence[TopicRow] = []
        self._names = NameMatches([])
        # The last read's view once its refresh ran to the end (no thread of it still counts
        # its rows): the next refresh frees it off the UI thread (TopicsView.release).
        self._settled: TopicsView | None = None
        self._health = ""
        self.cluster: ClusterInfo | None = None
        self.min_isr: dict[str, int] = {}
        self.placeholders: PlaceholderState | None = None  # read after the first frame
        self.loaded = asyncio.Event()

    def compose(self) -> ComposeResult:
        yield Static("Connecting…", id="cluster-header", markup=False)
        yield Static("", id="banner", markup=False)
        yield Static("", id="fill-banner", markup=False)
        yield Input(placeholder="/ filter topics by name", id="filter")
        yield Static("", id="toggles", markup=False)
        yield TopicTable(id="topics")
        yield Static("", id="status", markup=False)
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one("#banner").display = False
        self.query_one("#fill-banner").display = False
        self.query_one(TopicTable).focus()
        self.refresh_metadata()

    # -- loading ---------------------------------------------------------------------------

    @work(exclusive=True, group="refresh", exit_on_error=False)
    async def refresh_metadata(self) -> None:
        """Read the cluster again; then the next automatic refresh is due in `interval`
        seconds (also after a refresh asked for: it restarts the wait)."""
        started = time.process_time()
        try:
            await self.admin.ensure_connected()
            with _COLLECTION_PAUSE:
                await self._load()
        except AdminError as exc:
            self._show_banner(
                f"Connection problem: {exc.message} Retrying every "
                f"{self.interval:.0f}s; press r to retry now."
            )
        finally:
            self._schedule_refresh(time.process_time() - started)

    def _known_topics(self) -> list[TopicDescription] | None:
        """The topics for a form to place against (see REUSE_READ_COST), or None."""
        return list(self.topics.values()) if self.refresh_cost >= REUSE_READ_COST else None

    def _schedule_refresh(self, cost: float) -> None:
        if self.refresh_seconds <= 0:
            return
        self.refresh_cost = cost
        self.interval = refresh_interval(self.refresh_seconds, cost)
        if self._next_refresh is not None:
            self._next_refresh.stop()
        self._next_refresh = self.set_timer(self.interval, self.refresh_metadata)
        if self.rows:
            self._update_status()

    async def _load(self) -> None:
        # The first read's rows wait for no DescribeQuorum (KRaft's controller, for the
        # header; its first request loads kio, ~20 ms of CPU): it is read after the first
        # frame, and the header names the controller then (issue 52.1).
        first = self.cluster is None
        cluster, topics = await asyncio.gather(
            self.admin.describe_cluster(quorum=not first), self.admin.list_topics()
        )
        min_isr = self.min_isr
        if self.filters.needs_min_isr:
            from ...services.snapshot import min_insync_replicas

            min_isr = await min_insync_replicas(self.admin, [t.name for t in topics])
        # Off the UI thread, as the rows' count below: at 2,000,000 partitions (200,000
        # topics) the view takes ~0.1 s and counting every row ~1.2 s, which keys and
        # redraws would otherwise wait for (issue 52).
        live, own = set(cluster.live_broker_ids), self.profile.placeholders_topic
        view = await asyncio.to_thread(TopicsView.of, topics, live, min_isr, own)
        if self.filters.on:  # a toggle filter counts every row: not on the UI thread
            await asyncio.to_thread(view.rows.fill)
        self._show_banner(None)
        self.cluster, self.min_isr = cluster, min_isr
        retired, self._settled = self._settled, None
        self.topics, self.rows, self._names = view.by_name, view.rows, view.names
        if not self._health:
            self._health = "counting…"
        header = self.query_one("#cluster-header", Static)
        header.update(cluster_line(cluster, self.profile, controller=not first))
        self.apply_filters()
        # The first frame is drawn while the rows are counted (the last read's health line
        # shows until then).
        self._health, partitions = await asyncio.to_thread(view.health)
        self._update_status()
        if first:
            # Once the rows are on screen: counting a few topics takes no time, and this
            # task would otherwise go on before Textual draws them.
            await self.wait_for_refresh()
            self.cluster = cluster = await self.admin.describe_cluster()
            header.update(cluster_line(cluster, self.profile))
        # The rows are drawn while the marks are read (placeholders, moves): they count
        # every partition again, and a first frame of a large cluster need not wait.
        from ...services.placeholder_view import NO_PLACEHOLDERS, read_placeholder_state

        store = placeholder_store(self, self.profile)
        # What it finds first, without its pass over every topic on the UI thread (~80 ms at
        # 200,000): no placeholder topic, no placeholders.
        placeholders = (
            await read_placeholder_state(self.admin, store, cluster, topics, view.by_name)
            if store.topic in view.by_name
            else NO_PLACEHOLDERS
        )
        try:
            moving = {r.topic for r in await self.admin.list_partition_reassignments()}
        except AdminError:  # e.g. no permission to list them: the mark is a hint only
            moving = set()
        table = self.query_one(TopicTable)
        table.reassigning = frozenset(moving)
        self._show_fill_banner(placeholders)
        table.refresh()
        # The collections the pause held back come due now; run them once the table is on
        # screen rather than on the next keystroke. A big read is frozen before the pause
        # ends instead: the first collection after it would go through all of it (a
        # young-generation pass over the 200,000 rows alone took ~130 ms).
        if retired is not None and retired.rows is not view.rows:
            await asyncio.to_thread(retired.release)
        del retired
        if partitions >= FREEZE_AT_PARTITIONS:
            _COLLECTION_PAUSE.settle(partitions)
        else:
            self.call_after_refresh(_COLLECTION_PAUSE.settle, partitions)
        self._settled = view
        self.loaded.set()

    def _show_fill_banner(self, state: PlaceholderState) -> None:
        self.placeholders = state
        self.query_one(TopicTable).placeholders = state.topics
        banner = self.query_one("#fill-banner", Static)
        banner.display = bool(state.fillable)
        if state.fillable:
            how = "from a read-write profile" if self.profile.read_only else "press b, then f"
            banner.update(
                f"{state.fillable} KIP-409 placeholder(s) can be filled by a live broker now "
                f"({state.where()}): {how}."
            )

    def _show_banner(self, message: str | None) -> None:
        banner = self.query_one("#banner", Static)
        banner.display = message is not None
        banner.update(message or "")

    def apply_filters(self) -> None:
        shown, longest = self.filters.apply(self._names)
        self.query_one(TopicTable).set_rows(shown, longest_name=longest)
        toggles = "Filters: " + " ".join(
            f"[{'x' if key in self.filters.on else ' '}]{label}" for key, label in TOGGLES.items()
        )
        # Both lines are one row high whatever their text: no new layout is needed.
        self._update_line("#toggles", toggles)
        self._shown_count = len(shown)
        self._update_status()

    def _update_status(self) -> None:
        stretched = (
            f" · refreshed every {self.interval:.0f}s (a read takes {self.refresh_cost:.1f}s)"
            if self.interval > self.refresh_seconds > 0
            else ""
        )
        self._update_line(
            "#status",
            f"{self._shown_count}/{len(self.rows)} topics · {self._health}{stretched} · "
            "~ URP  !! no leader  ^ not preferred  ? placeholders  > reassigning  + marked",
        )

    def _update_line(self, selector: str, text: str) -> None:
        line = self.query_one(selector, Static)
        if str(line.content) != text:
            line.update(text, layout=False)

    # -- actions ---------------------------------------------------------------------------

    @on(Input.Changed, "#filter")
    def filter_changed(self, event: Input.Changed) -> None:
        self.filters.text = event.value.strip().lower()
        self.apply_filters()

    @on(Input.Submitted, "#filter")
    def filter_done(self) -> None:
        self.query_one(TopicTable).focus()

    def _after_change(self, _: object) -> None:
        self.refresh_metadata()

    def action_focus_filter(self) -> None:
        self.query_one("#filter", Input).focus()

    def action_clear_filter(self) -> None:
        self.query_one("#filter", Input).value = ""
        self.query_one(TopicTable).focus()

    def action_refresh(self) -> None:
        self.refresh_metadata()

    def action_toggle_filter(self, name: str) -> None:
        self.filters.on ^= {name}
        if self.filters.needs_min_isr and not self.min_isr:
            self.refresh_metadata()
        self.apply_filters()

    @on(TopicTable.Chosen)
    def open_topic(self, event: TopicTable.Chosen) -> None:
        from .detail import TopicDetailScreen

        self.app.push_screen(
            TopicDetailScreen(self.profile, self.admin, event.name, self.cluster),
            callback=self._after_change,
        )

    def action_groups(self) -> None:
        from .groups import GroupsScreen

        if isinstance(self.focused, Input):
            raise SkipAction()
        self.app.push_screen(GroupsScreen(self.profile, self.admin, self.refresh_seconds))

    def action_create(self) -> None:
        from .create import CreateTopicScreen

        self.app.push_screen(
            CreateTopicScreen(
                self.admin, self.cluster, profile=self.profile, known=self._known_topics()
            ),
            callback=self._after_change,
        )

    def action_plan(self) -> None:
        from .plan import PlanScreen

        marked = sorted(self.query_one(TopicTable).marked)
        self.app.push_screen(
            PlanScreen(self.profile, self.admin, marked), callback=self._after_change
        )

    def action_brokers(self) -> None:
        from .brokers import BrokersScreen

        self.app.push_screen(BrokersScreen(self.profile, self.admin), callback=self._after_change)

    def action_records(self) -> None:
        from .records import RecordsScreen

        row = self.query_one(TopicTable).current
        if row is not None:
            self.app.push_screen(RecordsScreen(self.profile, self.admin, row.name))

    def action_increase(self) -> None:
        from .partitions import IncreasePartitionsScreen

        row = self.query_one(TopicTable).current
        if row is None:
            return
        self.app.push_screen(
            IncreasePartitionsScreen(
                self.admin,
                self.topics[row.name],
                self.cluster,
                profile=self.profile,
                known=self._known_topics(),
            ),
            callback=self._after_change,
        )

    def action_delete(self) -> None:
        table = self.query_one(TopicTable)
        names = sorted(table.marked) or ([table.current.name] if table.current else [])
        if names:
            self.delete_topics(names)

    @work(group="delete", exit_on_error=False)
    async def delete_topics(self, names: list[str]) -> None:
        from .changes import run_deletion

        internal = [
            n
            for n in names
            if n in KNOWN_INTERNAL_TOPICS
            or n == self.profile.placeholders_topic  # kafka-tui's own: its records would go
            or (n in self.topics and self.topics[n].internal)
        ]
        if await run_deletion(self, self.admin, names, internal):
            self.query_one(TopicTable).marked.clear()
            self.refresh_metadata()
