"""Plan statistics: what each group's placements add up to (a small `Tally`, merged in group
order on the driver) and the figures the plan document shows: per broker before -> after,
min/max/avg/std, per rack, the sanity check of the placer's output, and its balance check:
the least max replicas and leaders the existing load and the racks allow, and a warning when
the plan's are above them by more than a slack.

Pure and deterministic, like the rest of `planning/`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kafka_tui.planning.placement import Broker, Load, Placement
from kafka_tui.planning.plan_model import Row

MAX_PROBLEMS = 20


@dataclass(frozen=True)
class Tally:
    """What the statistics need from a group's placements; small, and merged in group order."""

    replicas: dict[int, int]  # new replicas per broker
    leaders: dict[int, int]
    partitions: int = 0
    refused: int = 0
    same_rack: int = 0
    placeholders: int = 0
    on_offline: int = 0
    partners: dict[int, tuple[int, ...]] = field(default_factory=dict)
    problems: tuple[str, ...] = ()
    # Placed partitions by how many of their replicas are on live brokers: what decides how
    # many one rack may hold (a partition's live replicas spread over the live racks).
    live_spread: dict[int, int] = field(default_factory=dict)

    @classmethod
    def empty(cls) -> Tally:
        return cls({}, {})

    def merged(self, other: Tally) -> Tally:
        partners = dict(self.partners)
        for broker, more in other.partners.items():
            partners[broker] = tuple(sorted(set(partners.get(broker, ())) | set(more)))
        return Tally(
            _added(self.replicas, other.replicas),
            _added(self.leaders, other.leaders),
            self.partitions + other.partitions,
            self.refused + other.refused,
            self.same_rack + other.same_rack,
            self.placeholders + other.placeholders,
            self.on_offline + other.on_offline,
            partners,
            (self.problems + other.problems)[:MAX_PROBLEMS],
            _added(self.live_spread, other.live_spread),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "replicas": sorted(self.replicas.items()),
            "leaders": sorted(self.leaders.items()),
            "counts": [
                self.partitions,
                self.refused,
                self.same_rack,
                self.placeholders,
                self.on_offline,
            ],
            "partners": sorted((b, list(p)) for b, p in self.partners.items()),
            "problems": list(self.problems),
            "live_spread": sorted(self.live_spread.items()),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Tally:
        partitions, refused, same_rack, placeholders, on_offline = data["counts"]
        return cls(
            {b: n for b, n in data["replicas"]},
            {b: n for b, n in data["leaders"]},
            partitions,
            refused,
            same_rack,
            placeholders,
            on_offline,
            partners={b: tuple(p) for b, p in data["partners"]},
            problems=tuple(data["problems"]),
            live_spread={r: n for r, n in data["live_spread"]},
        )


def _added(left: dict[int, int], right: dict[int, int]) -> dict[int, int]:
    total = dict(left)
    for key, value in right.items():
        total[key] = total.get(key, 0) + value
    return total


def tally(
    brokers: Sequence[Broker], placed: Sequence[tuple[Row, Placement]], refused: int = 0
) -> Tally:
    """Counts of the placed partitions, and the sanity check of the placer's output: no broker
    twice in a partition, the row's replication factor, a live known leader."""
    rack = {b.id: b.rack for b in brokers}
    live = {b.id for b in brokers if b.live}
    replicas: dict[int, int] = {}
    leaders: dict[int, int] = {}
    partners: dict[int, set[int]] = {}
    live_spread: dict[int, int] = {}
    partitions = same_rack = placeholders = on_offline = 0
    problems: list[str] = []
    for row, placement in placed:
        for number, members in enumerate(placement.assignment):
            partitions += 1
            real = [b for b in members if b >= 0]
            placeholders += len(members) - len(real)
            where = f"{row.topic} partition {row.total - len(placement.assignment) + number}"
            if len(set(members)) != len(members):
                problems.append(f"{where}: a broker twice in {list(members)}")
            if len(members) != row.request.replication_factor:
                problems.append(f"{where}: {len(members)} replicas, not the row's RF")
            if not members or members[0] not in live:
                problems.append(f"{where}: leader {members[:1]} is not a live broker")
            if any(b not in rack for b in real):
                problems.append(f"{where}: unknown broker in {list(members)}")
            same_rack += len({rack.get(b) for b in real}) < len(real)
            on_live = sum(b in live for b in real)
            live_spread[on_live] = live_spread.get(on_live, 0) + 1
            for position, broker in enumerate(real):
                replicas[broker] = replicas.get(broker, 0) + 1
                if position == 0:
                    leaders[broker] = leaders.get(broker, 0) + 1
                on_offline += broker not in live
                partners.setdefault(broker, set()).update(b for b in real if b != broker)
    return Tally(
        replicas,
        leaders,
        partitions,
        refused,
        same_rack,
        placeholders,
        on_offline,
        {b: tuple(sorted(p)) for b, p in sorted(partners.items())},
        tuple(problems[:MAX_PROBLEMS]),
        live_spread,
    )


def broker_rows(brokers: Sequence[Broker], before: Load, total: Tally) -> list[dict[str, Any]]:
    rows = []
    for b in sorted(brokers, key=lambda b: b.id):
        replicas = before.replicas.get(b.id, 0)
        leaders = before.leaders.get(b.id, 0)
        after_replicas = replicas + total.replicas.get(b.id, 0)
        after_leaders = leaders + total.leaders.get(b.id, 0)
        rows.append(
            {
                "id": b.id,
                "rack": b.rack,
                "live": b.live,
                "replicas_before": replicas,
                "replicas_after": after_replicas,
                "leaders_before": leaders,
                "leaders_after": after_leaders,
                "followers_before": replicas - leaders,
                "followers_after": after_replicas - after_leaders,
                "degree": len(total.partners.get(b.id, ())),
            }
        )
    return rows


def summary(values: Sequence[int]) -> dict[str, float | int | None]:
    """min/max/avg/std and max/avg (None without values, or max/avg with no load)."""
    if not values:
        return {"min": None, "max": None, "avg": None, "std": None, "max_avg": None}
    avg = sum(values) / len(values)
    std = math.sqrt(sum((v - avg) ** 2 for v in values) / len(values))
    return {
        "min": min(values),
        "max": max(values),
        "avg": round(avg, 4),
        "std": round(std, 4),
        "max_avg": round(max(values) / avg, 4) if avg else None,
    }


def statistics(
    brokers: Sequence[Broker], before: Load, total: Tally, skipped: int = 0
) -> dict[str, Any]:
    """Over live brokers (those that lead and take new replicas in every mode but one)."""
    rows = [r for r in broker_rows(brokers, before, total) if r["live"]]
    racks: dict[str, dict[str, int]] = {}
    for r in broker_rows(brokers, before, total):
        name = r["rack"] if r["rack"] is not None else "(no rack)"
        entry = racks.setdefault(
            name,
            dict.fromkeys(
                ("brokers", "replicas_before", "replicas_after", "leaders_before", "leaders_after"),
                0,
            ),
        )
        entry["brokers"] += 1
        for key in ("replicas_before", "replicas_after", "leaders_before", "leaders_after"):
            entry[key] += r[key]
    return {
        "replicas_before": summary([r["replicas_before"] for r in rows]),
        "replicas_after": summary([r["replicas_after"] for r in rows]),
        "leaders_before": summary([r["leaders_before"] for r in rows]),
        "leaders_after": summary([r["leaders_after"] for r in rows]),
        "degree": summary([r["degree"] for r in rows]),
        "racks": [{"rack": name, **racks[name]} for name in sorted(racks)],
        "partitions": total.partitions,
        "new_replicas": sum(total.replicas.values()),
        "refused_topics": total.refused,
        "unchanged_topics": skipped,
        "same_rack_partitions": total.same_rack,
        "placeholders": total.placeholders,
        "replicas_on_offline_brokers": total.on_offline,
        "sanity": {"ok": not total.problems, "problems": list(total.problems)},
        "balance": least_maxima(brokers, before, total),
    }


# How far a broker's count may go above the least the existing load and the racks allow
# before the plan warns: the placer spreads each topic first and chooses greedily, landing
# within a few (or about 1% on big counts) of the least, not on it.
BALANCE_SLACK = 2
BALANCE_SLACK_SHARE = 0.01


def least_maxima(brokers: Sequence[Broker], before: Load, total: Tally) -> dict[str, int | None]:
    """The least max replicas and max leaders a live broker could end with, over live brokers
    as the statistics are: what the existing load and the racks force (a partition's live
    replicas spread over the live racks, one per rack while there are racks enough), each
    broker holding at most one replica of a partition and leading only where it holds one.
    None where no bound is known."""
    live = sorted((b for b in brokers if b.live), key=lambda b: b.id)
    racks = len({b.rack for b in live})
    spread = [
        (on_live * count, -(-on_live // racks) * count)
        for on_live, count in sorted(total.live_spread.items())
        if on_live and racks
    ]
    new_leaders = sum(total.leaders.get(b.id, 0) for b in live)
    return {
        "replicas_least_max": least_max(
            [before.replicas.get(b.id, 0) for b in live],
            [b.rack for b in live],
            [total.partitions] * len(live),
            spread,
        ),
        "leaders_least_max": least_max(
            [before.leaders.get(b.id, 0) for b in live],
            [None] * len(live),
            [min(total.partitions, total.replicas.get(b.id, 0)) for b in live],
            [(new_leaders, new_leaders)],
        ),
    }


def least_max(
    counts: Sequence[int],
    racks: Sequence[str | None],
    rooms: Sequence[int],
    kinds: Sequence[tuple[int, int]],
) -> int | None:
    """The least possible largest count once more are spread over brokers holding `counts`:
    `kinds` as (how many, at most how many on one rack), each broker taking at most its
    `rooms`. None if those limits cannot take them all.

    Spreading to a level is possible when no set of racks is short (max-flow min-cut, the
    cheapest cuts being the racks with least room): for each k, the k racks with least room
    up to the level plus what the other racks cannot take of each kind hold them all."""
    if not counts:
        return None
    wanted = sum(units for units, _ in kinds)

    def fits(level: int) -> bool:
        room: dict[str | None, int] = {}
        for count, rack, most in zip(counts, racks, rooms, strict=True):
            room[rack] = room.get(rack, 0) + min(most, max(0, level - count))
        smallest = sorted(room.values())
        taken = 0
        for k in range(len(smallest) + 1):
            others = len(smallest) - k
            if taken + sum(min(units, others * most) for units, most in kinds) < wanted:
                return False
            if k < len(smallest):
                taken += smallest[k]
        return True

    low, high = max(counts), max(counts) + max(rooms)
    if not fits(high):
        return None
    while low < high:
        middle = (low + high) // 2
        if fits(middle):
            high = middle
        else:
            low = middle + 1
    return low


def balance_warnings(stats: dict[str, Any]) -> list[str]:
    """The plan's own check of its balance: a warning for replicas or leaders whose max is
    above the least the existing load and the racks allow, by more than the slack."""
    warnings = []
    for kind in ("replicas", "leaders"):
        least = stats["balance"][f"{kind}_least_max"]
        after = stats[f"{kind}_after"]
        if least is None or after["max"] is None:
            continue
        if after["max"] <= least + max(BALANCE_SLACK, math.ceil(least * BALANCE_SLACK_SHARE)):
            continue
        warnings.append(
            f"balance: {kind} max/avg {after['max_avg']} (max {after['max']}) is above the "
            f"{round(least / after['avg'], 4)} (max {least}) that the existing load and the "
            "racks allow"
        )
    return warnings
