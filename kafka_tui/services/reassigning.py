"""Replication-factor changes and reassignments (KIP-4's AlterTopic): the one planner both
front ends use, and the run (throttle, AlterPartitionReassignments, wait, remove throttle).

A run: plan (planning/reassignment.py, against the cluster's snapshot), partition sizes
(DescribeLogDirs), optional throttles, AlterPartitionReassignments, then progress from
ListPartitionReassignments until done; throttles are removed when done or on cancel.
`validate_only` sends nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from ..admin import AdminError, TopicResult
from ..admin import audit_log as audit
from ..admin.connection import poll_until
from ..admin.partition_moves import OngoingReassignment, PartitionMove, ReplicationThrottle
from ..planning.placement import cordon_warning
from ..planning.reassignment import (
    Current,
    TopicPlan,
    change_replication_factor,
    given_targets,
    move_off_broker,
)
from . import rollback
from .parsing import UsageError
from .placing import PlacementOptions
from .ports import AdminPort
from .replication_throttles import Released, Throttle, list_throttles, release_throttles
from .snapshot import Snapshot

WAIT_TIMEOUT_S = 3600.0
CANCEL_WAIT_S = 30.0

# done partitions, of partitions, bytes copied (or partitions when sizes are unknown), total
Progress = Callable[[int, int, int, int], None]


def _no_progress(done: int, of: int, copied: int, total: int) -> None:
    return None


@dataclass(frozen=True)
class Outcome:
    """One topic's result (the shape scripts read: `to_json`)."""

    plan: TopicPlan
    ok: bool
    error: str | None
    message: str
    bytes_to_move: int
    rollback_file: str | None = None  # the assignment before the change (none: a preview)

    def to_json(self) -> dict[str, object]:
        return {
            "topic": self.plan.topic,
            "ok": self.ok,
            "error": self.error,
            "message": self.message,
            "moves": [
                {"partition": m.partition, "before": list(m.before), "after": list(m.after)}
                for m in self.plan.moves
            ],
            "bytes_to_move": self.bytes_to_move,
            "rollback_file": self.rollback_file,
        }


@dataclass(frozen=True)
class RunOptions:
    """How a reassignment runs."""

    validate_only: bool = False
    throttle: int | None = None  # bytes per second on the brokers and topics involved
    wait: bool = True
    wait_timeout: float = WAIT_TIMEOUT_S


# -- planning ----------------------------------------------------------------------------------


def current_partitions(snapshot: Snapshot, topic: str) -> list[Current]:
    return [
        Current(p.partition, tuple(p.replicas), p.leader) for p in snapshot.topics[topic].partitions
    ]


def missing_topic(topic: str) -> TopicPlan:
    return TopicPlan(
        topic,
        error="UNKNOWN_TOPIC_OR_PARTITION",
        message=f"Topic '{topic}' does not exist. Check the name (names are case-sensitive).",
    )


def plan_replication_factor(
    snapshot: Snapshot,
    names: Sequence[str],
    factor: int,
    options: PlacementOptions,
    min_isr: dict[str, int],
) -> list[TopicPlan]:
    """One plan per name, in order. No partition may keep fewer live replicas than the
    larger of the options' minimum and the topic's min.insync.replicas (`min_isr`)."""
    present = [n for n in names if n in snapshot.topics]
    plans: dict[str, TopicPlan] = {n: missing_topic(n) for n in names if n not in snapshot.topics}
    # Topics with the same minimum share one call, so each plan's load counts for the next.
    for minimum in sorted({min_isr.get(n, 1) for n in present}):
        group = [n for n in present if min_isr.get(n, 1) == minimum]
        for plan in change_replication_factor(
            snapshot.brokers,
            snapshot.load,
            [(n, current_partitions(snapshot, n)) for n in group],
            factor,
            mode=options.mode,
            min_live=max(options.min_required or 1, minimum),
            live_only=not snapshot.kraft,
        ):
            plans[plan.topic] = plan
    return _noting_cordons(snapshot, [plans[n] for n in names])


