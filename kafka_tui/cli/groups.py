"""`kafka-tui groups offsets delete GROUP --topic T [--partition P...]`: delete a group's
committed offsets on one topic (services/group_offsets.py, OffsetDelete).

`--output json`: one object per partition,
`{"group", "topic", "partition", "ok", "error", "message"}`. Exit 0 when every partition's
offset was deleted, 1 otherwise (e.g. GROUP_SUBSCRIBED_TO_TOPIC: a member still reads it).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..admin import KafkaAdmin, ReadOnlyProfile
from ..config import Profile
from . import output


def add_parser(commands: Any) -> None:
    parser = commands.add_parser("groups", help="consumer groups: delete committed offsets")
    kinds = parser.add_subparsers(dest="what", metavar="WHAT", required=True)
    offsets = kinds.add_parser("offsets", help="a group's committed offsets")
    actions = offsets.add_subparsers(dest="action", metavar="ACTION", required=True)
    delete = actions.add_parser(
        "delete",
        help="delete a group's committed offsets on a topic (refused by Kafka for a topic the "
        "group's active members subscribe to)",
    )
    delete.add_argument("group", metavar="GROUP")
    delete.add_argument("--topic", required=True, metavar="TOPIC")
    delete.add_argument(
        "--partition",
        type=int,
        action="append",
        metavar="P",
        help="only this partition (repeat for several; default every partition)",
    )


async def run(args: argparse.Namespace, profile: Profile, admin: KafkaAdmin) -> int:
    from ..services.group_offsets import delete_offsets

    if profile.read_only:
        raise ReadOnlyProfile(profile.name)
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
    if args.output in ("json", "jsonl"):
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
