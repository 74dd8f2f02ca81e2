"""A broker's whole life: `brokers drain` (cordon, leadership off, every replica off),
`brokers undrain` (uncordon) and `brokers replace` (a new id takes an old one's replicas in
place), with the plan of planning/drain_moves.py and the reassignment pieces of reassign.py.

A drain, in order:
1. the rollback file: every partition it touches as it is (nothing is sent without it);
2. leadership: the reorders (the same replicas, another first) — before the cordon, because
   Kafka 4.4 refuses any target naming a broker whose every directory is cordoned, even one
   it holds already (so a resumed drain lifts its own cordon for that moment);
3. the cordon (Kafka 4.3+, KIP-1066: `cordoned.log.dirs=*`), so nothing new lands there;
   older brokers and ZooKeeper mode get a note instead;
4. a preferred election of the partitions the drained brokers lead;
5. the moves, at most `batch` partitions copying at once (as one finishes the next starts),
   under the throttle when given (rates on every broker involved, the moving replicas on
   their topics), which goes at the end.

A move whose new replica's broker leaves the cluster mid-copy is stalled (services/stalls.py):
once that broker has been gone `stall_s` (default STALL_S) while the move copied nothing, the
move is cancelled on its own, the others go on, and the run ends interrupted, the stalled
moves listed (`Outcome.stalled`).

`stop` (Ctrl+C, esc) ends it cleanly: finished moves stay, the running ones are cancelled
(AlterPartitionReassignments with no target: they keep their replicas) and the throttles
go. Running it again resumes: the plan is made afresh from what is still on the broker.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..admin import AdminError
from ..admin import audit_log as audit
from ..admin.elections import ELECTION_NOT_NEEDED
from ..admin.partition_moves import OngoingReassignment, PartitionMove
from ..admin.placeholders import PlaceholderStore
from ..planning.drain_moves import (
    Partition,
    Planned,
    TopicMove,
    Unmovable,
    copies,
    plan_drain,
    plan_replace,
    supports_cordon,
)
from ..planning.reassignment import Move, TopicPlan
from . import rollback
from .filling import FillResult, fill_placeholders
from .parsing import UsageError
from .ports import AdminPort
from .reassigning import replication_throttle
from .replication_throttles import release_throttles
from .snapshot import Snapshot, take_snapshot
from .stalls import STALL_S, StallWatch

POLL_S = 0.5
CANCEL_WAIT_S = 30.0
ALL_DIRS = "*"
DEFAULT_BATCH = 10
NOT_CONTROLLER = "NOT_CONTROLLER"


@dataclass(frozen=True)
class DrainProgress:
    """Where a run is: partitions done of all, bytes copied of all, the rate since the
    moves began (bytes/s) and the time left at that rate (None: not known yet)."""

    done: int
    of: int
    copied: int
    total: int
    copying: int  # partitions copying now
    rate: float
    eta_s: float | None
    step: str  # "leadership", "cordon", "election", "moving", "cancelling", "done"
    quiet: int = 0  # running moves without a byte of progress for a while
    quiet_s: float = 0.0  # the longest of those waits so far
    gone: tuple[int, ...] = ()  # new brokers of running moves the cluster no longer lists
    cancel_in_s: float | None = None  # until the first stalled move is cancelled

    def stall_words(self) -> str:
        """A stall being waited out, in a few words ("" while every move progresses)."""
        if not self.quiet:
            return ""
        text = f"{self.quiet} move(s) without progress for {self.quiet_s:.0f} s"
        if self.gone:
            text += f" (broker {_ids(self.gone)} gone"
            if self.cancel_in_s is not None:
                text += f": cancelled in {self.cancel_in_s:.0f} s"
            text += ")"
        return text


Progress = Callable[[DrainProgress], None]


def _quiet(progress: DrainProgress) -> None:
    return None


@dataclass
class Preview:
    """What a drain (`kind` "drain") or replace ("replace") would do, read now."""

    kind: str
    brokers: list[int]  # drained (drain), or [OLD, NEW] (replace)
    snapshot: Snapshot
    planned: Planned
    sizes: dict[tuple[str, int], int]
    cordon: dict[int, bool]  # drained broker -> whether it takes cordoned.log.dirs (4.3+)
    cordoned_now: dict[int, bool] = field(default_factory=dict)

    @property
    def copies(self) -> dict[tuple[str, int], int]:
        return copies(self.planned.moves, self.sizes)

    @property
    def bytes_to_move(self) -> int:
        return sum(self.copies.values())

    def replicas_per_broker(self) -> tuple[dict[int, int], dict[int, int]]:
        return self.planned.replicas_per_broker(self.snapshot.load)

    def cordon_note(self) -> str | None:
        skipped = [b for b in self.brokers if not self.cordon.get(b, False)]
        if self.kind != "drain" or not skipped:
            return None
        return (
            f"Broker(s) {_ids(skipped)} not cordoned: cordoned log directories (KIP-1066) "
            "need Kafka 4.3 or newer in KRaft mode (or the broker is offline); new replicas "
            "may still land there while it drains."
        )


def _partitions(snapshot: Snapshot) -> list[Partition]:
    return [
        Partition(t.name, p.partition, tuple(p.replicas), p.leader, tuple(p.isr))
        for t in snapshot.topics.values()
        for p in t.partitions
    ]


async def _sizes(
    admin: AdminPort, snapshot: Snapshot, planned: Planned
) -> dict[tuple[str, int], int]:
    topics = sorted({m.topic for m in planned.moves})
    return await admin.partition_sizes(topics, snapshot.live) if topics else {}


async def preview_drain(
    admin: AdminPort, brokers: Sequence[int], *, zookeeper: str | None = None
) -> Preview:
    """The drain of `brokers` planned against the cluster as it is now; sends nothing."""
    snapshot = await take_snapshot(admin, zookeeper=zookeeper, releases=True)
    known = {b.id for b in snapshot.brokers}
    unknown = [b for b in brokers if b not in known]
    if unknown:
        raise UsageError(
            f"broker(s) {_ids(unknown)}: not part of the cluster (known: {_ids(sorted(known))})"
        )
    chosen = sorted(set(brokers))
    planned = plan_drain(
        snapshot.brokers, snapshot.load, _partitions(snapshot), chosen, live_only=not snapshot.kraft
    )
    cordon = {b: snapshot.kraft and supports_cordon(snapshot.releases.get(b)) for b in chosen}
    now = {b: b in snapshot.log_dirs and snapshot.log_dirs[b].all_cordoned for b in chosen}
    return Preview(
        "drain", chosen, snapshot, planned, await _sizes(admin, snapshot, planned), cordon, now
    )


async def preview_replace(
    admin: AdminPort, old: int, new: int, *, zookeeper: str | None = None
) -> Preview:
    """`new` taking every replica of `old` in place; sends nothing."""
    if old == new:
        raise UsageError(f"brokers replace: OLD and NEW are the same broker ({old})")
    snapshot = await take_snapshot(admin, zookeeper=zookeeper)
    by_id = {b.id: b for b in snapshot.brokers}
    if old not in by_id:
        raise UsageError(f"brokers replace: OLD broker {old} is not part of the cluster")
    if new not in by_id or not by_id[new].live:
        raise UsageError(
            f"brokers replace: NEW broker {new} is not a live broker of the cluster (start it "
            "first: it copies every replica of the old one)"
        )
    planned = plan_replace(_partitions(snapshot), old, new, snapshot.live)
    return Preview(
        "replace", [old, new], snapshot, planned, await _sizes(admin, snapshot, planned), {}
    )


@dataclass(frozen=True)
class Stalled:
    """A move cancelled because its new replica's broker(s) left the cluster mid-copy."""

    move: TopicMove
    gone: tuple[int, ...]
    kind: str  # "drain" or "replace"

    @property
    def message(self) -> str:
        who = _ids(self.gone)
        again = "drain again" if self.kind == "drain" else "run the replace again"
        what = f"{self.move.topic}-{self.move.move.partition}"
        if set(self.gone) <= set(self.move.move.added):
            why = f"its new replica's broker {who} left the cluster mid-copy"
        else:  # ZooKeeper mode: a staying replica's broker
            why = (
                f"broker {who} of its new replica list left the cluster mid-copy (a ZooKeeper-"
                "mode controller ends a move only once every replica of the list is in sync)"
            )
        return (
            f"{what}: {why}; the move was cancelled (the partition keeps its replicas). "
            f"Start broker {who} or {again} to plan afresh."
        )

    def to_json(self) -> dict[str, object]:
        return _move_json(self.move) | {"brokers_gone": list(self.gone), "message": self.message}


