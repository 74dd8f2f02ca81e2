"""Which live broker fills each KIP-409 placeholder (pure, deterministic).

A placeholder gets a live broker not already in its partition, never one whose every log
directory is cordoned (KIP-1066): one on the rack it prefers
first, then one on a rack the partition does not use yet, then any; the least loaded of
those (replicas, then leaders), then the lowest id. Each choice adds to the load, so many
placeholders filled at once spread over the brokers that joined.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .placement import Broker, Load


@dataclass(frozen=True)
class OpenSlot:
    topic: str
    partition: int
    slot: int  # -1, -2, ...
    rack: str | None  # the rack this slot prefers


@dataclass(frozen=True)
class Fill:
    topic: str
    partition: int
    slot: int
    broker: int | None  # None: no live broker can take it yet


def choose_fills(
    brokers: Sequence[Broker],
    load: Load,
    replicas: Mapping[tuple[str, int], Sequence[int]],
    slots: Sequence[OpenSlot],
) -> list[Fill]:
    """One Fill per slot, in the order of `slots` sorted by (topic, partition, -slot).

    `replicas`: each partition's current replica list (a slot whose partition is missing
    there cannot be filled)."""
    live = sorted((b for b in brokers if b.live and not b.cordoned), key=lambda b: b.id)
    rack_of = {b.id: b.rack for b in brokers}
    counts = dict(load.replicas)
    leaders = load.leaders
    taken: dict[tuple[str, int], list[int]] = {}
    fills = []
    for s in sorted(slots, key=lambda s: (s.topic, s.partition, -s.slot)):
        key = (s.topic, s.partition)
        current = replicas.get(key)
        if current is None:
            fills.append(Fill(s.topic, s.partition, s.slot, None))
            continue
        members = [*current, *taken.get(key, [])]
        used_racks = {rack_of.get(b) for b in members}
        candidates = [b for b in live if b.id not in members]
        if not candidates:
            fills.append(Fill(s.topic, s.partition, s.slot, None))
            continue
        best = min(
            candidates,
            key=lambda b: (
                b.rack != s.rack if s.rack is not None else False,
                b.rack in used_racks,
                counts.get(b.id, 0),
                leaders.get(b.id, 0),
                b.id,
            ),
        )
        counts[best.id] = counts.get(best.id, 0) + 1
        taken.setdefault(key, []).append(best.id)
        fills.append(Fill(s.topic, s.partition, s.slot, best.id))
    return fills