def _noting_cordons(snapshot: Snapshot, plans: list[TopicPlan]) -> list[TopicPlan]:
    """Plans that move replicas say which brokers took none because they are cordoned."""
    warning = cordon_warning(snapshot.brokers)
    if not warning:
        return plans
    return [replace(p, message=f"{p.message} {warning}".strip()) if p.moves else p for p in plans]


def plan_move_off(
    snapshot: Snapshot, names: Sequence[str], broker: int, options: PlacementOptions
) -> list[TopicPlan]:
    """Move every replica off `broker`; no names: every topic that holds one there."""
    if broker not in {b.id for b in snapshot.brokers}:
        raise UsageError(f"broker {broker} is not part of the cluster")
    chosen = list(names) or sorted(t for t, d in snapshot.topics.items() if not d.internal)
    found = [n for n in chosen if n in snapshot.topics]
    by_topic = {
        p.topic: p
        for p in move_off_broker(
            snapshot.brokers,
            snapshot.load,
            [(n, current_partitions(snapshot, n)) for n in found],
            broker,
            mode=options.mode,
            live_only=not snapshot.kraft,
        )
    }
    plans = [by_topic.get(n) or missing_topic(n) for n in chosen]
    if not names:
        plans = [p for p in plans if p.moves or p.error]
    return _noting_cordons(snapshot, plans)


def plan_given(snapshot: Snapshot, topic: str, targets: dict[int, list[int]]) -> TopicPlan:
    if topic not in snapshot.topics:
        return missing_topic(topic)
    return given_targets(
        snapshot.brokers,
        topic,
        current_partitions(snapshot, topic),
        targets,
        live_only=not snapshot.kraft,
    )


def replication_throttle(rate: int, plans: Sequence[TopicPlan]) -> ReplicationThrottle:
    if rate < 1:
        raise UsageError("a replication throttle must be at least 1 byte per second")
    brokers = sorted({b for p in plans for m in p.moves for b in (*m.before, *m.after)})
    return ReplicationThrottle(
        rate,
        brokers,
        leaders={p.topic: [f"{m.partition}:{b}" for m in p.moves for b in m.before] for p in plans},
        followers={
            p.topic: [f"{m.partition}:{b}" for m in p.moves for b in m.added]
            for p in plans
            if any(m.added for m in p.moves)
        },
    )


# -- running -----------------------------------------------------------------------------------


async def run_plans(
    admin: AdminPort,
    snapshot: Snapshot,
    plans: list[TopicPlan],
    run: RunOptions,
    progress: Progress = _no_progress,
    *,
    what: str = "reassign",
) -> list[Outcome]:
    """Preview (`validate_only`) or run the plans; one outcome per plan, in order. A run
    first writes the rollback file of every partition it moves (`what` names it); none is
    sent when that file cannot be written."""
    moving = [p for p in plans if p.error is None and p.moves]
    sizes = await admin.partition_sizes([p.topic for p in moving], snapshot.live)
    copies = {
        (p.topic, m.partition): sizes.get((p.topic, m.partition), 0) * len(m.added)
        for p in plans
        for m in p.moves
    }
    size_of = {p.topic: sum(copies[(p.topic, m.partition)] for m in p.moves) for p in plans}
    outcomes: dict[str, Outcome] = {}
    for p in plans:
        if p.error is not None:
            outcomes[p.topic] = Outcome(p, False, p.error, p.message, 0)
        elif not p.moves or run.validate_only:
            size = size_of[p.topic] if run.validate_only else 0
            outcomes[p.topic] = Outcome(
                p, True, None, move_summary(p, size_of[p.topic], True), size
            )
    if moving and not run.validate_only:
        try:
            path = rollback.write(
                what, ((p.topic, m.partition, m.before) for p in moving for m in p.moves)
            )
        except OSError as exc:
            text = (
                f"Not started: the rollback file could not be written in {rollback.folder()} "
                f"({exc.strerror or exc}). Set ${rollback.ENV} to a writable folder."
            )
            for p in moving:
                outcomes[p.topic] = Outcome(p, False, "ROLLBACK_NOT_WRITTEN", text, 0)
        else:
            with audit.rollback_file(str(path)):
                sent = await _send(admin, moving, size_of, copies, run, progress)
            outcomes |= {t: replace(o, rollback_file=str(path)) for t, o in sent.items()}
    return [outcomes[p.topic] for p in plans]