@dataclass
class Outcome:
    """What a run did (the shape scripts read: `to_json`)."""

    preview: Preview
    state: str  # "done", "interrupted", "failed", "preview"
    message: str
    reordered: int = 0
    elected: int = 0
    election_failed: int = 0
    moved: list[TopicMove] = field(default_factory=list)
    cancelled: list[TopicMove] = field(default_factory=list)
    refused: list[tuple[TopicMove, str]] = field(default_factory=list)
    stalled: list[Stalled] = field(default_factory=list)
    not_started: list[TopicMove] = field(default_factory=list)  # queued for a gone broker
    throttle_left_on: list[int] = field(default_factory=list)  # offline: keep their rates
    cordoned: list[int] = field(default_factory=list)
    rollback_file: str | None = None
    fills: list[FillResult] = field(default_factory=list)
    elapsed_s: float = 0.0

    @property
    def ok(self) -> bool:
        return (
            self.state in ("done", "preview")
            and not self.refused
            and not self.preview.planned.unmovable
        )

    def to_json(self) -> dict[str, object]:
        p = self.preview
        before, after = p.replicas_per_broker()
        data: dict[str, object] = {
            "brokers": p.brokers,
            "ok": self.ok,
            "state": self.state,
            "message": self.message,
            "leaders": {
                "reordered": self.reordered,
                "elected": self.elected,
                "failed": self.election_failed,
                "reorders": [
                    {
                        "topic": r.topic,
                        "partition": r.partition,
                        "before": list(r.before),
                        "after": list(r.after),
                    }
                    for r in p.planned.reorders
                ],
            },
            "moves": [_move_json(m) for m in p.planned.moves],
            "bytes_to_move": p.bytes_to_move,
            "moved": len(self.moved),
            "cancelled": len(self.cancelled),
            "refused": [_move_json(m) | {"message": why} for m, why in self.refused],
            "unmovable": [u.to_json() for u in p.planned.unmovable],
            "stalled": [s.to_json() for s in self.stalled],
            "throttle_left_on": self.throttle_left_on,
            "replicas_before": {str(b): n for b, n in sorted(before.items())},
            "replicas_after": {str(b): n for b, n in sorted(after.items())},
            "rollback_file": self.rollback_file,
            "elapsed_s": round(self.elapsed_s, 1),
        }
        if p.kind == "drain":
            data["cordoned"] = self.cordoned
            data["cordon_note"] = p.cordon_note()
        else:
            data["placeholders_filled"] = [f.to_json() for f in self.fills]
        return data


