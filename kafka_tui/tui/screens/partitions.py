"""Increase a topic's partitions (KIP-195): new total, optional assignment for the new ones."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Footer, Input, Label

from ...admin import (
    ClusterInfo,
    KafkaAdmin,
    NewPartitions,
    TopicDescription,
    validation,
)
from ...commands.parsing import UsageError, replica_lists
from .forms import ERROR_FIELD, FormScreen, automatic_summary


class IncreasePartitionsScreen(FormScreen):
    FIELDS: ClassVar[tuple[str, ...]] = ("partitions", "assignment")
    APPLY_LABEL = "Apply"

    def __init__(
        self, admin: KafkaAdmin, topic: TopicDescription, cluster: ClusterInfo | None
    ) -> None:
        super().__init__(admin, cluster)
        self.topic = topic
        self.request: NewPartitions | None = None

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
            yield Input(
                placeholder=f"optional: replicas of the NEW partitions only, {rf} each, "
                "e.g. 1:2,2:3",
                id="assignment",
            )
            yield self.field_error_label("assignment")
            yield from self.preview_widgets()
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#partitions", Input).focus()
        self.revalidate()

    @on(Input.Changed)
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
            except UsageError as exc:
                errors["assignment"] = str(exc)
        request = NewPartitions(self.topic.name, total or 0, lists)
        if not errors:
            problem = validation.check_new_partitions(
                request, len(self.topic.partitions), self.topic.replication_factor
            )
            if problem is not None:
                field = ERROR_FIELD.get(problem.name, "assignment")
                errors[field] = problem.message
        self.request = None if errors else request
        self.set_errors(errors)
        added = (total - len(self.topic.partitions)) if total else None
        automatic = automatic_summary(added, self.topic.replication_factor, self.cluster)
        self.show_preview(len(self.topic.partitions), lists, automatic, "New partitions to send")

    def action_submit(self, validate_only: bool) -> None:
        self.revalidate()
        request = self.request
        if request is not None:
            self.send(
                lambda v: self.admin.create_partitions([request], validate_only=v),
                validate_only,
                "Increase failed",
                request.total,
            )
