"""Increase a topic's partitions (KIP-195), with KIP-409's options: the exact preview of the
NEW partitions (or an assignment typed for them), sent as previewed; and, next to the count,
whether growing moves keys that matter (a compacted topic, keyed records)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Footer, Input, Label, Select, Static

from ...admin import (
    ClusterInfo,
    NewPartitions,
    TopicDescription,
    validation,
)
from ...config import Profile
from ...fields import FieldError
from ...services.growing import grow_partitions, plan_grows
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


class IncreasePartitionsScreen(FormScreen):
    FIELDS: ClassVar[tuple[str, ...]] = ("partitions", "assignment", *PLACEMENT_FIELDS)
    APPLY_LABEL = "Apply"
    REFUSAL_FIELD = "partitions"

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
        self.revalidate()
        self.check_keys()

    @work(exclusive=True, group="keys", exit_on_error=False)
    async def check_keys(self) -> None:
        """cleanup.policy and the last batch of each partition (bounded; see keys.py)."""
        found = await key_mappings(self.admin, [self.topic.name])  # never raises AdminError
        self.keys = found.get(self.topic.name)
        self.revalidate()

    def show_key_mapping(self, total: int | None) -> None:
        shown = self.query_one("#key-mapping", Static)
        keys = self.keys
        text = keys.sentence(len(self.topic.partitions), total) if keys and keys.changes else ""
        if keys is not None and keys.compacted:
            text += " Grow it only if its consumers can take that."
        shown.update(text)
        shown.display = bool(text)

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