def _move_json(m: TopicMove) -> dict[str, object]:
    return {
        "topic": m.topic,
        "partition": m.move.partition,
        "before": list(m.move.before),
        "after": list(m.move.after),
    }


async def run(
    admin: AdminPort,
    preview: Preview,
    *,
    batch: int = DEFAULT_BATCH,
    throttle: int | None = None,
    stop: asyncio.Event | None = None,
    progress: Progress = _quiet,
    store: PlaceholderStore | None = None,
    stall_s: float = STALL_S,
) -> Outcome:
    """Run the previewed drain or replace (see the module's words). `store`: a replace then
    offers the placeholders waiting for OLD's rack to NEW. `stall_s`: how long a move's new
    broker may be gone before the move is cancelled as stalled."""
    if batch < 1:
        raise UsageError("a batch must be at least 1 partition")
    if stall_s <= 0:
        raise UsageError("a stall timeout must be above 0 seconds")
    if throttle is not None and throttle < 1:
        raise UsageError("a replication throttle must be at least 1 byte per second")
    stop = stop or asyncio.Event()
    started = time.monotonic()
    outcome = Outcome(preview, "done", "")
    p = preview.planned
    touched = {(r.topic, r.partition): r.before for r in p.reorders}
    for m in p.moves:
        touched.setdefault(m.key, m.move.before)
    with audit.operation(f"brokers {preview.kind}"):
        if touched:
            try:
                path = rollback.write(preview.kind, ((t, q, r) for (t, q), r in touched.items()))
            except OSError as exc:
                outcome.state = "failed"
                outcome.message = (
                    f"Not started: the rollback file could not be written in {rollback.folder()} "
                    f"({exc.strerror or exc}). Set ${rollback.ENV} to a writable folder."
                )
                return outcome
            outcome.rollback_file = str(path)
        with (
            audit.rollback_file(outcome.rollback_file)
            if outcome.rollback_file
            else contextlib.nullcontext()
        ):
            if preview.kind == "drain":
                await _leadership_and_cordon(admin, preview, outcome, progress)
            if not stop.is_set():
                watch = StallWatch(stall_s)
                await _move(admin, preview, outcome, batch, throttle, stop, progress, watch)
            elif p.moves:
                outcome.state = "interrupted"  # stopped before the first move
        if preview.kind == "replace" and store is not None and outcome.state == "done":
            outcome.fills = await _offer_placeholders(admin, preview, store)
    outcome.elapsed_s = time.monotonic() - started
    outcome.message = _words(outcome)
    return outcome


