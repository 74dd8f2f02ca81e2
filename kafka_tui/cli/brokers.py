"""`kafka-tui brokers ...` and `kafka-tui placeholders ...`: KIP-409's observed brokers and
placeholder replicas from a shell."""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys

from ..admin import AdminError, KafkaAdmin, ReadOnlyProfile
from ..admin import audit_log as audit
from ..admin.placeholders import PlaceholderStore
from ..config import Profile
from ..planning.placement import cordon_warning
from ..services import parsing
from ..services.filling import (
    FILL_TIMEOUT_MS,
    PENDING,
    WATCH_INTERVAL_S,
    FillResult,
    fill_placeholders,
    placeholder_rows,
    watch_fills,
)
from ..services.snapshot import take_snapshot, zookeeper_extras
from . import drain, output
from .leaders import offer_election
from .topics import zookeeper_of


def add_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    brokers = commands.add_parser("brokers", help="live, offline and observed brokers (KIP-409)")
    actions = brokers.add_subparsers(dest="action", required=True, metavar="ACTION")
    actions.add_parser("list", help="id, rack, live, observed, replicas, leaders and Kafka version")
    forget = actions.add_parser(
        "forget", help="retire a stopped broker for good (KRaft: unregister; ZooKeeper: znode)"
    )
    forget.add_argument("broker_id", type=int, metavar="ID")
    forget.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    drain.add_actions(actions)  # drain, undrain, replace

    placeholders = commands.add_parser(
        "placeholders", help="KIP-409 placeholder replicas: list them, fill them"
    )
    actions = placeholders.add_subparsers(dest="action", required=True, metavar="ACTION")
    actions.add_parser("list", help="partitions still missing replicas")
    fill = actions.add_parser("fill", help="give each placeholder a live broker and wait")
    fill.add_argument(
        "--watch", action="store_true", help="keep filling as brokers join, until interrupted"
    )
    fill.add_argument("--timeout-ms", type=int, default=FILL_TIMEOUT_MS, help="wait for the copies")
    fill.add_argument(
        "--elect-leaders",
        action="store_true",
        help="then elect the preferred leaders of the topics filled (KIP-460)",
    )
    fill.add_argument(
        "--interval",
        type=float,
        default=WATCH_INTERVAL_S,
        metavar="SECONDS",
        help="with --watch: between rounds",
    )


async def run(args: argparse.Namespace, profile: Profile, admin: KafkaAdmin) -> int:
    as_json = args.output == "json"
    zookeeper = zookeeper_of(args, profile)
    store = PlaceholderStore(profile.connection, profile.placeholders_topic)
    changes = (args.command, args.action) in (("brokers", "forget"), ("placeholders", "fill"))
    lifecycle = args.command == "brokers" and args.action in ("drain", "undrain", "replace")
    if profile.read_only and (changes or (lifecycle and not getattr(args, "validate_only", False))):
        raise ReadOnlyProfile(profile.name)
    if lifecycle:
        return await drain.run(args, profile, admin)
    match (args.command, args.action):
        case ("brokers", "list"):
            snapshot = await take_snapshot(admin, zookeeper=zookeeper, releases=True)
            brokers: list[dict[str, object]] = [
                {
                    "id": b.id,
                    "rack": b.rack,
                    "live": b.live,
                    "observed": snapshot.kraft
                    or zookeeper is not None
                    or snapshot.sources.get(b.id) == "replica lists",
                    "replicas": snapshot.load.replicas.get(b.id, 0),
                    "leaders": snapshot.load.leaders.get(b.id, 0),
                    "source": snapshot.sources.get(b.id, "live"),
                    # From its ApiVersions answer; None: offline, or it did not answer.
                    "kafka_version": snapshot.releases.get(b.id),
                    # KIP-1066 (4.3+): directories taking no new replica; None: not known
                    # (offline, or it did not describe its log directories).
                    "cordoned_log_dirs": (
                        list(snapshot.log_dirs[b.id].cordoned)
                        if b.id in snapshot.log_dirs
                        else None
                    ),
                }
                for b in snapshot.brokers
            ]
            columns = [
                "id",
                "rack",
                "live",
                "observed",
                "replicas",
                "leaders",
                "source",
                "kafka_version",
                "cordoned_log_dirs",
            ]
            headers = {"kafka_version": "VERSION", "cordoned_log_dirs": "CORDONED"}
            output.rows(brokers, as_json, columns, headers)
            if (warning := cordon_warning(snapshot.brokers)) and not as_json:
                print(warning, file=sys.stderr)
            if not snapshot.kraft and zookeeper is None and not as_json:
                print(
                    "(ZooKeeper mode without --zookeeper: only live brokers and those topics' "
                    "replicas name are known)",
                    file=sys.stderr,
                )
            return 0
        case ("brokers", "forget"):
            return await _forget(args, admin, zookeeper, as_json)
        case ("placeholders", "list"):
            snapshot = await take_snapshot(admin, zookeeper=zookeeper, store=store)
            rows = placeholder_rows(snapshot)
            output.rows(rows, as_json, ["topic", "partition", "replicas", "placeholders"])
            return 0
        case ("placeholders", "fill"):
            return await _fill(args, profile, admin, store, zookeeper, as_json)
    raise parsing.UsageError(f"unknown action {args.action}")


