"""The flags of `topics alter --replication-factor`, `topics reassign` and `reassignments`:
apart from reassign.py, so building the parser of `topics create` does not import the
reassignment planner (~3 ms at every start)."""

from __future__ import annotations

import argparse
from pathlib import Path

# -- parsers -----------------------------------------------------------------------------------


def add_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("reassignments", help="partition reassignments: list, cancel")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="reassignments in progress")
    listing.add_argument("topics", nargs="*", metavar="TOPIC", help="default: every topic")
    cancel = actions.add_parser("cancel", help="cancel reassignments; remove their throttles")
    cancel.add_argument("topics", nargs="*", metavar="TOPIC", help="default: every topic")
    wait = actions.add_parser("wait", help="wait for reassignments; then remove their throttles")
    wait.add_argument("topics", nargs="*", metavar="TOPIC", help="default: every topic")
    wait.add_argument("--wait-timeout", type=float, default=3600, metavar="SECONDS")
    throttle = actions.add_parser(
        "throttle",
        help="change the replication throttle rate of the reassignments in progress, on every "
        "broker they use (read back from each broker)",
    )
    throttle.add_argument(
        "rate", type=int, nargs="?", metavar="BYTES_PER_S", help="the new rate (--auto: the first)"
    )
    throttle.add_argument(
        "--auto",
        action="store_true",
        help="until the reassignments end: double the rate while no partition outside them "
        "falls out of sync and every broker answers within --latency-limit, else halve it",
    )
    # default (None): services/throttle_auto.py's bounds, which the TUI's key uses too
    throttle.add_argument("--min", type=int, metavar="BYTES_PER_S", help="default 1,000,000")
    throttle.add_argument("--max", type=int, metavar="BYTES_PER_S", help="default 1,000,000,000")
    throttle.add_argument("--interval", type=float, default=5.0, metavar="SECONDS")
    throttle.add_argument("--latency-limit", type=float, default=500.0, metavar="MS")
    throttle.add_argument("topics", nargs="*", metavar="TOPIC", help=argparse.SUPPRESS)
    wait.add_argument(
        "--elect-leaders",
        action="store_true",
        help="then elect the preferred leaders of the topics moved (KIP-460)",
    )


def add_run_flags(parser: argparse.ArgumentParser) -> None:
    """How a reassignment runs; `topics alter --replication-factor` and `topics reassign`."""
    parser.add_argument(
        "--throttle",
        type=int,
        metavar="BYTES_PER_S",
        help="replication throttle on the brokers and topic involved, removed when done",
    )
    parser.add_argument(
        "--wait",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="wait for the copy to finish (default), showing progress on a terminal",
    )
    parser.add_argument("--wait-timeout", type=float, default=3600, metavar="SECONDS")


def add_topics_reassign(
    actions: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    reassign = actions.add_parser(
        "reassign", help="move existing partitions: given targets, or off a broker"
    )
    reassign.add_argument("topics", nargs="*", metavar="TOPIC")
    how = reassign.add_mutually_exclusive_group(required=True)
    how.add_argument(
        "--replica-assignment",
        metavar="P=1:2:3,...",
        help="targets for existing partitions of one topic (first = preferred leader)",
    )
    how.add_argument(
        "--from-broker",
        type=int,
        metavar="ID",
        help="move every replica off this broker (of the named topics, default every topic)",
    )
    how.add_argument(
        "--reassignment-json-file",
        type=Path,
        metavar="FILE",
        help="targets from a kafka-reassign-partitions JSON file, such as the rollback file "
        "kafka-tui writes before every change of replicas (that undoes the change)",
    )
    reassign.add_argument("--validate-only", action="store_true", help="preview, send nothing")
    add_run_flags(reassign)
    return reassign
