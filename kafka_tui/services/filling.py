"""Filling KIP-409 placeholders once brokers (re)join: choose, reassign, wait, clear.

Each open placeholder gets a live broker not yet in its partition (planning/filling.py);
the partition grows by that replica through AlterPartitionReassignments; once Kafka reports
the reassignment finished (the new replica caught up and joined the ISR), the placeholder is
cleared from the record. A partition whose replica list already holds the intended count
(filled by an earlier run that ended before the copy finished, or by hand) has its
remaining placeholders cleared without another move.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..admin import KafkaAdmin, audit
from ..admin.moves import PartitionMove
from ..admin.placeholders import PlaceholderStore
from ..planning.filling import OpenSlot, choose_fills
from .placing import Snapshot, take_snapshot


@dataclass(frozen=True)
class FillResult:
    topic: str
    partition: int
    added: list[int]
    ok: bool
    error: str | None = None
    message: str = ""

    def to_json(self) -> dict[str, object]:
        return {
            "topic": self.topic,
            "partition": self.partition,
            "added": self.added,
            "ok": self.ok,
            "error": self.error,
            "message": self.message,
        }


def open_slots(snapshot: Snapshot) -> list[OpenSlot]:
    """The placeholders still missing (the snapshot's records are reconciled already)."""
    return [
        OpenSlot(name, partition, s.slot, s.rack)
        for name, entry in sorted(snapshot.placeholders.items())
        for partition, missing in sorted(entry.slots.items())
        for s in missing
    ]


def placeholder_rows(snapshot: Snapshot) -> list[dict[str, object]]:
    """`placeholders list`: one row per partition that still misses replicas."""
    slots = open_slots(snapshot)
    rows: dict[tuple[str, int], dict[str, object]] = {}
    for s in slots:
        partition = next(
            p for p in snapshot.topics[s.topic].partitions if p.partition == s.partition
        )
        row = rows.setdefault(
            (s.topic, s.partition),
            {
                "topic": s.topic,
                "partition": s.partition,
                "replicas": partition.replicas,
                "placeholders": [],
                "racks": [],
            },
        )
        row["placeholders"].append(s.slot)  # type: ignore[attr-defined]
        row["racks"].append(s.rack)  # type: ignore[attr-defined]
    return list(rows.values())


async def fill_placeholders(
    admin: KafkaAdmin,
    store: PlaceholderStore,
    *,
    zookeeper: str | None = None,
    timeout_ms: int = 300_000,
) -> list[FillResult]:
    snapshot = await take_snapshot(admin, zookeeper=zookeeper, store=store)
    slots = open_slots(snapshot)
    entries = dict(snapshot.placeholders)
    corrected = {e.topic: e for e in snapshot.stale_records}
    replicas = {
        (t, p.partition): p.replicas
        for t in {s.topic for s in slots}
        for p in snapshot.topics[t].partitions
    }
    fills = choose_fills(snapshot.brokers, snapshot.load, replicas, slots)
    added: dict[tuple[str, int], list[int]] = {}
    results: list[FillResult] = []
    for f in fills:
        if f.broker is None:
            results.append(
                FillResult(
                    f.topic,
                    f.partition,
                    [],
                    ok=False,
                    error="NO_BROKER_AVAILABLE",
                    message=f"Topic '{f.topic}' partition {f.partition}: no live broker "
                    "outside the partition can take placeholder "
                    f"{f.slot} yet; it stays until one joins.",
                )
            )
        else:
            added.setdefault((f.topic, f.partition), []).append(f.broker)
    moves = [
        PartitionMove(t, p, [*replicas[(t, p)], *brokers])
        for (t, p), brokers in sorted(added.items())
    ]
    with audit.operation("placeholders fill"):
        answers = await admin.alter_partition_reassignments(moves) if moves else []
    accepted = [(m.topic, m.partition) for m, a in zip(moves, answers, strict=True) if a.ok]
    deadline = time.monotonic() + timeout_ms / 1000
    unfinished = await admin.wait_for_reassignments(accepted, deadline)
    for move, answer in zip(moves, answers, strict=True):
        key = (move.topic, move.partition)
        brokers = added[key]
        if not answer.ok:
            results.append(
                FillResult(*key, brokers, ok=False, error=answer.error, message=answer.message)
            )
        elif key in unfinished:
            results.append(
                FillResult(
                    *key,
                    brokers,
                    ok=False,
                    error="REQUEST_TIMED_OUT",
                    message=f"Topic '{key[0]}' partition {key[1]}: broker(s) "
                    f"{', '.join(map(str, brokers))} are still copying the partition; the "
                    "placeholders stay until the copy ends (run fill again to check).",
                )
            )
        else:
            entry = entries[key[0]]
            for slot in sorted(s.slot for s in entry.slots.get(key[1], []))[-len(brokers) :]:
                entry = entry.without(key[1], slot)
            entries[key[0]] = entry
            corrected[key[0]] = entry
            results.append(
                FillResult(
                    *key,
                    brokers,
                    ok=True,
                    message=f"Topic '{key[0]}' partition {key[1]}: broker(s) "
                    f"{', '.join(map(str, brokers))} added and in sync; placeholders "
                    "cleared.",
                )
            )
    if corrected:
        await store.write(list(corrected.values()))
    return sorted(results, key=lambda r: (r.topic, r.partition))
