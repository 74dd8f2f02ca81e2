"""Create a topic: counts or a manual assignment, configs, KIP-409 options, the exact
preview of what is sent, validate, create."""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.suggester import SuggestFromList
from textual.widgets import Footer, Input, Label, Select

from ...admin import TopicSpec, validation
from ...fields import FieldError
from ...services.parsing import add_config, replica_assignment
from ...services.placing import PlacementOptions, create_topics, plan_creates
from ..words import field_error_words
from .base import placeholder_store
from .forms import (
    ERROR_FIELD,
    PLACEMENT_FIELDS,
    FormScreen,
    Operation,
    automatic_summary,
    whole_number,
)

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


class CreateTopicScreen(FormScreen):
    FIELDS: ClassVar[tuple[str, ...]] = (
        "name",
        "partitions",
        "rf",
        "assignment",
        "configs",
        *PLACEMENT_FIELDS,
    )
    APPLY_LABEL = "Create"
    spec: TopicSpec | None = None
    touched = ()  # a new topic: the others weigh as load only

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
            yield from self.placement_widgets()
            yield from self.preview_widgets()
        yield Footer()

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#name", Input).focus()
        self.revalidate()

    @on(Input.Changed)
    @on(Select.Changed)
    def revalidate(self) -> None:
        errors: dict[str, str] = {}
        value = {f: self.query_one(f"#{f}", Input).value for f in self.FIELDS[:5]}
        partitions = whole_number(value["partitions"], "partitions", errors)
        rf = whole_number(value["rf"], "rf", errors)
        assignment = None
        configs: dict[str, str] = {}
        if value["assignment"].strip():
            try:
                assignment = replica_assignment(value["assignment"])
            except FieldError as exc:
                errors["assignment"] = field_error_words(exc)
        if value["configs"].strip():
            try:
                configs = add_config(value["configs"])
            except FieldError as exc:
                errors["configs"] = field_error_words(exc)
        options = self.placement_choice(errors)
        spec = TopicSpec(value["name"].strip(), partitions, rf, assignment, configs)
        if (name_problem := validation.check_name(spec.name)) is not None:
            errors["name"] = name_problem.message
        # The other fields are checked with a stand-in name, so each shows its own error.
        problem = (
            None
            if errors.keys() - {"name"}
            else validation.check_spec(replace(spec, name="x"), lists=False)
        )
        if problem is not None:
            field = ERROR_FIELD.get(problem.name, "assignment")
            errors[field] = problem.message.replace("Topic 'x': ", "")
        effective_rf = len(assignment[0]) if assignment else rf
        kafka_places = options is not None and options.placement == "broker"
        registered = len(self.brokers) if self.brokers else None
        if (
            (kafka_places or self.snapshot is None)
            and rf is not None
            and registered is not None
            and rf > registered
            and "rf" not in errors
        ):
            errors["rf"] = (
                f"Replication factor {rf} is more than the {registered} brokers of the cluster."
            )
        min_isr = configs.get("min.insync.replicas", "")
        if min_isr.isdigit() and effective_rf is not None and int(min_isr) > effective_rf:
            errors["configs"] = (
                f"min.insync.replicas={min_isr} is above the replication factor {effective_rf}: "
                "producers with acks=all could never write."
            )
        self.planned = None
        if self.snapshot is not None and options is not None and not errors.keys() - {"name"}:
            self.planned = plan_creates(
                self.snapshot, [replace(spec, name=spec.name or "-")], options
            )[0]
            self.refuse(self.planned, errors)
        self.spec = None if errors else spec
        self.options = options
        self.set_errors(errors)
        self.update_preview(partitions, rf, assignment, options)

    def update_preview(
        self,
        partitions: int | None,
        rf: int | None,
        assignment: dict[int, list[int]] | None,
        options: PlacementOptions | None,
    ) -> None:
        placement = self.planned.placement if self.planned else None
        refused = self.planned is not None and self.planned.refusal is not None
        lists: list[list[int]] | None = None
        if placement is not None and not refused:
            lists = [list(replicas) for replicas in placement.assignment]
        elif assignment and self.planned is None:  # typed, the cluster not read yet
            lists = [assignment[p] for p in sorted(assignment)]
        if options is not None and options.placement == "broker":
            automatic = automatic_summary(partitions, rf, self.brokers)
        elif self.snapshot is None:
            automatic = "Reading the cluster's brokers for the preview…"
        else:
            automatic = self.nothing_to_send()
        self.show_preview(0, lists, automatic, "Assignment to send")

    def prepared(self) -> tuple[Operation, str, object] | None:
        spec, options, snapshot = self.spec, self.options, self.snapshot
        if spec is None or options is None or snapshot is None:
            return None
        store = placeholder_store(self, self.form_profile)
        return (
            lambda v: create_topics(self.admin, snapshot, [spec], options, store, validate_only=v),
            "Create failed",
            spec.name,
        )
