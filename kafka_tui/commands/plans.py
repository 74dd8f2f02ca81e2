"""`kafka-tui plan preview|apply|export`: bulk assignment plans (issue 8).

preview: read a plan file, snapshot the cluster, place every row at once (in process, or in a
Spark job for big plans), print the statistics or the JSON document (`--save` keeps it).
apply: send exactly a saved document (re-checked against the cluster first) or a fresh plan,
in batches of explicit assignments, with per-topic results, resumable, checked by metadata.
export: the cluster's topics as a plan file.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..admin import KafkaAdmin, NewPartitions, ReadOnlyProfile, TopicResult, TopicSpec, audit
from ..admin.placeholders import PlaceholderStore
from ..config import Profile
from ..planning import plan_io
from ..planning.placement import Placement
from ..planning.plan import (
    ClusterView,
    ExistingTopic,
    Intent,
    PlanOptions,
    Prepared,
    plan_in_process,
    prepare,
)
from . import output, parsing, placing
from .placing import Planned, Snapshot, take_snapshot
from .spark_runner import run_spark_job, spark_log_path
from .topics import _kip409_flags, placement_options, zookeeper_of

# Above this many new partitions `--engine auto` runs Spark. Measured with bench/plans.py on the
# 2-core project machine: Spark local[2] costs ~16 s to start; 100,000 partitions take 3.5 s in
# process and 17 s in Spark; 1,000,000 take 28 s in process and 29 s in Spark. Spark only
# catches up at about a million partitions here (more cores or a real cluster move that down).
AUTO_SPARK_PARTITIONS = 1_000_000


def add_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    plan = commands.add_parser("plan", help="bulk assignment plans: preview, apply, export")
    actions = plan.add_subparsers(dest="action", required=True, metavar="ACTION")
    preview = actions.add_parser("preview", help="place a plan file's rows and show statistics")
    preview.add_argument("plan", metavar="PLAN", help="CSV, JSON or JSON lines plan file")
    _planning_flags(preview)
    preview.add_argument("--save", type=Path, metavar="FILE", help="write the plan document")
    apply = actions.add_parser("apply", help="apply a saved plan (or plan a file, then apply)")
    apply.add_argument("plan", metavar="PLAN_OR_SAVED")
    _planning_flags(apply)
    apply.add_argument("--batch-size", type=int, default=500, metavar="N")
    apply.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    apply.add_argument(
        "--replan", action="store_true", help="plan again when the brokers changed since preview"
    )
    apply.add_argument("--timeout-ms", type=int, default=30_000)
    export = actions.add_parser("export", help="the cluster's topics as a plan (CSV)")
    export.add_argument("--topics", metavar="REGEX", help="only topics whose name matches")


def _planning_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--engine", choices=["auto", "local", "spark"], default="auto")
    parser.add_argument(
        "--spark-master",
        default="local[*]",
        metavar="URL",
        help="local[N], spark://..., yarn, k8s://... or Spark Connect sc://... (default local[*])",
    )
    parser.add_argument(
        "--group-partitions",
        type=int,
        default=PlanOptions().group_partitions,
        metavar="N",
        help="partitions per group placed apart (both engines; the plan depends on it)",
    )
    _kip409_flags(parser)


async def run(args: argparse.Namespace, profile: Profile, admin: KafkaAdmin) -> int:
    as_json = args.output == "json"
    if args.action == "export":
        return await _export(args, admin)
    if args.action == "apply" and profile.read_only:
        raise ReadOnlyProfile(profile.name)
    path = Path(args.plan)
    try:
        text = await asyncio.to_thread(path.read_text)
    except OSError as exc:
        raise parsing.UsageError(f"plan: cannot read {path}: {exc.strerror}") from None
    intents: list[Intent] = []
    saved = plan_io.is_saved_plan(text)
    if not saved:
        try:
            intents = plan_io.parse_plan(str(path), text)
        except plan_io.PlanFileErrors as exc:
            for error in exc.errors:
                print(error, file=sys.stderr)
            print(f"{path}: {len(exc.errors)} error(s); nothing was sent.", file=sys.stderr)
            return 2
    store = PlaceholderStore(profile.connection, profile.placeholders_topic)
    zookeeper = zookeeper_of(args, profile)
    snapshot = await take_snapshot(admin, zookeeper=zookeeper, store=store)
    if saved:
        document = json.loads(text)
        document["_text"] = text
    else:
        document = await _plan(args, profile, admin, snapshot, intents, as_json)
        if document is None:
            return 1
    if args.action == "preview":
        if args.save:
            args.save.write_text(document["_text"])
        if as_json:
            sys.stdout.write(document["_text"])
        else:
            _print_summary(document)
        return 0 if document["stats"]["sanity"]["ok"] else 1
    return await _apply(args, profile, admin, snapshot, store, zookeeper, document, as_json)


# -- planning ----------------------------------------------------------------------------------


async def cluster_view(admin: KafkaAdmin, snapshot: Snapshot, names: list[str]) -> ClusterView:
    """What the planner needs to know of the cluster; `names`: the plan's topics (their
    min.insync.replicas matters to grows in enabled modes)."""
    growing = [n for n in names if n in snapshot.topics]
    min_isr = await admin.topic_config_value("min.insync.replicas", growing) if growing else {}
    topics = {}
    for name, topic in snapshot.topics.items():
        entry = snapshot.placeholders.get(name)
        raw = min_isr.get(name)
        topics[name] = ExistingTopic(
            tuple(tuple(p.replicas) for p in topic.partitions),
            entry.replication_factor if entry else topic.replication_factor,
            int(raw) if raw and raw.isdigit() else None,
        )
    return ClusterView(
        tuple(snapshot.brokers),
        snapshot.load,
        topics,
        snapshot.default_int("num.partitions", 1),
        snapshot.default_int("default.replication.factor", 1),
        snapshot.default_int("min.insync.replicas", 1),
    )


async def _plan(
    args: argparse.Namespace,
    profile: Profile,
    admin: KafkaAdmin,
    snapshot: Snapshot,
    intents: list[Intent],
    as_json: bool,
) -> dict[str, Any] | None:
    kip409 = placement_options(args, profile)
    options = PlanOptions(kip409.mode, kip409.min_required, max(1, args.group_partitions))
    view = await cluster_view(admin, snapshot, [i.topic for i in intents])
    prepared = prepare(view, intents, options)
    size = sum(r.request.partitions for g in prepared.groups for r in g.rows if r.error is None)
    engine = args.engine
    if engine == "auto":
        engine = "spark" if size > AUTO_SPARK_PARTITIONS else "local"
    if engine == "local":
        out = io.StringIO()
        with _progress_bar(as_json, "placing", 1) as advance:
            plan_in_process(prepared, out)
            advance(1)
        text = out.getvalue()
    else:
        found = await _spark(prepared, args.spark_master, as_json)
        if found is None:
            return None
        text = found
    document: dict[str, Any] = json.loads(text)
    document["_text"] = text
    return document


async def _spark(prepared: Prepared, master: str, as_json: bool) -> str | None:
    """Run the Spark job; its progress lines drive the bar. None on failure."""
    with _stages(as_json) as show:
        text, failure = await run_spark_job(prepared, master, show)
    if failure is not None:
        print(
            f"plan: the Spark job failed ({failure}); its log: {spark_log_path()}",
            file=sys.stderr,
        )
    return text


# -- progress on a terminal only -----------------------------------------------------------------


def _terminal(as_json: bool) -> bool:
    return not as_json and sys.stderr.isatty()


@contextmanager
def _progress_bar(as_json: bool, what: str, total: int) -> Iterator[Any]:
    if not _terminal(as_json):
        yield lambda step: None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(what, total=total)
        yield lambda step: bar.advance(task, step)


@contextmanager
def _stages(as_json: bool) -> Iterator[Any]:
    if not _terminal(as_json):
        yield lambda stage, done, total: None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        tasks: dict[str, Any] = {}

        def show(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(f"spark: {stage}", total=total)
            bar.update(tasks[stage], completed=done, total=total)

        yield show


# -- the summary on a terminal ---------------------------------------------------------------------


def _print_summary(document: dict[str, Any]) -> None:
    topics = document["topics"]
    creates = sum(1 for t in topics if t["action"] == "create" and not t["error"])
    grows = sum(1 for t in topics if t["action"] == "grow" and not t["error"])
    refused = [t for t in topics if t["error"]]
    stats = document["stats"]
    print(
        f"Plan ({document['engine']}): {creates} topic(s) to create, {grows} to grow, "
        f"{len(refused)} refused; {stats['partitions']} new partitions, "
        f"{stats['new_replicas']} replicas."
    )
    brokers = document["brokers"]
    most = max([b["replicas_after"] for b in brokers] + [1])
    print("BROKER\tRACK\tLIVE\tREPLICAS before -> after\tLEADERS before -> after\tDEGREE")
    for b in brokers:
        bar = "#" * round(30 * b["replicas_after"] / most)
        print(
            f"{b['id']}\t{b['rack'] or '-'}\t{'yes' if b['live'] else 'NO'}\t"
            f"{b['replicas_before']} -> {b['replicas_after']}\t"
            f"{b['leaders_before']} -> {b['leaders_after']}\t{b['degree']}\t{bar}"
        )
    for key in ("replicas_after", "leaders_after"):
        s = stats[key]
        print(
            f"{key.replace('_', ' ')} per live broker: min {s['min']} max {s['max']} "
            f"avg {s['avg']} std {s['std']} max/avg {s['max_avg']}"
        )
    print(
        f"Partitions whose replicas share a rack: {stats['same_rack_partitions']}; "
        f"placeholders: {stats['placeholders']}; replicas on offline brokers: "
        f"{stats['replicas_on_offline_brokers']}."
    )
    for r in stats["racks"]:
        print(
            f"rack {r['rack']}: {r['brokers']} broker(s), replicas {r['replicas_before']} -> "
            f"{r['replicas_after']}, leaders {r['leaders_before']} -> {r['leaders_after']}"
        )
    for t in refused:
        print(f"Error ({t['error']}): {t['message']}", file=sys.stderr)
    for w in document["warnings"]:
        print(f"WARNING: {w}", file=sys.stderr)
    if not stats["sanity"]["ok"]:
        for problem in stats["sanity"]["problems"]:
            print(f"SANITY CHECK FAILED: {problem}", file=sys.stderr)


# -- apply -------------------------------------------------------------------------------------


def broker_differences(document: dict[str, Any], snapshot: Snapshot) -> list[str]:
    """How the cluster's brokers differ from the ones the plan was made for."""
    then = {b["id"]: (b["rack"], b["live"]) for b in document["brokers"]}
    now = {b.id: (b.rack, b.live) for b in snapshot.brokers}
    differences = []
    for broker in sorted(then.keys() | now.keys()):
        before, after = then.get(broker), now.get(broker)
        if before == after:
            continue
        if before is None:
            differences.append(f"broker {broker} is new")
        elif after is None:
            differences.append(f"broker {broker} is gone")
        elif before[0] != after[0]:
            differences.append(f"broker {broker} moved from rack {before[0]} to {after[0]}")
        else:
            state = "live" if after[1] else "offline"
            differences.append(f"broker {broker} is {state} now (was {'not ' * after[1]}live)")
    return differences


