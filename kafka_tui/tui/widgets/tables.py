"""DataTables that draw replica lists with the shared replica styles."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import ClassVar

from rich.text import Text
from textual.widgets import DataTable

from ...admin import PartitionInfo
from .replicas import ReplicaState, ReplicaView, replica_text
from .styled import REPLICA_CLASSES, ReplicaStyled


def fit_height(table: DataTable[object]) -> None:
    """The table's height set from its rows as they are added (max-height in the .tcss still
    caps it), not left to `height: auto`: that reads the virtual size the table computes on
    its next idle, and under load the form's layout once kept the height from before the rows
    (the create form's preview drawn as its header alone, its one row clipped)."""
    rows = sum(row.height for row in table.rows.values())
    table.styles.height = rows + (table.header_height if table.show_header else 0)


class PartitionTable(ReplicaStyled, DataTable[object]):
    """Partition, leader, replicas (marked), ISR, eligible leader replicas (KIP-966), offline
    replicas; problems stand out."""

    COMPONENT_CLASSES: ClassVar[set[str]] = DataTable.COMPONENT_CLASSES | REPLICA_CLASSES

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.add_columns("Partition", "Leader", "Replicas", "ISR", "ELR", "Offline", "Health")

    def show(
        self,
        partitions: Sequence[PartitionInfo],
        offline_brokers: Collection[int],
        moving: Mapping[int, tuple[Collection[int], Collection[int]]] | None = None,
    ) -> None:
        """`moving`: partition -> (replicas being added, being removed) by a reassignment."""
        row = self.cursor_row
        self.clear()
        for p in partitions:
            adding, removing = (moving or {}).get(p.partition, ((), ()))
            view = ReplicaView(p.replicas, p.leader, p.isr, p.offline_replicas, adding, removing)
            if p.leader < 0 or p.leader in offline_brokers:
                health = Text("NO LEADER", style=self.replica_style(ReplicaState.OFFLINE))
            elif p.under_replicated:
                health = Text(
                    "under-replicated", style=self.replica_style(ReplicaState.OUT_OF_SYNC)
                )
            else:
                health = Text("ok")
            self.add_row(
                str(p.partition),
                str(p.leader) if p.leader >= 0 else "none",
                replica_text(view, offline_brokers, self.replica_style),
                ",".join(map(str, p.isr)),
                _elr_text(p),
                ",".join(map(str, p.offline_replicas)),
                health,
                key=str(p.partition),
            )
        fit_height(self)
        if partitions:
            self.move_cursor(row=min(row, len(partitions) - 1))


def _elr_text(p: PartitionInfo) -> str:
    """Eligible leader replicas, then the last known ones after `/`; `?` where the broker
    cannot say (before Kafka 3.8, ZooKeeper mode)."""
    if p.elr is None:
        return "?"
    last = ",".join(map(str, p.last_known_elr or ()))
    return ",".join(map(str, p.elr)) + (f" / {last}" if last else "")


class PreviewTable(ReplicaStyled, DataTable[object]):
    """A proposed assignment (first replica = preferred leader), before it is sent."""

    COMPONENT_CLASSES: ClassVar[set[str]] = DataTable.COMPONENT_CLASSES | REPLICA_CLASSES

    def on_mount(self) -> None:
        self.add_columns("Partition", "Replicas (first = leader)")

    def show(
        self, first_partition: int, lists: Sequence[Sequence[int]], offline: Collection[int]
    ) -> None:
        self.clear()
        for offset, replicas in enumerate(lists):
            view = ReplicaView(replicas, leader=replicas[0] if replicas else None)
            self.add_row(
                str(first_partition + offset), replica_text(view, offline, self.replica_style)
            )
        fit_height(self)
