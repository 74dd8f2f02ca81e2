"""What the create and partition forms share: field errors, the assignment preview."""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import Button, Label, Static

from ...admin import AdminError, ClusterInfo, KafkaAdmin, TopicResult
from ..widgets.tables import PreviewTable
from .base import KafkaScreen
from .changes import notify_results

# Which field a Kafka error concerns, so it is shown next to that field.
ERROR_FIELD = {
    "INVALID_TOPIC_EXCEPTION": "name",
    "TOPIC_ALREADY_EXISTS": "name",
    "INVALID_PARTITIONS": "partitions",
    "INVALID_REPLICATION_FACTOR": "rf",
    "INVALID_REPLICA_ASSIGNMENT": "assignment",
    "INVALID_CONFIG": "configs",
}


def placement_summary(lists: Sequence[Sequence[int]], cluster: ClusterInfo | None) -> str:
    """Replicas and preferred leaders per broker and per rack, for a preview."""
    replicas = Counter(b for replicas in lists for b in replicas)
    leaders = Counter(replicas_[0] for replicas_ in lists if replicas_)
    racks = {b.id: b.rack or "-" for b in cluster.brokers} if cluster else {}
    fenced = {b.id for b in cluster.brokers if b.fenced} if cluster else set()
    per_broker = ", ".join(
        f"{b}{'!' if b in fenced else ''}: {replicas[b]} ({leaders[b]} leading)"
        for b in sorted(replicas)
    )
    per_rack = Counter(racks.get(b, "?") for replicas_ in lists for b in replicas_)
    rack_text = ", ".join(f"{rack}: {n}" for rack, n in sorted(per_rack.items()))
    unknown = sorted(b for b in replicas if racks and b not in racks)
    lines = [f"Per broker: {per_broker}", f"Per rack: {rack_text}"]
    if unknown:
        lines.append(f"Unknown broker id(s): {unknown} — the cluster will refuse them.")
    if replicas.keys() & fenced:
        lines.append("Broker ids marked ! are offline: their replicas start out of sync.")
    return "\n".join(lines)


def automatic_summary(partitions: int | None, rf: int | None, cluster: ClusterInfo | None) -> str:
    p = partitions if partitions is not None else "the broker's default number of"
    r = rf if rf is not None else "the broker's default"
    if cluster is None:
        return f"The broker places {p} partitions with replication factor {r}."
    live = [b for b in cluster.brokers if not b.fenced]
    racks = sorted({b.rack or "-" for b in live})
    text = (
        f"The broker places {p} partitions with replication factor {r} over {len(live)} "
        f"live broker(s) on rack(s) {', '.join(racks)}"
    )
    if isinstance(partitions, int) and isinstance(rf, int) and live:
        text += f": about {partitions * rf / len(live):.1f} replicas per broker"
    return text + "."


class FormScreen(KafkaScreen):
    """A form with per-field error labels, a preview and validate / apply / cancel."""

    FIELDS: ClassVar[tuple[str, ...]] = ()
    APPLY_LABEL: ClassVar[str] = "Apply"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="form.cancel"),
        Binding("f2", "submit(True)", "Validate only", id="form.validate"),
        Binding("ctrl+s", "submit(False)", "Apply", id="form.apply"),
    ]

    def __init__(self, admin: KafkaAdmin, cluster: ClusterInfo | None) -> None:
        super().__init__()
        self.admin = admin
        self.cluster = cluster
        self.valid = False

    def field_error_label(self, field: str) -> Label:
        return Label("", id=f"{field}-error", classes="field-error", markup=False)

    def preview_widgets(self) -> ComposeResult:
        yield Static("", id="preview-summary", markup=False)
        yield PreviewTable(id="preview")
        yield Static("", id="verdict", markup=False)
        with Horizontal(classes="buttons"):
            yield Button("Validate only (F2)", id="validate")
            yield Button(
                f"{self.APPLY_LABEL} (Ctrl+S)", variant="primary", id="apply", disabled=True
            )
            yield Button("Cancel (Esc)", id="cancel")

    def set_errors(self, errors: dict[str, str]) -> None:
        for field in self.FIELDS:
            label = self.query_one(f"#{field}-error", Label)
            label.update(errors.get(field, ""))
            label.display = field in errors
        self.valid = not errors
        self.query_one("#apply", Button).disabled = not self.valid

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

    def action_submit(self, validate_only: bool) -> None:
        raise NotImplementedError

    def show_preview(
        self,
        first_partition: int,
        lists: Sequence[Sequence[int]] | None,
        automatic: str,
        heading: str,
    ) -> None:
        """The exact assignment to send, per broker and rack; or how the broker will place it."""
        summary = self.query_one("#preview-summary", Static)
        table = self.query_one(PreviewTable)
        table.display = bool(lists)
        if lists:
            summary.update(f"{heading}:\n{placement_summary(lists, self.cluster)}")
            offline = {b.id for b in self.cluster.brokers if b.fenced} if self.cluster else set()
            table.show(first_partition, lists, offline)
        else:
            summary.update(automatic)

    @work(exclusive=True, group="form", exit_on_error=False)
    async def send(
        self,
        operation: Callable[[bool], Awaitable[list[TopicResult]]],
        validate_only: bool,
        failure_title: str,
        done: object,
    ) -> None:
        """Validate-only shows the broker's verdict; a successful change closes the form."""
        try:
            result = (await operation(validate_only))[0]
        except AdminError as exc:
            self.notify(exc.message, title=failure_title, severity="error", timeout=12)
            return
        self.show_result(result)
        if result.ok and not validate_only:
            notify_results(self, [result])
            self.dismiss(done)
