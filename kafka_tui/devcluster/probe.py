"""Talking to the nodes: readiness probes (is a port open, is ZooKeeper serving, which brokers
does a broker list), and on secured clusters the users and ACLs that give the roles.

Every probe of a secured cluster logs in as `admin` over SASL_SSL, trusting the cluster's CA.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import socket
import ssl
from collections.abc import Coroutine, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from aiokafka.client import AIOKafkaClient
from aiokafka.errors import KafkaError
from aiokafka.protocol.admin import CreateAclsRequest_v1, DescribeAclsRequest
from aiokafka.protocol.api import Request

from .security import MECHANISM, PROTOCOL, AclEntry, new_salt, scram_credential

T = TypeVar("T")

# Kafka's enum codes (org.apache.kafka.common.resource / acl).
_RESOURCE_TYPES = {"ANY": 1, "TOPIC": 2, "CLUSTER": 4}
_PATTERN_TYPES = {"ANY": 1, "LITERAL": 3, "PREFIXED": 4}
_OPERATIONS = {
    "ANY": 1,
    "CREATE": 5,
    "DELETE": 6,
    "ALTER": 7,
    "DESCRIBE": 8,
    "DESCRIBE_CONFIGS": 10,
}
_ALLOW = 3
_ANY = 1


class ProbeError(RuntimeError):
    """A broker refused what the dev cluster asked of it."""


@dataclass(frozen=True)
class ClientAuth:
    """How the dev cluster itself logs in to a secured cluster."""

    ca_file: str
    username: str
    password: str = field(repr=False)

    def aiokafka_kwargs(self) -> dict[str, Any]:
        context = ssl.create_default_context(cafile=self.ca_file)
        return {
            "security_protocol": PROTOCOL,
            "ssl_context": context,
            "sasl_mechanism": MECHANISM,
            "sasl_plain_username": self.username,
            "sasl_plain_password": self.password,
        }


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
    """ZooKeeper serves sessions. Not `ruok`: it answers imok as soon as the client port is
    bound, before the server has loaded its data, and a session opened then is closed at
    once. `srvr` says "not currently serving requests" until it serves, then its Mode."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2.0) as sock:
            sock.sendall(b"srvr")
            answer = b""
            while chunk := sock.recv(4096):
                answer += chunk
            return b"Mode: " in answer
    except OSError:
        return False


def _run(coro: Coroutine[Any, Any, T]) -> T:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    # Called from async code (a test, the TUI): run the probe on a loop of its own.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


def _client(port: int, auth: ClientAuth | None) -> AIOKafkaClient:
    return AIOKafkaClient(
        bootstrap_servers=f"127.0.0.1:{port}",
        request_timeout_ms=5000,
        client_id="kafka-tui-devcluster-probe",
        **(auth.aiokafka_kwargs() if auth else {}),
    )


async def _brokers_seen_by(port: int, auth: ClientAuth | None) -> set[int] | None:
    client = _client(port, auth)
    try:
        await client.bootstrap()
        return {broker.nodeId for broker in client.cluster.brokers()}
    except (KafkaError, OSError):
        return None
    finally:
        await client.close()


def brokers_seen_by(port: int, auth: ClientAuth | None = None) -> set[int] | None:
    """Broker ids listed in the Metadata answer of the broker on `port`; None if it can't answer.

    The bootstrap request goes to that broker only, so this proves the broker itself is
    serving metadata, not just that some broker is.
    """
    if not port_open(port):
        return None
    return _run(_brokers_seen_by(port, auth))


# -- ACLs -----------------------------------------------------------------------------------


class _CreateAcls(Request[CreateAclsRequest_v1]):
    """CreateAcls (30) v1 with many creations; aiokafka's own request carries one. v1 is the
    lowest version Kafka 4.x still accepts, and 3.9 accepts it too."""

    API_KEY = 30

    def __init__(self, entries: Iterable[AclEntry]) -> None:
        self.entries = list(entries)

    def build(self, request_struct_class: type[CreateAclsRequest_v1]) -> CreateAclsRequest_v1:
        return request_struct_class([_acl_tuple(e) for e in self.entries])


