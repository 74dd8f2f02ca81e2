"""Entry point `kafka-tui`: no sub-command opens the TUI; sub-commands work headless.

Exit codes: 0 every topic succeeded, 1 some topic failed, 2 usage, config or connection
error (always one line on stderr, never a traceback).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from . import __version__
from .admin import AdminError, KafkaAdmin
from .commands import parsing
from .commands import topics as topic_commands
from .config import ConfigError, Profile, load_settings, resolve_profile
from .devcluster import commands as devcluster_commands

EXIT_USAGE = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kafka-tui",
        description="Administer Apache Kafka topics: a TUI, or headless with sub-commands.",
    )
    parser.add_argument("--version", action="version", version=f"kafka-tui {__version__}")
    parser.add_argument("--bootstrap-server", metavar="HOST:PORT[,HOST:PORT]")
    parser.add_argument("--profile", metavar="NAME", help="a profile of the config file")
    parser.add_argument("--config-file", type=Path, metavar="FILE")
    parser.add_argument("--output", choices=["table", "json"], default="table")
    parser.add_argument("-v", "--verbose", action="store_true", help="log the Kafka client")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    topic_commands.add_parsers(commands)
    devcluster_commands.add_parser(commands)
    return parser


def _fail(message: str) -> int:
    print(f"kafka-tui: {message}", file=sys.stderr)
    return EXIT_USAGE


async def _run_admin(args: argparse.Namespace, profile: Profile) -> int:
    async with KafkaAdmin(profile.connection) as admin:
        return await topic_commands.run(args, profile, admin)


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None and hasattr(signal, "SIGPIPE"):
        # `kafka-tui topics list | head` ends quietly, as other Unix tools do.
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.CRITICAL)
    if args.command == "dev-cluster":
        return devcluster_commands.run(args, args.output)
    try:
        settings = load_settings(args.config_file)
        if args.command is None:
            return _fail("the TUI is not built yet; use a sub-command (see --help)")
        profile = resolve_profile(
            settings, profile=args.profile, bootstrap_server=args.bootstrap_server
        )
        return asyncio.run(_run_admin(args, profile))
    except (ConfigError, parsing.UsageError) as exc:
        return _fail(str(exc))
    except AdminError as exc:
        # Refused as a whole (connection, read-only profile, unsupported broker): nothing ran.
        return _fail(exc.message)
    except KeyboardInterrupt:
        return _fail("interrupted")


if __name__ == "__main__":
    sys.exit(main())
