"""Entry point `kafka-tui`: no sub-command opens the TUI; sub-commands work headless.

Exit codes: 0 every topic succeeded, 1 some topic failed, 2 usage, config or connection
error (always one line on stderr, never a traceback).

Start-up: `--version` is answered before anything else is imported; the parser
(command_line.py) imports argparse; the admin layer, the config and a command's own module load
once the command line is parsed, so `--help` and a mistyped flag answer without loading
aiokafka (bench/startup.py).
"""

from __future__ import annotations

import sys

from .. import __version__
from .command_table import COMMANDS as _COMMANDS

# typing.TYPE_CHECKING without importing typing (13 ms of a 34 ms --version, bench/startup.py);
# mypy reads a name TYPE_CHECKING as true all the same.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

    from ..config import Profile, Settings
    from .command_line import RecordingParser

EXIT_USAGE = 2


def build_parser(argv: Sequence[str] = (), *, every_command: bool = False) -> RecordingParser:
    """command_line.build_parser: the parser for `argv` (`every_command`: all modules)."""
    from . import command_line

    return command_line.build_parser(argv, every_command=every_command)


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """command_line.parse_args: the command line parsed, global flags merged."""
    from . import command_line

    return command_line.parse_args(argv)


def _run_demo(args: argparse.Namespace) -> int:
    from ..admin import AdminError, ConnectionSettings
    from ..config import Profile, Settings
    from ..devcluster import ClusterError, DevCluster, traffic
    from ..devcluster.seed import DEMO_STOPPED_BROKER, seed_demo_groups, seed_demo_topics

    cluster = DevCluster()
    try:
        state = cluster.up("kraft", brokers=3)
        bootstrap = cluster.bootstrap_servers(state)
        for broker in cluster.status()["brokers"]:
            if not broker["running"]:
                cluster.start_broker(broker["id"])
        seed_demo_topics(bootstrap)
        seed_demo_groups(bootstrap)
        if not args.keep_brokers:
            cluster.stop_broker(DEMO_STOPPED_BROKER)
        import asyncio

        asyncio.run(_seed_placeholders(bootstrap))
        # A producer and groups of each kind the broker has, whose lag moves while you look.
        traffic.start(cluster.root, bootstrap, state.version, cluster.cache)
    except (ClusterError, RuntimeError, AdminError) as exc:
        return _fail(f"demo: {exc}")
    demo = Profile("local demo", ConnectionSettings(bootstrap))
    code = _run_tui(args, Settings(profiles={demo.name: demo}), demo)
    print(
        f"The local cluster keeps running ({bootstrap}), with a producer writing to "
        f"'{traffic.TOPIC}' and its groups reading; broker {DEMO_STOPPED_BROKER} is "
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
    from .command_line import load_module

    module = load_module(_COMMANDS[args.command][0])
    async with KafkaAdmin(profile.connection) as admin:
        return await module.run(args, profile, admin)  # type: ignore[no-any-return]


def _run_tui(args: argparse.Namespace, settings: Settings, profile: Profile | None = None) -> int:
    """Open the app: on --bootstrap-server / --profile, on the only or default profile, or
    with the profile picker when several exist."""
    import gc

    # As for the command's modules (main): no collection while Textual and the app load,
    # then their objects (they live to the end) are frozen out of later collections: the
    # first frame's CPU 0.55 -> 0.52 s (bench/first_frame.py, issue 52.1).
    gc.disable()
    from ..tui.app import make_app  # Textual loads only for the TUI, not for scripts.

    gc.freeze()
    gc.enable()

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
    # No garbage collection while the command's modules load (their objects live to the
    # end): the collector's passes over them cost a one-topic create ~15 ms of CPU
    # (bench/startup.py); then they are frozen out of later collections and it runs again.
    import gc

    gc.disable()
    args = parse_args(given)
    gc.freeze()
    gc.enable()
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
