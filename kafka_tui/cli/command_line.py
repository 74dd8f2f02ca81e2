"""The command line's parser: global flags at every level, the commands of command_table.COMMANDS
(each module registering its own sub-commands), parsing into one namespace.

Kept apart from main.py so that `kafka-tui --version` answers before argparse is imported.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from itertools import count
from pathlib import Path
from typing import Any

from .. import __version__
from .command_table import COMMANDS as _COMMANDS

# Flags every parser level takes, before or after the command and its sub-command, with
# their value when none is given. `kafka-tui topics delete --topic 'x-.*' --yes --output json`
# means what `kafka-tui --output json topics delete ...` means.
GLOBAL_DEFAULTS: dict[str, Any] = {
    "bootstrap_server": None,
    "profile": None,
    "config_file": None,
    "command_config": None,
    "output": "table",
    "zookeeper": None,
    "verbose": False,
}
GLOBAL_TITLE = "global options (before or after the command)"
_levels = count()


class _Once(argparse.Action):
    """Stores a global flag's value; the same flag again with another value is a usage error
    (at one level here, across levels in `parse_args`)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        value = True if self.nargs == 0 else values
        before = getattr(namespace, self.dest, None)
        if before is not None and before != value:
            raise argparse.ArgumentError(self, _twice(before, value))
        setattr(namespace, self.dest, value)


def _twice(first: Any, second: Any) -> str:
    return f"given twice with different values ({first} and {second})"


def _add_global_flags(parser: argparse.ArgumentParser) -> None:
    """Each level stores into its own names (`output@3`): argparse copies a sub-command's
    values over its parent's, so one shared name would hide a conflict."""
    level = next(_levels)
    group = parser.add_argument_group(GLOBAL_TITLE)

    def add(*flags: str, name: str, **options: Any) -> None:
        group.add_argument(
            *flags, dest=f"{name}@{level}", default=argparse.SUPPRESS, action=_Once, **options
        )

    add("--bootstrap-server", name="bootstrap_server", metavar="HOST:PORT[,HOST:PORT]")
    add("--profile", name="profile", metavar="NAME", help="a profile of the config file")
    add("--config-file", name="config_file", type=Path, metavar="FILE")
    add(
        "--command-config",
        name="command_config",
        type=Path,
        metavar="FILE",
        help="kafka-topics.sh's client.properties (security.protocol, sasl.*, ssl.*): its "
        "settings override the profile's",
    )
    add(
        "--output",
        name="output",
        choices=["table", "json", "jsonl"],
        help="jsonl: one JSON object per line (topics describe and messages stream it; other "
        "commands treat it as json); default table",
    )
    add(
        "--zookeeper",
        name="zookeeper",
        metavar="HOST:PORT",
        help="ZooKeeper-mode clusters: observed brokers (KIP-409) and partitions on offline "
        "brokers (default: the profile's zookeeper_connect)",
    )
    add("-v", "--verbose", name="verbose", nargs=0, help="log the Kafka client")