async def _leadership_and_cordon(
    admin: AdminPort, preview: Preview, outcome: Outcome, progress: Progress
) -> None:
    p = preview.planned
    total = preview.bytes_to_move
    moves = len(p.moves)

    def step(name: str) -> None:
        progress(DrainProgress(0, moves, 0, total, 0, 0.0, None, name))

    if p.reorders:
        step("leadership")
        # Kafka refuses a target naming a fully cordoned broker: a resumed drain lifts its
        # own cordon for the reorder, and puts it back just after.
        for b in preview.brokers:
            if preview.cordoned_now.get(b):
                await admin.set_cordon(b, None)
        answers = await admin.alter_partition_reassignments(
            [PartitionMove(r.topic, r.partition, list(r.after), list(r.before)) for r in p.reorders]
        )
        accepted = [(a.topic, a.partition) for a in answers if a.ok]
        outcome.reordered = len(accepted)
        await admin.wait_for_reassignments(accepted, time.monotonic() + CANCEL_WAIT_S)
    live = set(preview.snapshot.live)
    for b in preview.brokers:
        if preview.cordon.get(b) and b in live:
            step("cordon")
            await admin.set_cordon(b, ALL_DIRS)
            outcome.cordoned.append(b)
    if p.elect:
        step("election")
        results = await admin.elect_leaders(list(p.elect))
        outcome.elected = sum(1 for r in results if r.ok and r.error is None)
        outcome.election_failed = sum(1 for r in results if not r.ok)
        # ELECTION_NOT_NEEDED: led by its (new) preferred replica already.
        outcome.elected += sum(1 for r in results if r.error == ELECTION_NOT_NEEDED)


