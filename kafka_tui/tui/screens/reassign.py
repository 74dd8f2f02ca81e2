"""KIP-4's AlterTopic for one topic: a new replication factor, or every replica moved off a
broker. The preview (per partition before -> after, `+4` added, `-2` removed, leaders kept,
bytes to copy) is exactly what is sent; the run shows a live bar from
ListPartitionReassignments, and `esc` cancels it (AlterPartitionReassignments with no
replicas, then the throttles go), as `kafka-tui reassignments cancel` does.

A run first writes its rollback file (services/rollback.py; nothing is sent without it) and
shows its path; `r` then offers the rollback: after a confirmation, the file goes through
the same service as `kafka-tui topics reassign --reassignment-json-file FILE`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path
from typing import ClassVar, Literal

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, ProgressBar, Select, Static

from ...admin import AdminError
from ...admin import audit_log as audit
from ...admin.partition_moves import OngoingReassignment, PartitionMove, ReplicationThrottle
from ...config import Profile
from ...planning.placement import MODES
from ...planning.reassignment import TopicPlan
from ...services import rollback
from ...services.parsing import UsageError
from ...services.placing import PlacementOptions
from ...services.ports import AdminPort
from ...services.reassigning import (
    RunOptions,
    audited_run,
    human_bytes,
    move_summary,
    plan_given,
    plan_move_off,
    plan_replication_factor,
    released_words,
    replication_throttle,
)
from ...services.replication_throttles import change_throttle_rate, release_throttles
from ...services.snapshot import Snapshot, min_insync_replicas, take_snapshot
from ...services.throttle_auto import AutoRule, Step, auto_throttle
from .. import notices
from ..widgets.moves import MoveTable
from ..widgets.styled import ReplicaLegend
from ..words import remedy_words
from .base import KafkaScreen

Kind = Literal["factor", "broker"]
POLL_SECONDS = 0.5
CANCEL_WAIT_SECONDS = 30.0


class ReassignScreen(KafkaScreen):
    """`kind`: "factor" (a new replication factor) or "broker" (move off a broker id)."""

    profile: Profile
    CHANGE_ACTIONS = frozenset({"apply", "rollback"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "ctrl+s",
            "apply",
            "Apply",
            id="reassign.apply",
            tooltip="Start the reassignment shown in the preview",
        ),
        Binding(
            "escape",
            "cancel",
            "Cancel / back",
            id="reassign.cancel",
            tooltip="Cancel the running reassignment (and remove its throttles), or go back",
        ),
        Binding(
            "ctrl+t",
            "change_throttle",
            "Throttle",
            id="reassign.throttle",
            tooltip="While it runs: set the throttle field's rate on every broker it uses",
        ),
        Binding(
            "ctrl+g",
            "auto_throttle",
            "Auto throttle",
            id="reassign.auto_throttle",
            tooltip="While it runs: let the rate follow the brokers (double while they cope, "
            "halve when a partition falls out of sync or a broker answers slowly); again: stop",
        ),
        Binding(
            "ctrl+z",
            "rollback",
            "Roll back",
            id="reassign.rollback",
            tooltip="Put the replicas back as the rollback file of the last run has them",
        ),
    ]

    def __init__(
        self, profile: Profile, admin: AdminPort, topic: str, kind: Kind = "factor"
    ) -> None:
        super().__init__()
        self.profile = profile
        self.admin = admin
        self.topic = topic
        self.kind: Kind = kind
        self.snapshot: Snapshot | None = None
        self.min_isr: dict[str, int] = {}
        self.sizes: dict[int, int] = {}
        self.plan: TopicPlan | None = None
        self.running = False
        self.auto_running = False  # ctrl+g's loop
        self.moves_started = asyncio.Event()  # the running reassignment's moves were sent
        self.finished = False
        self.cancel_requested = asyncio.Event()
        self.ready = asyncio.Event()  # the snapshot and sizes are read
        self.rollback_file: str | None = None  # the replicas before the last run

    def compose(self) -> ComposeResult:
        yield Static(f"Reassign {self.topic}", id="reassign-header", markup=False)
        with Horizontal(id="reassign-inputs"):
            yield Select(
                [("New replication factor", "factor"), ("Move off broker", "broker")],
                value=self.kind,
                allow_blank=False,
                id="kind",
            )
            yield Input(placeholder=self._value_hint(), id="value", type="integer")
            yield Input(placeholder="throttle bytes/s (optional)", id="throttle", type="integer")
        yield ReplicaLegend(id="legend")
        yield Static("Reading the cluster…", id="reassign-summary", markup=False)
        yield MoveTable(id="moves")
        yield Label("", id="reassign-status", markup=False)
        yield ProgressBar(id="reassign-progress", show_eta=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#reassign-progress", ProgressBar).display = False
        self.query_one("#value", Input).focus()
        self.load()

    def _value_hint(self) -> str:
        if self.kind == "factor":
            return "new replication factor"
        return "broker id to move every replica off"

    @property
    def _options(self) -> PlacementOptions:
        mode = self.profile.under_replicated
        return PlacementOptions(mode if mode in MODES else "disabled")

    @work(exclusive=True, group="reassign-load", exit_on_error=False)
    async def load(self) -> None:
        try:
            snapshot = await take_snapshot(self.admin, zookeeper=self.profile.zookeeper_connect)
            if self.topic not in snapshot.topics:
                self._show_summary(f"Topic '{self.topic}' does not exist.", error=True)
                return
            self.min_isr = await min_insync_replicas(self.admin, [self.topic])
            sizes = await self.admin.partition_sizes([self.topic], snapshot.live)
        except AdminError as exc:
            self.tell(notices.failed(exc.message, "Cannot read the cluster"))
            return
        self.sizes = {p: size for (_, p), size in sizes.items()}
        self.snapshot = snapshot
        topic = snapshot.topics[self.topic]
        self.query_one("#reassign-header", Static).update(
            f"Reassign {self.topic}: {len(topic.partitions)} partitions, replication factor "
            f"{topic.replication_factor}, brokers {', '.join(map(str, snapshot.live))} live"
            + (f", {', '.join(map(str, snapshot.offline))} offline" if snapshot.offline else "")
        )
        self.ready.set()
        self.replan()

    def _show_summary(self, text: str, *, error: bool = False) -> None:
        summary = self.query_one("#reassign-summary", Static)
        summary.update(text)
        summary.set_class(error, "error")

    @on(Select.Changed, "#kind")
    def kind_changed(self, event: Select.Changed) -> None:
        self.kind = "broker" if event.value == "broker" else "factor"
        self.query_one("#value", Input).placeholder = self._value_hint()
        self.replan()

    @on(Input.Changed, "#value")
    def replan(self) -> None:
        """The plan for what is typed (pure and quick, so it runs on every key)."""
        self.plan = None
        table = self.query_one(MoveTable)
        snapshot = self.snapshot
        if snapshot is None or self.running:
            return
        text = self.query_one("#value", Input).value.strip()
        if not text.isdigit():
            table.clear()
            self._show_summary(f"Type the {self._value_hint()}.")
            return
        value = int(text)
        if self.kind == "factor":
            [plan] = plan_replication_factor(
                snapshot, [self.topic], value, self._options, self.min_isr
            )
        elif value not in {b.id for b in snapshot.brokers}:
            table.clear()
            self._show_summary(f"Broker {value} is not part of the cluster.", error=True)
            return
        else:
            [plan] = plan_move_off(snapshot, [self.topic], value, self._options)
        table.show(plan.moves, snapshot.offline, self.sizes)
        if plan.error is not None:
            advice = remedy_words(plan.remedies)
            self._show_summary(f"{plan.error}: {plan.message} {advice}".rstrip(), error=True)
            return
        self.plan = plan
        self._show_summary(move_summary(plan, self.bytes_to_move(plan), True))

    def bytes_to_move(self, plan: TopicPlan) -> int:
        return sum(self.sizes.get(m.partition, 0) * len(m.added) for m in plan.moves)

    def _throttle_rate(self) -> int | None:
        text = self.query_one("#throttle", Input).value.strip()
        return int(text) if text.isdigit() and int(text) > 0 else None

    # -- running -----------------------------------------------------------------------------

    def action_apply(self) -> None:
        if self.running:
            return
        if self.plan is None or not self.plan.moves:
            self.tell(notices.hint("Nothing to apply: the preview shows no move."))
            return
        self.run_reassignment(self.plan, self._throttle_rate())

    def action_cancel(self) -> None:
        if self.running:
            self.cancel_requested.set()
            self._status("Cancelling…")
        else:
            self.dismiss(self.finished)

    def _status(self, text: str) -> None:
        self.query_one("#reassign-status", Label).update(text)

    @work(exclusive=True, group="reassign-run", exit_on_error=False)
    async def run_reassignment(self, plan: TopicPlan, rate: int | None) -> None:
        """Throttle, start, follow until done (or cancel), remove the throttle: in that order."""
        self.running = True
        self.cancel_requested.clear()
        self.moves_started.clear()
        for widget in self.query(Input).results():
            widget.disabled = widget.id != "throttle"  # ctrl+t changes the rate while it runs
        throttle = replication_throttle(rate, [plan]) if rate else None
        what = "replication-factor" if self.kind == "factor" else "reassign"
        try:
            path = rollback.write(what, ((self.topic, m.partition, m.before) for m in plan.moves))
        except OSError as exc:
            self.running = False
            for widget in self.query(Input).results():
                widget.disabled = False
            self.tell(
                notices.failed(
                    f"The rollback file could not be written in {rollback.folder()} "
                    f"({exc.strerror or exc}). Set ${rollback.ENV} to a writable folder.",
                    "Not started",
                )
            )
            return
        self.rollback_file = str(path)
        try:
            if throttle is not None:
                await self.admin.set_replication_throttle(throttle)
            moves = [
                PartitionMove(self.topic, m.partition, list(m.after), list(m.before))
                for m in plan.moves
            ]
            with audit.operation(f"topics {what}"), audit.rollback_file(str(path)):
                answers = await self.admin.alter_partition_reassignments(moves)
            refused = [a for a in answers if not a.ok]
            if refused:
                self.tell(
                    notices.failed(" ".join(a.message for a in refused), "Reassignment refused")
                )
            started = {(a.topic, a.partition) for a in answers if a.ok}
            if started:
                self.moves_started.set()
            if not started:
                if throttle is not None:
                    await release_throttles(self.admin, throttle.brokers, [self.topic])
                self._status("Nothing started: every move was refused.")
                return
            targets = {(self.topic, m.partition): list(m.after) for m in plan.moves}
            cancelled = await self._follow(plan, started, targets)
            if cancelled:
                await self._cancel(started, throttle)
                return
            if throttle is not None:
                await release_throttles(self.admin, throttle.brokers, [self.topic])
        except AdminError as exc:
            self.tell(notices.failed(exc.message, "Reassignment failed"))
            return
        finally:
            self.running = False
            if not self.moves_started.is_set():  # a ctrl+g waiting for moves never sent
                self.workers.cancel_group(self, "reassign-auto-throttle")
                self.auto_running = False
            for widget in self.query(Input).results():
                widget.disabled = False
        self.finished = True
        text = move_summary(plan, self.bytes_to_move(plan), False)
        if refused:
            text += f" {len(refused)} partition(s) refused."
        self._status(text + (" Throttles removed." if throttle else "") + self._rollback_words())
        self.tell(notices.done(text, "Reassignment done"))

    def action_change_throttle(self) -> None:
        rate = self._throttle_rate()
        if not self.running or rate is None:
            self.tell(
                notices.hint(
                    "While a reassignment runs, type a rate (bytes/s) in the throttle field."
                )
            )
            return
        self.change_throttle(rate)

    @work(exclusive=True, group="reassign-throttle", exit_on_error=False)
    async def change_throttle(self, rate: int) -> None:
        try:
            change = await change_throttle_rate(self.admin, rate)
        except AdminError as exc:
            self.tell(notices.failed(exc.message, "Throttle not changed"))
            return
        brokers = ",".join(map(str, change.brokers))
        if change.verified:
            self.tell(
                notices.done(f"Throttle {rate} B/s on brokers {brokers}.", "Throttle changed")
            )
        else:
            self.tell(
                notices.warning(
                    f"Throttle {rate} B/s sent to brokers {brokers}; not every broker shows it yet."
                )
            )

    def action_auto_throttle(self) -> None:
        if self.auto_running:
            self.workers.cancel_group(self, "reassign-auto-throttle")
            self.auto_running = False
            self.tell(notices.done("The rate stays where it is.", "Auto throttle stopped"))
            return
        if not self.running:
            self.tell(notices.hint("Start the reassignment first (ctrl+s); then ctrl+g."))
            return
        rule = AutoRule()
        start = min(max(self._throttle_rate() or rule.min_rate, rule.min_rate), rule.max_rate)
        self.auto_throttle(rule, start)

    @work(exclusive=True, group="reassign-auto-throttle", exit_on_error=False)
    async def auto_throttle(self, rule: AutoRule, start: int) -> None:
        """The rule of `reassignments throttle --auto` (services/throttle_auto.py) until no
        reassignment is in progress; each change said as it is made."""
        self.auto_running = True
        # ctrl+g right after ctrl+s: the moves are not sent yet, and the rule would find no
        # reassignment in progress and end at once.
        await self.moves_started.wait()

        def show(step: Step) -> None:
            self.query_one("#throttle", Input).value = str(step.rate)
            self.tell(
                notices.done(
                    f"{step.rate} B/s ({step.reason}; under-replicated "
                    f"{step.signals.under_replicated}, slowest broker "
                    f"{step.signals.latency_ms:.0f} ms)",
                    "Auto throttle",
                )
            )

        try:
            run = await auto_throttle(self.admin, rule, start, show)
            if not run.steps:
                self.tell(notices.hint("No reassignment in progress: nothing to throttle."))
        except AdminError as exc:
            self.tell(notices.failed(exc.message, "Auto throttle stopped"))
        finally:
            self.auto_running = False

    def _rollback_words(self) -> str:
        if self.rollback_file is None:
            return ""
        return f"\nRollback file: {self.rollback_file} (ctrl+z rolls back)"

    def action_rollback(self) -> None:
        if self.running:
            return
        if self.rollback_file is None:
            self.tell(notices.hint("No run yet: nothing to roll back."))
            return
        self.roll_back(self.rollback_file)

    @work(exclusive=True, group="reassign-run", exit_on_error=False)
    async def roll_back(self, path: str) -> None:
        """Confirm, then reassign as the rollback file says (the CLI's
        `topics reassign --reassignment-json-file` path: its own rollback file, audited)."""
        if not await self.app.push_screen_wait(RollbackConfirm(path)):
            return
        self.running = True
        bar = self.query_one("#reassign-progress", ProgressBar)
        bar.display = True

        def progress(done: int, of: int, copied: int, total: int) -> None:
            bar.update(total=total or of, progress=copied if total else done)
            self._status(f"Rolling back: {done}/{of} partitions done.")

        try:
            targets = rollback.read(Path(path))
            snapshot = await take_snapshot(self.admin, zookeeper=self.profile.zookeeper_connect)
            plans = [plan_given(snapshot, t, parts) for t, parts in targets.items()]
            outcomes = await audited_run(
                "reassign", self.admin, snapshot, plans, RunOptions(), progress
            )
        except (AdminError, UsageError) as exc:
            text = exc.message if isinstance(exc, AdminError) else str(exc)
            self.tell(notices.failed(text, "Rollback failed"))
            return
        finally:
            self.running = False
        failed = [o for o in outcomes if not o.ok]
        if failed:
            text = " ".join(f"Error ({o.error}): {o.message}" for o in failed)
            self._status(text)
            self.tell(notices.failed(text, "Rollback failed"))
            return
        self.finished = True
        self.rollback_file = next((o.rollback_file for o in outcomes if o.rollback_file), None)
        text = "Rolled back: " + " ".join(o.message for o in outcomes)
        self._status(text + self._rollback_words())
        self.tell(notices.done(text, "Rollback done"))
        self.load()

    async def _follow(
        self,
        plan: TopicPlan,
        started: set[tuple[str, int]],
        targets: dict[tuple[str, int], list[int]],
    ) -> bool:
        """Poll until every started move is done; True when the operator cancelled first."""
        copies = {
            (self.topic, m.partition): self.sizes.get(m.partition, 0) * len(m.added)
            for m in plan.moves
        }
        total = sum(copies[k] for k in started)
        bar = self.query_one("#reassign-progress", ProgressBar)
        bar.display = True
        bar.update(total=total or len(started), progress=0)
        pending = set(started)
        while pending:
            ongoing = await self.admin.list_partition_reassignments([self.topic])
            pending = {(r.topic, r.partition) for r in ongoing} & started
            if not pending:
                # The controller is done; the broker answering Metadata may still lag.
                found, _ = await self.admin.describe_topics([self.topic], configs=False)
                shown = {(self.topic, p.partition): p.replicas for t in found for p in t.partitions}
                pending = {k for k in started if shown.get(k) != tuple(targets[k])}
            finished = started - pending
            copied = sum(copies[k] for k in finished)
            if total and pending:
                copied += await self._copying(ongoing, pending)
            bar.update(progress=min(copied, total) if total else len(finished))
            self._status(
                f"Reassigning: {len(finished)}/{len(started)} partitions done, "
                f"{human_bytes(copied)} of {human_bytes(total)} copied. esc cancels."
            )
            if not pending:
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.cancel_requested.wait(), POLL_SECONDS)
            if self.cancel_requested.is_set():
                return True
        return False

    async def _copying(
        self, ongoing: list[OngoingReassignment], pending: set[tuple[str, int]]
    ) -> int:
        """Bytes the adding replicas hold so far: each adding broker reports its own logs
        (DescribeLogDirs), capped at the partition's size."""
        adding = [r for r in ongoing if (r.topic, r.partition) in pending]
        copied = 0
        for broker in sorted({b for r in adding for b in r.adding}):
            held = await self.admin.partition_sizes([self.topic], [broker])
            for r in adding:
                if broker in r.adding:
                    size = self.sizes.get(r.partition, 0)
                    copied += min(held.get((r.topic, r.partition), 0), size)
        return copied

    async def _cancel(
        self, started: set[tuple[str, int]], throttle: ReplicationThrottle | None
    ) -> None:
        ongoing = await self.admin.list_partition_reassignments([self.topic])
        moves = [PartitionMove(r.topic, r.partition, None) for r in ongoing]
        answers = await self.admin.alter_partition_reassignments(moves) if moves else []
        reverted = [(a.topic, a.partition) for a in answers if a.ok]
        left = await self.admin.wait_for_reassignments(
            reverted, time.monotonic() + CANCEL_WAIT_SECONDS
        )
        brokers = {b for r in ongoing for b in r.replicas}
        brokers |= set(throttle.brokers) if throttle else set()
        # Not the rates another reassignment in progress still uses on the same brokers.
        released = await release_throttles(self.admin, sorted(brokers), [self.topic])
        done = len(started) - len(reverted)
        if left:
            text = f"Cancel sent; {len(left)} partition(s) still reverting."
        else:
            text = (
                f"Cancelled: {len(reverted)} partition(s) keep their original replicas"
                f"{f', {done} had finished' if done else ''}. {released_words(released)}"
            )
        self._status(text + self._rollback_words())
        self.tell(notices.warning(text, "Reassignment cancelled"))


class RollbackConfirm(ModalScreen[bool]):
    """Roll back to the replicas a rollback file holds?"""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="rollback-dialog", classes="dialog"):
            yield Label("Roll back the reassignment?", classes="dialog-title", markup=False)
            yield Label(
                f"The replicas go back to those in {self.path}, as "
                f"`kafka-tui topics reassign --reassignment-json-file` does.",
                markup=False,
            )
            with Horizontal(classes="buttons"):
                yield Button("Roll back", variant="warning", id="rollback-yes")
                yield Button("Cancel", id="rollback-no")

    def on_mount(self) -> None:
        self.query_one("#rollback-yes", Button).focus()

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "rollback-yes")

    def action_cancel(self) -> None:
        self.dismiss(False)
