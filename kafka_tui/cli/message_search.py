"""`kafka-tui messages search TOPIC --filter EXPR [--engine local|spark] [--spark-master M]
[--spark-conf K=V]... [--partition P]... [--from-time T] [--until-time T] [--limit N]
[--progress]` (services/message_search.py): `messages read --filter`'s jq expression over every
record of the topic as it was when the search started, the matches printed exactly as
`messages read` prints them (--output jsonl, json or table; the same record object).

Progress (records scanned, rate, time left, matches) goes to stderr: a bar on a terminal, or
with --progress a line at most every second elsewhere. Exit 0 when every match was decoded as
asked, 1 when some match could not be (or the Spark job failed), 2 on usage errors.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..config import Profile
from ..services.parsing import UsageError
from .record_lines import format_flags, isolation_flag
from .registry_flags import add_registry_flags, registry_from_args

if TYPE_CHECKING:
    from ..admin import KafkaAdmin
    from ..services.message_search import SearchProgress


def add_parser(actions: Any) -> None:
    search = actions.add_parser(
        "search",
        help="a jq filter over every record of a topic, in parallel (local or Spark)",
        description="Scan every partition, from its log start to its end when the search "
        "starts, and print the records the jq filter keeps, as messages read prints them.",
    )
    search.add_argument("topic", metavar="TOPIC")
    search.add_argument(
        "--filter",
        required=True,
        metavar="EXPR",
        help="a jq expression on the record object (as messages read --filter); records for "
        "which it yields false or null (or fails) are left out, e.g. '.value.amount > 100'",
    )
    search.add_argument(
        "--engine",
        choices=["local", "spark"],
        default="local",
        help="local: every partition at once in this process; spark: executors each scan "
        "offset ranges and run the filter, only the matches come back",
    )
    search.add_argument(
        "--spark-master",
        default="local[*]",
        metavar="URL",
        help="local[N], spark://..., yarn, k8s://... or Spark Connect sc://... (default local[*])",
    )
    search.add_argument(
        "--spark-conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Spark setting for the job (repeatable; over the profile's [spark] table)",
    )
    search.add_argument(
        "--partition", type=int, action="append", metavar="P", help="repeatable; default all"
    )
    search.add_argument(
        "--from-time",
        metavar="ISO-8601",
        help="from the first record at or after this time (UTC unless it names a zone; or ms "
        "since the epoch)",
    )
    search.add_argument(
        "--until-time", metavar="ISO-8601", help="up to the first record newer than this"
    )
    search.add_argument("--limit", type=int, metavar="N", help="stop after N matches")
    isolation_flag(search)
    search.add_argument(
        "--progress",
        action="store_true",
        help="progress lines on stderr even when it is not a terminal",
    )
    format_flags(search)
    add_registry_flags(search)


@contextmanager
def _progress(asked: bool, engine: str) -> Iterator[Callable[[SearchProgress], None]]:
    """A bar on a terminal; with --progress off one, a line at most every second."""
    if sys.stderr.isatty():
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        columns = (
            TextColumn(f"{engine}: scanned"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}/s · {task.fields[matches]} matches"),
            TimeRemainingColumn(),
        )
        with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
            task = bar.add_task("search", total=None, rate="-", matches=0)

            def draw(p: SearchProgress) -> None:
                bar.update(
                    task,
                    completed=p.scanned,
                    total=p.total,
                    rate=f"{p.rate:,.0f}",
                    matches=f"{p.matches:,}",
                )

            yield draw
        return
    if not asked:
        yield lambda p: None
        return
    last = [0.0]

    def line(p: SearchProgress) -> None:
        now = time.monotonic()
        if now - last[0] >= 1.0 or (p.scanned >= p.total and p.stage == "read"):
            last[0] = now
            print(f"kafka-tui: {engine}: {p.words()}", file=sys.stderr, flush=True)

    yield line


async def run(args: argparse.Namespace, profile: Profile, admin: KafkaAdmin) -> int:
    from ..services.message_search import SearchRequest, open_search
    from .record_lines import interruptible, not_negative, time_flag
    from .spark_flags import spark_conf

    not_negative("--limit", args.limit)
    if args.engine == "spark":
        import importlib.util

        missing = [m for m in ("pyspark", "pyarrow") if importlib.util.find_spec(m) is None]
        if missing:
            raise UsageError(
                f"--engine spark needs {' and '.join(missing)} (install kafka-tui[spark])"
            )
    for p in args.partition or ():
        not_negative("--partition", p)
    request = SearchRequest(
        topic=args.topic,
        filter=args.filter,
        partitions=tuple(args.partition or ()),
        from_ms=time_flag("--from-time", args.from_time),
        until_ms=time_flag("--until-time", args.until_time),
        limit=args.limit,
        isolation=args.isolation,
        key_format=args.key_format,
        value_format=args.value_format,
        engine=args.engine,
        spark_master=args.spark_master,
        spark_conf=spark_conf(args, profile) if args.engine == "spark" else {},
    )
    schemas = registry_from_args(args, profile)
    try:
        search = await open_search(admin, request, schemas)
        return await interruptible(_print(args, search))
    finally:
        if schemas is not None:
            schemas.close()


async def _print(args: argparse.Namespace, search: Any) -> int:
    from ..services.message_search import document_line
    from .record_lines import Printer

    out = Printer(args.output)
    try:
        with _progress(args.progress, search.request.engine) as show:
            async for documents in search.matches(show):
                if args.output == "table":
                    out.write(documents)
                else:
                    out.write_lines([document_line(d) for d in documents])
    except RuntimeError as exc:  # the Spark job's failure, in its own sentence
        out.close()
        print(f"kafka-tui: messages search: the Spark job failed: {exc}", file=sys.stderr)
        return 1
    out.close()
    if args.output == "table" and sys.stdout.isatty():
        o = search.outcome
        more = f", stopped at --limit {search.request.limit}" if o.limited else ""
        print(f"{o.matches:,} matches in {o.scanned:,} records scanned{more}.", file=sys.stderr)
    return 1 if search.outcome.undecodable else 0
