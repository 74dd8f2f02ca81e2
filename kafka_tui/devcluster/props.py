"""Configuration files for dev-cluster nodes.

Brokers keep Kafka's production defaults (auto.create.topics.enable=true included, which the
tests rely on to prove that describing never creates a topic), with two exceptions: the
internal topics' replication is lowered when the cluster has fewer than three brokers, and
a deleted topic's files go after 5 s instead of 60 (`log.segment.delete.delay.ms`, the
broker's default for the topic config `file.delete.delay.ms`, which also times the removal
of a deleted partition). Kafka holds a file descriptor per deleted partition until then:
creating and deleting 2,000 topics x 3 partitions every 30 s (bench/bulk_create.py) held
over 20,000 per broker, and a broker whose limit is 20,000 (this kind of machine; raising
it needs privileges a container may lack, see node.py) took its log dirs offline and
stopped.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from .versions import Release

# Settings that replace or add to a node's defaults (a secured cluster's listeners and TLS).
Extra = Mapping[str, str | int] | None

RACKS = ("rack-a", "rack-b", "rack-c")
CONTROLLER_ID = 1000


def rack_for(broker_id: int) -> str:
    return RACKS[(broker_id - 1) % len(RACKS)]


def _write(path: Path, entries: dict[str, str | int]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{k}={v}\n" for k, v in entries.items()))
    return path


def _broker_defaults(brokers: int, found: Release) -> dict[str, str | int]:
    """Only settings `found` knows: a broker logs every unknown one at start-up."""
    rf = min(3, brokers)
    isr = min(2, brokers)
    settings: dict[str, str | int] = {
        "log.segment.delete.delay.ms": 5000,
        "offsets.topic.replication.factor": rf,
        "transaction.state.log.replication.factor": rf,
        "transaction.state.log.min.isr": isr,
    }
    if found.has_share_coordinator():
        settings["share.coordinator.state.topic.replication.factor"] = rf
        settings["share.coordinator.state.topic.min.isr"] = isr
    return settings


def kraft_controller(path: Path, *, port: int, data_dir: Path, extra: Extra = None) -> Path:
    return _write(
        path,
        {
            "process.roles": "controller",
            "node.id": CONTROLLER_ID,
            "controller.quorum.voters": f"{CONTROLLER_ID}@127.0.0.1:{port}",
            "listeners": f"CONTROLLER://127.0.0.1:{port}",
            "controller.listener.names": "CONTROLLER",
            "listener.security.protocol.map": "CONTROLLER:PLAINTEXT",
            "log.dirs": str(data_dir),
            # KIP-835's no-op record every 500 ms (Kafka's default) keeps an idle cluster's
            # metadata log moving; every 5 s does the same for a dev cluster at less CPU: an
            # idle 3-broker cluster 7.4-8.5% -> 6.4% of a core (bench/README.md).
            "metadata.max.idle.interval.ms": 5000,
            **(extra or {}),
        },
    )


def kraft_broker(
    path: Path,
    *,
    broker_id: int,
    port: int,
    controller_port: int,
    data_dir: Path,
    brokers: int,
    found: Release,
    rack: str | None = None,
    extra: Extra = None,
) -> Path:
    return _write(
        path,
        {
            "process.roles": "broker",
            "node.id": broker_id,
            "broker.rack": rack or rack_for(broker_id),
            "controller.quorum.voters": f"{CONTROLLER_ID}@127.0.0.1:{controller_port}",
            "controller.listener.names": "CONTROLLER",
            "listeners": f"PLAINTEXT://127.0.0.1:{port}",
            "advertised.listeners": f"PLAINTEXT://127.0.0.1:{port}",
            "inter.broker.listener.name": "PLAINTEXT",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "log.dirs": str(data_dir),
            **_broker_defaults(brokers, found),
            **(extra or {}),
        },
    )


def zookeeper(path: Path, *, port: int, data_dir: Path) -> Path:
    return _write(
        path,
        {
            "dataDir": str(data_dir),
            "clientPort": port,
            "clientPortAddress": "127.0.0.1",
            "maxClientCnxns": 0,
            "admin.enableServer": "false",
            "4lw.commands.whitelist": "ruok,srvr",
        },
    )


def zk_broker(
    path: Path,
    *,
    broker_id: int,
    port: int,
    zk_port: int,
    data_dir: Path,
    brokers: int,
    found: Release,
    rack: str | None = None,
    extra: Extra = None,
) -> Path:
    return _write(
        path,
        {
            "broker.id": broker_id,
            "broker.rack": rack or rack_for(broker_id),
            "zookeeper.connect": f"127.0.0.1:{zk_port}",
            "listeners": f"PLAINTEXT://127.0.0.1:{port}",
            "advertised.listeners": f"PLAINTEXT://127.0.0.1:{port}",
            "log.dirs": str(data_dir),
            **_broker_defaults(brokers, found),
            **(extra or {}),
        },
    )


def log4j2(path: Path) -> Path:
    """Kafka 4.x (log4j2): everything to stdout, which goes to the node's log file."""
    return _write(
        path,
        {
            "status": "warn",
            "appender.out.type": "Console",
            "appender.out.name": "out",
            "appender.out.layout.type": "PatternLayout",
            "appender.out.layout.pattern": "[%d] %p %m (%c)%n",
            "rootLogger.level": "INFO",
            "rootLogger.appenderRef.out.ref": "out",
            "logger.state.name": "state.change.logger",
            "logger.state.level": "WARN",
        },
    )


def log4j1(path: Path) -> Path:
    """Kafka 2.x-3.x and their ZooKeeper (reload4j): the same, in log4j 1 syntax."""
    return _write(
        path,
        {
            "log4j.rootLogger": "INFO, out",
            "log4j.appender.out": "org.apache.log4j.ConsoleAppender",
            "log4j.appender.out.layout": "org.apache.log4j.PatternLayout",
            "log4j.appender.out.layout.ConversionPattern": "[%d] %p %m (%c)%n",
            "log4j.logger.state.change.logger": "WARN",
        },
    )
