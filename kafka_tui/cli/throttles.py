"""`kafka-tui throttles list | clear [--orphaned] [--yes]`: replication throttles on brokers
and topics, whether a reassignment in progress still needs each, and removing them
(services/replication_throttles.py).

`list --output json`: one object per throttle config,
`{"kind": "broker"|"topic", "name", "config", "value", "needed"}` (a broker's name is its
id as a string). `clear --output json`: one object per broker or topic,
`{"kind", "name", "configs", "needed", "ok", "error", "message"}`.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..admin import KafkaAdmin, ReadOnlyProfile
from ..config import Profile
from ..services import parsing
from ..services import replication_throttles as service
from . import output


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "throttles", help="replication throttles left on brokers and topics"
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    actions.add_parser(
        "list",
        help="every replication throttle on brokers and topics, and whether a reassignment "
        "in progress needs it",
    )
    clear = actions.add_parser(
        "clear",
        help="remove replication throttles: with --orphaned those no reassignment in progress "
        "needs; without it all of them (asks first, or --yes)",
    )
    clear.add_argument(
        "--orphaned",
        action="store_true",
        help="only the throttles no reassignment in progress needs",
    )
    clear.add_argument("--yes", action="store_true", help="do not ask for confirmation")


def _where(t: service.Throttle) -> str:
    return f"broker {t.name}" if t.kind == service.BROKER else f"topic '{t.name}'"


def _notes(report: service.ThrottleReport) -> None:
    if report.unread:
        ids = ",".join(map(str, report.unread))
        print(
            f"Note: broker(s) {ids} could not be read (offline: a broker describes only its "
            "own dynamic configs); their throttles are not listed.",
            file=sys.stderr,
        )


def _list(report: service.ThrottleReport, as_json: bool) -> int:
    if as_json:
        output.emit_json([t.to_json() for t in report.throttles])
    else:
        output.rows(
            [t.to_json() for t in report.throttles],
            False,
            ["kind", "name", "config", "value", "needed"],
        )
        orphaned = report.orphaned
        if orphaned:
            print(
                f"{len(orphaned)} throttle(s) no reassignment in progress needs: "
                "`kafka-tui throttles clear --orphaned` removes them.",
                file=sys.stderr,
            )
    _notes(report)
    return 0


def _confirm(report: service.ThrottleReport, yes: bool) -> bool:
    needed = [t for t in report.throttles if t.needed]
    if yes or not needed:
        return True
    if not sys.stdin.isatty():
        raise parsing.UsageError(
            "throttles clear: reassignments in progress need some of these throttles; not "
            "a terminal: pass --yes to remove them anyway, or --orphaned to keep them"
        )
    where = sorted({_where(t) for t in needed})
    print(
        f"A reassignment in progress uses the throttles on {', '.join(where)}: without them "
        "it copies at full speed.",
        file=sys.stderr,
    )
    return input("Type 'clear' to remove every throttle: ").strip() == "clear"


async def run(args: argparse.Namespace, profile: Profile, admin: KafkaAdmin) -> int:
    as_json = args.output == "json"
    report = await service.list_throttles(admin)
    if args.action == "list":
        return _list(report, as_json)
    if profile.read_only:
        raise ReadOnlyProfile(profile.name)
    chosen = report.orphaned if args.orphaned else report.throttles
    if not chosen:
        what = "no orphaned throttle" if args.orphaned else "no throttle"
        print(f"Nothing to clear: {what} is set.", file=sys.stderr)
        if as_json:
            output.emit_json([])
        _notes(report)
        return 0
    if not args.orphaned and not _confirm(report, args.yes):
        print("Nothing cleared.", file=sys.stderr)
        return 1
    results = await service.clear_throttles(admin, report, orphaned=args.orphaned)
    if as_json:
        output.emit_json([r.to_json() for r in results])
    else:
        for r in results:
            if r.ok:
                print(r.message)
            else:
                print(f"Error ({r.error}): {r.message}", file=sys.stderr)
    _notes(report)
    return 0 if all(r.ok for r in results) else 1
