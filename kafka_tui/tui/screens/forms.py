"""What the create and partition forms share: field errors, KIP-409 options, the exact preview.

The preview is the assignment `services/placing.py` will send: the form reads one Snapshot of
the cluster when it opens (again on ctrl+r), plans on it at every keystroke, and sends with
the same snapshot and options, so what is shown is what Kafka receives.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import Button, Input, Label, Select, Static

from ...admin import AdminError, ClusterInfo, TopicDescription, TopicResult
from ...config import Profile
from ...fields import FieldError
from ...planning.placement import MODES, Broker
from ...services.placing import PlacementOptions, Planned
from ...services.ports import AdminPort
from ...services.snapshot import Snapshot, take_snapshot
from .. import notices
from ..widgets.tables import PreviewTable
from ..words import FORM_FIELDS, field_error_words, result_words
from .base import KafkaScreen, placeholder_store

# Which field a Kafka error concerns, so it is shown next to that field.
ERROR_FIELD = {
    "INVALID_TOPIC_EXCEPTION": "name",
    "TOPIC_ALREADY_EXISTS": "name",
    "INVALID_PARTITIONS": "partitions",
    "INVALID_REPLICATION_FACTOR": "rf",
    "INVALID_REPLICA_ASSIGNMENT": "assignment",
    "INVALID_CONFIG": "configs",
}
PLACEMENT_FIELDS = ("mode", "min_required", "placement")


def whole_number(text: str, field: str, errors: dict[str, str]) -> int | None:
    if not text.strip():
        return None
    try:
        return int(text)
    except ValueError:
        errors[field] = f"'{text}' is not a whole number."
        return None


def brokers_of(cluster: ClusterInfo | None) -> list[Broker]:
    return [Broker(b.id, b.rack, not b.fenced) for b in cluster.brokers] if cluster else []


def placement_summary(lists: Sequence[Sequence[int]], brokers: Sequence[Broker]) -> str:
    """Replicas and preferred leaders per broker and per rack, placeholders, for a preview."""
    replicas = Counter(b for replicas in lists for b in replicas if b >= 0)
    leaders = Counter(replicas_[0] for replicas_ in lists if replicas_ and replicas_[0] >= 0)
    racks = {b.id: b.rack or "-" for b in brokers}
    offline = {b.id for b in brokers if not b.live}
    shown = sorted(set(racks) | set(replicas))
    per_broker = ", ".join(
        f"{b}{'!' if b in offline else ''}: {replicas[b]} ({leaders[b]} leading)" for b in shown
    )
    per_rack = Counter(racks.get(b, "?") for replicas_ in lists for b in replicas_ if b >= 0)
    rack_text = ", ".join(f"{rack}: {n}" for rack, n in sorted(per_rack.items()))
    placeholders = sum(1 for replicas_ in lists for b in replicas_ if b < 0)
    unknown = sorted(b for b in replicas if racks and b not in racks)
    lines = [f"Per broker: {per_broker}", f"Per rack: {rack_text}"]
    if placeholders:
        lines.append(
            f"Placeholders: {placeholders} (kept by kafka-tui, filled when a broker joins)."
        )
    if unknown:
        lines.append(f"Unknown broker id(s): {unknown} — the cluster will refuse them.")
    if replicas.keys() & offline:
        lines.append("Broker ids marked ! are offline: their replicas start out of sync.")
    return "\n".join(lines)


def automatic_summary(partitions: int | None, rf: int | None, brokers: Sequence[Broker]) -> str:
    p = partitions if partitions is not None else "the broker's default number of"
    r = rf if rf is not None else "the broker's default"
    if not brokers:
        return f"Kafka places the replicas: {p} partitions with replication factor {r}."
    live = [b for b in brokers if b.live]
    racks = sorted({b.rack or "-" for b in live})
    text = (
        f"Kafka places the replicas: {p} partitions with replication factor {r} over "
        f"{len(live)} live broker(s) on rack(s) {', '.join(racks)}"
    )
    if isinstance(partitions, int) and isinstance(rf, int) and live:
        text += f": about {partitions * rf / len(live):.1f} replicas per broker"
    return text + "."


Operation = Callable[[bool], Awaitable[list[TopicResult]]]


class FormScreen(KafkaScreen):
    """A form with per-field error labels, KIP-409 options, the exact preview, and
    validate / apply / cancel."""

    FIELDS: ClassVar[tuple[str, ...]] = ()
    APPLY_LABEL: ClassVar[str] = "Apply"
    # Where a refusal of the placer (no field of its own) is shown.
    REFUSAL_FIELD: ClassVar[str] = "rf"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="form.cancel"),
        Binding("f2", "submit(True)", "Validate only", id="form.validate"),
        Binding("ctrl+s", "submit(False)", "Apply", id="form.apply"),
        Binding(
            "ctrl+r",
            "reread",
            "Re-read",
            id="form.refresh",
            tooltip="Read the cluster's brokers and load again for the preview",
        ),
    ]

    def __init__(
        self,
        admin: AdminPort,
        cluster: ClusterInfo | None,
        *,
        profile: Profile | None = None,
        snapshot: Snapshot | None = None,
        known: Sequence[TopicDescription] | None = None,
    ) -> None:
        super().__init__()
        self.admin = admin
        # The topics screen's last read, for the first snapshot only (ctrl+r reads afresh).
        self._known = known
        self.cluster = cluster
        self.profile = profile
        self.valid = False
        self.snapshot = snapshot
        self._given_snapshot = snapshot is not None
        self.snapshot_ready = asyncio.Event()
        self.planned: Planned | None = None
        self.options: PlacementOptions | None = None
        # A field is judged once edited (its value left the one it opened with), or every
        # field once the form is submitted: an empty form shows no errors.
        self._opened_with: dict[str, object] = {}
        self.edited: set[str] = set()
        self.submitted = False
        self.hidden_errors: dict[str, str] = {}
        self.shown_errors: dict[str, str] = {}

    @property
    def form_profile(self) -> Profile:
        """The profile given, else the app's, else defaults over the admin's connection."""
        if self.profile is None:
            self.profile = getattr(self.app, "profile", None) or Profile(
                "default", self.admin.settings
            )
        return self.profile

    @property
    def brokers(self) -> list[Broker]:
        return self.snapshot.brokers if self.snapshot else brokers_of(self.cluster)

    def field_error_label(self, field: str) -> Label:
        return Label("", id=f"{field}-error", classes="field-error", markup=False)

    def placement_widgets(self) -> ComposeResult:
        profile = self.form_profile
        yield Label("Under-replicated creation (KIP-409): mode, min required RF, placement")
        with Horizontal(id="placement-row"):
            yield Select(
                [(m, m) for m in MODES],
                value=profile.under_replicated if profile.under_replicated in MODES else MODES[0],
                allow_blank=False,
                id="mode",
            )
            yield Input(
                placeholder="min required RF (empty: none)",
                id="min_required",
                type="integer",
                valid_empty=True,
            )
            yield Select(
                [("client places", "client"), ("Kafka places", "broker")],
                value=profile.placement if profile.placement == "broker" else "client",
                allow_blank=False,
                id="placement",
            )
        for field in PLACEMENT_FIELDS:
            yield self.field_error_label(field)

    def preview_widgets(self) -> ComposeResult:
        yield Static("", id="preview-summary", markup=False)
        yield Static("", id="under-replicated", markup=False)
        yield PreviewTable(id="preview")
        yield Static("", id="verdict", markup=False)
        with Horizontal(classes="buttons"):
            yield Button("Validate only (F2)", id="validate")
            yield Button(
                f"{self.APPLY_LABEL} (Ctrl+S)", variant="primary", id="apply", disabled=True
            )
            yield Button("Cancel (Esc)", id="cancel")

    def on_mount(self) -> None:
        if self._given_snapshot:
            self.snapshot_ready.set()
        else:
            self.read_cluster()

    def placement_choice(self, errors: dict[str, str]) -> PlacementOptions | None:
        """The options as the CLI reads its flags: a minimum alone implies `enabled`."""
        mode = self.query_one("#mode", Select).value
        minimum = whole_number(self.query_one("#min_required", Input).value, "min_required", errors)
        where = self.query_one("#placement", Select).value
        if "min_required" in errors:
            return None
        try:
            return PlacementOptions.of(
                None if mode == "disabled" and minimum is not None else str(mode),
                minimum,
                str(where),
            )
        except FieldError as exc:
            errors[FORM_FIELDS[exc.field][0]] = field_error_words(exc)
            return None

    def refuse(self, planned: Planned, errors: dict[str, str]) -> None:
        """The placer's refusal, next to the field it concerns."""
        refusal = planned.refusal
        if refusal is not None:
            field = ERROR_FIELD.get(refusal.error or "", self.REFUSAL_FIELD)
            errors[field if field in self.FIELDS else self.REFUSAL_FIELD] = result_words(refusal)

    def _note_edits(self) -> None:
        for field in self.FIELDS:
            found = self.query(f"#{field}")
            if not found:
                continue
            widget = found.first()
            value = widget.value if isinstance(widget, Input | Select) else None
            opened = self._opened_with.setdefault(field, value)
            if value != opened:
                self.edited.add(field)

    def judged(self, field: str) -> bool:
        """Whether `field`'s error is shown: once edited, or after a submit."""
        return self.submitted or field in self.edited

    def nothing_to_send(self) -> str:
        """The preview's line while the form is not valid."""
        if self.shown_errors:
            return "Nothing to send yet: see the errors above."
        return "Nothing to send yet: fill in the form (F2 checks every field)."

    def set_errors(self, errors: dict[str, str]) -> None:
        self._note_edits()
        self.hidden_errors = {f: e for f, e in errors.items() if not self.judged(f)}
        self.shown_errors = {f: e for f, e in errors.items() if f not in self.hidden_errors}
        for field in self.FIELDS:
            label = self.query_one(f"#{field}-error", Label)
            shown = field in errors and field not in self.hidden_errors
            label.update(errors.get(field, "") if shown else "")
            label.display = shown
        self.valid = not errors
        ready = self.snapshot is not None
        self.query_one("#apply", Button).disabled = not (self.valid and ready)

    def show_result(self, result: TopicResult) -> None:
        verdict = self.query_one("#verdict", Static)
        if result.ok:
            verdict.update(f"OK: {result.message}")
            verdict.set_class(False, "error")
            return
        field = ERROR_FIELD.get(result.error or "")
        message = f"{result.error}: {result.message}"
        if field in self.FIELDS:
            label = self.query_one(f"#{field}-error", Label)
            label.update(message)
            label.display = True
        verdict.update(message)
        verdict.set_class(True, "error")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "validate":
            self.action_submit(True)
        elif event.button.id == "apply":
            self.action_submit(False)
        elif event.button.id == "cancel":
            self.action_cancel()

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_reread(self) -> None:
        self.read_cluster()

    def action_submit(self, validate_only: bool) -> None:
        self.submit(validate_only)

    def revalidate(self) -> None:
        raise NotImplementedError

    def prepared(self) -> tuple[Operation, str, object] | None:
        """What to send (called after revalidate): the operation, the failure title, and
        what the form returns when done; None when the form is not valid."""
        raise NotImplementedError

    async def read_extra(self, snapshot: Snapshot) -> None:
        """More the form needs with the snapshot (the partitions form: min.insync.replicas)."""

    # The topics the form's change touches, described in its snapshot; the others only weigh
    # as load, counted without describing them (take_snapshot's `current`). None: all.
    touched: Sequence[str] | None = None

    def show_preview(
        self,
        first_partition: int,
        lists: Sequence[Sequence[int]] | None,
        automatic: str,
        heading: str,
    ) -> None:
        """The exact assignment to send, per broker and rack; or how Kafka will place it."""
        summary = self.query_one("#preview-summary", Static)
        warning = self.query_one("#under-replicated", Static)
        table = self.query_one(PreviewTable)
        table.display = bool(lists)
        placement = self.planned.placement if self.planned else None
        message = placement.message if placement and placement.under_replicated else ""
        warning.update(message)
        warning.display = bool(message)
        if lists:
            summary.update(
                f"{heading}{self._mode_note()}:\n{placement_summary(lists, self.brokers)}"
            )
            offline = {b.id for b in self.brokers if not b.live}
            table.show(first_partition, lists, offline)
        else:
            summary.update(automatic)

    def _mode_note(self) -> str:
        options = self.options
        placed = self.planned is not None and self.planned.placement is not None
        if options is None or options.mode == "disabled" or not placed:
            return ""  # a typed assignment is sent as typed, whatever the mode
        implied = self.query_one("#mode", Select).value != options.mode
        return f" (mode {options.mode}{', implied by the minimum' if implied else ''})"

    @work(exclusive=True, group="snapshot", exit_on_error=False)
    async def read_cluster(self) -> None:
        profile = self.form_profile
        self.snapshot_ready.clear()
        try:
            snapshot = await take_snapshot(
                self.admin,
                zookeeper=profile.zookeeper_connect,
                store=placeholder_store(self, profile),
                current=self.touched,
                known=self._known,
                every_dir=False,  # cordons only: placing needs no other directory
            )
            await self.read_extra(snapshot)
            self.snapshot, self._known = snapshot, None
        except AdminError as exc:
            self.tell(notices.failed(exc.message, "Cannot read the cluster"))
            return
        finally:
            self.snapshot_ready.set()  # a waiting submit goes on (or reports the failure)
        self.revalidate()

    @work(exclusive=True, group="form", exit_on_error=False)
    async def submit(self, validate_only: bool) -> None:
        """Waits for the snapshot (keys typed before it came are not lost); validate-only
        shows the broker's verdict; a successful change closes the form."""
        self.submitted = True  # every field is judged from now on
        await self.snapshot_ready.wait()
        if self.snapshot is None:
            self.tell(
                notices.failed(
                    "The cluster could not be read, so nothing can be planned; ctrl+r reads again.",
                    "Nothing sent",
                )
            )
            return
        self.revalidate()
        prepared = self.prepared()
        if prepared is None:
            return
        operation, failure_title, done = prepared
        try:
            result = (await operation(validate_only))[0]
        except AdminError as exc:
            self.tell(notices.failed(exc.message, failure_title))
            return
        self.show_result(result)
        if result.ok and not validate_only:
            self.tell(*notices.for_topic_results([result]))
            self.dismiss(done)