def _acl_tuple(e: AclEntry) -> tuple[int, str, int, str, str, int, int]:
    return (
        _RESOURCE_TYPES[e.resource_type],
        e.resource_name,
        _PATTERN_TYPES[e.pattern_type],
        e.principal,
        "*",
        _OPERATIONS[e.operation],
        _ALLOW,
    )


async def _on_bootstrap_broker(port: int, auth: ClientAuth | None, request: Request[Any]) -> Any:
    """`request`'s answer from the broker on `port` itself; None while it does not list itself."""
    client = _client(port, auth)
    try:
        await client.bootstrap()
        nodes = [b.nodeId for b in client.cluster.brokers() if b.port == port]
        return await client.send(nodes[0], request) if nodes else None
    finally:
        await client.close()


def create_acls(port: int, auth: ClientAuth | None, entries: Iterable[AclEntry]) -> None:
    """Create ACLs through the broker on `port` (creating an existing ACL is no error)."""
    try:
        response = _run(_on_bootstrap_broker(port, auth, _CreateAcls(entries)))
    except (KafkaError, OSError) as exc:
        raise ProbeError(f"CreateAcls through the broker on port {port} failed: {exc!r}") from None
    if response is None:
        raise ProbeError(f"the broker on port {port} does not list itself in its metadata")
    failed = [r for r in response.creation_responses if r[0] != 0]
    if failed:
        raise ProbeError(f"CreateAcls failed: {failed}")


def acls_seen_by(
    port: int, auth: ClientAuth | None
) -> set[tuple[int, str, int, str, str, int, int]]:
    """Every ACL the broker on `port` enforces, as CreateAcls tuples; empty if it can't answer."""
    if not port_open(port):
        return set()
    request = DescribeAclsRequest(_ANY, None, _ANY, None, None, _ANY, _ANY)
    try:
        response = _run(_on_bootstrap_broker(port, auth, request))
    except (KafkaError, OSError):
        return set()
    if response is None or response.error_code != 0:
        return set()
    return {
        (resource_type, name, pattern, principal, host, operation, permission)
        for resource_type, name, pattern, acls in response.resources
        for principal, host, operation, permission in acls
    }


def wanted_acls(entries: Iterable[AclEntry]) -> set[tuple[int, str, int, str, str, int, int]]:
    return {_acl_tuple(e) for e in entries}


# -- ZooKeeper-mode users ----------------------------------------------------------------------


def write_zk_scram_users(zk_port: int, users: dict[str, str], timeout: float = 60.0) -> None:
    """Store SCRAM-SHA-512 credentials under /config/users/<name>, as `ConfigCommand
    --zookeeper --alter --add-config 'SCRAM-SHA-512=[password=...]'` does. Brokers read them
    at start-up, so no change notification is needed before they start.

    Kazoo's default reconnection backs off exponentially without a cap worth the name
    (0.1 s doubling up to an hour): a few refused attempts while a loaded machine's ZooKeeper
    still starts put the next one past any start-up timeout. Retry at least every second."""
    from kazoo.client import KazooClient

    zk = KazooClient(
        hosts=f"127.0.0.1:{zk_port}",
        timeout=30.0,
        connection_retry={"max_tries": -1, "delay": 0.1, "backoff": 2, "max_delay": 1.0},
    )
    zk.start(timeout=timeout)
    try:
        for user, password in users.items():
            config = {"version": 1, "config": {MECHANISM: scram_credential(password, new_salt())}}
            path = f"/config/users/{user}"
            data = json.dumps(config).encode()
            if zk.exists(path):
                zk.set(path, data)
            else:
                zk.create(path, data, makepath=True)
    finally:
        zk.stop()
        zk.close()