class RecordingParser(argparse.ArgumentParser):
    """An ArgumentParser that keeps what was added to it (argparse has no public way to read
    a parser back): the completion scripts are generated from it, so a new command or flag
    completes without touching them."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.options: list[argparse.Action] = []  # a flag a later one replaced has none left
        self.positionals: list[argparse.Action] = []
        self.commands: dict[str, tuple[str | None, RecordingParser]] = {}
        super().__init__(*args, **kwargs)

    def _record(self, action: argparse.Action) -> argparse.Action:
        (self.options if action.option_strings else self.positionals).append(action)
        return action

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        return self._record(super().add_argument(*args, **kwargs))

    def add_argument_group(self, *args: Any, **kwargs: Any) -> Any:
        return self._recording(super().add_argument_group(*args, **kwargs))

    def add_mutually_exclusive_group(self, **kwargs: Any) -> Any:
        return self._recording(super().add_mutually_exclusive_group(**kwargs))

    def _recording(self, group: Any) -> Any:
        add = group.add_argument
        group.add_argument = lambda *a, **k: self._record(add(*a, **k))
        return group

    def add_subparsers(self, **kwargs: Any) -> Any:
        commands: Any = super().add_subparsers(**kwargs)
        add = commands.add_parser

        def add_parser(name: str, **options: Any) -> RecordingParser:
            parser = add(name, **options)
            self.commands[name] = (options.get("help"), parser)
            return parser  # type: ignore[no-any-return]

        commands.add_parser = add_parser
        return commands


class CommandParser(RecordingParser):
    """Every command's and sub-command's parser (argparse makes nested ones of the same
    class): each takes the global flags. A command that defines one of them itself (the dev
    cluster's `--output table|json`) keeps its own: conflicts resolve to the later flag."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("conflict_handler", "resolve")
        super().__init__(*args, **kwargs)
        _add_global_flags(self)


_VALUED_OPTIONS = {
    "--bootstrap-server",
    "--profile",
    "--config-file",
    "--command-config",
    "--output",
    "--zookeeper",
}


def load_module(module: str) -> Any:
    """The module, imported by an import statement's own path, so that `python -X importtime`
    shows it and what it imports (it does not see importlib.import_module's)."""
    __import__(module)
    return sys.modules[module]


def _chosen(argv: Sequence[str]) -> set[str]:
    """The module of the command named in `argv`; none without a command (the TUI, --help:
    the top-level help shows each command's line from _COMMANDS)."""
    tokens = iter(argv)
    for token in tokens:
        if token in _VALUED_OPTIONS:
            next(tokens, None)
        elif token in _COMMANDS:
            return {_COMMANDS[token][0]}
        elif not token.startswith("-"):
            break
    return set()


def build_parser(argv: Sequence[str] = (), *, every_command: bool = False) -> RecordingParser:
    """The parser for `argv`: the named command's module registers its real sub-parsers, the
    other commands get their line of _COMMANDS (what --help shows). `every_command`: all
    modules registered (completion scripts, tests)."""
    parser = RecordingParser(
        prog="kafka-tui",
        description="Administer Apache Kafka topics: a TUI, or headless with sub-commands.",
    )
    parser.add_argument("--version", action="version", version=f"kafka-tui {__version__}")
    _add_global_flags(parser)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=CommandParser)
    modules = {m for m, _ in _COMMANDS.values()} if every_command else _chosen(argv)
    registered: set[str] = set()
    for name, (module, help_text) in _COMMANDS.items():
        if module not in modules:
            commands.add_parser(name, help=help_text)
        elif module not in registered:
            registered.add(module)
            loaded = load_module(module)
            register = loaded.add_parsers if hasattr(loaded, "add_parsers") else loaded.add_parser
            register(commands)
    completion = commands.add_parser("completion", help=COMPLETION_HELP)
    completion.add_argument("shell", choices=["bash", "zsh", "fish"])
    demo = commands.add_parser(
        "demo",
        help="start the local KRaft cluster, seed demo topics, stop a broker, open the TUI",
    )
    demo.add_argument("--keep-brokers", action="store_true", help="do not stop broker 3")
    return parser


COMPLETION_HELP = "print a shell completion script (bash, zsh, fish)"


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """The command line parsed, each global flag under its own name whichever level gave it
    (`args.output`), its default when none did; different values are a usage error (exit 2)."""
    given = list(argv)
    parser = build_parser(given)
    args = parser.parse_args(given)
    for name, default in GLOBAL_DEFAULTS.items():
        values: list[Any] = []
        for key in [k for k in vars(args) if k == name or k.startswith(f"{name}@")]:
            value = getattr(args, key)
            delattr(args, key)
            if value not in values:
                values.append(value)
        if len(values) > 1:
            flag = "-v/--verbose" if name == "verbose" else "--" + name.replace("_", "-")
            parser.error(f"argument {flag}: {_twice(values[0], values[1])}")
        setattr(args, name, values[0] if values else default)
    args.argv = given  # the command as typed, for a command that prints how to run it again
    if args.output == "jsonl" and (args.command, getattr(args, "action", None)) not in {
        ("topics", "describe"),
        ("messages", "read"),
        ("messages", "search"),
        ("messages", "produce"),
    }:
        args.output = "json"  # only these stream; the others print one document
    return args
