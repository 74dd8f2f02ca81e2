"""A reassignment preview: per partition its replicas before -> after, the replicas added
(`+4`) and removed (`-2`), whether the leader stays, and the bytes each move copies.

Replica lists go through the one replica renderer (`replicas.replica_text`); the `+`/`-`
markers carry the meaning without colour, the styles only underline it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.widgets import DataTable

from ...planning.reassignment import Move
from ...services.reassigning import human_bytes
from .replicas import ReplicaView, replica_text
from .styled import REPLICA_CLASSES, ReplicaStyled
from .tables import fit_height

MOVE_CLASSES = {"moves--added", "moves--removed"}


def changes_text(move: Move, added: Style | str = "", removed: Style | str = "") -> Text:
    """`+4 -2`: the replicas the move adds, then those it removes."""
    text = Text()
    for b in move.added:
        text.append(f"{' ' if text else ''}+{b}", style=added)
    for b in move.removed:
        text.append(f"{' ' if text else ''}-{b}", style=removed)
    return text


class MoveTable(ReplicaStyled, DataTable[object]):
    COMPONENT_CLASSES: ClassVar[set[str]] = (
        DataTable.COMPONENT_CLASSES | REPLICA_CLASSES | MOVE_CLASSES
    )

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.add_columns("Partition", "Before", "After", "Changes", "Leader", "To copy")

    def show(
        self, moves: Sequence[Move], offline: Collection[int], sizes: Mapping[int, int]
    ) -> None:
        """`sizes`: partition -> bytes of one replica (missing: unknown yet)."""
        self.clear()
        added = self.get_component_rich_style("moves--added", partial=True)
        removed = self.get_component_rich_style("moves--removed", partial=True)
        for m in moves:
            leader = m.leader if m.leader >= 0 else None
            before = self._marked(m.before, m.removed, "-", removed, leader, offline)
            after = self._marked(m.after, m.added, "+", added, leader, offline)
            if m.leader_kept:
                keeps = f"{m.leader} kept"
            elif leader is None:
                keeps = "none now"
            else:
                keeps = f"{m.leader} removed: moves"
            size = sizes.get(m.partition)
            self.add_row(
                str(m.partition),
                before,
                after,
                changes_text(m, added, removed),
                keeps,
                "?" if size is None else human_bytes(size * len(m.added)),
                key=str(m.partition),
            )
        fit_height(self)

    def _marked(
        self,
        replicas: Sequence[int],
        changed: Collection[int],
        sign: str,
        style: Style,
        leader: int | None,
        offline: Collection[int],
    ) -> Text:
        """The list as the replica renderer draws it, with changed replicas as `+4` / `-2`."""
        text = Text()
        for i, b in enumerate(replicas):
            if i:
                text.append(" ")
            if b in changed:
                text.append(f"{sign}{b}", style=style)
            else:
                text.append_text(
                    replica_text(ReplicaView([b], leader), offline, self.replica_style)
                )
        return text
