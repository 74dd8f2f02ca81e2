"""`kafka-tui plan preview|apply|export`: bulk assignment plans (issue 8).

preview: read a plan file, snapshot the cluster, place every row at once (in process, or in a
Spark job for big plans), print the statistics or the JSON document (`--save` keeps it).
apply: send exactly a saved document (re-checked against the cluster first) or a fresh plan,
in batches of explicit assignments, with per-topic results, resumable, checked by metadata.
export: the cluster's topics as a plan file.

This module parses the command line and words the outcome; `services/plan_workflow.py` makes
the document and `services/plan_apply.py` sends it (the TUI's plan screen calls both too),
`plan_output.py` draws progress and the summary.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

from ..admin import ConfigEntry, KafkaAdmin, ReadOnlyProfile
from ..admin.model import DEFAULT_TIMEOUT_MS
from ..admin.placeholders import PlaceholderStore
from ..config import Profile
from ..fields import Field
from ..paths import user_path
from ..planning import plan_io, plan_rows
from ..planning.bulk_plan import Intent, PlanOptions
from ..services import parsing, plan_workflow
from ..services.plan_apply import (
    ApplyInterrupted,
    ConfigsApplied,
    apply_document,
    broker_differences,
)
from ..services.plan_documents import PlanDocument, config_change_count
from ..services.snapshot import Snapshot
from . import output, plan_stream
from .plan_output import plan_progress, print_summary, progress_bar, refused_other_cluster
from .spark_flags import spark_conf
from .topics import _kip409_flags, placement_options, zookeeper_of

T = TypeVar("T")


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
    store = PlaceholderStore(profile.connection, profile.placeholders_topic)
    zookeeper = zookeeper_of(args, profile)
    request = _request(args, profile)
    planned = await _planned(
        args,
        lambda watch: plan_workflow.run(admin, request, watch, zookeeper=zookeeper, store=store),
        as_json,
    )
    if isinstance(planned, int):
        return planned
    document, snapshot = planned.document, planned.snapshot
    if args.action == "preview":
        if args.save:
            args.save.write_text(document.text)
        if as_json:
            sys.stdout.write(document.text)
        else:
            print_summary(document.data)
        return 0 if document.sane else 1
    return await _apply(args, request, admin, snapshot, store, zookeeper, document, as_json)


def _request(args: argparse.Namespace, profile: Profile) -> plan_workflow.PlanRequest:
    """The plan the flags ask for."""
    kip409 = placement_options(args, profile)
    options = PlanOptions(kip409.mode, kip409.min_required, max(1, args.group_partitions))
    return plan_workflow.PlanRequest(
        plan_workflow.PlanFile(args.plan),
        args.engine,
        plan_workflow.SparkSettings(args.spark_master, spark_conf(args, profile)),
        options,
    )


async def _planned(
    args: argparse.Namespace,
    making: Callable[[plan_workflow.Watch], Awaitable[T]],
    as_json: bool,
) -> T | int:
    """A plan made with a progress bar; or, worded on stderr, why not (the exit code)."""
    try:
        with plan_progress(as_json) as show:
            return await making(plan_workflow.Watch(show))
    except plan_rows.PlanFileErrors as exc:
        for error in exc.errors:
            print(error, file=sys.stderr)
        print(f"{Path(args.plan)}: {len(exc.errors)} error(s); nothing was sent.", file=sys.stderr)
        return 2
    except plan_workflow.PlanUnreadable as exc:
        if exc.reason is None:
            raise parsing.UsageError(f"plan: {Path(exc.path)} is not UTF-8 text") from None
        raise parsing.UsageError(f"plan: cannot read {Path(exc.path)}: {exc.reason}") from None
    except plan_workflow.SparkJobFailed as exc:
        what = f"Spark could not read {Path(args.plan)}" if exc.reading else "the Spark job failed"
        print(f"plan: {what} ({exc.failure}); its log: {exc.log}", file=sys.stderr)
        return 1


def _confirm(document: PlanDocument, configs: ConfigsApplied) -> bool:
    topics, changes = config_change_count(document.data)
    also = f", config changes of {topics} topic(s)" if changes and configs != "none" else ""
    try:
        answer = input(
            f"Apply {len(document.topics)} topic(s), {document.stats['partitions']} new "
            f"partitions{also}? [y/N] "
        )
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


def _print_changes(before: PlanDocument, after: PlanDocument) -> None:
    """On stderr: what the new plan changes against the one previewed."""
    was = {t["topic"]: (t["assignment"], t["error"]) for t in before.topics}
    changed = [
        t["topic"] for t in after.topics if was.get(t["topic"]) != (t["assignment"], t["error"])
    ]
    refused = sum(1 for t in after.topics if t["error"])
    shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
    print(
        f"plan apply: planned again with the saved options: {len(changed)} of "
        f"{len(after.topics)} topic(s) placed differently{': ' + shown if changed else ''}; "
        f"{refused} refused now.",
        file=sys.stderr,
    )


async def _apply(
    args: argparse.Namespace,
    request: plan_workflow.PlanRequest,
    admin: KafkaAdmin,
    snapshot: Snapshot,
    store: PlaceholderStore,
    zookeeper: str | None,
    document: PlanDocument,
    as_json: bool,
) -> int:
    if refused_other_cluster(document.data, admin.cluster_id):
        return 1
    differences = broker_differences(document.data, snapshot)
    if differences and not args.replan:
        print("plan apply: refused, the brokers changed since the preview:", file=sys.stderr)
        for d in differences:
            print(f"  {d}", file=sys.stderr)
        print("Preview again, or pass --replan to plan the same rows now.", file=sys.stderr)
        return 1
    if differences:
        # The same rows with the options the plan was made with, not this command's flags;
        # what changed is shown, and applying it needs a yes again (or --yes).
        again = replace(request, options=document.options)
        replanned = await _planned(
            args,
            lambda watch: plan_workflow.plan_intents(
                admin, snapshot, document.intents(), again, watch
            ),
            as_json,
        )
        if isinstance(replanned, int):
            return 1
        _print_changes(document, replanned)
        document = replanned
    if not document.sane:
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
        with progress_bar(as_json, "applying", len(document.topics)) as advance:
            results = await apply_document(
                admin,
                snapshot,
                store,
                zookeeper,
                document.data,
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
    args: argparse.Namespace, document: PlanDocument, stop: ApplyInterrupted, as_json: bool
) -> int:
    """Every result so far, the topics not sent, and the exact command that resumes (the
    plan saved first when it was not a saved one). Exit 2: the cluster went away."""
    output.results(stop.done, as_json)
    saved = document.saved_path
    if saved is None:  # a plan made by this command: saved now, so the resume sends the same
        folder = user_path("KAFKA_TUI_PLANS", "XDG_STATE_HOME", ".local/state", "plans")
        folder.mkdir(parents=True, exist_ok=True)
        saved = str(folder / f"plan-{time.strftime('%Y%m%dT%H%M%S')}.json")
        Path(saved).write_text(document.text, encoding="utf-8")
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
