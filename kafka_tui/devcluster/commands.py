"""`kafka-tui dev-cluster ...`: start, inspect and break a real local cluster."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .cluster import ClusterError, DevCluster
from .jars import KRAFT_VERSION, ZK_VERSION, JarFetchError, ensure_kafka


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    dev = subparsers.add_parser(
        "dev-cluster", help="run a real local Kafka cluster (KRaft 4.x or ZooKeeper 3.9)"
    )
    dev.add_argument(
        "--dir",
        type=Path,
        default=None,
        help="cluster folder (default: $KAFKA_TUI_DEVCLUSTER_DIR or "
        "~/.local/state/kafka-tui/devcluster)",
    )
    actions = dev.add_subparsers(dest="dev_action", required=True, metavar="ACTION")
    up = actions.add_parser("up", help="start the cluster (reuses it when already up)")
    up.add_argument("--mode", choices=["kraft", "zk"], default="kraft")
    up.add_argument("--brokers", type=int, default=3)
    up.add_argument("--timeout", type=float, default=180.0, help="seconds to wait for start-up")
    actions.add_parser("fetch", help="fetch the Kafka jars into the cache (once)")
    actions.add_parser("down", help="stop every node and delete the cluster's data")
    actions.add_parser("status", help="show nodes, ports, pids and memory")
    stop = actions.add_parser("stop-broker", help="stop one broker (clean shutdown by default)")
    stop.add_argument("broker_id", type=int, metavar="ID")
    stop.add_argument("--kill", action="store_true", help="SIGKILL instead of a clean shutdown")
    start = actions.add_parser("start-broker", help="start a stopped broker again")
    start.add_argument("broker_id", type=int, metavar="ID")
    add = actions.add_parser(
        "add-broker", help="start one more broker (next id, rack continuing rack-a/b/c)"
    )
    add.add_argument("--rack", default=None, help="the new broker's rack")
    add.add_argument("--timeout", type=float, default=180.0, help="seconds to wait for start-up")
    remove = actions.add_parser(
        "remove-broker",
        help="stop a broker and delete its data (a KRaft broker stays registered until "
        "unregistered)",
    )
    remove.add_argument("broker_id", type=int, metavar="ID")
    for p in (up, actions.choices["status"], add):
        p.add_argument("--output", choices=["table", "json"], default=argparse.SUPPRESS)


def _print_status(status: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(status, indent=2))
        return
    print(f"{status['mode']} cluster, Kafka {status['kafka_version']}, in {status['dir']}")
    print(f"bootstrap servers: {status['bootstrap_servers']}")
    quorum = status["controller"]
    where = status["zookeeper"] or f"127.0.0.1:{quorum['port']}"
    print(f"{quorum['role']}: {where} {'running' if quorum['running'] else 'STOPPED'}")
    for b in status["brokers"]:
        rss = f"{b['rss_bytes'] / 2**20:.0f} MiB" if b["rss_bytes"] else "-"
        state = "running" if b["running"] else "STOPPED"
        print(f"  broker {b['id']}  {b['rack']}  127.0.0.1:{b['port']}  {state:8} {rss}")


def run(args: argparse.Namespace, output: str) -> int:
    cluster = DevCluster(args.dir)
    as_json = (getattr(args, "output", None) or output) == "json"
    try:
        match args.dev_action:
            case "up":
                cluster.up(args.mode, args.brokers, args.timeout)
                _print_status(cluster.status(), as_json)
            case "fetch":
                for version in (KRAFT_VERSION, ZK_VERSION):
                    jars = ensure_kafka(version)
                    verb = "fetched" if jars.downloaded else "cached"
                    print(f"Kafka {version}: {verb} in {jars.libs}")
            case "status":
                _print_status(cluster.status(), as_json)
            case "down":
                print("stopped and removed" if cluster.down() else f"no cluster in {cluster.root}")
            case "stop-broker":
                cluster.stop_broker(args.broker_id, kill=args.kill)
                print(f"broker {args.broker_id} {'killed' if args.kill else 'stopped'}")
            case "start-broker":
                cluster.start_broker(args.broker_id)
                print(f"broker {args.broker_id} started and serving metadata")
            case "add-broker":
                added = cluster.add_broker(args.rack, args.timeout)
                entry = next(b for b in cluster.status()["brokers"] if b["id"] == added.id)
                if as_json:
                    print(json.dumps(entry, indent=2))
                else:
                    print(
                        f"broker {added.id} ({added.rack}) started on 127.0.0.1:{added.port} "
                        "and serving metadata"
                    )
            case "remove-broker":
                state = cluster.load()
                cluster.remove_broker(args.broker_id)
                print(f"broker {args.broker_id} stopped and removed")
                if state is not None and state.mode == "kraft":
                    print(
                        f"broker {args.broker_id} stays registered (fenced) with the KRaft "
                        "controller until it is unregistered (UnregisterBroker)"
                    )
    except (ClusterError, JarFetchError) as exc:
        print(f"kafka-tui dev-cluster: {exc}", file=sys.stderr)
        return 2
    return 0
