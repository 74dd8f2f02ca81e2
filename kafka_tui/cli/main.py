"""Entry point `kafka-tui`: no sub-command opens the TUI; sub-commands work headless.

Exit codes: 0 every topic succeeded, 1 some topic failed, 2 usage, config or connection
error (always one line on stderr, never a traceback).

Start-up: this module imports only argparse and pathlib; the admin layer, the config and a
command's own module load once the command line is parsed, so `--help` and a mistyped flag
answer without loading aiokafka (bench/startup.py).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from itertools import count
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import __version__

if TYPE_CHECKING:
    from ..config import Profile, Settings

EXIT_USAGE = 2

# Each command's module, imported only when that command runs: a script's
# `topics create` does not pay for Spark plans, reassignments or the dev cluster at start-up.
_COMMANDS = {
    "cluster": ("kafka_tui.cli.topics", "the cluster: id, controller, brokers"),
    "topics": ("kafka_tui.cli.topics", "list, describe, create, alter, delete topics"),
    "brokers": ("kafka_tui.cli.brokers", "live, offline and observed brokers (KIP-409)"),
    "placeholders": ("kafka_tui.cli.brokers", "KIP-409 placeholder replicas: list them, fill them"),
    "plan": ("kafka_tui.cli.plans", "bulk assignment plans: preview, apply, export"),
    "reassignments": ("kafka_tui.cli.reassign", "partition reassignments: list, cancel"),
    "throttles": ("kafka_tui.cli.throttles", "replication throttles left on brokers and topics"),
    "groups": ("kafka_tui.cli.groups", "consumer, share and streams groups: lag, reset, delete"),
    "messages": ("kafka_tui.cli.messages", "read, follow, filter and produce records"),
    "leaders": ("kafka_tui.cli.leaders", "preferred / unclean leader election"),
    "dev-cluster": (
        "kafka_tui.devcluster.commands",
        "run a real local Kafka cluster (2.1-4.4, KRaft or ZooKeeper mode)",
    ),
    "audit": ("kafka_tui.cli.audit", "the audit log of the changes kafka-tui made"),
}


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


def _load(module: str) -> Any:
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
            loaded = _load(module)
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
        ("messages", "produce"),
    }:
        args.output = "json"  # only these stream; the others print one document
    return args


def _run_demo(args: argparse.Namespace) -> int:
    from ..admin import AdminError, ConnectionSettings
    from ..config import Profile, Settings
    from ..devcluster import ClusterError, DevCluster
    from ..devcluster.seed import DEMO_STOPPED_BROKER, seed_demo_topics

    cluster = DevCluster()
    try:
        state = cluster.up("kraft", brokers=3)
        bootstrap = cluster.bootstrap_servers(state)
        for broker in cluster.status()["brokers"]:
            if not broker["running"]:
                cluster.start_broker(broker["id"])
        seed_demo_topics(bootstrap)
        if not args.keep_brokers:
            cluster.stop_broker(DEMO_STOPPED_BROKER)
        import asyncio

        asyncio.run(_seed_placeholders(bootstrap))
    except (ClusterError, RuntimeError, AdminError) as exc:
        return _fail(f"demo: {exc}")
    demo = Profile("local demo", ConnectionSettings(bootstrap))
    code = _run_tui(args, Settings(profiles={demo.name: demo}), demo)
    print(
        f"The local cluster keeps running ({bootstrap}); broker {DEMO_STOPPED_BROKER} is "
        "stopped. `kafka-tui dev-cluster start-broker 3` starts it, "
        "`kafka-tui dev-cluster down` stops everything."
    )
    return code


async def _seed_placeholders(bootstrap: str) -> None:
    """The demo's KIP-409 topic: replication factor 4 on a 3-broker cluster, so every
    partition keeps a placeholder (-1) until `dev-cluster add-broker` and a fill."""
    from ..admin import ConnectionSettings, KafkaAdmin, TopicSpec
    from ..admin.placeholders import PlaceholderStore
    from ..services import placing
    from ..services.snapshot import take_snapshot

    settings = ConnectionSettings(bootstrap)
    store = PlaceholderStore(settings)
    async with KafkaAdmin(settings) as admin:
        snapshot = await take_snapshot(admin, store=store)
        if "audit-log" in snapshot.topics:
            return
        options = placing.PlacementOptions.of("enabled", 1, None)
        spec = TopicSpec("audit-log", 3, 4, configs={"min.insync.replicas": "1"})
        result = (await placing.create_topics(admin, snapshot, [spec], options, store))[0]
        if not result.ok:
            raise RuntimeError(result.message)


def _fail(message: str) -> int:
    print(f"kafka-tui: {message}", file=sys.stderr)
    return EXIT_USAGE


async def _run_admin(args: argparse.Namespace, profile: Profile) -> int:
    from ..admin import KafkaAdmin

    module = _load(_COMMANDS[args.command][0])
    async with KafkaAdmin(profile.connection) as admin:
        return await module.run(args, profile, admin)  # type: ignore[no-any-return]


def _run_tui(args: argparse.Namespace, settings: Settings, profile: Profile | None = None) -> int:
    """Open the app: on --bootstrap-server / --profile, on the only or default profile, or
    with the profile picker when several exist."""
    from ..tui.app import make_app  # Textual loads only for the TUI, not for scripts.

    if profile is None and (
        args.bootstrap_server
        or args.profile
        or settings.default_profile
        or len(settings.profiles) <= 1
    ):
        profile = _resolve(args, settings)
    app = make_app(settings, profile)
    app.run()
    if app.exit_note:
        print(f"kafka-tui: {app.exit_note}", file=sys.stderr)
    return app.return_code or 0


def _resolve(args: argparse.Namespace, settings: Settings) -> Profile:
    """The profile, with --command-config's settings over it; the file's bootstrap.servers
    serves when neither --bootstrap-server nor --profile is given."""
    from ..config import read_command_config, with_properties
    from .profiles import resolve_profile

    bootstrap = args.bootstrap_server
    properties = read_command_config(args.command_config) if args.command_config else None
    if properties and not bootstrap and not args.profile and properties.bootstrap_servers:
        bootstrap = properties.bootstrap_servers
    profile = resolve_profile(settings, profile=args.profile, bootstrap_server=bootstrap)
    if properties is not None:
        profile = with_properties(profile, properties)
    if profile.ignored_properties:
        print(
            "kafka-tui: command config: ignored (not used by kafka-tui): "
            f"{', '.join(profile.ignored_properties)}",
            file=sys.stderr,
        )
    return profile


def main(argv: Sequence[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    if given == ["--version"]:  # what argparse would print, without building the parser
        print(f"kafka-tui {__version__}")
        return 0
    if argv is None:
        import signal

        if hasattr(signal, "SIGPIPE"):
            # `kafka-tui topics list | head` ends quietly, as other Unix tools do.
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    args = parse_args(given)
    if args.command == "completion":
        from .completion import script

        print(script(args.shell, build_parser(every_command=True)), end="")
        return 0
    import logging

    logging.basicConfig(level=logging.INFO if args.verbose else logging.CRITICAL)
    if args.command == "dev-cluster":
        from ..devcluster import commands as devcluster_commands

        return devcluster_commands.run(args, args.output)
    if args.command == "demo":
        return _run_demo(args)
    import asyncio

    from ..admin import AdminError
    from ..admin import audit_log as audit
    from ..config import ConfigError, load_settings, with_secrets
    from ..fields import FieldError
    from ..secrets import terminal_asker
    from ..services import parsing
    from .words import field_error_text

    try:
        settings = load_settings(args.config_file)
        if args.command is None:
            return _run_tui(args, settings)
        if args.command == "audit":
            from . import audit as audit_log

            return audit_log.run_local(args, settings)
        if args.command == "topics":
            from . import topics

            topics.check_flags(args)
        # a secret no source gives is asked on the terminal (hidden), off one an error (exit 2)
        profile = with_secrets(_resolve(args, settings), terminal_asker())
        audit.configure(path=profile.audit_log, profile=profile.name)
        return asyncio.run(_run_admin(args, profile))
    except (ConfigError, parsing.UsageError) as exc:
        return _fail(str(exc))
    except FieldError as exc:  # a flag's value malformed (services/parsing.py)
        return _fail(field_error_text(exc))
    except AdminError as exc:
        # Refused as a whole (connection, read-only profile, unsupported broker): nothing ran.
        return _fail(exc.message)
    except KeyboardInterrupt:
        return _fail("interrupted")


if __name__ == "__main__":
    sys.exit(main())