def _confirm(document: dict[str, Any]) -> bool:
    stats = document["stats"]
    try:
        answer = input(
            f"Apply {len(document['topics'])} topic(s), {stats['partitions']} new partitions? "
            "[y/N] "
        )
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


def _intents_of(document: dict[str, Any]) -> list[Intent]:
    return [
        Intent(
            t["topic"],
            t["partitions"],
            t["replication_factor"],
            t.get("min_required_replication_factor"),
            tuple(sorted(t.get("configs", {}).items())),
        )
        for t in document["topics"]
    ]


def _placement(entry: dict[str, Any], live: set[int]) -> Placement:
    assignment = tuple(tuple(a) for a in entry["assignment"])
    racks = entry.get("placeholder_racks") or [[] for _ in assignment]
    factor = entry["replication_factor"]
    under = tuple(i for i, a in enumerate(assignment) if sum(1 for b in a if b in live) < factor)
    return Placement(entry["topic"], assignment, tuple(tuple(r) for r in racks), under)


def _real(assignment: list[list[int]]) -> list[list[int]]:
    return [[b for b in a if b >= 0] for a in assignment]


async def _apply(
    args: argparse.Namespace,
    profile: Profile,
    admin: KafkaAdmin,
    snapshot: Snapshot,
    store: PlaceholderStore,
    zookeeper: str | None,
    document: dict[str, Any],
    as_json: bool,
) -> int:
    differences = broker_differences(document, snapshot)
    if differences and not args.replan:
        print("plan apply: refused, the brokers changed since the preview:", file=sys.stderr)
        for d in differences:
            print(f"  {d}", file=sys.stderr)
        print("Preview again, or pass --replan to plan the same rows now.", file=sys.stderr)
        return 1
    if differences:
        replanned = await _plan(args, profile, admin, snapshot, _intents_of(document), as_json)
        if replanned is None:
            return 1
        document = replanned
    if not document["stats"]["sanity"]["ok"]:
        raise parsing.UsageError("plan apply: the plan failed its own sanity check; not applied")
    if not args.yes:
        if not sys.stdin.isatty():
            raise parsing.UsageError("plan apply: not a terminal; pass --yes to apply")
        if not _confirm(document):
            print("Nothing applied.", file=sys.stderr)
            return 1
    started = time.perf_counter()
    results = await apply_document(
        admin, snapshot, store, zookeeper, document, args.batch_size, args.timeout_ms, as_json
    )
    if not as_json:
        print(f"Applied in {time.perf_counter() - started:.1f}s.", file=sys.stderr)
    return output.results(results, as_json)