async def _send(
    admin: AdminPort,
    plans: list[TopicPlan],
    size_of: dict[str, int],
    copies: dict[tuple[str, int], int],
    run: RunOptions,
    progress: Progress,
) -> dict[str, Outcome]:
    throttle = replication_throttle(run.throttle, plans) if run.throttle else None
    if throttle is not None:
        await admin.set_replication_throttle(throttle)
    moves = [
        PartitionMove(p.topic, m.partition, list(m.after), list(m.before))
        for p in plans
        for m in p.moves
    ]
    results = await admin.alter_partition_reassignments(moves)
    refused = {(r.topic, r.partition): r for r in results if not r.ok}
    started = [(m.topic, m.partition) for m, r in zip(moves, results, strict=True) if r.ok]
    pending: set[tuple[str, int]] = set()
    if run.wait and started:
        targets = {(m.topic, m.partition): m.replicas or [] for m in moves}
        pending = await wait_for_moves(admin, started, run.wait_timeout, copies, progress, targets)
    reasons = await stuck_reasons(admin, pending) if pending else {}
    if throttle is not None and run.wait and not pending:
        await release_throttles(
            admin, throttle.brokers, sorted(throttle.leaders | throttle.followers)
        )
    outcomes = {}
    for p in plans:
        failed = [
            refused[(p.topic, m.partition)] for m in p.moves if (p.topic, m.partition) in refused
        ]
        stuck = sorted(q for t, q in pending if t == p.topic)
        if failed:
            text = " ".join(r.message for r in failed)
            outcomes[p.topic] = Outcome(p, False, failed[0].error, text, size_of[p.topic])
        elif stuck:
            why = "; ".join(
                f"partition {q}: {reasons.get((p.topic, q), 'still copying')}" for q in stuck
            )
            text = (
                f"Topic '{p.topic}': the reassignment is still in progress after "
                f"{run.wait_timeout:g}s; stuck: {why}. `kafka-tui reassignments cancel "
                f"{p.topic}` reverts it (and removes throttles); `kafka-tui reassignments wait "
                f"{p.topic}` waits again."
            )
            outcomes[p.topic] = Outcome(
                p, False, "REASSIGNMENT_IN_PROGRESS", text, size_of[p.topic]
            )
        else:
            text = move_summary(p, size_of[p.topic], False, finished=run.wait)
            if throttle is not None and not run.wait:
                text += (
                    f" Throttle {run.throttle} B/s stays until `kafka-tui reassignments wait "
                    f"{p.topic}` (or cancel) removes it."
                )
            outcomes[p.topic] = Outcome(p, True, None, text, size_of[p.topic])
    return outcomes


async def wait_for_moves(
    admin: AdminPort,
    partitions: list[tuple[str, int]],
    timeout_s: float,
    sizes: dict[tuple[str, int], int],
    progress: Progress = _no_progress,
    targets: dict[tuple[str, int], list[int]] | None = None,
) -> set[tuple[str, int]]:
    """Poll ListPartitionReassignments until every partition is done or time runs out.
    Returns the partitions still in progress."""
    wanted = set(partitions)
    topics = sorted({t for t, _ in wanted})
    pending = set(wanted)
    total = sum(sizes.values())

    async def done() -> bool | None:
        nonlocal pending
        ongoing = await admin.list_partition_reassignments(topics)
        pending = {(r.topic, r.partition) for r in ongoing} & wanted
        if not pending and targets:
            # The controller is done; a broker's metadata may still show the old replicas.
            found, _ = await admin.describe_topics(topics, configs=False)
            shown = {(t.name, p.partition): p.replicas for t in found for p in t.partitions}
            pending = {k for k in wanted if k in targets and shown.get(k) != tuple(targets[k])}
        finished = wanted - pending
        copied = sum(sizes.get(k, 0) for k in finished) if total else len(finished)
        progress(len(finished), len(wanted), copied, total or len(wanted))
        return True if not pending else None

    await poll_until(done, time.monotonic() + timeout_s, first_delay=0.2)
    return pending


