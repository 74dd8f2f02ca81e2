"""What `plan preview|apply` show on a terminal: rich progress bars (none under `--output json`
or off a terminal) and the plan's summary with a per-broker bar."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ..services.plan_documents import (
    config_change_count,
    config_change_lines,
    findings,
    topics_named,
)
from ..services.plan_workflow import Progress
from .words import with_remedies


def _terminal(as_json: bool) -> bool:
    return not as_json and sys.stderr.isatty()


@contextmanager
def progress_bar(as_json: bool, what: str, total: int) -> Iterator[Any]:
    if not _terminal(as_json):
        yield lambda step: None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(what, total=total)
        yield lambda step: bar.advance(task, step)


@contextmanager
def stages(as_json: bool) -> Iterator[Any]:
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


@contextmanager
def plan_progress(as_json: bool) -> Iterator[Callable[[Progress], None]]:
    """A plan's progress: one bar for the groups placed in process, one per Spark stage."""
    if not _terminal(as_json):
        yield lambda progress: None
        return
    from rich.console import Console
    from rich.progress import Progress as Bars

    with Bars(console=Console(stderr=True), transient=True) as bar:
        tasks: dict[str, Any] = {}

        def show(progress: Progress) -> None:
            if progress.phase == "place":
                name = "placing"
            elif progress.phase in ("spark", "read"):
                name = f"spark: {progress.stage}"
            else:
                return
            if name not in tasks:
                tasks[name] = bar.add_task(name, total=progress.total)
            bar.update(tasks[name], completed=progress.done, total=progress.total)

        yield show


# -- the summary on a terminal ---------------------------------------------------------------------


def print_balance(stats: dict[str, Any]) -> None:
    """The spread per live broker and the placement's counts, from a plan's stats."""
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


def refused_other_cluster(document: dict[str, Any], cluster_id: str | None) -> bool:
    """A saved plan made for another cluster: says so on stderr (CLUSTER_MISMATCH)."""
    made_for = (document.get("cluster") or {}).get("id")
    if not (made_for and cluster_id and made_for != cluster_id):
        return False
    print(
        f"plan apply: refused (CLUSTER_MISMATCH): the plan was made for cluster {made_for}; "
        f"this is cluster {cluster_id}. Preview the rows on this cluster instead.",
        file=sys.stderr,
    )
    return True


def print_summary(document: dict[str, Any]) -> None:
    topics = document["topics"]
    creates = sum(1 for t in topics if t["action"] == "create" and not t["error"])
    grows = sum(1 for t in topics if t["action"] == "grow" and not t["error"])
    refused = [t for t in topics if t["error"]]
    stats = document["stats"]
    with_configs, _ = config_change_count(document)
    configs = f", {with_configs} with config changes" if with_configs else ""
    print(
        f"Plan ({document['engine']}): {creates} topic(s) to create, {grows} to grow"
        f"{configs}, {len(refused)} refused; {stats['partitions']} new partitions, "
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
    print_balance(stats)
    for r in stats["racks"]:
        print(
            f"rack {r['rack']}: {r['brokers']} broker(s), replicas {r['replicas_before']} -> "
            f"{r['replicas_after']}, leaders {r['leaders_before']} -> {r['leaders_after']}"
        )
    _print_config_changes(document)
    _print_key_moves(document)
    for f in findings(document):
        text = with_remedies(f.message, f.remedies)
        where = f"{len(f.topics)} topic(s) ({topics_named(f.topics)})"
        print(
            f"Error ({f.error}): {where}: {text}" if f.error else f"WARNING: {where}: {text}",
            file=sys.stderr,
        )
    for w in document["warnings"]:
        print(f"WARNING: {w}", file=sys.stderr)
    if not stats["sanity"]["ok"]:
        for problem in stats["sanity"]["problems"]:
            print(f"SANITY CHECK FAILED: {problem}", file=sys.stderr)


CONFIG_TOPICS_SHOWN = 20
KEY_TOPICS_SHOWN = 20


def _print_key_moves(document: dict[str, Any]) -> None:
    """What each grow moves, by the topic's fresh `topics keys` count (`key_moves`)."""
    from ..services.key_reports_saved import from_json, lines

    moves = document.get("key_moves") or []
    if not moves:
        return
    counted = sum(1 for m in moves if m["key_report"])
    print(f"Keys moving: {counted} of {len(moves)} grown topic(s) have a fresh key report:")
    for entry in moves[:KEY_TOPICS_SHOWN]:
        for line in lines(from_json(entry)):
            print(f"  {line}")
    if len(moves) > KEY_TOPICS_SHOWN:
        print(f"  and {len(moves) - KEY_TOPICS_SHOWN} more topic(s) (--output json lists all)")
    if counted < len(moves):
        print("  `kafka-tui topics keys TOPIC --partitions N` counts a topic's keys.")


def _print_config_changes(document: dict[str, Any]) -> None:
    """Existing topics whose overrides differ from the plan's (desired state), and what
    `plan apply` does with them."""
    changed = [t for t in document["topics"] if not t["error"] and t.get("config_changes")]
    if not changed:
        return
    topics, changes = config_change_count(document)
    print(f"Config changes: {changes} in {topics} existing topic(s):")
    for t in changed[:CONFIG_TOPICS_SHOWN]:
        print(f"  {t['topic']}: " + "; ".join(config_change_lines(t)))
    if len(changed) > CONFIG_TOPICS_SHOWN:
        print(f"  and {len(changed) - CONFIG_TOPICS_SHOWN} more topic(s) (--output json lists all)")
    removals = any(c["after"] is None for t in changed for c in t["config_changes"])
    print(
        "Config changes are not applied without `plan apply --configs`"
        + ("; removals need --prune-configs too." if removals else ".")
    )
