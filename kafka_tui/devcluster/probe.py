"""Readiness probes: is a port open, is ZooKeeper serving, which brokers does a broker list."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import socket

from aiokafka.client import AIOKafkaClient
from aiokafka.errors import KafkaError


def free_ports(count: int) -> list[int]:
    """Distinct free loopback ports (all sockets are held until every port is picked)."""
    with contextlib.ExitStack() as stack:
        ports = []
        for _ in range(count):
            sock = stack.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
            sock.bind(("127.0.0.1", 0))
            ports.append(sock.getsockname()[1])
        return ports


def port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(1.0)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def zookeeper_ok(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2.0) as sock:
            sock.sendall(b"ruok")
            return sock.recv(16) == b"imok"
    except OSError:
        return False


async def _brokers_seen_by(port: int) -> set[int] | None:
    client = AIOKafkaClient(
        bootstrap_servers=f"127.0.0.1:{port}",
        request_timeout_ms=5000,
        client_id="kafka-tui-devcluster-probe",
    )
    try:
        await client.bootstrap()
        return {broker.nodeId for broker in client.cluster.brokers()}
    except (KafkaError, OSError):
        return None
    finally:
        await client.close()


def brokers_seen_by(port: int) -> set[int] | None:
    """Broker ids listed in the Metadata answer of the broker on `port`; None if it can't answer.

    The bootstrap request goes to that broker only, so this proves the broker itself is
    serving metadata, not just that some broker is.
    """
    if not port_open(port):
        return None
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_brokers_seen_by(port))
    # Called from async code (a test, the TUI): run the probe on a loop of its own.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, _brokers_seen_by(port)).result()