async def stuck_reasons(
    admin: AdminPort, pending: set[tuple[str, int]]
) -> dict[tuple[str, int], str]:
    """Why each partition is not done: an added replica on an offline broker, or not yet in
    sync (still copying, or throttled)."""
    topics = sorted({t for t, _ in pending})
    ongoing = {(r.topic, r.partition): r for r in await admin.list_partition_reassignments(topics)}
    live = set((await admin.describe_cluster()).live_broker_ids)
    found, _ = await admin.describe_topics(topics, configs=False)
    isr = {(t.name, p.partition): p.isr for t in found for p in t.partitions}
    reasons = {}
    for key in pending:
        r = ongoing.get(key)
        if r is None:
            reasons[key] = "finished just now"
            continue
        offline = [b for b in r.adding if b not in live]
        copying = [b for b in r.adding if b in live and b not in isr.get(key, [])]
        parts = []
        if offline:
            parts.append(f"broker(s) {_ids(offline)} offline, so the new replica cannot copy")
        if copying:
            parts.append(f"broker(s) {_ids(copying)} still copying (not in the ISR yet)")
        reasons[key] = "; ".join(parts) or f"removing {_ids(r.removing)}"
    return reasons


# -- reassignments in progress: cancel, wait ---------------------------------------------------


@dataclass(frozen=True)
class Settled:
    """What `cancel_reassignments` / `wait_reassignments` did: one result per topic that had
    a reassignment in progress (none: nothing was in progress)."""

    results: list[TopicResult]
    # After a cancel: throttles still set that no reassignment in progress needs (e.g. of a
    # move that finished just before it). Reported, never removed: kafka-tui cannot tell
    # them from an operator's own rate.
    orphaned: list[Throttle] = field(default_factory=list)


async def cancel_reassignments(admin: AdminPort, topics: list[str] | None) -> Settled:
    """Cancel the reassignments in progress (of `topics`, or all): the partitions revert to
    their original replicas; throttles are removed once none of them is left."""
    ongoing = await admin.list_partition_reassignments(topics)
    names = sorted({r.topic for r in ongoing})
    moves = [PartitionMove(r.topic, r.partition, None) for r in ongoing]
    answers = await admin.alter_partition_reassignments(moves) if moves else []
    cancelled = [(a.topic, a.partition) for a in answers if a.ok]
    left = await admin.wait_for_reassignments(cancelled, time.monotonic() + CANCEL_WAIT_S)
    released = await _release(admin, ongoing, names, left)
    results: list[TopicResult] = []
    for t in names:
        bad = [a for a in answers if a.topic == t and not a.ok]
        if bad:
            text = " ".join(a.message for a in bad)
            results.append(TopicResult(t, ok=False, error=bad[0].error, message=text))
        else:
            n = sum(1 for a in answers if a.topic == t)
            results.append(
                TopicResult(
                    t,
                    ok=True,
                    message=f"Topic '{t}': reassignment of {n} partition(s) cancelled; "
                    f"they keep their original replicas. {released_words(released)}",
                )
            )
    try:
        orphaned = (await list_throttles(admin)).orphaned
    except AdminError:
        orphaned = []  # the cancel is done; only the report of what is left is missing
    return Settled(results, orphaned)


def orphaned_words(orphaned: Sequence[Throttle]) -> str:
    """The throttles left that no reassignment in progress needs, in one sentence."""
    brokers = sorted({int(t.name) for t in orphaned if t.kind == "broker"})
    topics = sorted({t.name for t in orphaned if t.kind == "topic"})
    where = ([f"broker(s) {_ids(brokers)} (rates)"] if brokers else []) + (
        [f"topic(s) {', '.join(repr(t) for t in topics)} (throttled replicas)"] if topics else []
    )
    return (
        f"Throttles no reassignment in progress needs are still set on {' and '.join(where)} "
        "(a move that finished before the cancel, or an operator's own rate: left as they are)."
    )