async def apply_document(
    admin: KafkaAdmin,
    snapshot: Snapshot,
    store: PlaceholderStore,
    zookeeper: str | None,
    document: dict[str, Any],
    batch_size: int = 500,
    timeout_ms: int = 30_000,
    as_json: bool = True,
) -> list[TopicResult]:
    """Send the document's assignments; one result per topic entry, in order."""
    live = {b.id for b in snapshot.brokers if b.live}
    results: dict[str, TopicResult] = {}
    creates: list[Planned] = []
    grows: list[Planned] = []
    entries = {t["topic"]: t for t in document["topics"]}
    for entry in document["topics"]:
        name = entry["topic"]
        if entry["error"]:
            results[name] = TopicResult(
                name, ok=False, error=entry["error"], message=entry["message"]
            )
            continue
        placement = _placement(entry, live)
        lists = _real(entry["assignment"])
        current = snapshot.topics.get(name)
        have = [list(p.replicas) for p in current.partitions] if current else None
        if entry["action"] == "create":
            if have is not None:
                results[name] = _already(name, have == lists, "created")
                continue
            spec = TopicSpec(name, assignment=dict(enumerate(lists)), configs=entry["configs"])
            creates.append(Planned(name, spec=spec, placement=placement))
            continue
        first = entry["partitions"] - len(lists)
        if have is not None and len(have) == entry["partitions"]:
            results[name] = _already(name, have[first:] == lists, "grown")
        elif have is None or len(have) != first:
            results[name] = TopicResult(
                name,
                ok=False,
                error="INVALID_PARTITIONS",
                message=f"Topic '{name}' has {len(have) if have else 'no'} partitions now; the "
                f"plan grows it from {first}. Preview again.",
            )
        else:
            offline = {b for a in lists for b in a} - live
            grows.append(
                Planned(
                    name,
                    grow=NewPartitions(name, entry["partitions"], lists),
                    placement=placement,
                    via_zookeeper=bool(offline) and not snapshot.kraft,
                )
            )
    batches = [creates[i : i + batch_size] for i in range(0, len(creates), batch_size)]
    batches += [grows[i : i + batch_size] for i in range(0, len(grows), batch_size)]
    with (
        audit.operation("plan apply"),
        _progress_bar(as_json, "applying", len(creates) + len(grows)) as advance,
    ):
        for batch in batches:
            done = await _send(admin, snapshot, store, zookeeper, batch, timeout_ms)
            results.update((r.topic, r) for r in done)
            advance(len(batch))
    await _verify(admin, entries, results, [p.topic for b in batches for p in b])
    return [results[t["topic"]] for t in document["topics"]]


