"""Filling KIP-409 placeholders once brokers (re)join: choose, reassign, wait, clear.

Each open placeholder gets a live broker not yet in its partition (planning/fill_choice.py);
the partition grows by that replica through AlterPartitionReassignments; once Kafka reports
the reassignment finished (the new replica caught up and joined the ISR), the placeholder is
cleared from the record. A partition whose replica list already holds the intended count
(filled by an earlier run that ended before the copy finished, or by hand) has its
remaining placeholders cleared without another move.

A round that moves replicas first writes its rollback file (services/rollback.py: the
replicas before, for `topics reassign --reassignment-json-file`); none is sent without it.
Undoing a fill removes the added replica but not the cleared placeholder record.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace

from ..admin import AdminError, ConnectionSettings, KafkaAdmin
from ..admin import audit_log as audit
from ..admin.partition_moves import PartitionMove
from ..admin.placeholders import PlaceholderStore
from ..planning.fill_choice import OpenSlot, choose_fills
from . import rollback
from .ports import AdminPort
from .snapshot import Snapshot, take_snapshot

FILL_TIMEOUT_MS = 300_000  # a copy may take minutes: the fill waits for it this long
WATCH_INTERVAL_S = 5.0  # between the rounds of `watch_fills`

# Outcomes that are not failures: the placeholder waits for a broker, or for another move.
NO_BROKER_AVAILABLE = "NO_BROKER_AVAILABLE"
BEING_MOVED = "REASSIGNMENT_IN_PROGRESS"
PENDING = frozenset({NO_BROKER_AVAILABLE, BEING_MOVED})


@dataclass(frozen=True)
class FillResult:
    topic: str
    partition: int
    added: list[int]
    ok: bool
    error: str | None = None
    message: str = ""
    rollback_file: str | None = None  # the replicas before this round's moves

    def to_json(self) -> dict[str, object]:
        return {
            "topic": self.topic,
            "partition": self.partition,
            "added": self.added,
            "ok": self.ok,
            "error": self.error,
            "message": self.message,
            "rollback_file": self.rollback_file,
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
    admin: AdminPort,
    store: PlaceholderStore,
    *,
    zookeeper: str | None = None,
    timeout_ms: int = FILL_TIMEOUT_MS,
    only: Collection[tuple[str, int]] | None = None,
    only_rack: str | None = None,
    only_broker: int | None = None,
) -> list[FillResult]:
    """Fill every open placeholder a live broker can take (`only`: these partitions').
    `only_broker`: only it may fill, and only placeholders preferring `only_rack` (a
    replaced broker's: `brokers replace` offers them to the new one)."""
    snapshot = await take_snapshot(admin, zookeeper=zookeeper, store=store)
    slots = [s for s in open_slots(snapshot) if only is None or (s.topic, s.partition) in only]
    takers = snapshot.brokers
    if only_broker is not None:
        slots = [s for s in slots if s.rack == only_rack]
        takers = [b for b in snapshot.brokers if b.id == only_broker]
    entries = dict(snapshot.placeholders)
    corrected = {e.topic: e for e in snapshot.stale_records}
    replicas = {
        (t, p.partition): p.replicas
        for t in {s.topic for s in slots}
        for p in snapshot.topics[t].partitions
    }
    fills = choose_fills(takers, snapshot.load, replicas, slots)
    # Kafka's own answer is the lease: a partition being reassigned (another watcher's fill,
    # or another tool) is left alone this round. Two watchers that still race compute the
    # same target from the same replicas (the choice is deterministic), and a reassignment
    # replaces a pending one, so a partition never grows past its intended factor.
    topics = sorted({s.topic for s in slots})
    moving = (
        {(r.topic, r.partition) for r in await admin.list_partition_reassignments(topics)}
        if topics
        else set()
    )
    added: dict[tuple[str, int], list[int]] = {}
    results: list[FillResult] = []
    for f in fills:
        if (f.topic, f.partition) in moving:
            results.append(
                FillResult(
                    f.topic,
                    f.partition,
                    [],
                    ok=False,
                    error=BEING_MOVED,
                    message=f"Topic '{f.topic}' partition {f.partition}: a reassignment (another "
                    "fill, or another tool) is moving it now; it is looked at again once that "
                    "ends.",
                )
            )
        elif f.broker is None:
            results.append(
                FillResult(
                    f.topic,
                    f.partition,
                    [],
                    ok=False,
                    error=NO_BROKER_AVAILABLE,
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
    path: str | None = None
    if moves:
        # The way back, written before anything moves; without it nothing is sent.
        try:
            path = str(
                rollback.write(
                    "fill",
                    ((m.topic, m.partition, replicas[(m.topic, m.partition)]) for m in moves),
                )
            )
        except OSError as exc:
            text = (
                f"Not started: the rollback file could not be written in {rollback.folder()} "
                f"({exc.strerror or exc}). Set ${rollback.ENV} to a writable folder."
            )
            results += [
                FillResult(
                    m.topic, m.partition, [], ok=False, error="ROLLBACK_NOT_WRITTEN", message=text
                )
                for m in moves
            ]
            return sorted(results, key=lambda r: (r.topic, r.partition))
    with (
        audit.operation("placeholders fill"),
        audit.rollback_file(path) if path else contextlib.nullcontext(),
    ):
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
    moved = {(m.topic, m.partition) for m in moves}
    results = [
        replace(r, rollback_file=path) if (r.topic, r.partition) in moved else r for r in results
    ]
    return sorted(results, key=lambda r: (r.topic, r.partition))


async def watch_fills(
    settings: ConnectionSettings,
    store: PlaceholderStore,
    stop: asyncio.Event,
    on_round: Callable[[list[FillResult]], None],
    on_failure: Callable[[AdminError], None],
    *,
    zookeeper: str | None = None,
    timeout_ms: int = FILL_TIMEOUT_MS,
    interval_s: float = WATCH_INTERVAL_S,
) -> None:
    """Fill rounds until `stop` is set, for kafka-tui run as a service: each round's results
    go to `on_round`; a round that fails (the cluster unreachable, a broker gone) goes to
    `on_failure`, and the next round connects afresh. `stop` ends a round in progress at
    once: a reassignment it started goes on in Kafka, and the next read reconciles the
    records with it (records.current_entries)."""
    async with contextlib.AsyncExitStack() as connections:
        admin: KafkaAdmin | None = None
        while not stop.is_set():
            try:
                if admin is None:
                    admin = await connections.enter_async_context(KafkaAdmin(settings))
                work = asyncio.ensure_future(
                    fill_placeholders(admin, store, zookeeper=zookeeper, timeout_ms=timeout_ms)
                )
                stopped = asyncio.ensure_future(stop.wait())
                await asyncio.wait({work, stopped}, return_when=asyncio.FIRST_COMPLETED)
                stopped.cancel()
                if not work.done():
                    work.cancel()
                    with contextlib.suppress(asyncio.CancelledError, AdminError):
                        await work
                    break
                on_round(work.result())
            except AdminError as exc:
                on_failure(exc)
                await connections.aclose()  # the next round connects afresh
                admin = None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), interval_s)
