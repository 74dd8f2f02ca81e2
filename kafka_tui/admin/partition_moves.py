"""The records of replica moves: what `AdminReassignments` takes and gives.

In their own module, imported only where replicas move: their dataclasses cost every other
command's start ~4 ms (kafka_tui.admin.reassignments defines the requests).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PartitionMove:
    """Move `topic`-`partition` to `replicas` (first = preferred leader); None cancels a
    pending reassignment, reverting to the replicas it started from. `before`: the replicas
    it has now, where the caller knows them: a request whose every move keeps its replica
    count is sent with AllowReplicationFactorChange=false (KIP-860, Kafka 4.1+), so a
    mistaken target can never change a topic's replication factor."""

    topic: str
    partition: int
    replicas: list[int] | None
    before: list[int] | None = None

    @property
    def keeps_replication_factor(self) -> bool:
        return (
            self.replicas is not None
            and self.before is not None
            and len(self.replicas) == len(self.before)
        )


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
