"""Changes to a group, each read top to bottom: reset its offsets (a form with
kafka-consumer-groups.sh's modes, the preview that is exactly the plan to commit, the group's
name typed to confirm, then the commit and its rollback file) and delete it (typed name).

Both dialogs keep their title (naming the group) and their buttons on screen at 80x24; the
body between them scrolls.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Input, Label, Select, Static

from ...admin import AdminError
from ...admin.protocol_groups import SHARE
from ...services import group_reset as reset
from ...services.groups import GroupView, delete_groups, delete_refusal
from ...services.parsing import UsageError
from ...services.ports import AdminPort
from .. import notices
from .base import KafkaScreen

# The form's words for kafka-consumer-groups.sh's modes (from-file stays the CLI's).
MODE_LABELS = {
    reset.TO_EARLIEST: "earliest",
    reset.TO_LATEST: "latest",
    reset.TO_CURRENT: "current",
    reset.TO_OFFSET: "offset N",
    reset.SHIFT_BY: "shift by N",
    reset.TO_DATETIME: "datetime",
    reset.BY_DURATION: "duration",
}
VALUE_HINTS = {
    reset.TO_OFFSET: "the offset, e.g. 1000 (clamped to the log)",
    reset.SHIFT_BY: "records to move, e.g. -500 (back) or 200 (forward)",
    reset.TO_DATETIME: "ISO-8601, e.g. 2026-11-27T02:00:00 (local) or ...Z",
    reset.BY_DURATION: "how far back, e.g. PT30M or P1DT2H",
}
ALL_TOPICS, ONE_TOPIC = "all", "topic"


def mode_value(mode: str, text: str) -> int | None:
    """The value a mode takes, from the form's text; UsageError says what to type."""
    text = text.strip()
    if mode not in VALUE_HINTS:
        return None
    if not text:
        raise UsageError(f"Enter {VALUE_HINTS[mode]}.")
    if mode == reset.TO_DATETIME:
        return reset.parse_datetime(text)
    if mode == reset.BY_DURATION:
        return reset.parse_duration(text)
    try:
        return int(text)
    except ValueError:
        raise UsageError(f"'{text}' is not a whole number.") from None


def change_words(row: reset.ResetRow) -> str:
    if row.rereads:
        return f"re-read {row.rereads}"
    if row.skips:
        return f"skip {row.skips}"
    return "-"


