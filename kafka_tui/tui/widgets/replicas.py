"""The one way replica lists are drawn: leader, in sync, out of sync, offline, placeholder,
and, while a reassignment runs, being added or removed.

Every state has a text marker as well as a style, so the list reads correctly with NO_COLOR
or on a monochrome terminal. Styles come from the caller (component classes resolved against
the theme), never from hard-coded colours.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from enum import Enum

from rich.style import Style
from rich.text import Text


class ReplicaState(Enum):
    LEADER = "leader"
    IN_SYNC = "in-sync"
    OUT_OF_SYNC = "out-of-sync"
    OFFLINE = "offline"
    PLACEHOLDER = "placeholder"
    ADDING = "adding"  # a reassignment is copying the partition to this broker
    REMOVING = "removing"  # a reassignment will drop this replica


# How each state is marked in text: (prefix, suffix) around the broker id.
MARKERS: dict[ReplicaState, tuple[str, str]] = {
    ReplicaState.LEADER: ("", "*"),
    ReplicaState.IN_SYNC: ("", ""),
    ReplicaState.OUT_OF_SYNC: ("", "~"),
    ReplicaState.OFFLINE: ("", "!"),
    ReplicaState.PLACEHOLDER: ("(", ")"),
    ReplicaState.ADDING: ("+", ""),
    ReplicaState.REMOVING: ("-", ""),
}

LEGEND: list[tuple[ReplicaState, str, str]] = [
    (ReplicaState.LEADER, "1*", "leader"),
    (ReplicaState.IN_SYNC, "2", "in sync"),
    (ReplicaState.OUT_OF_SYNC, "3~", "not in sync"),
    (ReplicaState.OFFLINE, "4!", "offline broker"),
    (ReplicaState.PLACEHOLDER, "(-1)", "placeholder (KIP-409)"),
    (ReplicaState.ADDING, "+5", "being added"),
    (ReplicaState.REMOVING, "-6", "being removed"),
]


@dataclass(frozen=True)
class ReplicaView:
    """What is known of a partition's replicas. `isr=None`: not created yet (a preview)."""

    replicas: Sequence[int]
    leader: int | None = None
    isr: Sequence[int] | None = None
    offline: Collection[int] = ()
    # A running reassignment (ListPartitionReassignments): replicas it adds and removes.
    adding: Collection[int] = ()
    removing: Collection[int] = ()


def replica_state(broker: int, view: ReplicaView, offline_brokers: Collection[int]) -> ReplicaState:
    if broker < 0:
        return ReplicaState.PLACEHOLDER
    if broker in view.adding:
        return ReplicaState.ADDING
    if broker in view.removing:
        return ReplicaState.REMOVING
    if broker in view.offline or broker in offline_brokers:
        return ReplicaState.OFFLINE
    if view.leader is not None and broker == view.leader:
        return ReplicaState.LEADER
    if view.isr is not None and broker not in view.isr:
        return ReplicaState.OUT_OF_SYNC
    return ReplicaState.IN_SYNC


def replica_text(
    view: ReplicaView,
    offline_brokers: Collection[int] = (),
    style_of: Callable[[ReplicaState], Style | str] = lambda _: "",
) -> Text:
    """e.g. `1* 2 3!` or, for a preview, `1 2 (-1)`."""
    text = Text()
    for i, broker in enumerate(view.replicas):
        if i:
            text.append(" ")
        state = replica_state(broker, view, offline_brokers)
        prefix, suffix = MARKERS[state]
        text.append(f"{prefix}{broker}{suffix}", style=style_of(state))
    return text


def legend_text(style_of: Callable[[ReplicaState], Style | str] = lambda _: "") -> Text:
    text = Text()
    for i, (state, sample, meaning) in enumerate(LEGEND):
        if i:
            text.append("  ")
        text.append(sample, style=style_of(state))
        text.append(f" {meaning}")
    return text
