"""`plan preview|apply` for plans too big for one process (issue 29): a CSV, JSON lines or
Parquet plan of more than `stream_rows()` rows (1,000,000; $KAFKA_TUI_PLAN_STREAM_ROWS) with
`--engine spark` or `auto` is read, placed and written by the Spark job as a parts directory
(a summary and the topic entries in part files); this process reads the summary only.
`plan preview --save DIR` keeps the directory, `plan apply DIR` applies it a chunk at a time.

`run` is the one hook `cli/plans.py` calls: None means "not a streamed plan, go on as usual".
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import shlex
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ..admin import KafkaAdmin
from ..admin.placeholders import PlaceholderStore
from ..config import Profile
from ..paths import user_path
from ..planning import streamed_parts as plan_parts
from ..planning.bulk_plan import PlanOptions
from ..services import parsing
from ..services import plan_parts as parts
from ..services.plan_apply import broker_differences
from ..services.plan_documents import cluster_view
from ..services.plan_keys import KEY_MOVES
from ..services.snapshot import Snapshot, take_snapshot
from ..services.spark_runner import run_streamed_job, spark_log_path
from .plan_output import print_balance, progress_bar, refused_other_cluster, stages
from .spark_flags import spark_conf
from .topics import placement_options, zookeeper_of
from .words import worded


async def run(
    args: argparse.Namespace, profile: Profile, admin: KafkaAdmin, as_json: bool
) -> int | None:
    path = Path(args.plan)
    if await asyncio.to_thread(parts.is_parts, path):
        saved = await asyncio.to_thread(parts.read_summary, path)
        return await _done(args, profile, admin, path, saved, as_json, None)
    if args.engine == "local" or not parts.streamable(args.plan):
        return None
    try:
        rows = await asyncio.to_thread(parts.count_rows, path)
    except (OSError, ValueError):
        return None  # the usual path words the problem
    if rows <= parts.stream_rows():
        return None
    store = PlaceholderStore(profile.connection, profile.placeholders_topic)
    snapshot = await take_snapshot(admin, zookeeper=zookeeper_of(args, profile), store=store)
    kip409 = placement_options(args, profile)
    options = PlanOptions(kip409.mode, kip409.min_required, max(1, args.group_partitions))
    view = await cluster_view(admin, snapshot, sorted(snapshot.topics))
    taken = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    job = plan_parts.job_to_json(view, options, admin.cluster_id, taken, args.plan)
    folder, keep = await asyncio.to_thread(_output_folder, args)

    with stages(as_json) as show:
        summary, failure = await run_streamed_job(
            args.plan, job, folder, args.spark_master, show, conf=spark_conf(args, profile)
        )
    try:
        if summary is None:
            print(
                f"plan: the Spark job failed ({failure}); its log: {spark_log_path()}",
                file=sys.stderr,
            )
            return 1
        return await _done(args, profile, admin, folder, summary, as_json, snapshot)
    finally:
        if not keep:
            await asyncio.to_thread(shutil.rmtree, folder, True)


def _output_folder(args: argparse.Namespace) -> tuple[Path, bool]:
    """Where the job writes the parts, and whether they stay: `--save DIR` for a preview, the
    plans folder for an apply (to resume from), else a temporary folder."""
    if args.action == "preview" and args.save:
        target = Path(args.save)
        if target.exists():
            raise parsing.UsageError(f"plan: --save {target}: it exists (parts need a new folder)")
        return target, True
    if args.action == "apply":
        plans = user_path("KAFKA_TUI_PLANS", "XDG_STATE_HOME", ".local/state", "plans")
        plans.mkdir(parents=True, exist_ok=True)
        return plans / f"plan-{time.strftime('%Y%m%dT%H%M%S')}", True
    return Path(tempfile.mkdtemp(prefix="kafka-tui-parts-")) / "plan", False


async def _done(
    args: argparse.Namespace,
    profile: Profile,
    admin: KafkaAdmin,
    folder: Path,
    summary: dict[str, Any],
    as_json: bool,
    snapshot: Snapshot | None,
) -> int:
    if "errors" in summary:
        for error in summary["errors"]:
            print(error, file=sys.stderr)
        more = summary["errors_total"] - len(summary["errors"])
        shown = f" ({more} more not shown)" if more > 0 else ""
        print(
            f"{args.plan}: {summary['errors_total']} error(s){shown}; nothing was sent.",
            file=sys.stderr,
        )
        return 2
    if args.action == "preview":
        kept = args.save is not None or parts.is_parts(Path(args.plan))
        moves = await _key_moves(admin, folder, summary, snapshot)
        if moves:
            summary = {**summary, KEY_MOVES: moves}
        if as_json:
            document = {**summary, "parts": str(folder / summary["parts"]) if kept else None}
            sys.stdout.write(json.dumps(document) + "\n")
        else:
            print_summary(summary, folder if kept else None)
        return 0 if summary["stats"]["sanity"]["ok"] else 1
    if profile.read_only:
        return 1  # cli/plans.py refused already
    return await _apply(args, profile, admin, folder, summary, as_json, snapshot)


async def _key_moves(
    admin: KafkaAdmin, folder: Path, summary: dict[str, Any], snapshot: Snapshot | None
) -> list[dict[str, object]]:
    """`key_moves` as `plan preview` gives an in-process plan (services/plan_keys.py), for
    the grown topics that have a kept `topics keys` count: a streamed plan's topics are too
    many to list each one without a count. The part files are read only when some topic of
    this cluster has a kept count, and only its lines are parsed."""
    from ..services.key_reports_saved import kept_topics
    from ..services.plan_keys import key_moves

    counted = await asyncio.to_thread(kept_topics, admin.cluster_id)
    if not counted:
        return []

    def grown() -> list[dict[str, Any]]:
        found = []
        for part in sorted(p for p in (folder / summary["parts"]).glob("part-*")):
            with part.open(encoding="utf-8") as lines:
                for line in lines:
                    if any(name in line for name in counted):
                        entry = json.loads(line)
                        if entry["topic"] in counted and entry["action"] == "grow":
                            found.append(entry)
        return found

    topics = await asyncio.to_thread(grown)
    if not topics:
        return []
    if snapshot is not None:
        current = {n: len(t.partitions) for n, t in snapshot.topics.items() if n in counted}
    else:
        described, _ = await admin.describe_topics(
            sorted({t["topic"] for t in topics}), configs=False
        )
        current = {t.name: len(t.partitions) for t in described}
    return await asyncio.to_thread(
        key_moves, admin.cluster_id, topics, current, int(time.time() * 1000)
    )


def print_summary(summary: dict[str, Any], folder: Path | None) -> None:
    stats = summary["stats"]
    where = f"; its parts: {folder}" if folder else ""
    print(
        f"Plan ({summary['engine']}, streamed): {summary['topics_count']} topic(s); "
        f"{stats['partitions']} new partitions, {stats['new_replicas']} replicas{where}."
    )
    print("BROKER\tRACK\tLIVE\tREPLICAS before -> after\tLEADERS before -> after\tDEGREE")
    for b in summary["brokers"]:
        print(
            f"{b['id']}\t{b['rack'] or '-'}\t{'yes' if b['live'] else 'NO'}\t"
            f"{b['replicas_before']} -> {b['replicas_after']}\t"
            f"{b['leaders_before']} -> {b['leaders_after']}\t{b['degree']}"
        )
    print_balance(stats)
    _print_key_moves(summary)
    for w in summary["warnings"][:20]:
        print(f"WARNING: {w}", file=sys.stderr)
    left = len(summary["warnings"]) - 20 + summary.get("warnings_left_off", 0)
    if left > 0:
        print(f"... and {left} more warning(s) (in the topic entries).", file=sys.stderr)
    if not stats["sanity"]["ok"]:
        for problem in stats["sanity"]["problems"]:
            print(f"SANITY: {problem}", file=sys.stderr)


async def _apply(
    args: argparse.Namespace,
    profile: Profile,
    admin: KafkaAdmin,
    folder: Path,
    summary: dict[str, Any],
    as_json: bool,
    snapshot: Snapshot | None,
) -> int:
    zookeeper = zookeeper_of(args, profile)
    store = PlaceholderStore(profile.connection, profile.placeholders_topic)
    if snapshot is None:
        snapshot = await take_snapshot(admin, zookeeper=zookeeper, store=store)
    if refused_other_cluster(summary, admin.cluster_id):
        return 1
    differences = broker_differences(summary, snapshot)
    if differences:
        print("plan apply: refused, the brokers changed since the preview:", file=sys.stderr)
        for d in differences:
            print(f"  {d}", file=sys.stderr)
        print(
            "Preview the plan file again (a parts directory is not planned again).", file=sys.stderr
        )
        return 1
    if not summary["stats"]["sanity"]["ok"]:
        raise parsing.UsageError("plan apply: the plan failed its own sanity check; not applied")
    if not args.yes:
        if not sys.stdin.isatty():
            raise parsing.UsageError("plan apply: not a terminal; pass --yes to apply")
        if not _confirm(summary):
            print("Nothing applied.", file=sys.stderr)
            return 1
    started = time.perf_counter()
    try:
        with progress_bar(as_json, "applying", summary["topics_count"]) as advance:
            applied = await parts.apply_parts(
                admin, snapshot, store, zookeeper, folder, summary, args.batch_size,
                args.timeout_ms, advance,
            )  # fmt: skip
    except parts.PartsInterrupted as stop:
        _report(stop.applied, as_json)
        argv = [*args.argv]
        argv[argv.index(args.plan)] = str(folder)
        print(
            f"plan apply: interrupted: {stop.cause.cause.message} Resume with: "
            f"{shlex.join(['kafka-tui', *argv, *([] if '--yes' in argv else ['--yes'])])}",
            file=sys.stderr,
        )
        return 2
    if not as_json:
        print(f"Applied in {time.perf_counter() - started:.1f}s.", file=sys.stderr)
    return _report(applied, as_json)


def _print_key_moves(summary: dict[str, Any]) -> None:
    """What each grow with a kept key count moves (`key_moves`), as `plan preview` words it."""
    from ..services.key_reports_saved import from_json, lines

    for entry in summary.get(KEY_MOVES) or []:
        for line in lines(from_json(entry)):
            print(line)


def _confirm(summary: dict[str, Any]) -> bool:
    try:
        answer = input(
            f"Apply {summary['topics_count']} topic(s), "
            f"{summary['stats']['partitions']} new partitions? [y/N] "
        )
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


def _report(applied: parts.PartsApplied, as_json: bool) -> int:
    """Counts and the failed topics (a streamed plan's ok topics are too many to list)."""
    if as_json:
        failed = [worded(r).to_json() for r in applied.failed]
        line = {"ok": applied.ok, "failed": applied.failed_total, "failures": failed}
        sys.stdout.write(json.dumps(line) + "\n")
    else:
        for r in applied.failed:
            r = worded(r)
            print(f"Error ({r.error}): {r.message}", file=sys.stderr)
        print(f"{applied.ok} topic(s) as planned, {applied.failed_total} failed.")
    return 0 if not applied.failed_total else 1
