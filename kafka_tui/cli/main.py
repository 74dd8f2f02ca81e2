"""Entry point `kafka-tui`: no sub-command opens the TUI; sub-commands work headless.

Exit codes: 0 every topic succeeded, 1 some topic failed, 2 usage, config or connection
error (always one line on stderr, never a traceback).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import logging
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from .. import __version__
from ..admin import AdminError, ConnectionSettings, KafkaAdmin
from ..admin import audit_log as audit
from ..config import (
    ConfigError,
    Profile,
    Settings,
    load_settings,
    read_command_config,
    with_properties,
    with_secrets,
)
from ..fields import FieldError
from ..secrets import terminal_asker
from ..services import parsing
from .profiles import resolve_profile
from .words import field_error_text

EXIT_USAGE = 2

# Each command's module, imported only when that command runs (or for --help): a script's
# `topics create` does not pay for Spark plans, reassignments or the dev cluster at start-up.
_COMMANDS = {
    "cluster": ("kafka_tui.cli.topics", "the cluster: id, controller, brokers"),
    "topics": ("kafka_tui.cli.topics", "list, describe, create, alter, delete topics"),
    "brokers": ("kafka_tui.cli.brokers", "live, offline and observed brokers (KIP-409)"),
    "placeholders": ("kafka_tui.cli.brokers", "KIP-409 placeholder replicas"),
    "plan": ("kafka_tui.cli.plans", "bulk assignment plans: preview, apply, export"),
    "reassignments": ("kafka_tui.cli.reassign", "partition reassignments"),
    "throttles": ("kafka_tui.cli.throttles", "replication throttles left on brokers and topics"),
    "groups": ("kafka_tui.cli.groups", "consumer groups: delete committed offsets"),
    "leaders": ("kafka_tui.cli.leaders", "preferred / unclean leader election"),
    "dev-cluster": ("kafka_tui.devcluster.commands", "run a real local Kafka cluster"),
    "audit": ("kafka_tui.cli.audit", "the audit log of the changes kafka-tui made"),
}


_VALUED_OPTIONS = {
    "--bootstrap-server",
    "--profile",
    "--config-file",
    "--command-config",
    "--output",
    "--zookeeper",
}


def _chosen(argv: Sequence[str]) -> set[str]:
    """The modules to load: the one of the command named in `argv`, or all (no command:
    the TUI, or --help)."""
    tokens = iter(argv)
    for token in tokens:
        if token in _VALUED_OPTIONS:
            next(tokens, None)
        elif token in _COMMANDS:
            return {_COMMANDS[token][0]}
        elif not token.startswith("-"):
            break
    return {module for module, _ in _COMMANDS.values()}


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kafka-tui",
        description="Administer Apache Kafka topics: a TUI, or headless with sub-commands.",
    )
    parser.add_argument("--version", action="version", version=f"kafka-tui {__version__}")
    parser.add_argument("--bootstrap-server", metavar="HOST:PORT[,HOST:PORT]")
    parser.add_argument("--profile", metavar="NAME", help="a profile of the config file")
    parser.add_argument("--config-file", type=Path, metavar="FILE")
    parser.add_argument(
        "--command-config",
        type=Path,
        metavar="FILE",
        help="kafka-topics.sh's client.properties (security.protocol, sasl.*, ssl.*): its "
        "settings override the profile's",
    )
    parser.add_argument(
        "--output",
        choices=["table", "json", "jsonl"],
        default="table",
        help="jsonl: one JSON object per line (topics describe streams it; other commands "
        "treat it as json)",
    )
    parser.add_argument(
        "--zookeeper",
        metavar="HOST:PORT",
        help="ZooKeeper-mode clusters: observed brokers (KIP-409) and partitions on offline "
        "brokers (default: the profile's zookeeper_connect)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log the Kafka client")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules = _chosen(argv)
    registered: set[str] = set()
    for name, (module, help_text) in _COMMANDS.items():
        if module not in modules:
            commands.add_parser(name, help=help_text)
        elif module not in registered:
            registered.add(module)
            loaded = importlib.import_module(module)
            register = loaded.add_parsers if hasattr(loaded, "add_parsers") else loaded.add_parser
            register(commands)
    demo = commands.add_parser(
        "demo",
        help="start the local KRaft cluster, seed demo topics, stop a broker, open the TUI",
    )
    demo.add_argument("--keep-brokers", action="store_true", help="do not stop broker 3")
    return parser


def _run_demo(args: argparse.Namespace) -> int:
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
    from ..admin import TopicSpec
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
    module = importlib.import_module(_COMMANDS[args.command][0])
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
    if argv is None and hasattr(signal, "SIGPIPE"):
        # `kafka-tui topics list | head` ends quietly, as other Unix tools do.
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    given = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(given).parse_args(given)
    args.argv = given  # the command as typed, for a command that prints how to run it again
    if args.output == "jsonl" and (args.command, getattr(args, "action", None)) != (
        "topics",
        "describe",
    ):
        args.output = "json"  # only topics describe streams; the others print one document
    logging.basicConfig(level=logging.INFO if args.verbose else logging.CRITICAL)
    if args.command == "dev-cluster":
        from ..devcluster import commands as devcluster_commands

        return devcluster_commands.run(args, args.output)
    if args.command == "demo":
        return _run_demo(args)
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
