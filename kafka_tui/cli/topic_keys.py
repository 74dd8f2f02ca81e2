"""`kafka-tui topics keys TOPIC [--partitions N]... [--engine local|spark] [--spark-master M]
[--spark-conf K=V]... [--since ISO] [--top K]`: a topic's keys counted (services/key_report.py).

Progress goes to stderr as a bar on a terminal only (never under `--output json`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..config import Profile
from ..services import parsing
from . import output

if TYPE_CHECKING:
    from ..admin import KafkaAdmin, TopicResult
    from ..services.key_report import KeyReportResult
    from ..services.key_reports_saved import GrowKeys
    from ..services.keys import KeyMapping


def add_parser(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    keys = actions.add_parser(
        "keys",
        help="a topic's keys: per partition, hot keys, null keys, what a partition increase moves",
    )
    keys.add_argument("topic", metavar="TOPIC")
    keys.add_argument(
        "--partitions",
        type=int,
        action="append",
        default=[],
        metavar="N",
        help="a partition count to weigh (repeatable; default: twice the current count)",
    )
    keys.add_argument(
        "--engine",
        choices=["local", "spark"],
        default="local",
        help="local: read in this process; spark: executors read offset ranges in parallel",
    )
    keys.add_argument(
        "--spark-master",
        default="local[*]",
        metavar="URL",
        help="local[N], spark://..., yarn, k8s://... or Spark Connect sc://... (default local[*])",
    )
    keys.add_argument(
        "--spark-conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Spark setting for the job (repeatable; over the profile's [spark] table)",
    )
    keys.add_argument(
        "--since",
        metavar="ISO",
        help="only records from this time on (ISO 8601; UTC unless it says otherwise), "
        "e.g. 2026-11-27T00:00",
    )
    keys.add_argument("--top", type=int, default=10, metavar="K", help="hot keys shown")
    keys.epilog = (
        "Reads every record once (read_committed), from each partition's log start (or "
        "--since) to its end when the command starts. Keys move where Kafka's default "
        "partitioner sends them (murmur2 of the key bytes, mod N); records without a key stay. "
        "A compacted topic (cleanup.policy contains compact) counts each key's latest record "
        "once per partition, as compaction keeps it, tombstoned keys left out."
    )


def since_ms(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise parsing.UsageError(
            f"topics keys: --since expects an ISO 8601 time such as 2026-11-27T08:00, got {text!r}"
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return int(when.timestamp() * 1000)


@contextmanager
def _progress(as_json: bool, engine: str) -> Iterator[Callable[[str, int, int], None]]:
    if as_json or not sys.stderr.isatty():
        yield lambda stage, done, total: None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        tasks: dict[str, Any] = {}

        def show(stage: str, done: int, total: int) -> None:
            if stage == "done":
                return
            name = f"{engine}: {'records' if stage == 'read' and engine == 'local' else stage}"
            if name not in tasks:
                tasks[name] = bar.add_task(name, total=total)
            bar.update(tasks[name], completed=done, total=total)

        yield show


async def run(args: argparse.Namespace, profile: Profile, admin: KafkaAdmin, as_json: bool) -> int:
    try:
        from ..services.key_report import KeyReportRequest, key_report
    except ImportError as exc:  # numpy, pyarrow: the spark extra's
        raise parsing.UsageError(
            f"topics keys needs numpy and pyarrow (install kafka-tui[spark]): {exc}"
        ) from None
    from .spark_flags import spark_conf

    if args.top < 0:
        raise parsing.UsageError("topics keys: --top must be 0 or more")
    request = KeyReportRequest(
        topic=args.topic,
        candidates=tuple(args.partitions),
        engine=args.engine,
        spark_master=args.spark_master,
        spark_conf=spark_conf(args, profile) if args.engine == "spark" else {},
        since_ms=since_ms(args.since),
        top=args.top,
    )
    with _progress(as_json, args.engine) as show:
        try:
            result = await key_report(admin, request, show)
        except RuntimeError as exc:
            print(f"kafka-tui: topics keys: the Spark job failed: {exc}", file=sys.stderr)
            return 1
    if as_json:
        from ..planning.key_stats import report_to_json

        output.emit_json(report_to_json(result.report))
    else:
        print_report(result)
    return 0


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


_GROW_COLUMNS = [
    "partitions",
    "keys_moving",
    "records_moving",
    "max",
    "max_over_avg",
    "bytes_max_over_avg",
]


def print_report(result: KeyReportResult) -> None:
    from ..planning.key_stats import key_text

    r = result.report
    print(
        f"Topic {r.topic}: {r.records:,} records, {r.bytes:,} bytes (keys + values), "
        f"{r.distinct_keys:,} distinct keys, {r.null_key_records:,} records without a key"
    )
    if r.left_out is not None:
        left = r.left_out
        gone = [_count(left.tombstoned_keys, "key") + " deleted (its latest record a tombstone)"]
        if left.null_key_records:
            gone.append(_count(left.null_key_records, "record") + " without a key (never kept)")
        print(
            "Compacted: the latest record per key counted once (in each partition it was "
            f"written to), as compaction keeps it; left out: {', '.join(gone)}."
        )
    print()
    output.rows(
        [
            {
                "partition": p.partition,
                "records": p.records,
                "bytes": p.bytes,
                "distinct_keys": p.distinct_keys,
                "null_key_records": p.null_key_records,
            }
            for p in r.partitions
        ],
        False,
        ["partition", "records", "bytes", "distinct_keys", "null_key_records"],
        {"distinct_keys": "KEYS", "null_key_records": "NULL_KEYS"},
    )
    if r.hot_keys:
        print("\nHot keys (by records):")
        output.rows(
            [
                {"key": key_text(k.key), "records": k.records, "bytes": k.bytes}
                | {"partition": k.partition, "share": f"{k.records / r.records:.1%}"}
                for k in r.hot_keys
            ],
            False,
            ["key", "partition", "records", "bytes", "share"],
        )
    print("\nGrowing to N partitions (keyed records where murmur2 sends them, the others stay):")
    output.rows(
        [
            {
                "partitions": g.partitions,
                "keys_moving": f"{g.keys_moving:.1%}",
                "records_moving": f"{g.records_moving:.1%}",
                "max": max(g.records_per_partition, default=0),
                "max_over_avg": f"{g.max_over_avg:.2f}",
                "bytes_max_over_avg": f"{g.bytes_max_over_avg:.2f}",
            }
            for g in r.grow
        ],
        False,
        _GROW_COLUMNS,
        {
            "partitions": "N",
            "keys_moving": "KEYS_MOVING",
            "records_moving": "RECORDS_MOVING",
            "max": "MAX_RECORDS",
            "max_over_avg": "MAX/AVG",
            "bytes_max_over_avg": "BYTES_MAX/AVG",
        },
    )


def say_recent_counts(
    cluster_id: str | None,
    current: Mapping[str, int],
    total: int,
    keys: Mapping[str, KeyMapping] | None = None,
) -> dict[str, GrowKeys]:
    """Before a grow (`topics alter --partitions`, `--validate-only` too): for each topic, what
    `total` partitions move by its recent `topics keys` count, on stderr (issue 51 point 3);
    for a topic whose keys matter (`keys`: the sampled check) and no fresh count, how to
    count. The same numbers and words as the partitions form (key_reports_saved.grow_keys).
    Returns what was said, per topic, for `grow_results`' JSON."""
    import time

    from ..services.key_reports_saved import grow_keys, lines

    now_ms = int(time.time() * 1000)
    said: dict[str, GrowKeys] = {}
    for topic, count in current.items():
        if total <= count:
            continue
        found = grow_keys(cluster_id, topic, count, total, now_ms)
        mapping = (keys or {}).get(topic)
        if found.recent is None and not (mapping is not None and mapping.changes):
            continue
        said[topic] = found
        for line in lines(found):
            print(line, file=sys.stderr)
        if found.recent is None:
            print(
                f"  `kafka-tui topics keys {topic} --partitions {total}` counts its keys "
                "(every record read once) and keeps the count for the next grow.",
                file=sys.stderr,
            )
    return said


def grow_results(items: Sequence[TopicResult], as_json: bool, said: Mapping[str, GrowKeys]) -> int:
    """A grow's results as `output.results` prints them; under --output json each grown topic
    that `say_recent_counts` spoke of carries the same numbers as `key_moves` (the shape of
    `plan preview`'s `key_moves` entries: key_reports_saved.grow_json)."""
    if not as_json or not said:
        return output.results(items, as_json)
    from ..services.key_reports_saved import grow_json
    from .words import worded

    shown = [worded(r) for r in items]
    output.emit_json(
        [
            r.to_json()
            | ({"key_moves": grow_json(said[r.topic])} if r.ok and r.topic in said else {})
            for r in shown
        ]
    )
    return 0 if all(r.ok for r in shown) else 1
