"""Replication-factor changes and reassignments (KIP-4's AlterTopic, issue 11):
`topics alter --replication-factor`, `topics reassign`, `reassignments list|cancel|wait`.

A run: plan (planning/reassignment.py, against the cluster's snapshot), partition sizes
(DescribeLogDirs), optional throttles, AlterPartitionReassignments, then progress from
ListPartitionReassignments until done; throttles are removed when done or on cancel.
`--validate-only` sends nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..admin import KafkaAdmin, ReadOnlyProfile, TopicResult, audit
from ..admin.connection import poll_until
from ..admin.moves import PartitionMove, ReplicationThrottle
from ..config import Profile
from ..planning.reassignment import (
    Current,
    Move,
    TopicPlan,
    change_replication_factor,
    given_targets,
    move_off_broker,
)
from . import output, parsing
from .placing import PlacementOptions, Snapshot, take_snapshot
from .reassign_flags import add_parsers as add_parsers  # the CLI registers the command here


def partition_targets(text: str) -> dict[int, list[int]]:
    """'0=1:2:3,4=2:3' -> {0: [1, 2, 3], 4: [2, 3]}."""
    targets: dict[int, list[int]] = {}
    for index, entry in enumerate(text.split(",")):
        where = f"--replica-assignment, entry {index} ('{entry.strip()}')"
        partition, sep, replicas = entry.partition("=")
        if not sep or not partition.strip().isdigit():
            raise parsing.UsageError(f"{where} must look like PARTITION=1:2:3")
        if int(partition) in targets:
            raise parsing.UsageError(f"{where}: partition {int(partition)} is given twice")
        targets[int(partition)] = parsing.replica_lists(replicas)[0]
    return targets


# -- `topics alter --replication-factor` and `topics reassign` ------------------------------


@dataclass(frozen=True)
class Outcome:
    """One topic's result, printed per the issue's shape."""

    plan: TopicPlan
    ok: bool
    error: str | None
    message: str
    bytes_to_move: int

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
        }


def current_partitions(snapshot: Snapshot, topic: str) -> list[Current]:
    return [
        Current(p.partition, tuple(p.replicas), p.leader) for p in snapshot.topics[topic].partitions
    ]


def _missing(topic: str) -> TopicPlan:
    return TopicPlan(
        topic,
        error="UNKNOWN_TOPIC_OR_PARTITION",
        message=f"Topic '{topic}' does not exist. Check the name (names are case-sensitive).",
    )


async def alter_replication_factor(
    args: argparse.Namespace,
    admin: KafkaAdmin,
    names: list[str],
    options: PlacementOptions,
    zookeeper: str | None,
) -> int:
    if args.partitions is not None or args.replica_assignment:
        raise parsing.UsageError(
            "topics alter: change the partition count and the replication factor in two "
            "steps (--partitions first, then --replication-factor)"
        )
    if options.placement == "broker":
        raise parsing.UsageError(
            "--placement broker: Kafka has no placement of its own for a replication-factor "
            "change; kafka-tui's placer decides (and previews) it"
        )
    snapshot = await take_snapshot(admin, zookeeper=zookeeper)
    present = [n for n in names if n in snapshot.topics]
    min_isr = {
        t: int(v)
        for t, v in (await admin.topic_config_value("min.insync.replicas", present)).items()
        if v and v.isdigit()
    }
    plans: dict[str, TopicPlan] = {n: _missing(n) for n in names if n not in snapshot.topics}
    # Topics with the same minimum share one call, so each plan's load counts for the next.
    for minimum in sorted({min_isr.get(n, 1) for n in present}):
        group = [n for n in present if min_isr.get(n, 1) == minimum]
        for plan in change_replication_factor(
            snapshot.brokers,
            snapshot.load,
            [(n, current_partitions(snapshot, n)) for n in group],
            args.replication_factor,
            mode=options.mode,
            min_live=max(options.min_required or 1, minimum),
            live_only=not snapshot.kraft,
        ):
            plans[plan.topic] = plan
    with audit.operation("replication-factor"):
        return await _execute(args, admin, snapshot, [plans[n] for n in names])


async def reassign_topics(
    args: argparse.Namespace,
    admin: KafkaAdmin,
    names: list[str],
    options: PlacementOptions,
    zookeeper: str | None,
) -> int:
    snapshot = await take_snapshot(admin, zookeeper=zookeeper)
    live_only = not snapshot.kraft
    plans: list[TopicPlan]
    if args.replica_assignment:
        if len(names) != 1:
            raise parsing.UsageError("topics reassign --replica-assignment: name exactly one TOPIC")
        targets = partition_targets(args.replica_assignment)
        topic = names[0]
        plans = [
            given_targets(
                snapshot.brokers,
                topic,
                current_partitions(snapshot, topic),
                targets,
                live_only=live_only,
            )
            if topic in snapshot.topics
            else _missing(topic)
        ]
    else:
        if args.from_broker not in {b.id for b in snapshot.brokers}:
            raise parsing.UsageError(f"--from-broker {args.from_broker}: no such broker")
        chosen = names or sorted(t for t, d in snapshot.topics.items() if not d.internal)
        found = [n for n in chosen if n in snapshot.topics]
        by_topic = {
            p.topic: p
            for p in move_off_broker(
                snapshot.brokers,
                snapshot.load,
                [(n, current_partitions(snapshot, n)) for n in found],
                args.from_broker,
                mode=options.mode,
                live_only=live_only,
            )
        }
        plans = [by_topic.get(n) or _missing(n) for n in chosen]
        if not names:  # every topic: show only those that hold a replica on the broker
            plans = [p for p in plans if p.moves or p.error]
    with audit.operation("reassign"):
        return await _execute(args, admin, snapshot, plans)


async def _execute(
    args: argparse.Namespace, admin: KafkaAdmin, snapshot: Snapshot, plans: list[TopicPlan]
) -> int:
    as_json = args.output == "json"
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
        elif not p.moves or args.validate_only:
            outcomes[p.topic] = Outcome(p, True, None, move_summary(p, size_of[p.topic], True), 0)
    to_send = [p for p in moving if not args.validate_only]
    if args.validate_only:
        outcomes = {t: _with_bytes(o, size_of[t]) for t, o in outcomes.items()}
    if to_send:
        outcomes |= await _send(args, admin, to_send, size_of, copies, as_json)
    ordered = [outcomes[p.topic] for p in plans]
    _print(ordered, as_json)
    return 0 if all(o.ok for o in ordered) else 1


def _with_bytes(outcome: Outcome, size: int) -> Outcome:
    if not outcome.ok:
        return outcome
    return Outcome(outcome.plan, True, None, outcome.message, size)


async def _send(
    args: argparse.Namespace,
    admin: KafkaAdmin,
    plans: list[TopicPlan],
    size_of: dict[str, int],
    copies: dict[tuple[str, int], int],
    as_json: bool,
) -> dict[str, Outcome]:
    throttle = replication_throttle(args.throttle, plans) if args.throttle else None
    if throttle is not None:
        await admin.set_replication_throttle(throttle)
    moves = [PartitionMove(p.topic, m.partition, list(m.after)) for p in plans for m in p.moves]
    results = await admin.alter_partition_reassignments(moves)
    refused = {(r.topic, r.partition): r for r in results if not r.ok}
    started = [(m.topic, m.partition) for m, r in zip(moves, results, strict=True) if r.ok]
    pending: set[tuple[str, int]] = set()
    if args.wait and started:
        targets = {(m.topic, m.partition): m.replicas or [] for m in moves}
        pending = await _wait(admin, started, args.wait_timeout, copies, not as_json, targets)
    reasons = await _stuck_reasons(admin, pending) if pending else {}
    if throttle is not None and args.wait and not pending:
        await admin.clear_replication_throttle(
            throttle.brokers, sorted(throttle.leaders | throttle.followers)
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
                f"{args.wait_timeout:g}s; stuck: {why}. `kafka-tui reassignments cancel "
                f"{p.topic}` reverts it (and removes throttles); `kafka-tui reassignments wait "
                f"{p.topic}` waits again."
            )
            outcomes[p.topic] = Outcome(
                p, False, "REASSIGNMENT_IN_PROGRESS", text, size_of[p.topic]
            )
        else:
            text = move_summary(p, size_of[p.topic], False, finished=args.wait)
            if throttle is not None and not args.wait:
                text += (
                    f" Throttle {args.throttle} B/s stays until `kafka-tui reassignments wait "
                    f"{p.topic}` (or cancel) removes it."
                )
            outcomes[p.topic] = Outcome(p, True, None, text, size_of[p.topic])
    return outcomes


def replication_throttle(rate: int, plans: Sequence[TopicPlan]) -> ReplicationThrottle:
    if rate < 1:
        raise parsing.UsageError("--throttle must be at least 1 byte per second")
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


async def _wait(
    admin: KafkaAdmin,
    partitions: list[tuple[str, int]],
    timeout_s: float,
    sizes: dict[tuple[str, int], int],
    show: bool,
    targets: dict[tuple[str, int], list[int]] | None = None,
) -> set[tuple[str, int]]:
    """Poll ListPartitionReassignments until every partition is done or time runs out;
    a rich progress bar on a terminal. Returns the partitions still in progress."""
    wanted = set(partitions)
    topics = sorted({t for t, _ in wanted})
    pending = set(wanted)
    total = sum(sizes.values())
    update: Callable[[], None] = lambda: None  # noqa: E731
    progress = None
    if show and sys.stderr.isatty():
        from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

        progress = Progress(
            TextColumn("reassigning {task.fields[done]}/{task.fields[of]} partitions"),
            BarColumn(),
            DownloadColumn(),
            transient=True,
        )
        task = progress.add_task("", total=total or len(wanted), done=0, of=len(wanted))

        def update() -> None:
            finished = wanted - pending
            bytes_done = sum(sizes.get(k, 0) for k in finished) if total else len(finished)
            progress.update(task, completed=bytes_done, done=len(finished))

        progress.start()

    async def done() -> bool | None:
        nonlocal pending
        ongoing = await admin.list_partition_reassignments(topics)
        pending = {(r.topic, r.partition) for r in ongoing} & wanted
        if not pending and targets:
            # The controller is done; a broker's metadata may still show the old replicas.
            found, _ = await admin.describe_topics(topics, configs=False)
            shown = {(t.name, p.partition): p.replicas for t in found for p in t.partitions}
            pending = {k for k in wanted if shown.get(k) != targets.get(k, shown.get(k))}
        update()
        return True if not pending else None

    try:
        await poll_until(done, time.monotonic() + timeout_s, first_delay=0.2)
    finally:
        if progress is not None:
            progress.stop()
    return pending


async def _stuck_reasons(
    admin: KafkaAdmin, pending: set[tuple[str, int]]
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
        f"{removed} removed, {_bytes(size)} to copy; {leaders}."
    )
    return f"{text} {plan.message}".strip()


def _bytes(n: int) -> str:
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


def _move_line(m: Move) -> str:
    changes = [f"+{b}" for b in m.added] + [f"-{b}" for b in m.removed]
    return f"\tPartition: {m.partition}\t{_ids(m.before)} -> {_ids(m.after)}\t{' '.join(changes)}"


def _print(outcomes: list[Outcome], as_json: bool) -> None:
    if as_json:
        output.emit_json([o.to_json() for o in outcomes])
        return
    for o in outcomes:
        if not o.ok:
            print(f"Error ({o.error}): {o.message}", file=sys.stderr)
            continue
        print(o.message)
        for m in o.plan.moves:
            print(_move_line(m))


# -- `reassignments list | cancel | wait` ------------------------------------------------------


async def run(args: argparse.Namespace, profile: Profile, admin: KafkaAdmin) -> int:
    as_json = args.output == "json"
    topics = list(args.topics) or None
    if args.action == "list":
        ongoing = await admin.list_partition_reassignments(topics)
        output.rows(
            [
                {
                    "topic": r.topic,
                    "partition": r.partition,
                    "replicas": r.replicas,
                    "adding": r.adding,
                    "removing": r.removing,
                }
                for r in ongoing
            ],
            as_json,
            ["topic", "partition", "replicas", "adding", "removing"],
        )
        return 0
    if profile.read_only:
        raise ReadOnlyProfile(profile.name)
    ongoing = await admin.list_partition_reassignments(topics)
    names = sorted({r.topic for r in ongoing})
    brokers = sorted({b for r in ongoing for b in r.replicas})
    results: list[TopicResult] = []
    if args.action == "cancel":
        moves = [PartitionMove(r.topic, r.partition, None) for r in ongoing]
        answers = await admin.alter_partition_reassignments(moves) if moves else []
        cancelled = [(a.topic, a.partition) for a in answers if a.ok]
        left = await admin.wait_for_reassignments(cancelled, time.monotonic() + 30)
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
                        "they keep their original replicas. Throttles removed.",
                    )
                )
        done = [t for t in names if not any(k[0] == t for k in left)]
    else:
        left = await _wait(
            admin, [(r.topic, r.partition) for r in ongoing], args.wait_timeout, {}, not as_json
        )
        reasons = await _stuck_reasons(admin, left) if left else {}
        done = [t for t in names if not any(k[0] == t for k in left)]
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
                        t, ok=True, message=f"Topic '{t}': reassignment done; throttles removed."
                    )
                )
    # Throttle rates are per broker: they go once no named reassignment is left.
    await admin.clear_replication_throttle(brokers if len(done) == len(names) else [], done)
    if not names:
        what = f" for {', '.join(args.topics)}" if args.topics else ""
        print(f"No reassignment in progress{what}.", file=sys.stderr)
    return output.results(results, as_json)
