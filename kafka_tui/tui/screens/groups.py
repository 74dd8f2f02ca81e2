"""Consumer groups of every kind: the groups screen (`g`: every group, or the readers of one
topic) and a group's detail (`enter`): lag per partition in records and in time, a sparkline
of the group's lag over the looks kept since the screen opened, members and assignments.

One `GroupLooks` lives as long as the groups screen: each refresh (the topics screen's
cadence) adds a look per group, so the status (services/group_status.py) and the sparkline
cover the time the screen has been open. An open detail is redrawn from the same reads.
"""

from __future__ import annotations

import time
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.timer import Timer
from textual.widgets import DataTable, Footer, Input, Sparkline, Static

from ...admin import AdminError
from ...admin.protocol_groups import CONSUMER, SHARE, STREAMS
from ...config import Profile
from ...services.group_status import ERR, STALL, STOP, WARN
from ...services.groups import GroupLooks, GroupView, age, list_groups
from ...services.parsing import UsageError
from ...services.ports import AdminPort
from .base import KafkaScreen, refresh_interval

# Statuses drawn in the warning / error colour; the word itself is the NO_COLOR marker.
_WARNING = frozenset({WARN, STALL, STOP})


class GroupTable(DataTable[Text | str]):
    """A DataTable whose status cells take the theme's warning and error colours."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"group-table--warning", "group-table--error"}

    def status_cell(self, status: str) -> Text:
        if status == ERR:
            style = self.get_component_rich_style("group-table--error", partial=True)
        elif status in _WARNING:
            style = self.get_component_rich_style("group-table--warning", partial=True)
        else:
            style = None
        return Text(status or "-", style=style or "")


def lag_text(view: GroupView) -> str:
    lag = "-" if view.lag is None else f"{view.lag}"
    return f"{lag} records, {age(view.lag_seconds)}"


def _count(value: int | None) -> str:
    return "?" if value is None else str(value)


class GroupsScreen(KafkaScreen):
    """Every group (or those with offsets on `topic`), refreshed on the topics screen's
    cadence."""

    profile: Profile
    CHANGE_ACTIONS = frozenset({"delete"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="groups.back"),
        Binding(
            "slash",
            "focus_filter",
            "Filter",
            id="groups.filter",
            tooltip="Filter groups by name",
            key_display="/",
        ),
        Binding("r", "refresh", "Refresh", id="groups.refresh", tooltip="Read the groups again"),
        Binding(
            "d",
            "delete",
            "Delete",
            id="groups.delete",
            tooltip="Delete the selected group (refused while it has members)",
        ),
    ]

    def __init__(
        self,
        profile: Profile,
        admin: AdminPort,
        refresh_seconds: float,
        *,
        topic: str | None = None,
    ) -> None:
        super().__init__()
        self.profile = profile
        self.admin = admin
        self.refresh_seconds = refresh_seconds
        self.interval = refresh_seconds
        self.topic = topic
        self.looks = GroupLooks()
        self.views: dict[str, GroupView] = {}
        self.unchecked: dict[str, str] = {}
        self.filter_text = ""
        self.opened = time.monotonic()
        self.reads = 0
        self._next_refresh: Timer | None = None
        self.detail: GroupDetailScreen | None = None

    def compose(self) -> ComposeResult:
        yield Static(self._title(), id="groups-header", markup=False)
        yield Input(placeholder="/ filter groups by name", id="group-filter")
        yield Static("", id="groups-unchecked", markup=False)
        yield GroupTable(id="groups", cursor_type="row", zebra_stripes=False)
        yield Static("Reading the groups…", id="groups-status", markup=False)
        yield Footer()

    def _title(self) -> str:
        what = f"Readers of topic {self.topic}" if self.topic else "Consumer groups"
        return f"{what}  ({self.profile.name})"

    def on_mount(self) -> None:
        table = self.query_one(GroupTable)
        table.add_columns("Group", "Kind", "State", "Status", "Members", "Lag", "Lag time")
        self.query_one("#groups-unchecked").display = False
        table.focus()
        self.refresh_groups()

    # -- reading ---------------------------------------------------------------------------

    @work(exclusive=True, group="groups", exit_on_error=False)
    async def refresh_groups(self) -> None:
        started = time.process_time()
        try:
            read = await list_groups(self.admin, topic=self.topic, looks=self.looks)
        except (AdminError, UsageError) as exc:
            message = exc.message if isinstance(exc, AdminError) else str(exc)
            self._update("#groups-status", f"Cannot read the groups: {message} (r retries)")
        else:
            self.reads += 1
            self.views = {v.group: v for v in read.views}
            self.unchecked = dict(read.unchecked)
            self.show_groups()
            if self.detail is not None and self.detail in self.app.screen_stack:
                self.detail.show(self.views.get(self.detail.group))
        finally:
            self._schedule(time.process_time() - started)

    def _schedule(self, cost: float) -> None:
        """The topics screen's cadence: `refresh_seconds`, stretched for costly reads."""
        if self.refresh_seconds <= 0:
            return
        self.interval = refresh_interval(self.refresh_seconds, cost)
        if self._next_refresh is not None:
            self._next_refresh.stop()
        self._next_refresh = self.set_timer(self.interval, self.refresh_groups)

    def show_groups(self) -> None:
        table = self.query_one(GroupTable)
        current = self.current
        table.clear()
        shown = [v for v in self.views.values() if self.filter_text in v.group.lower()]
        for v in sorted(shown, key=lambda v: v.group):
            table.add_row(
                v.group,
                v.type,
                v.state,
                table.status_cell(v.status if not v.error else ERR),
                _count(v.member_count),
                "-" if v.lag is None else str(v.lag),
                age(v.lag_seconds),
                key=v.group,
            )
        if current is not None and current in {v.group for v in shown}:
            table.move_cursor(row=table.get_row_index(current))
        unchecked = self.query_one("#groups-unchecked", Static)
        unchecked.display = bool(self.unchecked)
        unchecked.update(
            "Not read: " + ", ".join(f"{what} ({name})" for what, name in self.unchecked.items())
        )
        lagging = sum(1 for v in self.views.values() if v.lag)
        kept = max((len(self.looks.lags(g)) for g in self.views), default=0)
        cadence = f" · refreshed every {self.interval:.0f}s" if self.refresh_seconds > 0 else ""
        self._update(
            "#groups-status",
            f"{len(shown)}/{len(self.views)} groups · {lagging} lagging · {kept} look(s) kept"
            f"{cadence} · STOP no member · STALL not moving · WARN lag growing · ERR behind log",
        )

    def _update(self, selector: str, text: str) -> None:
        self.query_one(selector, Static).update(text)

    @property
    def current(self) -> str | None:
        table = self.query_one(GroupTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        return str(key.value) if key.value is not None else None

    # -- actions ---------------------------------------------------------------------------

    @on(Input.Changed, "#group-filter")
    def filter_changed(self, event: Input.Changed) -> None:
        self.filter_text = event.value.strip().lower()
        self.show_groups()

    @on(Input.Submitted, "#group-filter")
    def filter_done(self) -> None:
        self.query_one(GroupTable).focus()

    def action_focus_filter(self) -> None:
        self.query_one("#group-filter", Input).focus()

    def action_back(self) -> None:
        field = self.query_one("#group-filter", Input)
        if field.value or field.has_focus:
            field.value = ""
            self.query_one(GroupTable).focus()
            return
        self.app.pop_screen()

    def action_refresh(self) -> None:
        self.refresh_groups()

    @on(DataTable.RowSelected, "#groups")
    def open_group(self, event: DataTable.RowSelected) -> None:
        name = str(event.row_key.value)
        self.detail = GroupDetailScreen(self, name)
        self.app.push_screen(self.detail)

    def action_delete(self) -> None:
        name = self.current
        if name is not None and name in self.views:
            self.delete_group(self.views[name])

    @work(group="group-delete", exit_on_error=False)
    async def delete_group(self, view: GroupView) -> None:
        from .group_changes import run_group_deletion  # loaded when first used (issue 52)

        if await run_group_deletion(self, self.admin, view):
            self.deleted(view.group)

    def deleted(self, group: str) -> None:
        self.looks.looks.pop(group, None)
        self.refresh_groups()


class GroupDetailScreen(KafkaScreen):
    """One group: status and reason, lag in records and time, the lag sparkline, per
    partition lag, members with their assignments (and KIP-848 target and epoch)."""

    CHANGE_ACTIONS = frozenset({"reset", "delete"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back", id="group.back"),
        Binding("r", "refresh", "Refresh", id="group.refresh", tooltip="Read the groups again"),
        Binding(
            "R",
            "reset",
            "Reset offsets",
            id="group.reset",
            tooltip="Reset this group's offsets (previewed, then confirmed)",
        ),
        Binding("d", "delete", "Delete", id="group.delete", tooltip="Delete this group"),
    ]

    def __init__(self, owner: GroupsScreen, group: str) -> None:
        super().__init__()
        self.owner = owner
        self.profile = owner.profile
        self.admin = owner.admin
        self.group = group
        self.view: GroupView | None = owner.views.get(group)

    def compose(self) -> ComposeResult:
        yield Static(f"Group {self.group}", id="group-header", markup=False)
        with VerticalScroll(id="group-body"):
            yield Static("", id="group-status", markup=False)
            yield Static("", id="group-lag", markup=False)
            yield Static("", id="group-trend", markup=False)
            yield Sparkline([], id="group-sparkline")
            yield Static("Partitions", classes="section")
            yield DataTable(id="group-offsets", cursor_type="row")
            yield Static("", id="group-notes", markup=False)
            yield Static("Members", id="group-members-title", classes="section")
            yield DataTable(id="group-members", cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#group-offsets", DataTable).add_columns(
            "Topic", "Partition", "Committed", "Log start", "Log end", "Lag", "Lag time", "Member"
        )
        self.show(self.view)
        self.query_one("#group-offsets", DataTable).focus()

    def on_unmount(self) -> None:
        if self.owner.detail is self:
            self.owner.detail = None

    def show(self, view: GroupView | None) -> None:
        self.view = view
        header = self.query_one("#group-header", Static)
        if view is None:
            header.update(f"Group {self.group}: not found (deleted, or no longer listed)")
            return
        header.update(
            f"Group {view.group}  kind {view.type}  state {view.state}  coordinator "
            f"{_count(view.coordinator)}  protocol {view.protocol or '-'}  members "
            f"{_count(view.member_count)}" + (f"  epoch {view.epoch}" if view.epoch else "")
        )
        status = self.query_one("#group-status", Static)
        if view.error:
            status.update(f"ERR ({view.error}): {view.message}")
        else:
            status.update(f"Status {view.status or '-'}: {view.status_reason or '-'}")
        status.set_class(view.status in _WARNING, "warning")
        status.set_class(view.status == ERR or bool(view.error), "error")
        reads = f"  reads {', '.join(view.source_topics)}" if view.source_topics else ""
        self.query_one("#group-lag", Static).update(f"Lag {lag_text(view)}{reads}")
        lags = self.owner.looks.lags(view.group)
        span = time.monotonic() - self.owner.opened
        self.query_one("#group-trend", Static).update(
            f"Lag over {len(lags)} look(s) in {age(span)} since the screen opened: "
            + (f"{lags[0]} -> {lags[-1]} records, at most {max(lags)}" if lags else "none yet")
        )
        self.query_one(Sparkline).data = [float(x) for x in lags] or [0.0]
        self._show_offsets(view)
        self._show_members(view)

    def _show_offsets(self, view: GroupView) -> None:
        table = self.query_one("#group-offsets", DataTable)
        table.clear()
        for p in view.offsets:
            table.add_row(
                p.topic,
                str(p.partition),
                "-" if p.committed is None else str(p.committed),
                "-" if p.log_start is None else str(p.log_start),
                "-" if p.log_end is None else str(p.log_end),
                "-" if p.lag is None else str(p.lag),
                age(p.lag_seconds) + (" *" if p.note and p.lag else ""),
                p.member_id or "-",
            )
        notes = [f"* {p.topic}-{p.partition}: {p.note}" for p in view.offsets if p.note and p.lag]
        shown = self.query_one("#group-notes", Static)
        shown.display = bool(notes)
        shown.update("\n".join(notes))

    def _show_members(self, view: GroupView) -> None:
        table = self.query_one("#group-members", DataTable)
        table.clear(columns=True)
        targets = view.type in (CONSUMER, SHARE, STREAMS)
        columns = ["Member", "Client", "Host", "Assigned"]
        if targets:
            columns[3:3] = ["Epoch"]
            columns.append("Target")
        table.add_columns(*columns)
        members = view.members or ()
        self.query_one("#group-members-title", Static).update(
            f"Members ({len(members)})" if view.members is not None else "Members (not read)"
        )
        for m in members:
            row = [m.member_id, m.client_id, m.host, _assignment(m.assignment)]
            if targets:
                row[3:3] = ["-" if m.epoch is None else str(m.epoch)]
                row.append("-" if m.target is None else _assignment(m.target))
            table.add_row(*row)

    def action_refresh(self) -> None:
        self.owner.refresh_groups()

    def action_delete(self) -> None:
        if self.view is not None:
            self.delete_group(self.view)

    @work(group="group-delete", exit_on_error=False)
    async def delete_group(self, view: GroupView) -> None:
        from .group_changes import run_group_deletion  # loaded when first used (issue 52)

        if await run_group_deletion(self, self.admin, view):
            self.app.pop_screen()
            self.owner.deleted(view.group)

    def action_reset(self) -> None:
        if self.view is not None:
            self.reset_offsets(self.view)

    @work(group="group-reset", exit_on_error=False)
    async def reset_offsets(self, view: GroupView) -> None:
        from .group_changes import GroupResetDialog  # loaded when first used (issue 52)

        outcome = await self.app.push_screen_wait(GroupResetDialog(self.admin, view))
        if outcome is not None and outcome.executed:
            # kafka-tui moved the offsets itself: the looks before are no window (a rewind
            # would read as ERR).
            self.owner.looks.forget_rewinds(view.group)
            self.owner.refresh_groups()


def _assignment(partitions: tuple[tuple[str, int], ...]) -> str:
    """'orders-0,1,2 payments-0': topics with their partition numbers."""
    by_topic: dict[str, list[int]] = {}
    for t, p in partitions:
        by_topic.setdefault(t, []).append(p)
    return " ".join(f"{t}-{','.join(map(str, ps))}" for t, ps in by_topic.items()) or "-"
