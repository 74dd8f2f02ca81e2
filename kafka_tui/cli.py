"""Entry point `kafka-tui`: no sub-command opens the TUI; sub-commands work headless."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import __version__
from .devcluster import commands as devcluster_commands


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kafka-tui", description="Administer Apache Kafka topics, in a TUI or headless."
    )
    parser.add_argument("--version", action="version", version=f"kafka-tui {__version__}")
    parser.add_argument("--output", choices=["table", "json"], default="table")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    devcluster_commands.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "dev-cluster":
        return devcluster_commands.run(args, args.output)
    print("kafka-tui: the TUI is not built yet; try `kafka-tui dev-cluster up`", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