def _already(name: str, same: bool, verb: str) -> TopicResult:
    if same:
        return TopicResult(name, ok=True, message=f"Topic '{name}' is already {verb} as planned.")
    return TopicResult(
        name,
        ok=False,
        error="TOPIC_ALREADY_EXISTS",
        message=f"Topic '{name}' exists with another assignment than the plan's. Preview again.",
    )


async def _send(
    admin: KafkaAdmin,
    snapshot: Snapshot,
    store: PlaceholderStore,
    zookeeper: str | None,
    batch: list[Planned],
    timeout_ms: int,
) -> list[TopicResult]:
    results: list[TopicResult] = []
    specs = [p.spec for p in batch if p.spec is not None]
    if specs:
        ids = any(placing.has_placeholders(p) for p in batch)
        sent = await admin.create_topics(specs, timeout_ms=timeout_ms, topic_ids=ids)
        results = [placing.decorate(r, p, False) for r, p in zip(sent, batch, strict=True)]
    else:
        by_kafka = [p for p in batch if not p.via_zookeeper and p.grow is not None]
        answers = iter(
            await admin.create_partitions(
                [p.grow for p in by_kafka if p.grow is not None], timeout_ms=timeout_ms
            )
            if by_kafka
            else []
        )
        for p in batch:
            if p.via_zookeeper:
                results.append(
                    await placing.grow_in_zookeeper(admin, snapshot, p, zookeeper, False)
                )
            else:
                results.append(placing.decorate(next(answers), p, False))
    first = {t: len(d.partitions) for t, d in snapshot.topics.items()}
    await placing.record_placeholders(admin, store, snapshot, batch, results, first)
    return results