def _confirmed(broker: int) -> bool:
    if not sys.stdin.isatty():
        raise parsing.UsageError("refusing to forget a broker without confirmation: pass --yes")
    print(
        f"About to forget broker {broker}: kafka-tui will no longer count it as part of "
        "the cluster (KIP-409 observed brokers).",
        file=sys.stderr,
    )
    try:
        return input(f"Type the broker id ({broker}) to confirm: ").strip() == str(broker)
    except EOFError:
        return False


async def _forget(
    args: argparse.Namespace, admin: KafkaAdmin, zookeeper: str | None, as_json: bool
) -> int:
    broker = args.broker_id
    if not args.yes and not _confirmed(broker):
        print("Nothing forgotten: the confirmation did not match.", file=sys.stderr)
        return 1
    info = await admin.describe_cluster()
    try:
        if info.lists_fenced_brokers:
            await admin.unregister_broker(broker)
            message = f"Broker {broker} unregistered; it is no longer an observed broker."
        elif zookeeper is None:
            raise parsing.UsageError(
                "ZooKeeper-mode clusters keep observed brokers in ZooKeeper: pass --zookeeper "
                "HOST:PORT (or set the profile's zookeeper_connect)"
            )
        else:
            async with zookeeper_extras(zookeeper) as zk:
                known = await audit.audited(
                    admin,
                    "broker forget",
                    [],
                    {"broker": broker},
                    zk.forget(broker),
                    cluster_id=info.cluster_id,
                )
            message = (
                f"Broker {broker} forgotten (/brokers/observed_ids/{broker} removed)."
                if known
                else f"Broker {broker} was not an observed broker; nothing to forget."
            )
            named = sum(
                broker in p.replicas for t in await admin.list_topics() for p in t.partitions
            )
            if named:
                message += (
                    f" {named} partition(s) still name it as a replica, so it is observed "
                    f"again from their replica lists until they move off it (`kafka-tui topics "
                    f"reassign --from-broker {broker}`)."
                )
        ok, error = True, None
    except AdminError as exc:
        ok, error, message = False, exc.name, exc.message
    result = {"broker": broker, "ok": ok, "error": error, "message": message}
    if as_json:
        output.emit_json(result)
    else:
        print(
            message if ok else f"Error ({error}): {message}", file=sys.stdout if ok else sys.stderr
        )
    return 0 if ok else 1


async def _fill(
    args: argparse.Namespace,
    profile: Profile,
    admin: KafkaAdmin,
    store: PlaceholderStore,
    zookeeper: str | None,
    as_json: bool,
) -> int:
    if args.watch:
        return await _watch(args, profile, store, zookeeper, as_json)
    results = await fill_placeholders(admin, store, zookeeper=zookeeper, timeout_ms=args.timeout_ms)
    await offer_election(admin, [r.topic for r in results if r.ok], args.elect_leaders)
    if as_json:
        output.emit_json([r.to_json() for r in results])
    else:
        if not results:
            print("No placeholder to fill.")
        _print_fills(results)
    return 0 if all(r.ok or r.error in PENDING for r in results) else 1


def _print_fills(results: list[FillResult]) -> None:
    for r in results:
        print(r.message if r.ok else f"Error ({r.error}): {r.message}", flush=True)
    for path in dict.fromkeys(r.rollback_file for r in results if r.rollback_file):
        print(
            f"Rollback file (the replicas before): {path}\n"
            f"  undo: kafka-tui topics reassign --reassignment-json-file {path}",
            flush=True,
        )


async def _watch(
    args: argparse.Namespace,
    profile: Profile,
    store: PlaceholderStore,
    zookeeper: str | None,
    as_json: bool,
) -> int:
    """Rounds until SIGTERM or Ctrl+C, each printed as it ends (a JSON line per round): an
    interrupt loses nothing already done. A round that repeats the previous one's outcome
    is not printed again, so an idle service does not log every few seconds."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    previous: list[dict[str, object]] | None = None

    def on_round(results: list[FillResult]) -> None:
        nonlocal previous
        rows = [r.to_json() for r in results]
        if rows == previous:
            return
        previous = rows
        if as_json:
            print(json.dumps(rows), flush=True)
        else:
            _print_fills(results)

    def on_failure(exc: AdminError) -> None:
        nonlocal previous
        previous = None
        what = {"ok": False, "error": exc.name, "message": f"{exc.message} Retrying."}
        print(
            json.dumps(what) if as_json else f"Error ({exc.name}): {exc.message} Retrying.",
            file=sys.stderr,
            flush=True,
        )

    try:
        await watch_fills(
            profile.connection,
            store,
            stop,
            on_round,
            on_failure,
            zookeeper=zookeeper,
            timeout_ms=args.timeout_ms,
            interval_s=args.interval,
        )
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
    return 0
