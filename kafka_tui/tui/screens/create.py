"""Create a topic: counts or a manual assignment, configs, a live preview, validate, create."""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.suggester import SuggestFromList
from textual.widgets import Footer, Input, Label

from ...admin import ClusterInfo, KafkaAdmin, TopicSpec, validation
from ...commands.parsing import UsageError, add_config, replica_assignment
from .forms import ERROR_FIELD, FormScreen, automatic_summary

COMMON_CONFIGS = [
    "cleanup.policy=",
    "retention.ms=",
    "retention.bytes=",
    "min.insync.replicas=",
    "segment.bytes=",
    "segment.ms=",
    "max.message.bytes=",
    "compression.type=",
    "message.timestamp.type=",
    "unclean.leader.election.enable=",
]


def _count(text: str, field: str, errors: dict[str, str]) -> int | None:
    if not text.strip():
        return None
    try:
        return int(text)
    except ValueError:
        errors[field] = f"'{text}' is not a whole number."
        return None


class CreateTopicScreen(FormScreen):
    FIELDS: ClassVar[tuple[str, ...]] = ("name", "partitions", "rf", "assignment", "configs")
    APPLY_LABEL = "Create"

    def __init__(self, admin: KafkaAdmin, cluster: ClusterInfo | None) -> None:
        super().__init__(admin, cluster)
        self.spec: TopicSpec | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="form", can_focus=False):
            yield Label("Create topic", classes="dialog-title", markup=False)
            yield Input(placeholder="topic name", id="name")
            yield self.field_error_label("name")
            yield Input(
                placeholder="partitions (empty: broker default)",
                id="partitions",
                type="integer",
                valid_empty=True,
            )
            yield self.field_error_label("partitions")
            yield Input(
                placeholder="replication factor (empty: broker default)",
                id="rf",
                type="integer",
                valid_empty=True,
            )
            yield self.field_error_label("rf")
            yield Input(placeholder="or a manual assignment, e.g. 1:2:3,2:3:1", id="assignment")
            yield self.field_error_label("assignment")
            yield Input(
                placeholder="configs, e.g. retention.ms=86400000,cleanup.policy=compact",
                id="configs",
                suggester=SuggestFromList(COMMON_CONFIGS, case_sensitive=False),
            )
            yield self.field_error_label("configs")
            yield from self.preview_widgets()
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#name", Input).focus()
        self.revalidate()

    @on(Input.Changed)
    def revalidate(self) -> None:
        errors: dict[str, str] = {}
        value = {f: self.query_one(f"#{f}", Input).value for f in self.FIELDS}
        partitions = _count(value["partitions"], "partitions", errors)
        rf = _count(value["rf"], "rf", errors)
        assignment = None
        configs: dict[str, str] = {}
        if value["assignment"].strip():
            try:
                assignment = replica_assignment(value["assignment"])
            except UsageError as exc:
                errors["assignment"] = str(exc)
        if value["configs"].strip():
            try:
                configs = add_config(value["configs"])
            except UsageError as exc:
                errors["configs"] = str(exc).replace("--add-config", "configs")
        spec = TopicSpec(value["name"].strip(), partitions, rf, assignment, configs)
        if (name_problem := validation.check_name(spec.name)) is not None:
            errors["name"] = name_problem.message
        # The other fields are checked with a stand-in name, so each shows its own error.
        problem = (
            None if errors.keys() - {"name"} else validation.check_spec(replace(spec, name="x"))
        )
        if problem is not None:
            field = ERROR_FIELD.get(problem.name, "assignment")
            errors[field] = problem.message.replace("Topic 'x': ", "")
        effective_rf = len(assignment[0]) if assignment else rf
        registered = len(self.cluster.brokers) if self.cluster else None
        if rf is not None and registered is not None and rf > registered and "rf" not in errors:
            errors["rf"] = (
                f"Replication factor {rf} is more than the {registered} brokers of the cluster."
            )
        min_isr = configs.get("min.insync.replicas", "")
        if min_isr.isdigit() and effective_rf is not None and int(min_isr) > effective_rf:
            errors["configs"] = (
                f"min.insync.replicas={min_isr} is above the replication factor {effective_rf}: "
                "producers with acks=all could never write."
            )
        self.spec = None if errors else spec
        self.set_errors(errors)
        self.update_preview(partitions, rf, assignment)

    def update_preview(
        self, partitions: int | None, rf: int | None, assignment: dict[int, list[int]] | None
    ) -> None:
        lists = [assignment[p] for p in sorted(assignment)] if assignment else None
        self.show_preview(
            0, lists, automatic_summary(partitions, rf, self.cluster), "Assignment to send"
        )

    def action_submit(self, validate_only: bool) -> None:
        self.revalidate()
        spec = self.spec
        if spec is not None:
            self.send(
                lambda v: self.admin.create_topics([spec], validate_only=v),
                validate_only,
                "Create failed",
                spec.name,
            )
