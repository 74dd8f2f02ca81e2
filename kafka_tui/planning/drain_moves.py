"""A broker's whole life, planned: draining brokers (leadership first, then every replica
off with one new replica per replica moved) and replacing one broker id with another in
place. Pure and deterministic, like the placer.

Leadership: a partition whose preferred leader (first replica) is being drained gets another
replica first — a live, in-sync one that is not drained, the one that is preferred leader of
the fewest partitions so far (ties: its place in the list) — the others keep their order, so
a preferred election moves leadership off before any byte is copied. A partition with no such
replica keeps its order; its leadership moves when its replica does.

Replicas: `reassignment.move_off_broker` for each drained broker in turn (one new replica per
replica moved, on a rack the partition lacks while racks allow, then the broker holding the
fewest of the topic's replicas, then the fewest in the cluster), no drained broker ever taking
one. A partition that no other broker can take (every one already holds a replica of it) is
unmovable, reported, and left where it is; the rest of its topic moves.

Replace: the new id takes the old one's place in each replica list (the leader order kept);
a partition that holds both already is unmovable.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from .placement import Broker, Load
from .reassignment import Current, Move, move_off_broker

CORDON_RELEASE = (4, 3)  # KIP-1066: cordoned.log.dirs


@dataclass(frozen=True)
class Partition:
    """A partition as a drain sees it: replicas (first = preferred leader), the leader (-1:
    none) and the in-sync replicas."""

    topic: str
    partition: int
    replicas: tuple[int, ...]
    leader: int
    isr: tuple[int, ...]


@dataclass(frozen=True)
class Reorder:
    """The same replicas in another order: no byte copied, the preferred leader changed."""

    topic: str
    partition: int
    before: tuple[int, ...]
    after: tuple[int, ...]


@dataclass(frozen=True)
class TopicMove:
    topic: str
    move: Move

    @property
    def key(self) -> tuple[str, int]:
        return (self.topic, self.move.partition)


@dataclass(frozen=True)
class Unmovable:
    topic: str
    partition: int
    replicas: tuple[int, ...]
    reason: str

    def to_json(self) -> dict[str, object]:
        return {
            "topic": self.topic,
            "partition": self.partition,
            "replicas": list(self.replicas),
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Planned:
    """What a drain or replace does: reorders (leadership), partitions to elect, replica
    moves (their `before` is the order after the reorder), and what cannot move."""

    reorders: tuple[Reorder, ...]
    elect: tuple[tuple[str, int], ...]
    moves: tuple[TopicMove, ...]
    unmovable: tuple[Unmovable, ...]

    def replicas_per_broker(self, load: Load) -> tuple[dict[int, int], dict[int, int]]:
        """Replicas per broker before -> after the moves."""
        before = dict(load.replicas)
        after = dict(before)
        for m in self.moves:
            for b in m.move.added:
                after[b] = after.get(b, 0) + 1
            for b in m.move.removed:
                after[b] = after.get(b, 0) - 1
        return before, after


def supports_cordon(release: str | None) -> bool:
    """Whether a broker of this release ("4.4+", "3.9") takes `cordoned.log.dirs`."""
    if not release:
        return False
    major, _, minor = release.rstrip("+").partition(".")
    if not (major.isdigit() and minor.isdigit()):
        return False
    return (int(major), int(minor)) >= CORDON_RELEASE


def leadership_reorders(
    partitions: Sequence[Partition], draining: Collection[int], live: Collection[int], load: Load
) -> list[Reorder]:
    """Partitions whose preferred leader is drained, with another live in-sync replica first."""
    preferred = dict(load.leaders)
    reorders = []
    for p in sorted(partitions, key=lambda p: (p.topic, p.partition)):
        if not p.replicas or p.replicas[0] not in draining:
            continue
        candidates = [b for b in p.replicas if b not in draining and b in live and b in p.isr]
        if not candidates:
            continue
        chosen = min(candidates, key=lambda b: (preferred.get(b, 0), p.replicas.index(b)))
        preferred[chosen] = preferred.get(chosen, 0) + 1
        preferred[p.replicas[0]] = preferred.get(p.replicas[0], 0) - 1
        after = (chosen, *(b for b in p.replicas if b != chosen))
        reorders.append(Reorder(p.topic, p.partition, p.replicas, after))
    return reorders


def plan_drain(
    brokers: Sequence[Broker],
    load: Load,
    partitions: Sequence[Partition],
    draining: Sequence[int],
    *,
    live_only: bool = False,
) -> Planned:
    """Leadership off `draining`, then every replica off them (see the module's words)."""
    gone = set(draining)
    live = {b.id for b in brokers if b.live}
    reorders = leadership_reorders(partitions, gone, live, load)
    reordered = {(r.topic, r.partition): r.after for r in reorders}
    current = {
        (p.topic, p.partition): reordered.get((p.topic, p.partition), p.replicas)
        for p in partitions
    }
    leader = {(p.topic, p.partition): p.leader for p in partitions}
    # Live brokers only (a move onto a stopped broker would wait for it), never a drained one.
    takers = [replace(b, cordoned=b.cordoned or b.id in gone) for b in brokers]
    may_take = {b.id for b in takers if b.live and not b.cordoned}
    unmovable = []
    in_sync = {(p.topic, p.partition): p.isr for p in partitions}
    for key, replicas in sorted(current.items()):
        holding = [b for b in replicas if b in gone]
        free = may_take - set(replicas)
        if holding and not _source(replicas, in_sync[key], live):
            unmovable.append(Unmovable(*key, replicas, _NO_SOURCE))
        elif holding and len(free) < len(holding):
            unmovable.append(
                Unmovable(
                    *key,
                    replicas,
                    f"no other live broker can take its replica(s) on broker(s) "
                    f"{_ids(holding)}: every one that may already holds a replica of it "
                    f"(replication factor {len(replicas)}); add a broker or lower the "
                    "replication factor first",
                )
            )
    stuck = {(u.topic, u.partition) for u in unmovable}
    by_topic: dict[str, list[Current]] = {}
    for key, replicas in sorted(current.items()):
        if key not in stuck and gone & set(replicas):
            by_topic.setdefault(key[0], []).append(Current(key[1], replicas, leader[key]))
    start = {
        key: current[key] for t, ps in by_topic.items() for key in ((t, p.partition) for p in ps)
    }
    now = dict(start)
    running = Load(dict(load.replicas), dict(load.leaders))
    for broker in sorted(gone):
        topics = [
            (t, [Current(c.partition, now[(t, c.partition)], c.leader) for c in ps])
            for t, ps in sorted(by_topic.items())
        ]
        for plan in move_off_broker(takers, running, topics, broker, live_only=live_only):
            for m in plan.moves:
                now[(plan.topic, m.partition)] = m.after
                for b in m.added:
                    running.replicas[b] = running.replicas.get(b, 0) + 1
                for b in m.removed:
                    running.replicas[b] = running.replicas.get(b, 0) - 1
    moves = tuple(
        TopicMove(key[0], Move(key[1], start[key], now[key], leader[key]))
        for key in sorted(start)
        if now[key] != start[key]
    )
    led = {
        (p.topic, p.partition)
        for p in partitions
        if p.leader in gone and current[(p.topic, p.partition)][0] not in gone
    }
    return Planned(tuple(reorders), tuple(sorted(led)), moves, tuple(unmovable))


def plan_replace(
    partitions: Sequence[Partition], old: int, new: int, live: Collection[int]
) -> Planned:
    """`new` takes `old`'s place in every replica list that names it."""
    moves = []
    unmovable = []
    for p in sorted(partitions, key=lambda p: (p.topic, p.partition)):
        if old not in p.replicas:
            continue
        if not _source(p.replicas, p.isr, live):
            unmovable.append(Unmovable(p.topic, p.partition, p.replicas, _NO_SOURCE))
            continue
        if new in p.replicas:
            unmovable.append(
                Unmovable(
                    p.topic,
                    p.partition,
                    p.replicas,
                    f"it holds broker {new} already; move it with `kafka-tui topics reassign`",
                )
            )
            continue
        after = tuple(new if b == old else b for b in p.replicas)
        moves.append(TopicMove(p.topic, Move(p.partition, p.replicas, after, p.leader)))
    return Planned((), (), tuple(moves), tuple(unmovable))


_NO_SOURCE = (
    "none of its replicas is live and in sync, so no broker can copy it (e.g. its only "
    "replica is on the stopped broker); start that broker first"
)


def _source(replicas: Sequence[int], isr: Sequence[int], live: Collection[int]) -> bool:
    """Whether a new replica of the partition has a live, in-sync replica to copy from."""
    return any(b in live and b in isr for b in replicas)


def copies(
    moves: Sequence[TopicMove], sizes: Mapping[tuple[str, int], int]
) -> dict[tuple[str, int], int]:
    """Bytes each move copies: the partition's size once per added replica."""
    return {m.key: sizes.get(m.key, 0) * len(m.move.added) for m in moves}


def _ids(ids: Sequence[int]) -> str:
    return ",".join(map(str, ids))
