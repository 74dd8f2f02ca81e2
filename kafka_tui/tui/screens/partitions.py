"""Increase a topic's partitions (KIP-195), with KIP-409's options: the exact preview of the
NEW partitions (or an assignment typed for them), sent as previewed; and, next to the count,
whether growing moves keys that matter (a compacted topic, keyed records) and, from a fresh
`topics keys` count, exactly which share of keys and records the typed count moves and the
records per partition after (issue 51 point 3), weighed again at every count typed.

Without a fresh count, F3 counts the keys: services/key_report's local engine on an event
loop of its own in a thread (its own connection), so the form stays responsive; a bar shows
the records read, and esc (or F3 again) stops it."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Footer, Input, Label, ProgressBar, Select, Static

from ...admin import (
    AdminError,
    ClusterInfo,
    KafkaAdmin,
    NewPartitions,
    TopicDescription,
    validation,
)
from ...config import Profile
from ...fields import FieldError
from ...services.growing import grow_partitions, plan_grows
from ...services.key_reports_saved import GrowKeys, SavedCount, lines, load, weighed
from ...services.keys import KeyMapping, key_mappings
from ...services.parsing import replica_lists
from ...services.ports import AdminPort
from ...services.snapshot import Snapshot, min_insync_replicas
from ..words import field_error_words
from .base import placeholder_store
from .forms import (
    ERROR_FIELD,
    PLACEMENT_FIELDS,
    FormScreen,
    Operation,
    automatic_summary,
)

if TYPE_CHECKING:
    from ...services.key_report import KeyReportResult

# A kept count of up to this many (partition, key) rows is weighed at once as a count is typed;
# a bigger one in a thread (bench/grow_weights.py: 6 ms a count at 100,000 rows, 47 ms at
# 1,000,000, at load ~15 on 2 cores).
WEIGH_AT_ONCE_ROWS = 100_000
PROGRESS_EVERY_S = 0.1


class IncreasePartitionsScreen(FormScreen):
    FIELDS: ClassVar[tuple[str, ...]] = ("partitions", "assignment", *PLACEMENT_FIELDS)
    APPLY_LABEL = "Apply"
    REFUSAL_FIELD = "partitions"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "f3",
            "count_keys",
            "Count keys",
            id="partitions.count_keys",
            tooltip="Read every record's key once to show exactly what the new count moves",
        ),
    ]

    def __init__(
        self,
        admin: AdminPort,
        topic: TopicDescription,
        cluster: ClusterInfo | None,
        *,
        profile: Profile | None = None,
        snapshot: Snapshot | None = None,
        min_isr: int | None = None,
        known: Sequence[TopicDescription] | None = None,
    ) -> None:
        super().__init__(admin, cluster, profile=profile, snapshot=snapshot, known=known)
        self.topic = topic
        # The grown topic described; the others weigh as load only (as `topics increase`).
        self.touched = (topic.name,)
        self.request: NewPartitions | None = None
        # The topic's min.insync.replicas, as grow_partitions reads it before placing.
        self.min_isr: dict[str, int] = {topic.name: min_isr} if min_isr is not None else {}
        # Whether growing moves keys that matter; None until read (a worker, on mount).
        self.keys: KeyMapping | None = None
        # The topic's kept key count (loaded on mount), and its numbers for the count typed.
        self.saved_count: SavedCount | None = None
        self.count_loaded = False
        self.grow_keys: GrowKeys | None = None
        self.counting: _Counting | None = None  # while f3's count runs

    def compose(self) -> ComposeResult:
        current, rf = len(self.topic.partitions), self.topic.replication_factor
        with VerticalScroll(id="form", can_focus=False):
            yield Label(
                f"Increase partitions of {self.topic.name}", classes="dialog-title", markup=False
            )
            yield Label(
                f"Now {current} partitions, replication factor {rf}. Partitions can only be added."
            )
            yield Input(
                placeholder=f"new total (more than {current})", id="partitions", type="integer"
            )
            yield self.field_error_label("partitions")
            yield Static("", id="key-mapping", classes="key-mapping", markup=False)
            yield Static("", id="key-report", classes="key-report", markup=False)
            yield ProgressBar(id="key-progress", show_eta=False)
            yield Input(
                placeholder=f"optional: replicas of the NEW partitions only, {rf} each, "
                "e.g. 1:2,2:3",
                id="assignment",
            )
            yield self.field_error_label("assignment")
            yield from self.placement_widgets()
            yield from self.preview_widgets()
        yield Footer()

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#partitions", Input).focus()
        self.query_one("#key-progress", ProgressBar).display = False
        self.revalidate()
        self.check_keys()
        self.load_key_count()

    @work(exclusive=True, group="keys", exit_on_error=False)
    async def check_keys(self) -> None:
        """cleanup.policy and the last batch of each partition (bounded; see keys.py)."""
        found = await key_mappings(self.admin, [self.topic.name])  # never raises AdminError
        self.keys = found.get(self.topic.name)
        self.revalidate()

    def show_key_mapping(self, total: int | None) -> None:
        shown = self.query_one("#key-mapping", Static)
        keys = self.keys
        if self.grow_keys is not None and self.grow_keys.recent is not None:
            total = None  # the exact numbers show below: no estimate beside them
        text = keys.sentence(len(self.topic.partitions), total) if keys and keys.changes else ""
        if keys is not None and keys.compacted:
            text += " Grow it only if its consumers can take that."
        shown.update(text)
        shown.display = bool(text)

    # -- the topic's keys, counted (issue 51 point 3) ----------------------------------------

    @work(exclusive=True, group="key-count-load", exit_on_error=False)
    async def load_key_count(self) -> None:
        """The topic's kept `topics keys` count (read once, weighed at every count typed)."""
        self.saved_count = await asyncio.to_thread(load, self.admin.cluster_id, self.topic.name)
        self.count_loaded = True
        self.revalidate()

    def typed_total(self) -> int | None:
        text = self.query_one("#partitions", Input).value.strip()
        total = int(text) if text.isdigit() else None
        return total if total is not None and total > len(self.topic.partitions) else None

    def weigh_keys(self, total: int | None) -> None:
        """The kept count's numbers for `total` (None: no valid count typed)."""
        if not self.count_loaded or self.counting is not None:
            return
        saved, current = self.saved_count, len(self.topic.partitions)
        if total is None or saved is None or saved.rows <= WEIGH_AT_ONCE_ROWS:
            self.grow_keys = (
                weighed(saved, self.topic.name, current, total, _now_ms()) if total else None
            )
            self.show_key_report()
        else:
            self.weigh_in_thread(saved, current, total)

    @work(exclusive=True, group="key-weigh", exit_on_error=False)
    async def weigh_in_thread(self, saved: SavedCount, current: int, total: int) -> None:
        found = await asyncio.to_thread(weighed, saved, self.topic.name, current, total, _now_ms())
        if self.typed_total() == total:  # the count typed meanwhile is weighed by its own
            self.grow_keys = found
            self.show_key_report()
            self.show_key_mapping(total)

    def show_key_report(self) -> None:
        shown = self.query_one("#key-report", Static)
        if self.counting is not None:
            return  # the count's progress shows
        found = self.grow_keys
        if found is not None and found.recent is not None:
            text = "\n".join([*lines(found), "F3 counts again."])
        else:
            saved = self.saved_count
            why = saved.stale(len(self.topic.partitions), _now_ms()) if saved else None
            if saved is None:
                text = "No key report of this topic kept: F3 counts its keys (every record)."
            elif why is None:
                text = "A fresh key report is kept: type the new count to see what it moves."
            else:
                text = f"No fresh key report: {why}. F3 counts its keys again."
        shown.update(text)

    def action_count_keys(self) -> None:
        if self.counting is not None:
            self.counting.stop()
            return
        self.counting = _Counting()
        self.query_one("#key-report", Static).update(
            f"Counting the keys of '{self.topic.name}'… esc stops."
        )
        self.count_keys(self.counting, self.typed_total(), asyncio.get_running_loop())

    @work(thread=True, exclusive=True, group="key-count", exit_on_error=False)
    def count_keys(
        self, counting: _Counting, total: int | None, ui: asyncio.AbstractEventLoop
    ) -> None:
        """`topics keys` with the local engine, on a loop of this thread (its own connection:
        the app's is bound to the UI's loop); progress and the outcome go back to the UI."""
        outcome: KeyReportResult | str | None = None
        saved: SavedCount | None = None
        try:
            outcome = asyncio.run(self._count(counting, total, ui))
            saved = load(self.admin.cluster_id, self.topic.name)
        except asyncio.CancelledError:
            outcome = None
        except ImportError as exc:  # numpy, pyarrow: the spark extra's
            outcome = f"counting keys needs numpy and pyarrow (kafka-tui[spark]): {exc}"
        except (AdminError, FieldError) as exc:
            outcome = str(getattr(exc, "message", exc))
        finally:  # an unexpected failure still ends the count here (then the error modal)
            with contextlib.suppress(RuntimeError):  # the app has closed
                ui.call_soon_threadsafe(self._counted, counting, outcome, saved)

    async def _count(
        self, counting: _Counting, total: int | None, ui: asyncio.AbstractEventLoop
    ) -> KeyReportResult:
        from ...services.key_report import KeyReportRequest, key_report

        counting.running(asyncio.get_running_loop(), asyncio.current_task())
        last = 0.0

        def show(stage: str, done: int, of: int) -> None:
            nonlocal last
            now = time.monotonic()
            if stage == "read" and (done >= of or now - last >= PROGRESS_EVERY_S):
                last = now
                ui.call_soon_threadsafe(self._count_progress, counting, done, of)

        request = KeyReportRequest(self.topic.name, (total,) if total else (), top=0)
        async with KafkaAdmin(self.admin.settings) as admin:
            return await key_report(admin, request, show)

    def _count_progress(self, counting: _Counting, done: int, total: int) -> None:
        if self.counting is not counting or counting.stopped:
            return
        bar = self.query_one("#key-progress", ProgressBar)
        bar.display = True
        bar.update(total=max(total, 1), progress=done)
        self.query_one("#key-report", Static).update(
            f"Counting the keys of '{self.topic.name}': {done:,} of {total:,} records read… "
            "esc stops."
        )

    def _counted(
        self,
        counting: _Counting,
        outcome: KeyReportResult | str | None,
        saved: SavedCount | None,
    ) -> None:
        if self.counting is not counting or not self.is_attached:
            return
        self.counting = None
        self.query_one("#key-progress", ProgressBar).display = False
        report = self.query_one("#key-report", Static)
        if outcome is None or isinstance(outcome, str):
            report.update(
                "Stopped: no key report kept. F3 counts again."
                if outcome is None
                else f"Keys not counted: {outcome}"
            )
            return
        if saved is None:  # not kept (no cluster id, or the cache cannot be written)
            report.update(
                f"Counted {outcome.report.records:,} records, but the count could not be kept "
                "to weigh the counts typed."
            )
            return
        self.saved_count = saved
        self.revalidate()

    def action_cancel(self) -> None:
        if self.counting is not None:
            self.counting.stop()
            return
        super().action_cancel()

    def on_unmount(self) -> None:
        if self.counting is not None:
            self.counting.stop()

    async def read_extra(self, snapshot: Snapshot) -> None:
        name = self.topic.name
        self.min_isr = await min_insync_replicas(self.admin, [name])
        if name in snapshot.topics:
            self.topic = snapshot.topics[name]

    @on(Input.Changed)
    @on(Select.Changed)
    def revalidate(self) -> None:
        errors: dict[str, str] = {}
        total_text = self.query_one("#partitions", Input).value.strip()
        lists = None
        total = int(total_text) if total_text.lstrip("-").isdigit() else None
        if total is None:
            errors["partitions"] = "Enter the new total number of partitions."
        assignment_text = self.query_one("#assignment", Input).value
        if assignment_text.strip():
            try:
                lists = replica_lists(assignment_text)
            except FieldError as exc:
                errors["assignment"] = field_error_words(exc)
        options = self.placement_choice(errors)
        request = NewPartitions(self.topic.name, total or 0, lists)
        if not errors:
            # Typed lists are held to the mode by the planner (placeholders allowed there).
            problem = validation.check_new_partitions(
                NewPartitions(request.topic, request.total),
                len(self.topic.partitions),
                self.topic.replication_factor,
            )
            if problem is not None:
                field = ERROR_FIELD.get(problem.name, "assignment")
                errors[field] = problem.message
        self.planned = None
        if self.snapshot is not None and options is not None and not errors:
            self.planned = plan_grows(self.snapshot, [request], options, self.min_isr)[0]
            self.refuse(self.planned, errors)
        self.request = None if errors else request
        self.options = options
        self.set_errors(errors)
        current = len(self.topic.partitions)
        self.weigh_keys(total if "partitions" not in errors else None)
        self.show_key_mapping(total if "partitions" not in errors else None)
        added = (total - current) if total else None
        placement = self.planned.placement if self.planned else None
        if lists is None and placement is not None and self.planned and not self.planned.refusal:
            lists = [list(replicas) for replicas in placement.assignment]
        if options is not None and options.placement == "broker":
            automatic = automatic_summary(added, self.topic.replication_factor, self.brokers)
        elif self.snapshot is None:
            automatic = "Reading the cluster's brokers for the preview…"
        else:
            automatic = self.nothing_to_send()
        self.show_preview(current, lists, automatic, "New partitions to send")

    def prepared(self) -> tuple[Operation, str, object] | None:
        request, options, snapshot = self.request, self.options, self.snapshot
        if request is None or options is None or snapshot is None:
            return None
        profile = self.form_profile
        store = placeholder_store(self, profile)
        keys = {request.topic: self.keys} if self.keys is not None else None
        return (
            lambda v: grow_partitions(
                self.admin,
                snapshot,
                [request],
                options,
                store,
                zookeeper=profile.zookeeper_connect,
                validate_only=v,
                keys=keys,
            ),
            "Increase failed",
            request.total,
        )


class _Counting:
    """One run of f3's count: stopped from the UI's thread, its task on the count's."""

    def __init__(self) -> None:
        self.stopped = False
        self._lock = threading.Lock()
        self._cancel: Callable[[], object] | None = None

    def running(self, loop: asyncio.AbstractEventLoop, task: asyncio.Task[Any] | None) -> None:
        """The count's loop and task (cancelled at once if stopped already)."""
        assert task is not None
        with self._lock:
            self._cancel = lambda: loop.call_soon_threadsafe(task.cancel)
            stopped = self.stopped
        if stopped:
            task.cancel()

    def stop(self) -> None:
        with self._lock:
            self.stopped = True
            cancel = self._cancel
        if cancel is not None:
            with contextlib.suppress(RuntimeError):  # its loop has finished
                cancel()


def _now_ms() -> int:
    return int(time.time() * 1000)
