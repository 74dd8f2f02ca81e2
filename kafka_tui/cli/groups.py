"""`kafka-tui groups ...`: groups of every kind (classic, KIP-848 consumer, share, streams).

  groups list [--type T]... [--state S]... [--topic T]
  groups describe GROUP... [--samples N] [--interval S]
  groups reset-offsets GROUP (--topic T[:P,P]... | --all-topics) MODE [--execute] [--export]
  groups delete GROUP...
  groups offsets delete GROUP --topic T [--partition P]...

kafka-consumer-groups.sh's words: MODE is one of --to-earliest, --to-latest, --to-current,
--to-offset N, --shift-by N, --to-datetime ISO, --by-duration PnDTnHnM, --from-file CSV; a dry
run unless --execute. Exit codes: 0 ok, 1 Kafka refused something (each refusal named), 2 usage.
JSON shapes: README "Groups".
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from ..admin import KafkaAdmin, ReadOnlyProfile
from ..config import Profile
from . import output

_MODES = (
    ("--to-earliest", "to-earliest", None, "the log start of each partition"),
    ("--to-latest", "to-latest", None, "the log end of each partition"),
    ("--to-current", "to-current", None, "the committed offset (the log end where none)"),
    ("--to-offset", "to-offset", "N", "offset N (clamped to the log start and end)"),
    ("--shift-by", "shift-by", "N", "the committed offset plus N (negative: back; clamped)"),
    ("--to-datetime", "to-datetime", "ISO", "the first offset at or after the time"),
    ("--by-duration", "by-duration", "PnDTnHnM", "the first offset at or after now minus it"),
    ("--from-file", "from-file", "CSV", "the offsets of kafka-consumer-groups.sh's CSV"),
)


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "groups", help="consumer, share and streams groups: lag, reset, delete"
    )
    kinds = parser.add_subparsers(dest="what", metavar="WHAT", required=True)

    listing = kinds.add_parser("list", help="every group: kind, state, members, lag, status")
    listing.add_argument(
        "--type",
        action="append",
        choices=["classic", "consumer", "share", "streams"],
        help="only groups of this kind (repeat for several)",
    )
    listing.add_argument(
        "--state", action="append", metavar="S", help="only groups in this state (Stable, Empty..)"
    )
    listing.add_argument("--topic", metavar="TOPIC", help="only groups with offsets on TOPIC")

    describe = kinds.add_parser(
        "describe",
        help="members, assignments, per-partition lag in records and seconds, status",
    )
    describe.add_argument("groups", nargs="+", metavar="GROUP")
    describe.add_argument(
        "--samples",
        type=int,
        default=1,
        metavar="N",
        help="look N times (STALL and a growing lag need 2 and 3 looks; default 1)",
    )
    describe.add_argument(
        "--interval", type=float, default=5.0, metavar="S", help="seconds between looks (5)"
    )

    reset = kinds.add_parser(
        "reset-offsets",
        help="move a group's offsets (dry run unless --execute); a rollback file is written",
    )
    reset.add_argument("group", metavar="GROUP")
    scope = reset.add_mutually_exclusive_group()
    scope.add_argument(
        "--topic",
        action="append",
        default=[],
        metavar="T[:P,P]",
        help="a topic, or some of its partitions (repeatable)",
    )
    scope.add_argument(
        "--all-topics", action="store_true", help="every topic the group committed on"
    )
    modes = reset.add_mutually_exclusive_group(required=True)
    for flag, mode, metavar, text in _MODES:
        if metavar is None:
            modes.add_argument(flag, dest="mode", action="store_const", const=mode, help=text)
        else:
            modes.add_argument(flag, dest=mode.replace("-", "_"), metavar=metavar, help=text)
    reset.add_argument("--execute", action="store_true", help="apply it (default: preview)")
    reset.add_argument("--dry-run", action="store_true", help="preview only (the default)")
    reset.add_argument(
        "--export",
        action="store_true",
        help="print the new offsets as kafka-consumer-groups.sh's CSV (topic,partition,offset)",
    )

    delete = kinds.add_parser("delete", help="delete groups (refused while they have members)")
    delete.add_argument("groups", nargs="+", metavar="GROUP")

    offsets = kinds.add_parser("offsets", help="a group's committed offsets")
    actions = offsets.add_subparsers(dest="action", metavar="ACTION", required=True)
    offsets_delete = actions.add_parser(
        "delete",
        help="delete a group's committed offsets on a topic (refused by Kafka for a topic the "
        "group's active members subscribe to)",
    )
    offsets_delete.add_argument("group", metavar="GROUP")
    offsets_delete.add_argument("--topic", required=True, metavar="TOPIC")
    offsets_delete.add_argument(
        "--partition",
        type=int,
        action="append",
        metavar="P",
        help="only this partition (repeat for several; default every partition)",
    )


async def run(args: argparse.Namespace, profile: Profile, admin: KafkaAdmin) -> int:
    as_json = args.output in ("json", "jsonl")
    if args.what == "list":
        return await _list(args, admin, as_json)
    if args.what == "describe":
        return await _describe(args, admin, as_json)
    if profile.read_only and (args.what != "reset-offsets" or args.execute):
        raise ReadOnlyProfile(profile.name)
    if args.what == "reset-offsets":
        return await _reset(args, admin, as_json)
    if args.what == "delete":
        return await _delete(args, admin, as_json)
    return await _delete_offsets(args, admin, as_json)


async def _list(args: argparse.Namespace, admin: KafkaAdmin, as_json: bool) -> int:
    from ..services.groups import age, list_groups

    read = await list_groups(
        admin, types=args.type or (), states=args.state or (), topic=args.topic
    )
    if as_json:
        output.emit_json([v.summary_json() for v in read.views])
    else:
        rows = [v.summary_json() | {"lag_seconds": age(v.lag_seconds)} for v in read.views]
        output.rows(
            rows,
            False,
            ["group", "type", "state", "members", "lag", "lag_seconds", "status"],
            {"lag_seconds": "LAG-TIME"},
        )
    for what, name in read.unchecked.items():
        print(f"Warning: {what} could not be read ({name}).", file=sys.stderr)
    return 0


async def _describe(args: argparse.Namespace, admin: KafkaAdmin, as_json: bool) -> int:
    from ..services.groups import GroupLooks, describe_groups

    if args.samples < 1 or args.interval < 0:
        from ..services.parsing import UsageError

        raise UsageError("--samples must be at least 1 and --interval at least 0.")
    looks = GroupLooks()
    views = []
    for n in range(args.samples):
        if n:
            await asyncio.sleep(args.interval)
        views = await describe_groups(admin, args.groups, looks=looks)
    if as_json:
        output.emit_json([v.to_json() for v in views])
    else:
        for v in views:
            _print_group(v)
    return 0 if all(v.error is None for v in views) else 1


def _print_group(v: Any) -> None:
    from ..services.groups import age

    if v.error:
        print(f"Error ({v.error}): {v.message}", file=sys.stderr)
        return
    members = "?" if v.members is None else str(len(v.members))
    print(
        f"GROUP {v.group}  type {v.type}  state {v.state}  coordinator {v.coordinator}  "
        f"protocol {v.protocol or '-'}  members {members}"
    )
    print(f"STATUS {v.status}: {v.status_reason}")
    print(f"LAG {v.lag if v.lag is not None else '-'} records, {age(v.lag_seconds)}")
    if v.source_topics:
        print(f"READS {', '.join(v.source_topics)}")
    print()
    columns = ["topic", "partition", "committed", "log_end", "lag", "lag_seconds", "member_id"]
    rows = [p.to_json() | {"lag_seconds": age(p.lag_seconds)} for p in v.offsets]
    output.rows(
        rows,
        False,
        columns,
        {
            "committed": "CURRENT-OFFSET",
            "log_end": "LOG-END-OFFSET",
            "lag_seconds": "LAG-TIME",
            "member_id": "CONSUMER-ID",
        },
    )
    for p in v.offsets:
        if p.note and p.lag:
            print(f"  '{p.topic}'-{p.partition}: {p.note}")
    if v.members:
        print()
        output.rows(
            [
                {
                    "member_id": m.member_id,
                    "client_id": m.client_id,
                    "host": m.host,
                    "epoch": m.epoch,
                    "assignment": [f"{t}-{p}" for t, p in m.assignment],
                }
                for m in v.members
            ],
            False,
            ["member_id", "client_id", "host", "epoch", "assignment"],
        )
    print()


async def _reset(args: argparse.Namespace, admin: KafkaAdmin, as_json: bool) -> int:
    from ..services import group_reset as reset
    from ..services.parsing import UsageError

    if args.execute and args.dry_run:
        raise UsageError("--execute and --dry-run: choose one.")
    mode = args.mode
    value: int | None = None
    rows: dict[tuple[str, int], int] = {}
    if getattr(args, "to_offset", None) is not None:
        mode, value = reset.TO_OFFSET, _number(args.to_offset, "--to-offset")
    elif getattr(args, "shift_by", None) is not None:
        mode, value = reset.SHIFT_BY, _number(args.shift_by, "--shift-by")
    elif getattr(args, "to_datetime", None) is not None:
        mode, value = reset.TO_DATETIME, reset.parse_datetime(args.to_datetime)
    elif getattr(args, "by_duration", None) is not None:
        mode, value = reset.BY_DURATION, reset.parse_duration(args.by_duration)
    elif getattr(args, "from_file", None) is not None:
        mode, rows = reset.FROM_FILE, reset.read_csv(Path(args.from_file), args.group)
    spec = reset.ResetSpec(mode, value, rows, args.topic, args.all_topics)
    plan = await reset.plan_reset(admin, args.group, spec)
    if args.execute:
        outcome = await reset.execute_reset(admin, plan)
    else:
        refusal = plan.refusal
        outcome = reset.ResetOutcome(plan, False, None, (), *(refusal or (None, None)))
    if args.export:
        sys.stdout.write(
            reset.to_csv(plan.group, {(r.topic, r.partition): r.after for r in plan.rows})
        )
    elif as_json:
        output.emit_json(outcome.to_json())
    else:
        _print_reset(outcome)
    for note in plan.notes:
        print(f"Note: {note}", file=sys.stderr)
    if not outcome.ok:
        document = outcome.to_json()
        print(f"Error ({document['error']}): {document['message']}", file=sys.stderr)
        return 1
    return 0


def _number(text: str, flag: str) -> int:
    try:
        return int(text)
    except ValueError:
        from ..services.parsing import UsageError

        raise UsageError(f"{flag} takes a whole number, not '{text}'.") from None


def _print_reset(outcome: Any) -> None:
    plan = outcome.plan
    rows = []
    for r in plan.rows:
        change = f"re-read {r.rereads}" if r.rereads else (f"skip {r.skips}" if r.skips else "-")
        rows.append(r.to_json() | {"change": change})
    output.rows(
        rows,
        False,
        ["topic", "partition", "before", "after", "log_start", "log_end", "change"],
        {"before": "CURRENT-OFFSET", "after": "NEW-OFFSET"},
    )
    if outcome.executed:
        done = sum(1 for r in outcome.results if r.ok)
        print(f"Group '{plan.group}': {done} of {len(plan.rows)} partition(s) reset.")
        print(
            f"Rollback: kafka-tui groups reset-offsets {plan.group} --from-file "
            f"{outcome.rollback_file} --execute"
        )
    elif outcome.error is None:
        print(f"Dry run: nothing changed. Add --execute to reset group '{plan.group}'.")


async def _delete(args: argparse.Namespace, admin: KafkaAdmin, as_json: bool) -> int:
    from ..services.groups import delete_groups

    results = await delete_groups(admin, args.groups)
    documents = [
        {"group": r.group, "ok": r.ok, "error": r.error, "message": r.message} for r in results
    ]
    if as_json:
        output.emit_json(documents)
    else:
        for r in results:
            if r.ok:
                print(r.message)
            else:
                print(f"Error ({r.error}): {r.message}", file=sys.stderr)
    return 0 if all(r.ok for r in results) else 1


async def _delete_offsets(args: argparse.Namespace, admin: KafkaAdmin, as_json: bool) -> int:
    from ..services.group_offsets import delete_offsets

    results = await delete_offsets(admin, args.group, args.topic, args.partition)
    documents = [
        {
            "group": r.group,
            "topic": r.topic,
            "partition": r.partition,
            "ok": r.ok,
            "error": r.error,
            "message": r.message,
        }
        for r in results
    ]
    if as_json:
        output.emit_json(documents)
    else:
        refused = {r.message: r.error for r in results if not r.ok}
        done = [r.partition for r in results if r.ok]
        if done:
            print(
                f"Group '{args.group}': offsets on '{args.topic}' deleted for partition(s) "
                f"{','.join(map(str, done))}."
            )
        for message, error in refused.items():
            print(f"Error ({error}): {message}", file=sys.stderr)
    return 0 if all(r.ok for r in results) else 1
