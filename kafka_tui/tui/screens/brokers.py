"""The brokers as KIP-409 sees them (live and observed-offline, their load, the Kafka release
each live one runs, its cordoned log directories) and the open placeholders, with `f` to fill
them on live brokers, `e` to give every partition its preferred leader back, and `d` to drain
the highlighted broker (services/draining.py: cordon, leadership off, every replica off, with a
live progress line; `esc` stops it cleanly)."""

from __future__ import annotations

import asyncio
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Footer, ProgressBar, Static

from ...admin import AdminError
from ...config import Profile
from ...planning.placement import cordon_warning
from ...services.filling import fill_placeholders
from ...services.leader_elections import (
    ElectionType,
    TopicSelection,
    preview_election,
    run_election,
)
from ...services.placeholder_view import PlaceholderState, orphaned_throttles, placeholder_state
from ...services.ports import AdminPort
from ...services.snapshot import Snapshot, take_snapshot
from .. import notices
from ..widgets.broker_table import BrokerTable, observed_source
from .base import KafkaScreen, placeholder_store


class BrokersScreen(KafkaScreen):
    profile: Profile
    CHANGE_ACTIONS = frozenset({"fill", "elect", "drain"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape",
            "back",
            "Back / stop",
            id="brokers.back",
            tooltip="Stop the running drain (finished moves stay), or go back",
        ),
        Binding("r", "refresh", "Refresh", id="brokers.refresh", tooltip="Read the brokers again"),
        Binding(
            "f",
            "fill",
            "Fill placeholders",
            id="brokers.fill",
            tooltip="Fill KIP-409 placeholders with live brokers",
        ),
        Binding(
            "e",
            "elect",
            "Elect leaders",
            id="brokers.elect",
            tooltip="Preferred leader election on every topic",
        ),
        Binding(
            "d",
            "drain",
            "Drain broker",
            id="brokers.drain",
            tooltip="Cordon the highlighted broker, move its leaders then its replicas off",
        ),
    ]

    def __init__(self, profile: Profile, admin: AdminPort) -> None:
        super().__init__()
        self.profile = profile
        self.admin = admin
        self.snapshot: Snapshot | None = None
        self.placeholders: PlaceholderState | None = None
        self.draining: list[int] = []  # the brokers of the running drain
        self.stop_drain = asyncio.Event()

    def compose(self) -> ComposeResult:
        yield Static("Brokers: reading…", id="brokers-header", markup=False)
        yield BrokerTable(id="brokers")
        yield Static("", id="placeholders-line", markup=False)
        yield Static("", id="drain-status", markup=False)
        yield ProgressBar(id="drain-progress", show_eta=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#drain-progress", ProgressBar).display = False
        self.query_one(BrokerTable).focus()
        self.load()

    def _fill_key(self) -> str:
        if self.profile.read_only:
            return "nothing (read-only profile)"
        return next(
            (b.key_display or b.key for b in self.active_bindings_for("fill")),
            "f",
        )

    def active_bindings_for(self, action: str) -> list[Binding]:
        return [
            b
            for bindings in self._bindings.key_to_bindings.values()
            for b in bindings
            if b.action == action
        ]

    @work(exclusive=True, group="brokers", exit_on_error=False)
    async def load(self) -> None:
        try:
            snapshot = await take_snapshot(
                self.admin,
                zookeeper=self.profile.zookeeper_connect,
                store=placeholder_store(self, self.profile),
                releases=True,
            )
        except AdminError as exc:
            self.tell(notices.failed(exc.message, "Cannot read the brokers"))
            return
        self.snapshot = snapshot
        self.placeholders = state = placeholder_state(snapshot)
        live, offline = len(snapshot.live), len(snapshot.offline)
        self.query_one("#brokers-header", Static).update(
            f"Brokers: {live} live, {offline} offline · observed = "
            f"{observed_source(snapshot, self.profile.zookeeper_connect)} · "
            "leaders = current, preferred = first replica"
        )
        self.query_one(BrokerTable).show(snapshot)
        line = self.query_one("#placeholders-line", Static)
        # Brokers whose every log directory is cordoned (KIP-1066) take no new replica.
        text = "\n".join(
            filter(None, [state.line(self._fill_key()), cordon_warning(snapshot.brokers)])
        )
        line.update(text)
        # A running drain holds its throttle from its first move to its last.
        orphaned = [] if self.draining else await orphaned_throttles(self.admin)
        if orphaned:
            line.update(
                f"{text}\nOrphaned replication throttles (no reassignment needs them) on "
                f"{', '.join(orphaned)}: `kafka-tui throttles clear --orphaned` removes them."
            )

    def action_refresh(self) -> None:
        self.load()

    def action_fill(self) -> None:
        self.fill()

    @work(exclusive=True, group="fill", exit_on_error=False)
    async def fill(self) -> None:
        line = self.query_one("#placeholders-line", Static)
        line.update("Filling placeholders: waiting for the new replicas to catch up…")
        try:
            results = await fill_placeholders(
                self.admin,
                placeholder_store(self, self.profile),
                zookeeper=self.profile.zookeeper_connect,
            )
        except AdminError as exc:
            self.tell(notices.failed(exc.message, "Fill failed"))
        else:
            self.tell(*notices.for_fills(results))
        self.load()

    def action_elect(self) -> None:
        self.elect()

    @work(exclusive=True, group="elect", exit_on_error=False)
    async def elect(self) -> None:
        try:
            preview = await preview_election(
                self.admin, ElectionType.PREFERRED, TopicSelection(every_topic=True)
            )
            outcome = await run_election(self.admin, preview)
        except AdminError as exc:
            self.tell(notices.failed(exc.message, "Leader election failed"))
        else:
            self.tell(notices.for_election(outcome))
        self.load()

    # -- drain -------------------------------------------------------------------------------

    def action_back(self) -> None:
        if self.draining:
            self.stop_drain.set()
            self.query_one("#drain-status", Static).update(
                "Stopping the drain: cancelling the moves still copying…"
            )
        else:
            self.app.pop_screen()

    def action_drain(self) -> None:
        if self.draining:
            return
        table = self.query_one(BrokerTable)
        if table.row_count == 0:
            return
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        if key is not None and key.isdigit():
            self.drain([int(key)])

    @work(exclusive=True, group="drain", exit_on_error=False)
    async def drain(self, brokers: list[int]) -> None:
        """Preview, confirm, run with a live line and bar; `esc` stops it cleanly."""
        # The drain's service and dialog load at the first drain, not with the TUI (issue 52).
        from ...services import draining
        from .drain import DrainConfirm, progress_words

        status = self.query_one("#drain-status", Static)
        status.update(f"Planning the drain of broker {', '.join(map(str, brokers))}…")
        try:
            preview = await draining.preview_drain(
                self.admin, brokers, zookeeper=self.profile.zookeeper_connect
            )
        except AdminError as exc:
            status.update("")
            self.tell(notices.failed(exc.message, "Cannot plan the drain"))
            return
        choice = await self.app.push_screen_wait(DrainConfirm(preview))
        if choice is None:
            status.update("")
            return
        self.draining = preview.brokers
        self.stop_drain.clear()
        bar = self.query_one("#drain-progress", ProgressBar)
        bar.display = True

        steps: set[str] = set()

        def progress(p: draining.DrainProgress) -> None:
            if p.step == "moving" and p.step not in steps:
                self.load()  # the table shows the cordon and the leaders moved off
            steps.add(p.step)
            status.update(progress_words(preview.brokers, p))
            bar.update(total=p.total or p.of or None, progress=p.copied if p.total else p.done)

        try:
            outcome = await draining.run(
                self.admin,
                preview,
                batch=choice.batch,
                throttle=choice.throttle,
                stop=self.stop_drain,
                progress=progress,
            )
        except AdminError as exc:
            self.tell(notices.failed(exc.message, "Drain failed"))
            return
        finally:
            self.draining = []
            bar.display = False
        text = outcome.message
        if outcome.state == "interrupted":
            ids = " ".join(map(str, preview.brokers))
            text += f" Resume: d again, or `kafka-tui brokers drain {ids}`."
        if outcome.rollback_file:
            text += f"\nRollback file (the replicas before): {outcome.rollback_file}"
        status.update(text)
        self.tell((notices.done if outcome.ok else notices.warning)(text, "Drain"))
        self.load()