async def _move(
    admin: AdminPort,
    preview: Preview,
    outcome: Outcome,
    batch: int,
    throttle: int | None,
    stop: asyncio.Event,
    progress: Progress,
    watch: StallWatch,
) -> None:
    """At most `batch` partitions copying at once; as one finishes, the next starts. A move
    whose new broker has been gone `watch.stall_s` is cancelled as stalled; the queued moves
    to that broker are not started."""
    queue = list(preview.planned.moves)
    if not queue:
        return
    sizes = preview.copies
    total = sum(sizes.values())
    of = len(queue)
    limit = None
    if throttle is not None:
        by_topic: dict[str, list[Move]] = {}
        for m in queue:
            by_topic.setdefault(m.topic, []).append(m.move)
        limit = replication_throttle(
            throttle, [TopicPlan(t, tuple(ms)) for t, ms in by_topic.items()]
        )
        await admin.set_replication_throttle(limit)
    running: dict[tuple[str, int], TopicMove] = {}
    finished_bytes = 0
    began = time.monotonic()
    bounced: list[float] = []  # when the controller first answered NOT_CONTROLLER, if it does
    try:
        while queue or running:
            if stop.is_set():
                break
            room = batch - len(running)
            if room > 0 and queue:
                starting, queue = queue[:room], queue[room:]
                answers = await admin.alter_partition_reassignments(
                    [
                        PartitionMove(
                            m.topic, m.move.partition, list(m.move.after), list(m.move.before)
                        )
                        for m in starting
                    ]
                )
                now = time.monotonic()
                for m, a in zip(starting, answers, strict=True):
                    if a.ok:
                        running[m.key] = m
                        watch.start(m.key, _waits_on(preview, m), now)
                    else:
                        outcome.refused.append((m, a.message))
            listed = await _listed(admin, bounced)
            if listed is None:  # the controller is moving: ask again in a moment
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), POLL_S)
                continue
            ongoing = {(r.topic, r.partition): r for r in listed}
            for key in [k for k in running if k not in ongoing]:
                outcome.moved.append(running.pop(key))
                watch.drop(key)
                finished_bytes += sizes.get(key, 0)
            if running and total:
                held = await _copying(admin, running, sizes, watch.gone)
                now = time.monotonic()
                for key, n in held.items():
                    watch.held(key, n, now)
            now = time.monotonic()
            if watch.wants_live(now):
                watch.saw_live((await admin.describe_cluster()).live_broker_ids, now)
            if stalled := watch.stalled(now):
                await _cancel_stalled(admin, preview, outcome, running, stalled, watch)
                gone = watch.gone
                outcome.not_started += [m for m in queue if set(m.move.added) & gone]
                queue = [m for m in queue if not set(m.move.added) & gone]
            copied = finished_bytes + watch.bytes_held()
            elapsed = max(now - began, 1e-6)
            rate = copied / elapsed
            eta = (total - copied) / rate if rate > 0 else None
            progress(
                DrainProgress(
                    len(outcome.moved),
                    of,
                    copied,
                    total,
                    len(running),
                    rate,
                    eta,
                    "moving",
                    len(watch.quiet(now)),
                    watch.longest_quiet_s(now),
                    tuple(sorted(watch.gone)),
                    watch.cancel_in_s(now),
                )
            )
            if not running and not queue:
                break
            if queue and len(running) < batch:
                continue  # room for the next moves at once: never a moment without a copy
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), POLL_S)
    finally:
        if running:
            await _cancel_running(admin, outcome, running, of, total, progress)
        if outcome.cancelled or queue or outcome.stalled or outcome.not_started:
            outcome.state = "interrupted"
        if limit is not None:
            await release_throttles(admin, limit.brokers, sorted(limit.leaders | limit.followers))
            live = set((await admin.describe_cluster()).live_broker_ids)
            outcome.throttle_left_on = sorted(set(limit.brokers) - live)
    if outcome.moved:
        await _until_shown(admin, outcome.moved)


async def _listed(admin: AdminPort, bounced: list[float]) -> list[OngoingReassignment] | None:
    """The reassignments in progress; None while the controller moves (ZooKeeper mode: its
    broker stopped, the next one not yet elected: NOT_CONTROLLER), for at most the request
    timeout (`bounced` holds when that began), after which the error stands."""
    try:
        listed = await admin.list_partition_reassignments(None)
    except AdminError as exc:
        now = time.monotonic()
        bounced[:] = bounced or [now]
        if (
            exc.name != NOT_CONTROLLER
            or now - bounced[0] > admin.settings.request_timeout_ms / 1000
        ):
            raise
        return None
    bounced.clear()
    return listed


def _waits_on(preview: Preview, m: TopicMove) -> tuple[int, ...]:
    """The brokers a move cannot finish without: its new replicas' (KRaft: the controller
    ends a move once the adding replicas are in sync), every broker of its new list in
    ZooKeeper mode (that controller waits for the whole list in the ISR; measured on 3.9)."""
    return m.move.added if preview.snapshot.kraft else m.move.after


