"""One topic: id, partitions with leader, replicas (KIP-409 placeholders too), ISR and offline
replicas, and its configs."""

from __future__ import annotations

import asyncio
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Footer, Static

from ...admin import AdminError, ClusterInfo, TopicDescription
from ...admin.batches import KNOWN_INTERNAL_TOPICS
from ...config import Profile
from ...services.config_units import with_unit
from ...services.ports import AdminPort
from ...services.records import load_placeholders
from .. import notices
from ..widgets.styled import ReplicaLegend
from ..widgets.tables import PartitionTable
from .base import KafkaScreen, placeholder_store

# The screens it opens are imported when first opened (issue 52: the TUI's first frame).


class TopicDetailScreen(KafkaScreen):
    profile: Profile
    CHANGE_ACTIONS = frozenset({"increase", "delete", "replication_factor", "reassign"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back", id="detail.back"),
        Binding("r", "refresh", "Refresh", id="detail.refresh", tooltip="Refresh this topic"),
        Binding(
            "p",
            "increase",
            "Partitions",
            id="detail.increase",
            tooltip="Increase this topic's partitions",
        ),
        Binding("d", "delete", "Delete", id="detail.delete", tooltip="Delete this topic"),
        Binding(
            "v",
            "records",
            "Records",
            id="detail.records",
            tooltip="This topic's records: newest first, follow, jq filter",
            show=False,
        ),
        Binding(
            "f",
            "replication_factor",
            "RF",
            id="detail.replication_factor",
            tooltip="Change this topic's replication factor (KIP-4 AlterTopic)",
        ),
        Binding(
            "g",
            "groups",
            "Readers",
            id="detail.groups",
            tooltip="The consumer groups with offsets on this topic",
            show=False,  # in ? and the palette; the footer is full at 80 columns
        ),
        Binding(
            "m",
            "reassign",
            "Move off broker",
            id="detail.reassign",
            tooltip="Move this topic's replicas off a broker",
        ),
    ]

    def __init__(
        self, profile: Profile, admin: AdminPort, topic: str, cluster: ClusterInfo | None
    ) -> None:
        super().__init__()
        self.profile = profile
        self.admin = admin
        self.topic = topic
        self.cluster = cluster
        self.description: TopicDescription | None = None

    def compose(self) -> ComposeResult:
        yield Static(f"Topic {self.topic}", id="detail-header", markup=False)
        yield ReplicaLegend(id="legend")
        yield PartitionTable(id="partitions")
        yield Static("Configs (* = override on this topic)", classes="section")
        yield DataTable(id="configs", cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#configs", DataTable).add_columns("", "Config", "Value", "Source")
        self.load()

    @work(exclusive=True, group="detail", exit_on_error=False)
    async def load(self) -> None:
        try:
            (found, errors), cluster = await asyncio.gather(
                self.admin.describe_topics([self.topic], elr=True), self.admin.describe_cluster()
            )
        except AdminError as exc:
            self.tell(notices.failed(exc.message, "Cannot load the topic"))
            return
        if errors or not found:
            message = errors[0].message if errors else f"Topic '{self.topic}' was not found."
            self.query_one("#detail-header", Static).update(message)
            return
        self.cluster = cluster
        self.description = topic = found[0]
        try:
            placeholders = await load_placeholders(
                self.admin,
                placeholder_store(self, self.profile),
                [topic],
                tidy=not self.profile.read_only,
            )
        except AdminError as exc:
            self.tell(notices.warning(exc.message, "Placeholders unknown"))
            placeholders = {}
        missing = placeholders.get(topic.name, {})
        # A placeholder is a replica Kafka does not know of: drawn `(-1)` after the real ones.
        partitions = [
            p._replace(replicas=(*p.replicas, *missing[p.partition]))
            if p.partition in missing
            else p
            for p in topic.partitions
        ]
        offline = {b.id for b in cluster.brokers if b.fenced}
        urp = sum(1 for p in partitions if p.under_replicated)
        open_slots = sum(len(slots) for slots in missing.values())
        self.query_one("#detail-header", Static).update(
            f"Topic {topic.name}  id {topic.topic_id}  {len(topic.partitions)} partitions  "
            f"RF {topic.replication_factor}  {urp} under-replicated"
            + (f"  {open_slots} placeholder(s)" if open_slots else "")
            + ("  internal" if topic.internal else "")
        )
        try:
            ongoing = await self.admin.list_partition_reassignments([topic.name])
        except AdminError:  # no permission to list them: the marks are a hint only
            ongoing = []
        moving = {r.partition: (r.adding, r.removing) for r in ongoing}
        self.query_one(PartitionTable).show(partitions, offline, moving)
        configs = self.query_one("#configs", DataTable)
        configs.clear()
        for entry in sorted(topic.configs.values(), key=lambda c: (not c.is_override, c.name)):
            configs.add_row(
                "*" if entry.is_override else "",
                entry.name,
                with_unit(entry.name, entry.value),
                entry.source.label,
            )

    def _after_change(self, _: object) -> None:
        self.load()

    def action_refresh(self) -> None:
        self.load()

    def action_increase(self) -> None:
        if self.description is not None:
            from .partitions import IncreasePartitionsScreen

            self.app.push_screen(
                IncreasePartitionsScreen(
                    self.admin, self.description, self.cluster, profile=self.profile
                ),
                callback=self._after_change,
            )

    def action_delete(self) -> None:
        self.delete_topic()

    def action_records(self) -> None:
        from .records import RecordsScreen

        self.app.push_screen(RecordsScreen(self.profile, self.admin, self.topic))

    def action_groups(self) -> None:
        from .groups import GroupsScreen

        seconds = float(getattr(self.app, "refresh_seconds", 10.0))
        self.app.push_screen(GroupsScreen(self.profile, self.admin, seconds, topic=self.topic))

    def action_replication_factor(self) -> None:
        from .reassign import ReassignScreen

        self.app.push_screen(
            ReassignScreen(self.profile, self.admin, self.topic, "factor"),
            callback=self._after_change,
        )

    def action_reassign(self) -> None:
        from .reassign import ReassignScreen

        self.app.push_screen(
            ReassignScreen(self.profile, self.admin, self.topic, "broker"),
            callback=self._after_change,
        )

    @work(group="delete", exit_on_error=False)
    async def delete_topic(self) -> None:
        from .changes import run_deletion

        internal = (
            [self.topic]
            if self.topic in KNOWN_INTERNAL_TOPICS
            or self.topic == self.profile.placeholders_topic  # kafka-tui's own records
            or (self.description and self.description.internal)
            else []
        )
        if await run_deletion(self, self.admin, [self.topic], internal):
            self.app.pop_screen()
