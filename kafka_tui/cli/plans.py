"""`kafka-tui plan preview|apply|export`: bulk assignment plans (issue 8).

preview: read a plan file, snapshot the cluster, place every row at once (in process, or in a
Spark job for big plans), print the statistics or the JSON document (`--save` keeps it).
apply: send exactly a saved document (re-checked against the cluster first) or a fresh plan,
in batches of explicit assignments, with per-topic results, resumable, checked by metadata.
export: the cluster's topics as a plan file.

This module parses the command line and runs the flow; `services/plan_apply.py` sends a document
(the TUI's plan screen uses it too), `plan_output.py` draws progress and the summary.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import io
import json
import shlex
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..admin import ConfigEntry, KafkaAdmin, ReadOnlyProfile
from ..admin.model import DEFAULT_TIMEOUT_MS
from ..admin.placeholders import PlaceholderStore
from ..config import Profile
from ..fields import Field
from ..paths import user_path
from ..planning import plan_io, plan_parquet, plan_rows, plan_saved
from ..planning.plan import (
    Intent,
    PlanOptions,
    Prepared,
    plan_in_process,
    prepare,
)
from ..services import parsing
from ..services.plan_apply import (
    ApplyInterrupted,
    ConfigsApplied,
    apply_document,
    broker_differences,
)
from ..services.plans import cluster_view, config_change_count
from ..services.snapshot import Snapshot, take_snapshot
from ..services.spark_runner import (
    read_parquet_plan,
    run_spark_job,
    spark_log_path,
)
from . import output, plan_stream
from .plan_output import print_summary, progress_bar, refused_other_cluster, stages
from .spark_flags import spark_conf
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
    preview.add_argument(
        "plan", metavar="PLAN", help="CSV, JSON, JSON lines or Parquet (.parquet) plan file"
    )
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
    apply.add_argument("--timeout-ms", type=int, default=DEFAULT_TIMEOUT_MS)
    apply.add_argument(
        "--configs",
        action="store_true",
        help="also apply the config changes of existing topics (overrides set to the plan's)",
    )
    apply.add_argument(
        "--prune-configs",
        action="store_true",
        help="with --configs: also remove the overrides the plan does not name",
    )
    export = actions.add_parser("export", help="the cluster's topics as a plan (CSV)")
    export.add_argument("--topics", metavar="REGEX", help="only topics whose name matches")


def _planning_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--engine",
        choices=["auto", "local", "spark"],
        default="auto",
        help="who places the rows (a .parquet plan is read by Spark whatever the engine)",
    )
    parser.add_argument(
        "--spark-master",
        default="local[*]",
        metavar="URL",
        help="local[N], spark://..., yarn, k8s://... or Spark Connect sc://... (default local[*])",
    )
    parser.add_argument(
        "--spark-conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Spark setting for the job (repeatable; over the profile's [spark] table), e.g. "
        "spark.executor.memory=4g, or spark.pyspark.python=PATH: the executors' Python "
        "(default: this one)",
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
    streamed = await plan_stream.run(args, profile, admin, as_json)  # big plans: in parts
    if streamed is not None:
        return streamed
    path = Path(args.plan)
    saved: str | None = None  # the text of a document `preview --save` wrote
    intents: list[Intent] | None = []
    try:
        if plan_parquet.is_parquet(args.plan):
            intents = await _parquet_intents(args, profile, path, as_json)
        else:
            try:
                text = await asyncio.to_thread(path.read_text, encoding="utf-8")
            except OSError as exc:
                raise parsing.UsageError(f"plan: cannot read {path}: {exc.strerror}") from None
            except UnicodeDecodeError:
                raise parsing.UsageError(f"plan: {path} is not UTF-8 text") from None
            if plan_saved.is_saved_plan(text):
                plan_saved.saved_plan(str(path), text)  # a broken one: errors, not a traceback
                saved = text
            else:
                intents = plan_io.parse_plan(str(path), text)
    except plan_rows.PlanFileErrors as exc:
        for error in exc.errors:
            print(error, file=sys.stderr)
        print(f"{path}: {len(exc.errors)} error(s); nothing was sent.", file=sys.stderr)
        return 2
    if intents is None:
        return 1
    store = PlaceholderStore(profile.connection, profile.placeholders_topic)
    zookeeper = zookeeper_of(args, profile)
    snapshot = await take_snapshot(admin, zookeeper=zookeeper, store=store)
    if saved is not None:
        document = json.loads(saved)
        document["_text"] = saved
        document["_saved_path"] = args.plan
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
            print_summary(document)
        return 0 if document["stats"]["sanity"]["ok"] else 1
    return await _apply(args, profile, admin, snapshot, store, zookeeper, document, as_json)


# -- planning ----------------------------------------------------------------------------------


async def _plan(
    args: argparse.Namespace,
    profile: Profile,
    admin: KafkaAdmin,
    snapshot: Snapshot,
    intents: list[Intent],
    as_json: bool,
    options: PlanOptions | None = None,
) -> dict[str, Any] | None:
    """Place `intents` with `options` (default: the command's flags) and write the document."""
    if options is None:
        kip409 = placement_options(args, profile)
        options = PlanOptions(kip409.mode, kip409.min_required, max(1, args.group_partitions))
    view = await cluster_view(admin, snapshot, [i.topic for i in intents])
    taken = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    prepared = replace(
        prepare(view, intents, options), cluster_id=admin.cluster_id, snapshot_time=taken
    )
    size = sum(r.request.partitions for g in prepared.groups for r in g.rows if r.error is None)
    engine = args.engine
    if engine == "auto":
        engine = "spark" if size > AUTO_SPARK_PARTITIONS else "local"
    if engine == "local":
        out = io.StringIO()
        with progress_bar(as_json, "placing", 1) as advance:
            plan_in_process(prepared, out)
            advance(1)
        text = out.getvalue()
    else:
        found = await _spark(prepared, args.spark_master, spark_conf(args, profile), as_json)
        if found is None:
            return None
        text = found
    document: dict[str, Any] = json.loads(text)
    document["_text"] = text
    return document


async def _parquet_intents(
    args: argparse.Namespace, profile: Profile, path: Path, as_json: bool
) -> list[Intent] | None:
    """A Parquet plan's rows: in process (pyarrow) when the file is on this machine, else read
    by Spark on `--spark-master` whatever `--engine` says (the engine only decides who places
    the rows). None on failure."""
    if args.spark_master.startswith("local") and not await asyncio.to_thread(path.exists):
        raise parsing.UsageError(f"plan: cannot read {path}: No such file or directory")
    with stages(as_json) as show:
        intents, failure = await read_parquet_plan(
            path, args.spark_master, show, conf=spark_conf(args, profile)
        )
    if failure is not None:
        print(
            f"plan: Spark could not read {path} ({failure}); its log: {spark_log_path()}",
            file=sys.stderr,
        )
    return intents


async def _spark(
    prepared: Prepared, master: str, conf: dict[str, str], as_json: bool
) -> str | None:
    """Run the Spark job; its progress lines drive the bar. None on failure."""
    with stages(as_json) as show:
        text, failure = await run_spark_job(prepared, master, show, conf=conf)
    if failure is not None:
        print(
            f"plan: the Spark job failed ({failure}); its log: {spark_log_path()}",
            file=sys.stderr,
        )
    return text


def _confirm(document: dict[str, Any], configs: ConfigsApplied) -> bool:
    stats = document["stats"]
    topics, changes = config_change_count(document)
    also = f", config changes of {topics} topic(s)" if changes and configs != "none" else ""
    try:
        answer = input(
            f"Apply {len(document['topics'])} topic(s), {stats['partitions']} new partitions"
            f"{also}? [y/N] "
        )
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


def _print_changes(before: dict[str, Any], after: dict[str, Any]) -> None:
    """On stderr: what the new plan changes against the one previewed."""
    was = {t["topic"]: (t["assignment"], t["error"]) for t in before["topics"]}
    changed = [
        t["topic"] for t in after["topics"] if was.get(t["topic"]) != (t["assignment"], t["error"])
    ]
    refused = sum(1 for t in after["topics"] if t["error"])
    shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
    print(
        f"plan apply: planned again with the saved options: {len(changed)} of "
        f"{len(after['topics'])} topic(s) placed differently{': ' + shown if changed else ''}; "
        f"{refused} refused now.",
        file=sys.stderr,
    )


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
    if refused_other_cluster(document, admin.cluster_id):
        return 1
    differences = broker_differences(document, snapshot)
    if differences and not args.replan:
        print("plan apply: refused, the brokers changed since the preview:", file=sys.stderr)
        for d in differences:
            print(f"  {d}", file=sys.stderr)
        print("Preview again, or pass --replan to plan the same rows now.", file=sys.stderr)
        return 1
    if differences:
        # The same rows with the options the plan was made with, not this command's flags;
        # what changed is shown, and applying it needs a yes again (or --yes).
        saved = document.get("options") or {}
        options = PlanOptions(
            saved.get("mode", "disabled"),
            saved.get("min_required_replication_factor"),
            saved.get("group_partitions", PlanOptions().group_partitions),
        )
        replanned = await _plan(
            args, profile, admin, snapshot, _intents_of(document), as_json, options
        )
        if replanned is None:
            return 1
        _print_changes(document, replanned)
        document = replanned
    if not document["stats"]["sanity"]["ok"]:
        raise parsing.UsageError("plan apply: the plan failed its own sanity check; not applied")
    if args.prune_configs and not args.configs:
        raise parsing.UsageError("plan apply: --prune-configs needs --configs")
    configs: ConfigsApplied = (
        "pruned" if args.prune_configs else "changed" if args.configs else "none"
    )
    if not args.yes:
        if not sys.stdin.isatty():
            raise parsing.UsageError("plan apply: not a terminal; pass --yes to apply")
        if not _confirm(document, configs):
            print("Nothing applied.", file=sys.stderr)
            return 1
    started = time.perf_counter()
    try:
        with progress_bar(as_json, "applying", len(document["topics"])) as advance:
            results = await apply_document(
                admin,
                snapshot,
                store,
                zookeeper,
                document,
                args.batch_size,
                args.timeout_ms,
                advance,
                configs,
            )
    except ApplyInterrupted as stop:
        return _interrupted(args, document, stop, as_json)
    if not as_json:
        print(f"Applied in {time.perf_counter() - started:.1f}s.", file=sys.stderr)
    return output.results(results, as_json)


def _interrupted(
    args: argparse.Namespace, document: dict[str, Any], stop: ApplyInterrupted, as_json: bool
) -> int:
    """Every result so far, the topics not sent, and the exact command that resumes (the
    plan saved first when it was not a saved one). Exit 2: the cluster went away."""
    output.results(stop.done, as_json)
    saved = document.get("_saved_path")
    if saved is None:  # a plan made by this command: saved now, so the resume sends the same
        folder = user_path("KAFKA_TUI_PLANS", "XDG_STATE_HOME", ".local/state", "plans")
        folder.mkdir(parents=True, exist_ok=True)
        saved = str(folder / f"plan-{time.strftime('%Y%m%dT%H%M%S')}.json")
        Path(saved).write_text(document["_text"], encoding="utf-8")
    argv = [saved if a == args.plan else a for a in args.argv]
    if "--yes" not in argv:
        argv.append("--yes")
    unsent = ", ".join(stop.unsent[:10]) + (
        f" and {len(stop.unsent) - 10} more" if len(stop.unsent) > 10 else ""
    )
    print(
        f"plan apply: interrupted: {stop.cause.message} {len(stop.done)} topic(s) settled "
        f"(above); {len(stop.unsent)} not sent or not confirmed: {unsent}.\n"
        f"Resume with: {shlex.join(['kafka-tui', *argv])}",
        file=sys.stderr,
    )
    return 2


# -- export ------------------------------------------------------------------------------------


def _exported(config: ConfigEntry) -> bool:
    """A topic's own override: not a default, not a broker-level value, not read-only; a
    sensitive one has no value to write (DescribeConfigs hides it)."""
    return config.is_override and not config.read_only


async def _export(args: argparse.Namespace, admin: KafkaAdmin) -> int:
    pattern = parsing.topic_regex(args.topics, Field.PLAN_TOPICS) if args.topics else None
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
            tuple(
                sorted(
                    (k, c.value)
                    for k, c in t.configs.items()
                    if c.value is not None and _exported(c)
                )
            ),
        )
        for t in found
    ]
    sys.stdout.write(plan_io.intents_to_csv(intents))
    return 0