async def _copying(
    admin: AdminPort,
    running: dict[tuple[str, int], TopicMove],
    sizes: dict[tuple[str, int], int],
    gone: frozenset[int],
) -> dict[tuple[str, int], int]:
    """Bytes the adding replicas of each running move hold so far, capped at its size
    (every adding broker describes its own logs; one seen gone is not asked)."""
    adding: dict[int, list[tuple[str, int]]] = {}
    for key, m in running.items():
        for b in m.move.added:
            if b not in gone:
                adding.setdefault(b, []).append(key)
    held: dict[tuple[str, int], int] = {}
    for broker, keys in sorted(adding.items()):
        try:
            found = await admin.partition_sizes(sorted({t for t, _ in keys}), [broker])
        except AdminError:
            continue
        for key in keys:
            size = sizes.get(key, 0) // max(1, len(running[key].move.added))
            held[key] = held.get(key, 0) + min(found.get(key, 0), size)
    return held


async def _cancel_stalled(
    admin: AdminPort,
    preview: Preview,
    outcome: Outcome,
    running: dict[tuple[str, int], TopicMove],
    stalled: Sequence[tuple[tuple[str, int], tuple[int, ...]]],
    watch: StallWatch,
) -> None:
    """Cancel the stalled moves (AlterPartitionReassignments with no target: the partition
    keeps its replicas); one that finished meanwhile counts as moved."""
    gone = dict(stalled)
    answers = await admin.alter_partition_reassignments(
        [PartitionMove(t, q, None) for t, q in sorted(gone)]
    )
    reverted = [(a.topic, a.partition) for a in answers if a.ok]
    if reverted:
        await admin.wait_for_reassignments(reverted, time.monotonic() + CANCEL_WAIT_S)
    for a in answers:
        key = (a.topic, a.partition)
        move = running.pop(key)
        watch.drop(key)
        if a.ok:
            outcome.stalled.append(Stalled(move, gone[key], preview.kind))
        elif a.error == "NO_REASSIGNMENT_IN_PROGRESS":
            outcome.moved.append(move)
        else:
            outcome.refused.append((move, f"stalled, and the cancel was refused: {a.message}"))


async def _cancel_running(
    admin: AdminPort,
    outcome: Outcome,
    running: dict[tuple[str, int], TopicMove],
    of: int,
    total: int,
    progress: Progress,
) -> None:
    """Cancel the moves still copying (they keep their replicas); those that finished in the
    meantime stay."""
    progress(DrainProgress(len(outcome.moved), of, 0, total, len(running), 0.0, None, "cancelling"))
    ongoing = {(r.topic, r.partition) for r in await admin.list_partition_reassignments(None)}
    for key in [k for k in running if k not in ongoing]:
        outcome.moved.append(running.pop(key))
    if running:
        answers = await admin.alter_partition_reassignments(
            [PartitionMove(t, q, None) for t, q in sorted(running)]
        )
        reverted = [(a.topic, a.partition) for a in answers if a.ok]
        await admin.wait_for_reassignments(reverted, time.monotonic() + CANCEL_WAIT_S)
        for a in answers:
            key = (a.topic, a.partition)
            if a.ok:
                outcome.cancelled.append(running.pop(key))
            elif a.error == "NO_REASSIGNMENT_IN_PROGRESS":
                outcome.moved.append(running.pop(key))  # it finished just before the cancel


async def _until_shown(admin: AdminPort, moved: Sequence[TopicMove]) -> None:
    """Wait (at most the request timeout) until Metadata shows the finished moves: the
    controller is done first, and a broker's metadata may lag a moment."""
    wanted = {m.key: m.move.after for m in moved}
    topics = sorted({t for t, _ in wanted})
    deadline = time.monotonic() + admin.settings.request_timeout_ms / 1000
    while time.monotonic() < deadline:
        found, _ = await admin.describe_topics(topics, configs=False)
        shown = {(t.name, p.partition): tuple(p.replicas) for t in found for p in t.partitions}
        if all(shown.get(k) == v for k, v in wanted.items() if k in shown):
            return
        await asyncio.sleep(0.2)