class GroupResetDialog(ModalScreen[reset.ResetOutcome | None]):
    """Reset a group's offsets: mode, scope, the preview (the plan itself, computed in a
    worker on each change), the group's name typed, then Execute."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, admin: AdminPort, view: GroupView) -> None:
        super().__init__()
        self.admin = admin
        self.view = view
        self.plan: reset.ResetPlan | None = None
        self.outcome: reset.ResetOutcome | None = None
        self.previews = 0  # plans computed (tests wait for one)

    def compose(self) -> ComposeResult:
        modes = reset.SHARE_MODES if self.view.type == SHARE else reset.MODES
        topics = sorted({p.topic for p in self.view.offsets})
        with Vertical(id="reset-dialog", classes="dialog group-dialog"):
            yield Label(
                f"Reset the offsets of group '{self.view.group}'",
                classes="dialog-title",
                markup=False,
            )
            with VerticalScroll(classes="dialog-body"):
                with Horizontal(classes="group-fields"):
                    yield Select(
                        [(MODE_LABELS[m], m) for m in modes if m in MODE_LABELS],
                        value=reset.TO_EARLIEST,
                        allow_blank=False,
                        id="reset-mode",
                    )
                    yield Input(placeholder="(no value for this mode)", id="reset-value")
                yield Label("", id="reset-value-error", classes="field-error", markup=False)
                with Horizontal(classes="group-fields"):
                    yield Select(
                        [("all topics", ALL_TOPICS), ("one topic", ONE_TOPIC)],
                        value=ALL_TOPICS,
                        allow_blank=False,
                        id="reset-scope",
                    )
                    yield Input(topics[0] if topics else "", placeholder="topic", id="reset-topic")
                    yield Input(placeholder="0,2 (empty: all)", id="reset-partitions")
                yield Static("Computing the preview…", id="reset-summary", markup=False)
                yield DataTable(id="reset-preview", cursor_type="row")
            with Vertical(classes="dialog-foot"):
                yield Label(
                    f"Type the group's name ({self.view.group}) to confirm:",
                    id="reset-confirm-label",
                    markup=False,
                )
                yield Input(id="reset-confirm")
                with Horizontal(classes="buttons"):
                    yield Button("Execute", variant="warning", id="reset-execute", disabled=True)
                    yield Button("Cancel", id="reset-cancel")

    def on_mount(self) -> None:
        self.query_one("#reset-preview", DataTable).add_columns(
            "Topic", "Partition", "Before", "After", "Log start", "Log end", "Change"
        )
        self._show_fields()
        self.query_one("#reset-mode", Select).focus()
        self.preview()

    # -- the form --------------------------------------------------------------------------

    @property
    def mode(self) -> str:
        return str(self.query_one("#reset-mode", Select).value)

    def _show_fields(self) -> None:
        value = self.query_one("#reset-value", Input)
        value.disabled = self.mode not in VALUE_HINTS
        value.placeholder = VALUE_HINTS.get(self.mode, "(no value for this mode)")
        one = self.query_one("#reset-scope", Select).value == ONE_TOPIC
        self.query_one("#reset-topic", Input).disabled = not one
        self.query_one("#reset-partitions", Input).disabled = not one

    def spec(self) -> reset.ResetSpec:
        value = mode_value(self.mode, self.query_one("#reset-value", Input).value)
        if self.query_one("#reset-scope", Select).value == ALL_TOPICS:
            return reset.ResetSpec(self.mode, value, all_topics=True)
        topic = self.query_one("#reset-topic", Input).value.strip()
        if not topic:
            raise UsageError("Enter the topic to reset, or choose all topics.")
        partitions = self.query_one("#reset-partitions", Input).value.strip().replace(" ", "")
        selector = f"{topic}:{partitions}" if partitions else topic
        reset.topic_selector(selector)  # a malformed partition list is said here
        return reset.ResetSpec(self.mode, value, topics=[selector])

    @on(Select.Changed)
    def choice_changed(self) -> None:
        self._show_fields()
        self.preview()

    @on(Input.Changed, "#reset-value, #reset-topic, #reset-partitions")
    def field_changed(self) -> None:
        self.preview()

    @on(Input.Changed, "#reset-confirm")
    @on(Input.Submitted, "#reset-confirm")
    def confirm_typed(self) -> None:
        self._judge()

    def _judge(self) -> None:
        """Execute is possible only for a previewed plan Kafka would take, confirmed."""
        typed = self.query_one("#reset-confirm", Input).value.strip() == self.view.group
        plan = self.plan
        ready = (
            plan is not None
            and plan.refusal is None
            and bool(plan.rows)
            and typed
            and self.outcome is None
        )
        self.query_one("#reset-execute", Button).disabled = not ready

    # -- preview and execute ---------------------------------------------------------------

    @work(exclusive=True, group="reset-preview", exit_on_error=False)
    async def preview(self) -> None:
        self.plan = None
        self._judge()
        error = self.query_one("#reset-value-error", Label)
        summary = self.query_one("#reset-summary", Static)
        table = self.query_one("#reset-preview", DataTable)
        try:
            spec = self.spec()
        except UsageError as exc:
            error.update(str(exc))
            error.display = True
            summary.update("Fill in the form for a preview.")
            table.clear()
            return
        error.display = False
        summary.update("Computing the preview…")
        try:
            plan = await reset.plan_reset(self.admin, self.view.group, spec)
        except (AdminError, UsageError) as exc:
            summary.update(exc.message if isinstance(exc, AdminError) else str(exc))
            summary.add_class("error")
            table.clear()
            return
        summary.remove_class("error")
        self.plan = plan
        self.previews += 1
        table.clear()
        for row in plan.rows:
            table.add_row(
                row.topic,
                str(row.partition),
                "-" if row.before is None else str(row.before),
                str(row.after),
                "-" if row.log_start is None else str(row.log_start),
                "-" if row.log_end is None else str(row.log_end),
                change_words(row),
            )
        rereads = sum(r.rereads for r in plan.rows)
        skips = sum(r.skips for r in plan.rows)
        lines = [
            f"Preview: {len(plan.rows)} partition(s); the group re-reads {rereads} and skips "
            f"{skips} record(s). Nothing is changed until Execute."
        ]
        lines += [f"Note: {n}" for n in plan.notes]
        refusal = plan.refusal
        if refusal is not None:
            lines.append(f"Refused ({refusal[0]}): {refusal[1]}")
        summary.set_class(refusal is not None, "error")
        summary.update("\n".join(lines))
        self._judge()

    @on(Button.Pressed, "#reset-execute")
    def execute_pressed(self) -> None:
        if self.plan is not None:
            self.execute(self.plan)

    @work(exclusive=True, group="reset-execute", exit_on_error=False)
    async def execute(self, plan: reset.ResetPlan) -> None:
        self.query_one("#reset-execute", Button).disabled = True
        summary = self.query_one("#reset-summary", Static)
        try:
            outcome = await reset.execute_reset(self.admin, plan)
        except AdminError as exc:
            summary.update(f"Not reset: {exc.message}")
            summary.add_class("error")
            self._judge()
            return
        self.outcome = outcome
        self.query_one("#reset-cancel", Button).label = "Close"
        if outcome.ok:
            summary.remove_class("error")
            summary.update(
                f"Group '{plan.group}': {len(outcome.results)} partition(s) reset.\n"
                f"Rollback file: {outcome.rollback_file}\n(kafka-tui groups reset-offsets "
                f"{plan.group} --from-file {outcome.rollback_file} --execute puts them back)"
            )
        else:
            document = outcome.to_json()
            summary.add_class("error")
            summary.update(
                f"Not reset ({document.get('error')}): {document.get('message')}"
                + (f"\nRollback file: {outcome.rollback_file}" if outcome.rollback_file else "")
            )
        self._judge()

    @on(Button.Pressed, "#reset-cancel")
    def action_cancel(self) -> None:
        self.dismiss(self.outcome)


class GroupDeleteConfirm(ModalScreen[bool]):
    """Typing the group's name enables Delete; a group with members is refused with Kafka's
    sentence and Delete stays disabled."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, view: GroupView) -> None:
        super().__init__()
        self.view = view
        members = view.member_count or 0
        self.refusal = delete_refusal(view.group, members, view.state) if members else None

    def compose(self) -> ComposeResult:
        v = self.view
        with Vertical(id="group-delete-dialog", classes="dialog group-dialog"):
            yield Label(f"Delete group '{v.group}'?", classes="dialog-title", markup=False)
            with VerticalScroll(classes="dialog-body"):
                lag = "-" if v.lag is None else str(v.lag)
                yield Static(
                    f"Kind {v.type}, state {v.state}, {v.member_count or 0} member(s), "
                    f"{len(v.offsets)} partition(s) with offsets, lag {lag}.\n"
                    "Its committed offsets go with it: a consumer joining later starts from "
                    "its auto.offset.reset.",
                    markup=False,
                )
                if self.refusal:
                    yield Static(
                        f"Refused (NON_EMPTY_GROUP): {self.refusal}",
                        id="group-delete-refusal",
                        classes="error",
                        markup=False,
                    )
            with Vertical(classes="dialog-foot"):
                yield Label(f"Type its name ({v.group}) to confirm:", markup=False)
                yield Input(id="group-confirm", disabled=self.refusal is not None)
                with Horizontal(classes="buttons"):
                    yield Button("Delete", variant="error", id="group-delete", disabled=True)
                    yield Button("Cancel", id="group-cancel")

    def on_mount(self) -> None:
        self.query_one("#group-confirm" if self.refusal is None else "#group-cancel").focus()

    def _typed(self, text: str) -> bool:
        return self.refusal is None and text.strip() == self.view.group

    @on(Input.Changed, "#group-confirm")
    def typed(self, event: Input.Changed) -> None:
        self.query_one("#group-delete", Button).disabled = not self._typed(event.value)

    @on(Input.Submitted, "#group-confirm")
    def submitted(self, event: Input.Submitted) -> None:
        if self._typed(event.value):
            self.dismiss(True)

    @on(Button.Pressed, "#group-delete")
    def confirm(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#group-cancel")
    def action_cancel(self) -> None:
        self.dismiss(False)


async def run_group_deletion(screen: KafkaScreen, admin: AdminPort, view: GroupView) -> bool:
    """Confirm by typing the name, delete, say what happened; True when deleted."""
    if not await screen.app.push_screen_wait(GroupDeleteConfirm(view)):
        screen.tell(notices.note("Nothing deleted."))
        return False
    try:
        [result] = await delete_groups(admin, [view.group])
    except (AdminError, UsageError) as exc:
        message = exc.message if isinstance(exc, AdminError) else str(exc)
        screen.tell(notices.failed(message, "Delete failed"))
        return False
    if not result.ok:
        screen.tell(notices.failed(result.message or "", f"Not deleted ({result.error})"))
        return False
    screen.tell(notices.done(result.message or f"Group '{view.group}' deleted."))
    return True
