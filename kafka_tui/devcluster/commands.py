"""`kafka-tui dev-cluster ...`: start, inspect and break a real local cluster."""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
from pathlib import Path
from typing import Any

from . import registry, storage_format, traffic
from .cluster import ClusterError, DevCluster, write_class_archives
from .jars import JarFetchError, ensure_kafka
from .kerberos import profile_entries as kerberos_profile_entries
from .oauthbearer import DEFAULT_TOKEN_LIFETIME_S
from .security import ADMIN, SECURITIES, USERS
from .spark import SparkClusterError, SparkDevCluster
from .versions import (
    KRAFT,
    KRAFT_SCRAM_BOOTSTRAP,
    KRAFT_VERSION,
    NEWEST_MINOR,
    OLDEST,
    UNENCRYPTED_PEM_KEYS,
    ZK_VERSION,
    Mode,
    choose,
)


def _minor(version: tuple[int, ...]) -> str:
    return f"{version[0]}.{version[1]}"


_VERSION_HELP = (
    f"a Kafka release from {_minor(OLDEST)} to {_minor(NEWEST_MINOR)}, e.g. 2.8.2 "
    f"(default: {KRAFT_VERSION} in KRaft mode, {ZK_VERSION} in ZooKeeper mode)"
)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    dev = subparsers.add_parser(
        "dev-cluster",
        help=f"run a real local Kafka cluster ({_minor(OLDEST)}-{_minor(NEWEST_MINOR)}, "
        "KRaft or ZooKeeper mode)",
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
    up.add_argument(
        "--mode",
        choices=["kraft", "zk"],
        default=None,
        help=f"kraft ({_minor(KRAFT)} and newer) or zk (before 4.0); default: kraft where "
        "--kafka-version has it, else zk",
    )
    up.add_argument("--kafka-version", default=None, metavar="V", help=_VERSION_HELP)
    up.add_argument("--brokers", type=int, default=3)
    up.add_argument("--timeout", type=float, default=180.0, help="seconds to wait for start-up")
    up.add_argument(
        "--security",
        choices=SECURITIES,
        default="plaintext",
        help="sasl_ssl: TLS from the cluster's own CA, SCRAM-SHA-512 users admin, viewer and "
        f"creator with ACLs; Kafka {_minor(UNENCRYPTED_PEM_KEYS)}+ in ZooKeeper mode, "
        f"{_minor(KRAFT_SCRAM_BOOTSTRAP)}+ in KRaft (default: plaintext, no authorization); "
        "sasl_gssapi: Kerberos from a KDC of the cluster's own (realm KAFKA.TEST, keytabs for "
        "the same users); sasl_oauthbearer: sasl_ssl plus OAUTHBEARER tokens from an OIDC "
        "issuer the cluster runs (client ids admin, viewer, creator; Kafka 3.9+)",
    )
    up.add_argument(
        "--token-lifetime",
        type=int,
        default=DEFAULT_TOKEN_LIFETIME_S,
        metavar="SECONDS",
        help="sasl_oauthbearer: how long the issuer's tokens live (default: "
        f"{DEFAULT_TOKEN_LIFETIME_S}); brokers end a session with its token",
    )
    up.add_argument(
        "--schema-registry",
        action="store_true",
        help="also start a schema registry (Apicurio Registry "
        f"{registry.APICURIO_VERSION}, Confluent's API) on a port of its own",
    )
    fetch = actions.add_parser("fetch", help="fetch the Kafka jars into the cache (once)")
    fetch.add_argument(
        "--kafka-version",
        action="append",
        default=None,
        metavar="V",
        help=f"this release only (repeatable; default: {KRAFT_VERSION} and {ZK_VERSION})",
    )
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
    profile = actions.add_parser(
        "profile", help="print a config.toml profile for this cluster (no password in it)"
    )
    profile.add_argument("name", metavar="NAME", help="the profile's name")
    profile.add_argument(
        "--user", choices=USERS, default=None, help=f"secured clusters: log in as (default {ADMIN})"
    )
    password = actions.add_parser(
        "password", help="print one user's password (secured clusters), for `export X=$(...)`"
    )
    password.add_argument("user", choices=USERS, metavar="USER", help=", ".join(USERS))
    for p in (up, actions.choices["status"], add):
        p.add_argument("--output", choices=["table", "json"], default=argparse.SUPPRESS)
    _add_spark_parser(actions)


def _add_spark_parser(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    spark = actions.add_parser(
        "spark",
        help="run a real local Spark standalone cluster (and Spark Connect) from pyspark's jars",
    )
    spark.add_argument(
        "--dir",
        dest="spark_dir",
        metavar="DIR",
        type=Path,
        default=None,
        help="cluster folder (default: $KAFKA_TUI_SPARK_CLUSTER_DIR or "
        "~/.local/state/kafka-tui/spark-cluster)",
    )
    spark_actions = spark.add_subparsers(dest="spark_action", required=True, metavar="ACTION")
    up = spark_actions.add_parser(
        "up", help="start a master and workers on 127.0.0.1 (reuses them when already up)"
    )
    up.add_argument("--workers", type=int, default=2, metavar="N")
    up.add_argument(
        "--connect", action="store_true", help="also start a Spark Connect server (sc://)"
    )
    up.add_argument(
        "--cores",
        type=int,
        default=None,
        metavar="C",
        help="cores each worker offers "
        "(default: this machine's, so the Connect server and a spark:// job fit side by side)",
    )
    up.add_argument(
        "--worker-memory",
        default="2g",
        metavar="M",
        help="memory each worker offers "
        "executors (default 2g; an executor asks spark.executor.memory, 1g by default)",
    )
    up.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for start-up")
    spark_actions.add_parser("down", help="stop the Spark cluster and delete its folder")
    status = spark_actions.add_parser("status", help="show the master, workers and Connect")
    for p in (up, status):
        p.add_argument("--output", choices=["table", "json"], default=argparse.SUPPRESS)


def _print_spark_status(status: dict[str, Any], as_json: bool) -> None:
    if as_json:
        shown = {k: status[k] for k in ("master", "ui", "connect", "workers")}
        print(json.dumps(shown, indent=2))
        return
    print(f"Spark standalone master {status['master']} (web UI {status['ui']})")
    print(f"Spark Connect: {status['connect'] or '-'}")
    for w in status["workers"]:
        print(
            f"  {w['name']}  {w['url']}  {w['cores']} cores  {w['memory']}  {w['state']}"
            f"  (UI {w['ui']})"
        )
    print(f"executors' Python: {status['python']}  folder: {status['dir']}")


def _run_spark(args: argparse.Namespace, as_json: bool) -> int:
    cluster = SparkDevCluster(args.spark_dir)
    try:
        match args.spark_action:
            case "up":
                cluster.up(
                    args.workers,
                    connect=args.connect,
                    cores=args.cores,
                    worker_memory=args.worker_memory,
                    timeout=args.timeout,
                )
                _print_spark_status(cluster.status(), as_json)
            case "status":
                _print_spark_status(cluster.status(), as_json)
            case "down":
                done = cluster.down()
                print("stopped and removed" if done else f"no Spark cluster in {cluster.root}")
    except SparkClusterError as exc:
        print(f"kafka-tui dev-cluster spark: {exc}", file=sys.stderr)
        return 2
    return 0


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
    if kerberos := status.get("kerberos"):
        print(
            f"security: {kerberos['protocol']} GSSAPI, realm {kerberos['realm']}, KDC "
            f"{kerberos['kdc']}, krb5.conf {kerberos['krb5_conf']}, keytabs of "
            f"{', '.join(kerberos['users'])} (`dev-cluster profile NAME --user USER`)"
        )
    if security := status.get("security"):
        print(
            f"security: {security['protocol']} {security['mechanism']}, CA {security['ca_file']}, "
            f"users {', '.join(security['users'])} (`dev-cluster password USER` prints one)"
        )
        if oidc := security.get("oidc"):
            print(
                f"OIDC issuer: {oidc['issuer']}, token endpoint {oidc['token_endpoint_url']}, "
                f"client ids {', '.join(oidc['client_ids'])} (secrets: the users' passwords), "
                f"tokens live {oidc['token_lifetime_s']}s"
            )
    if schemas := status.get("schema_registry"):
        state = "running" if schemas["running"] else "STOPPED"
        print(f"schema registry: {schemas['url']} {state} ({schemas['version']})")


def _toml_string(text: str) -> str:
    # A JSON string of printable text is a valid TOML basic string.
    return json.dumps(text)


def password_env(profile: str) -> str:
    return "KAFKA_TUI_" + re.sub(r"[^A-Z0-9]", "_", profile.upper()) + "_PASSWORD"


def profile_toml(name: str, status: dict[str, Any], user: str | None, password_command: str) -> str:
    """A `[profiles.NAME]` table reaching this cluster; secured: as `user` (default admin),
    the password named by environment variable, never written out."""
    key = name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else _toml_string(name)
    security = status.get("security")
    lines = [
        f"# kafka-tui dev cluster ({status['mode']}, Kafka {status['kafka_version']}) "
        f"in {status['dir']}"
    ]
    entries: dict[str, str] = {"bootstrap_servers": status["bootstrap_servers"]}
    if security:
        user = user or ADMIN
        variable = password_env(name)
        lines.append(f"# export {variable}=$({password_command} {user})")
        entries |= {
            "security_protocol": security["protocol"],
            "sasl_mechanism": security["mechanism"],
            "sasl_username": user,
            "sasl_password_env": variable,
            "ssl_cafile": security["ca_file"],
        }
        if oidc := security.get("oidc"):
            del entries["sasl_username"], entries["sasl_password_env"]
            lines[-1] = f"# export {variable}=$({password_command} {user})  # the client secret"
            entries |= {
                "sasl_oauthbearer_token_endpoint_url": oidc["token_endpoint_url"],
                "sasl_oauthbearer_client_id": user,
                "sasl_oauthbearer_client_secret_env": variable,
            }
    if kerberos := status.get("kerberos"):
        entries |= kerberos_profile_entries(kerberos, user)
    if status.get("zookeeper"):
        entries["zookeeper_connect"] = status["zookeeper"]
    if status.get("schema_registry"):
        entries["schema_registry_url"] = status["schema_registry"]["url"]
    lines.append(f"[profiles.{key}]")
    lines += [f"{k} = {_toml_string(v)}" for k, v in entries.items()]
    return "\n".join(lines) + "\n"


def _password_command(args: argparse.Namespace) -> str:
    words = ["kafka-tui", "dev-cluster"]
    if args.dir is not None:
        words += ["--dir", str(args.dir.resolve())]
    return shlex.join([*words, "password"])


def _class_archives(version: str, mode: Mode) -> None:
    """The JVMs' class-data-sharing archives of `version` (class_archive.py), once."""
    import tempfile
    import time

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="kafka-tui-cds-") as work:
        if write_class_archives(version, mode, Path(work)):
            took = time.monotonic() - started
            print(f"Kafka {version}: class archives for its {mode} JVMs written in {took:.0f}s")


def _status(cluster: DevCluster) -> dict[str, Any]:
    status = cluster.status()
    if schemas := registry.status(cluster.root):
        status["schema_registry"] = schemas
    return status


def run(args: argparse.Namespace, output: str) -> int:
    as_json = (getattr(args, "output", None) or output) == "json"
    if args.dev_action == "spark":
        return _run_spark(args, as_json)
    cluster = DevCluster(args.dir)
    try:
        match args.dev_action:
            case "up":
                kept = registry.load(cluster.root)
                cluster.up(
                    args.mode,
                    args.brokers,
                    args.timeout,
                    security=args.security,
                    kafka_version=args.kafka_version,
                    token_lifetime_s=args.token_lifetime,
                )
                registry.stop_replaced(cluster.root, kept)
                if args.schema_registry:
                    schemas = registry.up(cluster.root, timeout=args.timeout)
                    if args.security == "plaintext":
                        registry.seed_avro_topic(cluster.bootstrap_servers(), schemas.url)
                _print_status(_status(cluster), as_json)
            case "fetch":
                asked = [(v, choose(None, v)[0]) for v in args.kafka_version or ()]
                for version, mode in asked or [(KRAFT_VERSION, "kraft"), (ZK_VERSION, "zk")]:
                    jars = ensure_kafka(version)
                    verb = (
                        f"fetched in {jars.fetch_seconds:.0f}s"
                        if jars.fetch_seconds is not None
                        else "cached"
                    )
                    print(f"Kafka {version}: {verb}, {jars.size_bytes / 1e6:.0f} MB in {jars.libs}")
                    _class_archives(version, mode)
                # The one-JVM storage format's launcher (storage_format.py), compiled once here
                # rather than by the first clusters' starts side by side.
                if storage_format.launcher() is None:
                    print(
                        "javac not found: each KRaft node's storage is formatted in a JVM "
                        "of its own"
                    )
            case "status":
                _print_status(_status(cluster), as_json)
            case "profile":
                status = _status(cluster)
                if args.user is not None and not {"security", "kerberos"} & set(status):
                    raise ClusterError("--user needs a secured cluster (up --security sasl_ssl)")
                print(profile_toml(args.name, status, args.user, _password_command(args)), end="")
            case "password":
                state = cluster.load()
                if state is None or state.security is None:
                    where = "no" if state is None else f"a {state.security_name}"
                    raise ClusterError(
                        f"{where} dev cluster in {cluster.root}; passwords exist "
                        "only on `up --security sasl_ssl` clusters"
                    )
                print(state.security.users[args.user])
            case "down":
                traffic.stop(cluster.root)
                registry.down(cluster.root)
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