async def _verify(
    admin: KafkaAdmin,
    entries: dict[str, dict[str, Any]],
    results: dict[str, TopicResult],
    sent: list[str],
) -> None:
    """The final check: the cluster's metadata holds the planned replicas."""
    names = [n for n in sent if results[n].ok]
    if not names:
        return
    found, _ = await admin.describe_topics(names, configs=False)
    by_name = {t.name: t for t in found}
    for name in names:
        entry = entries[name]
        lists = _real(entry["assignment"])
        topic = by_name.get(name)
        have = [list(p.replicas) for p in topic.partitions] if topic else []
        if have[entry["partitions"] - len(lists) :] != lists or len(have) != entry["partitions"]:
            results[name] = TopicResult(
                name,
                ok=False,
                error="ASSIGNMENT_MISMATCH",
                message=f"Topic '{name}': the metadata shows {have}, not the planned {lists}.",
            )


# -- export ------------------------------------------------------------------------------------


async def _export(args: argparse.Namespace, admin: KafkaAdmin) -> int:
    pattern = parsing.topic_regex(args.topics) if args.topics else None
    names = [
        t.name
        for t in await admin.list_topics()
        if not t.internal
        and not t.name.startswith("__")
        and (pattern is None or pattern.fullmatch(t.name))
    ]
    found, _ = await admin.describe_topics(sorted(names)) if names else ([], [])
    intents = [
        Intent(
            t.name,
            len(t.partitions),
            t.replication_factor,
            None,
            tuple(sorted((k, c.value) for k, c in t.configs.items() if c.is_override and c.value)),
        )
        for t in found
    ]
    sys.stdout.write(plan_io.intents_to_csv(intents))
    return 0