async def wait_reassignments(
    admin: AdminPort,
    topics: list[str] | None,
    timeout_s: float = WAIT_TIMEOUT_S,
    progress: Progress = _no_progress,
) -> Settled:
    """Wait for the reassignments in progress (of `topics`, or all); then remove throttles."""
    ongoing = await admin.list_partition_reassignments(topics)
    names = sorted({r.topic for r in ongoing})
    left = await wait_for_moves(
        admin, [(r.topic, r.partition) for r in ongoing], timeout_s, {}, progress
    )
    reasons = await stuck_reasons(admin, left) if left else {}
    released = await _release(admin, ongoing, names, left)
    results: list[TopicResult] = []
    for t in names:
        stuck = sorted(q for s, q in left if s == t)
        if stuck:
            why = "; ".join(f"partition {q}: {reasons[(t, q)]}" for q in stuck)
            results.append(
                TopicResult(
                    t,
                    ok=False,
                    error="REASSIGNMENT_IN_PROGRESS",
                    message=f"Topic '{t}': still in progress; stuck: {why}.",
                )
            )
        else:
            results.append(
                TopicResult(
                    t,
                    ok=True,
                    message=f"Topic '{t}': reassignment done. {released_words(released)}",
                )
            )
    return Settled(results)


async def _release(
    admin: AdminPort,
    ongoing: Sequence[OngoingReassignment],
    names: list[str],
    left: set[tuple[str, int]],
) -> Released:
    """Remove the throttles of the settled reassignments, but not the rates of a broker or
    the lists of a topic that a reassignment still in progress (`left`, or any other) uses:
    rates are per broker, shared by every reassignment through it."""
    done = [t for t in names if not any(k[0] == t for k in left)]
    brokers = sorted({b for r in ongoing for b in r.replicas})
    return await release_throttles(admin, brokers, done)


def released_words(released: Released) -> str:
    kept = [f"broker {b}" for b in released.kept_brokers]
    kept += [f"topic '{t}'" for t in released.kept_topics]
    if not kept:
        return "Throttles removed."
    return (
        f"Throttles removed, except on {', '.join(kept)}: a reassignment still in progress "
        "uses them."
    )


# -- words -------------------------------------------------------------------------------------


def move_summary(plan: TopicPlan, size: int, preview: bool, finished: bool = True) -> str:
    t = plan.topic
    if not plan.moves:
        return f"Topic '{t}': nothing to move; the replicas already match."
    added = sum(len(m.added) for m in plan.moves)
    removed = sum(len(m.removed) for m in plan.moves)
    lost = [m.partition for m in plan.moves if not m.leader_kept]
    leaders = (
        "every leader kept"
        if not lost
        else f"partition(s) {_ids(lost)} change leader (theirs is removed)"
    )
    verb = "would move" if preview else ("moved" if finished else "started moving")
    text = (
        f"Topic '{t}': {verb} {len(plan.moves)} partition(s): {added} replica(s) added, "
        f"{removed} removed, {human_bytes(size)} to copy; {leaders}."
    )
    return f"{text} {plan.message}".strip()


def human_bytes(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    size = float(n)
    for unit in ("KB", "MB", "GB"):
        size /= 1024
        if size < 1024 or unit == "GB":
            break
    return f"{size:.1f} {unit}"


def _ids(ids: Sequence[int]) -> str:
    return ",".join(map(str, ids))


async def audited_run(
    what: str,
    admin: AdminPort,
    snapshot: Snapshot,
    plans: list[TopicPlan],
    run: RunOptions,
    progress: Progress = _no_progress,
) -> list[Outcome]:
    """`run_plans` as one audited operation (`what`: its name in the audit log)."""
    with audit.operation(what):
        return await run_plans(admin, snapshot, plans, run, progress, what=what)