async def _offer_placeholders(
    admin: AdminPort, preview: Preview, store: PlaceholderStore
) -> list[FillResult]:
    """KIP-409 placeholders waiting for a broker in OLD's rack, offered to NEW."""
    old, new = preview.brokers
    rack = next((b.rack for b in preview.snapshot.brokers if b.id == old), None)
    return await fill_placeholders(admin, store, only_rack=rack, only_broker=new)


async def undrain(
    admin: AdminPort, brokers: Sequence[int]
) -> list[tuple[int, bool, str | None, str]]:
    """Remove the cordon of `brokers` (Kafka 4.3+); one (broker, ok, error, message) each."""
    info = await admin.describe_cluster()
    live = set(info.live_broker_ids)
    known = {b.id for b in info.brokers}
    releases = await admin.kafka_releases(sorted(live & set(brokers)))
    results: list[tuple[int, bool, str | None, str]] = []
    for b in brokers:
        if b not in known:
            results.append(
                (b, False, "BROKER_NOT_AVAILABLE", f"Broker {b} is not part of the cluster.")
            )
        elif b not in live:
            results.append(
                (
                    b,
                    False,
                    "BROKER_NOT_AVAILABLE",
                    f"Broker {b} is offline: start it, then undrain it.",
                )
            )
        elif not (info.lists_fenced_brokers and supports_cordon(releases.get(b))):
            results.append(
                (
                    b,
                    True,
                    None,
                    f"Broker {b}: nothing to uncordon (cordoned log directories need Kafka "
                    "4.3+ in KRaft mode).",
                )
            )
        else:
            try:
                await admin.set_cordon(b, None)
            except AdminError as exc:
                results.append((b, False, exc.name, exc.message))
            else:
                results.append(
                    (b, True, None, f"Broker {b} uncordoned: it takes new replicas again.")
                )
    return results


def _words(o: Outcome) -> str:
    p = o.preview
    what = (
        "Drain of broker(s) " + _ids(p.brokers)
        if p.kind == "drain"
        else f"Replace of broker {p.brokers[0]} by {p.brokers[1]}"
    )
    parts = []
    if p.kind == "drain":
        parts.append(f"{o.reordered} partition(s) reordered and {o.elected} leader(s) moved off")
        if o.cordoned:
            parts.append(f"broker(s) {_ids(o.cordoned)} cordoned")
    parts.append(f"{len(o.moved)} of {len(p.planned.moves)} partition move(s) done")
    if o.cancelled:
        parts.append(f"{len(o.cancelled)} cancelled (they keep their replicas)")
    if o.stalled:
        names = ", ".join(f"{s.move.topic}-{s.move.move.partition}" for s in o.stalled[:5])
        if len(o.stalled) > 5:
            names += f" and {len(o.stalled) - 5} more"
        gone = _ids(sorted({b for s in o.stalled for b in s.gone}))
        parts.append(
            f"{len(o.stalled)} stalled and cancelled ({names}: broker {gone} left the cluster "
            "mid-copy; they keep their replicas)"
        )
    if o.not_started:
        parts.append(f"{len(o.not_started)} for the same broker(s) not started")
    if o.refused:
        parts.append(f"{len(o.refused)} refused")
    if p.planned.unmovable:
        parts.append(f"{len(p.planned.unmovable)} partition(s) cannot move")
    state = {"done": "done", "interrupted": "interrupted", "failed": "not started"}[o.state]
    text = f"{what} {state}: {'; '.join(parts)}."
    if o.throttle_left_on:
        text += (
            f" Broker(s) {_ids(o.throttle_left_on)} offline: it keeps its throttle rate (a "
            "broker's own config); once it is back, clear it as an orphaned throttle."
        )
    if o.fills:
        filled = sum(1 for f in o.fills if f.ok)
        text += f" {filled} placeholder(s) waiting for its rack filled by broker {p.brokers[1]}."
    return text


def _ids(ids: Sequence[int]) -> str:
    return ",".join(map(str, ids))


__all__ = [
    "DEFAULT_BATCH",
    "STALL_S",
    "DrainProgress",
    "Outcome",
    "Preview",
    "Stalled",
    "Unmovable",
    "preview_drain",
    "preview_replace",
    "run",
    "undrain",
]
