"""Reassignment plans (KIP-4's AlterTopic): replication-factor changes, moving every replica
off a broker, and operator-given targets. Pure and deterministic, like the placer.

Each plan changes as little as it can: a growing partition keeps every replica and gains the
fewest new ones; a shrinking one loses followers only (never its current leader); moving off
a broker replaces that broker and nothing else. The new replicas follow the placer's rules
(placement.py): on a distinct rack while racks allow, then on the broker holding the fewest
of this topic's replicas, then the fewest in the cluster, then the lowest id. Removals mirror
that: offline replicas first, then those sharing a rack, then the most loaded broker.
Reassignments cannot hold placeholders (Kafka refuses negative ids), so an enabled KIP-409
mode may use observed offline brokers (KRaft only) but never more brokers than exist.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kafka_tui.fields import Field, Remedy
from kafka_tui.planning.placement import (
    INVALID_REPLICATION_FACTOR,
    Broker,
    Load,
    Mode,
)

INVALID_REPLICA_ASSIGNMENT = "INVALID_REPLICA_ASSIGNMENT"
UNKNOWN_TOPIC_OR_PARTITION = "UNKNOWN_TOPIC_OR_PARTITION"
ZOOKEEPER_LIVE_TARGETS = (
    "ZooKeeper-mode clusters accept only live brokers as new replicas of a reassignment"
)


@dataclass(frozen=True)
class Current:
    """A partition as it is: replicas (first = preferred leader) and the leader (-1: none)."""

    partition: int
    replicas: tuple[int, ...]
    leader: int


@dataclass(frozen=True)
class Move:
    partition: int
    before: tuple[int, ...]
    after: tuple[int, ...]
    leader: int  # the leader when planned (-1: none)

    @property
    def added(self) -> tuple[int, ...]:
        return tuple(b for b in self.after if b not in self.before)

    @property
    def removed(self) -> tuple[int, ...]:
        return tuple(b for b in self.before if b not in self.after)

    @property
    def leader_kept(self) -> bool:
        """The partition keeps its leader (Kafka moves leadership only off removed replicas)."""
        return self.leader >= 0 and self.leader in self.after


@dataclass(frozen=True)
class TopicPlan:
    topic: str
    moves: tuple[Move, ...] = ()
    error: str | None = None  # Kafka error name when refused; `moves` is then empty
    message: str = ""  # the refusal, or a note (e.g. targets that are offline)
    remedies: tuple[Remedy, ...] = ()  # what would let a refused plan through


class _Counts:
    """Replicas per broker, cluster-wide and for the topic being planned."""

    def __init__(self, brokers: Sequence[Broker], load: Load) -> None:
        self.rack = {b.id: b.rack for b in brokers}
        self.live = {b.id: b.live for b in brokers}
        self.cluster = {b.id: load.replicas.get(b.id, 0) for b in brokers}
        self.topic: dict[int, int] = {}

    def start_topic(self, partitions: Sequence[Current]) -> None:
        self.topic = {}
        for p in partitions:
            for b in p.replicas:
                self.topic[b] = self.topic.get(b, 0) + 1

    def add(self, broker: int, delta: int) -> None:
        self.cluster[broker] = self.cluster.get(broker, 0) + delta
        self.topic[broker] = self.topic.get(broker, 0) + delta

    def racks_of(self, members: Sequence[int]) -> dict[str | None, int]:
        count: dict[str | None, int] = {}
        for b in members:
            if b in self.rack:
                count[self.rack[b]] = count.get(self.rack[b], 0) + 1
        return count

    def pick(self, members: Sequence[int], allowed: Sequence[int], live_first: bool) -> int | None:
        """The best new replica for a partition holding `members`, or None."""
        racks = self.racks_of(members)
        candidates = [b for b in allowed if b not in members]
        if not candidates:
            return None
        return min(
            candidates,
            key=lambda b: (
                live_first and not self.live[b],
                racks.get(self.rack[b], 0),
                self.topic.get(b, 0),
                self.cluster.get(b, 0),
                b,
            ),
        )

    def drop(self, members: Sequence[int], keep: int) -> int:
        """The replica to remove: never `keep`; offline, then a shared rack, then loaded."""
        racks = self.racks_of(members)
        return max(
            (b for b in members if b != keep),
            key=lambda b: (
                not self.live.get(b, False),
                racks.get(self.rack.get(b), 0) > 1,
                self.topic.get(b, 0),
                self.cluster.get(b, 0),
                b,
            ),
        )


def _allowed(brokers: Sequence[Broker], mode: Mode, live_only: bool) -> tuple[list[int], bool]:
    """(brokers that may take new replicas, whether live ones come first). A broker whose
    every log directory is cordoned (KIP-1066) takes none."""
    ordered = sorted((b for b in brokers if not b.cordoned), key=lambda b: b.id)
    if mode == "disabled" or live_only:
        return [b.id for b in ordered if b.live], False
    return [b.id for b in ordered], mode == "enabled"


def _offline_note(brokers: Sequence[Broker]) -> str:
    offline = sorted(b.id for b in brokers if not b.live)
    if not offline:
        return ""
    names = ", ".join(map(str, offline))
    return f" (broker{'s' if len(offline) > 1 else ''} {names} offline)"


def change_replication_factor(
    brokers: Sequence[Broker],
    load: Load,
    topics: Sequence[tuple[str, Sequence[Current]]],
    factor: int,
    *,
    mode: Mode = "disabled",
    min_live: int = 1,
    live_only: bool = False,
) -> list[TopicPlan]:
    """One plan per topic, in order; each accepted plan's replicas count for the next.

    `min_live`: max(the minimum required RF, min.insync.replicas): no partition may
    end with fewer replicas, nor (enabled modes) with fewer on live brokers.
    `live_only`: ZooKeeper mode, where every added replica must be on a live broker.
    """
    counts = _Counts(brokers, load)
    allowed, live_first = _allowed(brokers, mode, live_only)
    plans = []
    for topic, partitions in topics:
        refusal = _rf_refusal(topic, factor, min_live, allowed, brokers, mode, live_only)
        if refusal is not None:
            plans.append(refusal)
            continue
        counts.start_topic(partitions)
        moves: list[Move] = []
        for p in sorted(partitions, key=lambda p: p.partition):
            members = list(p.replicas)
            keep = p.leader if p.leader in members else (members[0] if members else -1)
            while len(members) > factor:
                gone = counts.drop(members, keep)
                members.remove(gone)
                counts.add(gone, -1)
            while len(members) < factor:
                chosen = counts.pick(members, allowed, live_first)
                if chosen is None:
                    break
                members.append(chosen)
                counts.add(chosen, 1)
            live = sum(1 for b in members if counts.live.get(b, False))
            if len(members) < factor or (mode != "disabled" and live < min(min_live, factor)):
                _undo(counts, [*moves, Move(p.partition, p.replicas, tuple(members), p.leader)])
                plans.append(
                    TopicPlan(
                        topic,
                        error=INVALID_REPLICATION_FACTOR,
                        message=f"Topic '{topic}': partition {p.partition} cannot reach "
                        f"replication factor {factor}: only {len(members)} brokers can take "
                        f"its replicas{_offline_note(brokers)}.",
                    )
                )
                break
            if tuple(members) != p.replicas:
                moves.append(Move(p.partition, p.replicas, tuple(members), p.leader))
        else:
            plans.append(TopicPlan(topic, tuple(moves)))
    return plans


def _rf_refusal(
    topic: str,
    factor: int,
    min_live: int,
    allowed: Sequence[int],
    brokers: Sequence[Broker],
    mode: Mode,
    live_only: bool,
) -> TopicPlan | None:
    def refuse(text: str, *remedies: Remedy) -> TopicPlan:
        return TopicPlan(
            topic,
            error=INVALID_REPLICATION_FACTOR,
            message=f"Topic '{topic}': {text}",
            remedies=remedies,
        )

    if factor < 1:
        return refuse(f"the replication factor must be at least 1, not {factor}.")
    if factor < min_live:
        return refuse(
            f"replication factor {factor} is below the {min_live} replicas that must stay in "
            "sync (the larger of min.insync.replicas and the minimum required replication "
            "factor): producers with acks=all would fail."
        )
    if factor <= len(allowed):
        return None
    live = sum(1 for b in brokers if b.live)
    if live_only and mode != "disabled":
        return refuse(
            f"replication factor {factor} needs {factor} brokers, but only {live} are live, "
            f"and {ZOOKEEPER_LIVE_TARGETS}{_offline_note(brokers)}."
        )
    if mode == "disabled":
        return refuse(
            f"replication factor {factor} needs {factor} live brokers, but only {live} "
            f"{'is' if live == 1 else 'are'} live{_offline_note(brokers)}.",
            Remedy(
                ((Field.UNDER_REPLICATED_MODE, "enabled"),),
                "to place replicas on observed offline brokers too",
            ),
        )
    return refuse(
        f"replication factor {factor} needs {factor} brokers, but the cluster has "
        f"{len(allowed)}; a reassignment cannot hold placeholders."
    )


def move_off_broker(
    brokers: Sequence[Broker],
    load: Load,
    topics: Sequence[tuple[str, Sequence[Current]]],
    broker: int,
    *,
    mode: Mode = "disabled",
    live_only: bool = False,
) -> list[TopicPlan]:
    """Replace `broker` in every partition holding it, one new replica each (the fewest moves
    there are). The replacement takes the old one's place in the list, unless the old one
    was the preferred leader: then the next replica leads and the new one goes last, so
    leadership passes to a replica that is already in sync."""
    counts = _Counts(brokers, load)
    allowed, live_first = _allowed(brokers, mode, live_only)
    allowed = [b for b in allowed if b != broker]
    plans = []
    for topic, partitions in topics:
        counts.start_topic(partitions)
        moves = []
        refusal = None
        for p in sorted(partitions, key=lambda p: p.partition):
            if broker not in p.replicas:
                continue
            rest = [b for b in p.replicas if b != broker]
            chosen = counts.pick(rest, allowed, live_first)
            if chosen is None:
                refusal = TopicPlan(
                    topic,
                    error=INVALID_REPLICA_ASSIGNMENT,
                    message=f"Topic '{topic}': partition {p.partition} ({_ids(p.replicas)}) "
                    f"has no other broker to move to: every broker that may take it already "
                    f"holds a replica{_offline_note(brokers)}. Lower its replication factor "
                    "or add a broker first.",
                )
                break
            if p.replicas[0] == broker:
                after = (*rest, chosen)
            else:
                after = tuple(chosen if b == broker else b for b in p.replicas)
            counts.add(broker, -1)
            counts.add(chosen, 1)
            moves.append(Move(p.partition, p.replicas, after, p.leader))
        if refusal is not None:
            _undo(counts, moves)
            plans.append(refusal)
        else:
            plans.append(TopicPlan(topic, tuple(moves)))
    return plans


def given_targets(
    brokers: Sequence[Broker],
    topic: str,
    partitions: Sequence[Current],
    targets: Mapping[int, Sequence[int]],
    *,
    live_only: bool = False,
) -> TopicPlan:
    """The operator's targets (partition -> replicas, first = preferred leader), checked as
    the controller would check them, before anything is sent."""
    by_index = {p.partition: p for p in partitions}
    known = {b.id: b for b in brokers}
    moves = []
    offline_targets: set[int] = set()

    def refuse(error: str, text: str) -> TopicPlan:
        return TopicPlan(topic, error=error, message=f"Topic '{topic}': {text}")

    for index in sorted(targets):
        after = tuple(targets[index])
        if index not in by_index:
            return refuse(
                UNKNOWN_TOPIC_OR_PARTITION,
                f"partition {index} does not exist (the topic has {len(partitions)}); "
                "a reassignment moves existing partitions only.",
            )
        if not after:
            return refuse(INVALID_REPLICA_ASSIGNMENT, f"partition {index} has no replicas.")
        if len(set(after)) != len(after):
            return refuse(
                INVALID_REPLICA_ASSIGNMENT, f"partition {index} names a broker twice: {after}."
            )
        unknown = [b for b in after if b not in known]
        if unknown:
            return refuse(
                INVALID_REPLICA_ASSIGNMENT,
                f"partition {index}: broker(s) {_ids(unknown)} are not part of the cluster "
                f"(known: {_ids(sorted(known))}).",
            )
        cordoned = [b for b in after if known[b].cordoned]
        if cordoned:
            return refuse(
                INVALID_REPLICA_ASSIGNMENT,
                f"partition {index}: every log directory of broker(s) {_ids(cordoned)} is "
                "cordoned (KIP-1066), and Kafka refuses a target naming such a broker, even "
                "one it already holds: move the replica off it instead.",
            )
        current = by_index[index]
        added_offline = [b for b in after if b not in current.replicas and not known[b].live]
        if added_offline and live_only:
            return refuse(
                INVALID_REPLICA_ASSIGNMENT,
                f"partition {index}: broker(s) {_ids(added_offline)} are offline, and "
                f"{ZOOKEEPER_LIVE_TARGETS}.",
            )
        offline_targets.update(added_offline)
        if after != current.replicas:
            moves.append(Move(index, current.replicas, after, current.leader))
    note = ""
    if offline_targets:
        note = (
            f"Broker(s) {_ids(sorted(offline_targets))} are offline: their new replicas wait "
            "until they return, and the reassignment stays in progress until then."
        )
    return TopicPlan(topic, tuple(moves), message=note)


def _undo(counts: _Counts, moves: Sequence[Move]) -> None:
    """A refused topic adds no load for the next one."""
    for m in moves:
        for b in m.added:
            counts.add(b, -1)
        for b in m.removed:
            counts.add(b, 1)


def _ids(ids: Sequence[int]) -> str:
    return ",".join(map(str, ids))
