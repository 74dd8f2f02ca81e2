"""`topics alter --replication-factor`, `topics reassign` and `reassignments list|cancel|wait`:
flags in, the planner and the run of `services/reassigning.py`, per-topic lines or JSON out, a
rich progress bar while the copy runs on a terminal."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from ..admin import KafkaAdmin, ReadOnlyProfile
from ..config import Profile
from ..fields import FieldError
from ..planning.reassignment import Move, TopicPlan
from ..services import parsing, rollback
from ..services import reassigning as service
from ..services.placing import PlacementOptions
from ..services.reassigning import Outcome, Progress, RunOptions
from ..services.snapshot import Snapshot, min_insync_replicas, take_snapshot
from . import output
from .leaders import offer_election
from .reassign_flags import add_parsers as add_parsers  # the CLI registers the command here
from .words import with_remedies, worded


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
        try:
            targets[int(partition)] = parsing.replica_lists(replicas)[0]
        except FieldError as exc:
            raise parsing.UsageError(f"{where}: {exc.message}") from None
    return targets


def _run_options(args: argparse.Namespace) -> RunOptions:
    if args.throttle is not None and args.throttle < 1:
        raise parsing.UsageError("--throttle must be at least 1 byte per second")
    return RunOptions(args.validate_only, args.throttle, args.wait, args.wait_timeout)


@contextmanager
def _progress_bar(show: bool) -> Iterator[Progress]:
    """A rich bar on a terminal (none under --output json or off a terminal)."""
    if not (show and sys.stderr.isatty()):
        yield lambda done, of, copied, total: None
        return
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

    bar = Progress(
        TextColumn("reassigning {task.fields[done]}/{task.fields[of]} partitions"),
        BarColumn(),
        DownloadColumn(),
        transient=True,
    )
    task = bar.add_task("", total=None, done=0, of=0)

    def update(done: int, of: int, copied: int, total: int) -> None:
        bar.update(task, total=total, completed=copied, done=done, of=of)

    bar.start()
    try:
        yield update
    finally:
        bar.stop()


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
    run = _run_options(args)
    snapshot = await take_snapshot(admin, zookeeper=zookeeper)
    present = [n for n in names if n in snapshot.topics]
    min_isr = await min_insync_replicas(admin, present)
    plans = service.plan_replication_factor(
        snapshot, names, args.replication_factor, options, min_isr
    )
    return await _run(args, "replication-factor", admin, snapshot, plans, run)


async def reassign_topics(
    args: argparse.Namespace,
    admin: KafkaAdmin,
    names: list[str],
    options: PlacementOptions,
    zookeeper: str | None,
) -> int:
    run = _run_options(args)
    if getattr(args, "reassignment_json_file", None) is not None:
        if names:
            raise parsing.UsageError(
                "topics reassign --reassignment-json-file: the file names the topics; name no TOPIC"
            )
        targets = rollback.read(args.reassignment_json_file)
        snapshot = await take_snapshot(admin, zookeeper=zookeeper)
        plans = [service.plan_given(snapshot, t, parts) for t, parts in targets.items()]
        return await _run(args, "reassign", admin, snapshot, plans, run)
    snapshot = await take_snapshot(admin, zookeeper=zookeeper)
    if args.replica_assignment:
        if len(names) != 1:
            raise parsing.UsageError("topics reassign --replica-assignment: name exactly one TOPIC")
        plans = [service.plan_given(snapshot, names[0], partition_targets(args.replica_assignment))]
    else:
        if args.from_broker not in {b.id for b in snapshot.brokers}:
            raise parsing.UsageError(f"--from-broker {args.from_broker}: no such broker")
        plans = service.plan_move_off(snapshot, names, args.from_broker, options)
    return await _run(args, "reassign", admin, snapshot, plans, run)


async def _run(
    args: argparse.Namespace,
    what: str,
    admin: KafkaAdmin,
    snapshot: Snapshot,
    plans: list[TopicPlan],
    run: RunOptions,
) -> int:
    """Run the plans as one audited operation, with a bar on a terminal; print outcomes."""
    as_json = args.output == "json"
    with _progress_bar(not as_json) as progress:
        outcomes = await service.audited_run(what, admin, snapshot, plans, run, progress)
    return _print(outcomes, as_json)


def _ids(ids: tuple[int, ...]) -> str:
    return ",".join(map(str, ids))


def _move_line(m: Move) -> str:
    changes = [f"+{b}" for b in m.added] + [f"-{b}" for b in m.removed]
    return f"\tPartition: {m.partition}\t{_ids(m.before)} -> {_ids(m.after)}\t{' '.join(changes)}"


def _print(outcomes: list[Outcome], as_json: bool) -> int:
    outcomes = [
        replace(o, message=with_remedies(o.message, o.plan.remedies)) if not o.ok else o
        for o in outcomes
    ]
    if as_json:
        output.emit_json([o.to_json() for o in outcomes])
    else:
        for o in outcomes:
            if not o.ok:
                print(f"Error ({o.error}): {o.message}", file=sys.stderr)
                continue
            print(o.message)
            for m in o.plan.moves:
                print(_move_line(m))
        for path in dict.fromkeys(o.rollback_file for o in outcomes if o.rollback_file):
            print(
                f"Rollback file (the replicas before): {path}\n"
                f"  undo: kafka-tui topics reassign --reassignment-json-file {path}"
            )
    return 0 if all(o.ok for o in outcomes) else 1


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
    if args.action == "throttle":
        if args.auto:
            return await _auto_rate(args, admin, as_json)
        if args.rate is None:
            raise parsing.UsageError("reassignments throttle: give BYTES_PER_S, or --auto")
        return await _change_rate(args.rate, admin, as_json)
    if args.action == "cancel":
        settled = await service.cancel_reassignments(admin, topics)
    else:
        with _progress_bar(not as_json) as progress:
            settled = await service.wait_reassignments(admin, topics, args.wait_timeout, progress)
        await offer_election(admin, [r.topic for r in settled.results if r.ok], args.elect_leaders)
    if not settled.results:
        what = f" for {', '.join(args.topics)}" if args.topics else ""
        print(f"No reassignment in progress{what}.", file=sys.stderr)
    if args.action != "cancel":
        return output.results(settled.results, as_json)
    return _cancelled(settled, as_json)


def _cancelled(settled: service.Settled, as_json: bool) -> int:
    """The cancel's results; the throttles no reassignment needs any more named on stderr
    with the command that clears them, and in each JSON result (`orphaned_throttles`)."""
    if settled.orphaned:
        print(
            f"{service.orphaned_words(settled.orphaned)} To clear them: "
            "kafka-tui throttles clear --orphaned",
            file=sys.stderr,
        )
    if not as_json:
        return output.results(settled.results, False)
    items = [worded(r) for r in settled.results]
    orphaned = [t.to_json() for t in settled.orphaned]
    output.emit_json([r.to_json() | {"orphaned_throttles": orphaned} for r in items])
    return 0 if all(r.ok for r in items) else 1


async def _change_rate(rate: int, admin: KafkaAdmin, as_json: bool) -> int:
    """`reassignments throttle RATE`: exit 0 once every broker involved shows the rate."""
    from ..admin.reassignments import FOLLOWER_RATE, LEADER_RATE
    from ..services.replication_throttles import NothingToThrottle, change_throttle_rate

    if rate < 1:
        raise parsing.UsageError("reassignments throttle: RATE must be at least 1 byte per second")
    try:
        change = await change_throttle_rate(admin, rate)
    except NothingToThrottle as exc:
        print(f"Error ({exc.name}): {exc.message}", file=sys.stderr)
        return 1
    if as_json:
        output.emit_json(change.to_json())
    else:
        for b in change.brokers:
            shown = change.shown.get(b, {})
            print(
                f"Broker {b}: leader {shown.get(LEADER_RATE)} B/s, follower "
                f"{shown.get(FOLLOWER_RATE)} B/s"
            )
    return 0 if change.verified else 1


async def _auto_rate(args: argparse.Namespace, admin: KafkaAdmin, as_json: bool) -> int:
    """`reassignments throttle --auto`: the rule of services/throttle_auto.py until the
    reassignments end; one line per change on stderr (the JSON document at the end)."""
    from ..services.throttle_auto import (
        DEFAULT_MAX_RATE,
        DEFAULT_MIN_RATE,
        AutoRule,
        Step,
        auto_throttle,
    )

    low = DEFAULT_MIN_RATE if args.min is None else args.min
    high = DEFAULT_MAX_RATE if args.max is None else args.max
    for flag, value in (("--min", low), ("--max", high), ("BYTES_PER_S", args.rate)):
        if value is not None and value < 1:
            raise parsing.UsageError(f"reassignments throttle: {flag} must be at least 1")
    if low > high:
        raise parsing.UsageError("reassignments throttle: --min must not be above --max")
    if args.interval <= 0:
        raise parsing.UsageError("reassignments throttle: --interval must be above 0")

    def show(step: Step) -> None:
        print(
            f"{step.at:6.1f}s rate {step.rate} B/s ({step.reason}; under-replicated "
            f"{step.signals.under_replicated}, slowest broker {step.signals.latency_ms:.0f} ms)",
            file=sys.stderr,
        )

    rule = AutoRule(low, high, args.interval, args.latency_limit)
    start = min(max(args.rate or low, low), high)
    run = await auto_throttle(admin, rule, start, show)
    if as_json:
        output.emit_json(run.to_json())
    elif not run.steps:
        print("No reassignment in progress.", file=sys.stderr)
    else:
        print(
            f"Reassignments done; last rate {run.steps[-1].rate} B/s"
            + ("; throttle rates removed." if run.removed else ".")
        )
    return 0 if all(s.verified for s in run.steps) else 1
