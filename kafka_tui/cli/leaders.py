"""`kafka-tui leaders elect ...`: preferred or unclean leader election, as
kafka-leader-election.sh."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence

from ..admin import KafkaAdmin, ReadOnlyProfile
from ..config import Profile
from ..services import parsing
from ..services.leader_elections import (
    ElectionPreview,
    ElectionType,
    LeaderResult,
    TopicSelection,
    preview_election,
    run_election,
)
from . import output

_COLUMNS = ["topic", "partition", "leader_before", "leader_after", "result"]


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    leaders = commands.add_parser("leaders", help="preferred / unclean leader election")
    actions = leaders.add_subparsers(dest="action", required=True, metavar="ACTION")
    elect = actions.add_parser(
        "elect",
        help="elect the preferred replica (or, unclean, any live replica) as leader of every "
        "partition of the topics",
    )
    elect.add_argument("topics", nargs="*", metavar="TOPIC")
    elect.add_argument(
        "--topic",
        metavar="REGEX",
        help="also every topic whose whole name matches this regular expression",
    )
    elect.add_argument(
        "--all", action="store_true", help="every partition of every topic (internal included)"
    )
    elect.add_argument(
        "--type",
        choices=[e.value for e in ElectionType],
        default=ElectionType.PREFERRED.value,
        help="preferred (default): the first replica leads again, if live and in sync; "
        "unclean: a partition without a leader takes any live replica (may lose messages)",
    )
    elect.add_argument(
        "--validate-only",
        action="store_true",
        help="show which partitions would change leader; send nothing",
    )
    elect.add_argument("--yes", action="store_true", help="unclean: do not ask for confirmation")


def _selection(args: argparse.Namespace) -> TopicSelection:
    if args.all and (args.topics or args.topic is not None):
        raise parsing.UsageError("leaders elect: --all takes no TOPIC nor --topic REGEX")
    selection = TopicSelection(
        list(args.topics),
        parsing.topic_regex(args.topic) if args.topic is not None else None,
        args.all,
    )
    if selection.empty:
        raise parsing.UsageError("leaders elect: name at least one TOPIC, --topic REGEX or --all")
    return selection


async def run(args: argparse.Namespace, profile: Profile, admin: KafkaAdmin) -> int:
    if args.action != "elect":
        raise parsing.UsageError(f"unknown action {args.action}")
    selection = _selection(args)
    if profile.read_only and not args.validate_only:
        raise ReadOnlyProfile(profile.name)
    as_json = args.output == "json"
    election = ElectionType(args.type)
    unclean = election is ElectionType.UNCLEAN
    if unclean and not args.validate_only and not args.yes and not sys.stdin.isatty():
        raise parsing.UsageError(
            "refusing an unclean election without confirmation: not a terminal; pass --yes"
        )
    preview = await preview_election(admin, election, selection)
    if args.validate_only:
        _print(preview.results, as_json, validate_only=True)
        if not as_json:
            print(
                f"Validate only: nothing was sent. {len(preview.changes)} partition(s) would "
                f"change leader ({election.value} election).",
                file=sys.stderr,
            )
            _print_summary(preview.leaders_before, preview.leaders_after)
        return _exit_code(preview.results)
    if unclean and not args.yes and preview.topics and not _confirmed(preview, selection):
        print("Nothing elected: the confirmation did not match.", file=sys.stderr)
        return 1
    outcome = await run_election(admin, preview)
    _print(outcome.results, as_json, validate_only=False)
    if not as_json:
        elected, not_needed, failed = outcome.counts()
        print(
            f"{elected} leader(s) elected, {not_needed} partition(s) needed no election, "
            f"{failed} failed.",
            file=sys.stderr,
        )
        _print_summary(outcome.leaders_before, outcome.leaders_after)
    return _exit_code(outcome.results)


def _exit_code(results: Sequence[LeaderResult]) -> int:
    return 0 if all(r.ok for r in results) else 1


def _confirmed(preview: ElectionPreview, selection: TopicSelection) -> bool:
    """As `topics delete`: type the topic's name, or the count (several topics, a regex,
    --all)."""
    names = preview.topics
    by_count = len(names) > 1 or selection.pattern is not None or selection.every_topic
    expected = str(len(names)) if by_count else names[0]
    what = f"{len(names)} topics" if by_count else f"topic '{names[0]}'"
    leaderless = len(preview.changes)
    print(
        f"About to run an UNCLEAN leader election on {what}: {leaderless} partition(s) without "
        "a leader would take a replica that may not be in sync, and the messages only the "
        "old in-sync replicas had are lost for good.",
        file=sys.stderr,
    )
    prompt = "their number" if by_count else "its name"
    try:
        answer = input(f"Type {prompt} ({expected}) to confirm: ")
    except EOFError:
        return False
    return answer.strip() == expected


def _print(results: Sequence[LeaderResult], as_json: bool, *, validate_only: bool) -> None:
    if as_json:
        output.emit_json([r.to_json() for r in results])
        return
    rows = [
        {
            "topic": r.topic,
            "partition": r.partition,
            "leader_before": r.leader_before,
            "leader_after": r.leader_after,
            "result": ("would elect" if validate_only else "elected") if r.elected else r.error,
        }
        for r in results
    ]
    output.rows(rows, False, _COLUMNS)
    for r in results:
        if not r.ok:
            print(f"Error ({r.error}): {r.message}", file=sys.stderr)


def _print_summary(before: Mapping[int, int], after: Mapping[int, int]) -> None:
    brokers = sorted(set(before) | set(after))
    if not brokers:
        return
    counts = ", ".join(f"{b}: {before.get(b, 0)} -> {after.get(b, 0)}" for b in brokers)
    print(f"Leaders per broker (before -> after): {counts}", file=sys.stderr)


async def offer_election(admin: KafkaAdmin, topics: Sequence[str], elect: bool) -> None:
    """After replicas moved (a fill, a reassignment): filled replicas and a returning broker
    are followers, so leadership stays skewed. With `elect`, a preferred election of
    `topics`; otherwise a line saying how many partitions it would move, and how. On stderr,
    so a command's own output keeps its shape."""
    if not topics:
        return
    preview = await preview_election(
        admin, ElectionType.PREFERRED, TopicSelection(sorted(set(topics)))
    )
    if not preview.changes:
        return
    if not elect:
        print(
            f"{len(preview.changes)} partition(s) of these topics are not led by their "
            "preferred replica; pass --elect-leaders, or run `kafka-tui leaders elect "
            f"{' '.join(preview.topics)}`.",
            file=sys.stderr,
        )
        return
    outcome = await run_election(admin, preview)
    elected, _, failed = outcome.counts()
    print(
        f"Preferred leaders: {elected} partition(s) got theirs back, {failed} failed.",
        file=sys.stderr,
    )
    _print_summary(outcome.leaders_before, outcome.leaders_after)
