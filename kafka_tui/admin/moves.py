"""The records of replica moves: what `AdminReassignments` takes and gives.

In their own module, imported only where replicas move: their dataclasses cost every other
command's start ~4 ms (kafka_tui.admin.reassignments defines the requests).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PartitionMove:
    """Move `topic`-`partition` to `replicas` (first = preferred leader); None cancels a
    pending reassignment, reverting to the replicas it started from."""

    topic: str
    partition: int
    replicas: list[int] | None


@dataclass(frozen=True)
class MoveResult:
    """One move's outcome. `ok` means the controller accepted it, not that it has finished."""

    topic: str
    partition: int
    ok: bool
    error: str | None = None
    message: str = ""


@dataclass(frozen=True)
class OngoingReassignment:
    topic: str
    partition: int
    replicas: list[int]
    adding: list[int]
    removing: list[int]


@dataclass(frozen=True)
class ReplicationThrottle:
    """What `set_replication_throttle` sets: `rate` bytes/s on `brokers`, and per topic the
    replicas that send (`leaders`: the current replicas of moving partitions) and receive
    (`followers`: the added replicas), as "partition:broker" items."""

    rate: int
    brokers: list[int]
    leaders: dict[str, list[str]]
    followers: dict[str, list[str]]
