"""kafka-tui's own connections to the brokers, through aiokafka's public connection only.

aiokafka's client refreshes its metadata every 300 s and after each forced update, asking for
every topic and decoding the answer on the event loop (0.2-0.6 s with 10,000 topics: a
periodic freeze of the TUI); keeping that refresh to the brokers meant overriding its
private methods. kafka-tui needs none of it: `Transport` holds one connection per broker
(`aiokafka.conn.create_conn`, then the connection's `send`, `connected` and `close`), opened
when first needed and again after it broke, and a `BrokerMap` of its own — which brokers
exist, where — filled from Metadata answers about no topic (`protocol.MetadataRequest([])`:
brokers, controller, cluster id, never a topic) on connecting and when a caller asks for a
refresh, and from the brokers every other Metadata answer lists. Nothing runs in the
background.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterable
from typing import Any, NamedTuple

from aiokafka.conn import AIOKafkaConnection
from aiokafka.errors import KafkaConnectionError, KafkaError, NodeNotReadyError
from aiokafka.protocol.admin import ApiVersionRequest

from . import protocol, routing

# aiokafka's create_conn, with kafka-tui's own GSSAPI login where the settings ask for it.
from .kerberos_login import open_connection as create_conn

# aiokafka's client closes a connection idle this long (brokers close theirs after 10 min).
MAX_IDLE_MS = 540_000
CLOSE_WAIT_S = 2.0


class BrokerAddress(NamedTuple):
    node_id: int
    host: str
    port: int
    rack: str | None

    @property
    def nodeId(self) -> int:
        """The id as aiokafka's BrokerMetadata spells it, which admin modules still read."""
        return self.node_id


def bootstrap_addresses(servers: str) -> list[tuple[str, int]]:
    """`host:port,host:port` (an IPv6 host in brackets) as (host, port) pairs, in order."""
    found: list[tuple[str, int]] = []
    for entry in servers.split(","):
        host, _, port = entry.strip().rpartition(":")
        if host and port.isdigit():
            found.append((host.strip("[]"), int(port)))
    return found


class BrokerMap:
    """Which brokers exist and where (node id -> host, port, rack), the controller the last
    refresh named and when (time.monotonic()), and the cluster's id."""

    def __init__(self) -> None:
        self._brokers: dict[int, BrokerAddress] = {}
        self.controller: int | None = None
        self.refreshed_at: float | None = None
        self.cluster_id: str | None = None

    def brokers(self) -> list[BrokerAddress]:
        return [self._brokers[n] for n in sorted(self._brokers)]

    def node_ids(self) -> list[int]:
        return sorted(self._brokers)

    def address(self, node_id: int) -> BrokerAddress | None:
        return self._brokers.get(node_id)

    def learn(self, answer: protocol.Metadata | protocol.MetadataLoad, refreshed: bool) -> None:
        """Take the brokers a Metadata answer lists (an answer listing none changes nothing:
        a broker still starting); `refreshed`: an answer to a refresh, whose controller is
        the one `recent_controller` may use."""
        if answer.brokers:
            self._brokers = {
                b.node_id: BrokerAddress(b.node_id, b.host, b.port, b.rack) for b in answer.brokers
            }
        self.cluster_id = answer.cluster_id or self.cluster_id
        if refreshed and answer.brokers:
            named = answer.controller_id
            self.controller = named if named in self._brokers else None
            self.refreshed_at = time.monotonic()


class Link:
    """One broker's connection: opened when first needed, opened again once it broke."""

    def __init__(self, host: str, port: int, options: dict[str, Any]) -> None:
        self.host = host
        self.port = port
        self._options = options
        self._conn: AIOKafkaConnection | None = None
        self._opening = asyncio.Lock()
        self._versions: dict[int, tuple[int, int]] | None = None
        # OAUTHBEARER (oauth.py): the token generation the connection logged in with.
        self._tokens = options.get("sasl_oauth_token_provider")
        self._generation = 0
        self._retired: set[AIOKafkaConnection] = set()

    def adopt(self, conn: AIOKafkaConnection) -> None:
        """Use `conn`, opened already (the connection bootstrapping went through)."""
        self.close()
        self._conn = conn
        self._generation = getattr(self._tokens, "generation", 0)

    def connected(self) -> bool:
        return self._conn is not None and bool(self._conn.connected())

    def _usable(self) -> bool:
        """Connected, and not logged in with a token near its end: aiokafka does not
        re-authenticate, and the broker closes a connection at its first request after
        the session's end (connections.max.reauth.ms, the token's exp)."""
        if not self.connected():
            return False
        return self._tokens is None or not self._tokens.outdated(self._generation)

    async def open(self) -> AIOKafkaConnection:
        if self._conn is not None and self._usable():
            return self._conn
        async with self._opening:
            if self._conn is not None and self._usable():
                return self._conn
            self._retire()
            # Taken before the login: a token refreshed meanwhile only reopens it sooner.
            generation = getattr(self._tokens, "generation", 0)
            self._conn = await create_conn(self.host, self.port, **self._options)
            self._generation = generation
            return self._conn

    def _retire(self) -> None:
        """Drop the connection; one still logged in is closed once its token ends, so that
        answers already on their way over it arrive."""
        old, self._conn, self._versions = self._conn, None, None
        if old is None:
            return
        expires = getattr(self._tokens, "expires_at", None)
        if not old.connected() or expires is None:
            old.close()
            return
        self._retired.add(old)

        def close() -> None:
            self._retired.discard(old)
            old.close()

        asyncio.get_running_loop().call_later(max(expires - time.monotonic(), 0.0) + 1, close)

    async def api_versions(self) -> dict[int, tuple[int, int]]:
        """The broker's API versions (API key -> (min, max)), asked once per connection."""
        conn = await self.open()
        if self._versions is None:
            answer = await conn.send(ApiVersionRequest())
            self._versions = {key: (low, high) for key, low, high in answer.api_versions}
        return self._versions

    def known_versions(self) -> dict[int, tuple[int, int]] | None:
        """The API versions asked of this connection, if it is open and they were asked."""
        return self._versions if self.connected() else None

    def close(self) -> asyncio.Future[None] | None:
        """Close the connection; returns the future its socket's closing completes, if open."""
        closing = None
        if self._conn is not None:
            closing = self._conn.close()
        for old in self._retired:
            old.close()
        self._retired.clear()
        self._conn = None
        self._versions = None
        return closing


class Transport:
    """The brokers of one cluster: `send(node_id, request)` to a broker of the `cluster`
    map; `refresh()` learns the brokers again."""

    def __init__(
        self,
        bootstrap_servers: str,
        *,
        client_id: str,
        request_timeout_ms: int,
        refresh_timeout_s: float,
        security: dict[str, Any],
    ) -> None:
        self.bootstrap_servers = bootstrap_servers
        self.cluster = BrokerMap()
        # A broker that stopped answering holds a refresh this long at most.
        self.refresh_timeout_s = refresh_timeout_s
        self._options: dict[str, Any] = {
            "client_id": client_id,
            "request_timeout_ms": request_timeout_ms,
            "max_idle_ms": MAX_IDLE_MS,
            **security,
        }
        self._links: dict[int, Link] = {}
        self._suspect: set[int] = set()
        self._refreshing: asyncio.Task[bool] | None = None
        self._closed = False

    async def bootstrap(self) -> None:
        """Learn the brokers from the first bootstrap server that answers; its connection is
        kept as its broker's own when the broker's address is the one connected to."""
        failures: list[str] = []
        for host, port in bootstrap_addresses(self.bootstrap_servers):
            try:
                conn = await create_conn(host, port, **self._options)
            except (OSError, KafkaError, TimeoutError) as exc:
                failures.append(f"{host}:{port}: {str(exc) or type(exc).__name__}")
                continue
            try:
                answer = protocol.MetadataRequest.answer(
                    await conn.send(protocol.MetadataRequest([]))
                )
            except (KafkaError, OSError, TimeoutError) as exc:
                conn.close()
                failures.append(f"{host}:{port}: {str(exc) or type(exc).__name__}")
                continue
            self._learn(answer, refreshed=True)
            same = [b for b in self.cluster.brokers() if (b.host, b.port) == (host, port)]
            link = self._link(same[0].node_id) if same else None
            if link is not None and not link.connected():
                link.adopt(conn)
            else:
                conn.close()
            if self.cluster.brokers():
                return
        raise KafkaConnectionError(
            f"Unable to bootstrap from {self.bootstrap_servers}: {'; '.join(failures)}"
        )

    async def send(self, node_id: int, request: Any) -> Any:
        """Send `request` to broker `node_id`, connecting first if need be; the brokers its
        answer lists (a Metadata answer) update the map."""
        return await self._deliver(node_id, request)

    async def _deliver(self, node_id: int, request: Any) -> Any:
        # (`send` is what kafka-tui's requests go through, and tests wrap it; a refresh is
        # the transport's own business and goes here directly.)
        link = self._link(node_id)
        try:
            conn = await link.open()
        except asyncio.CancelledError:
            self._suspect.add(node_id)
            raise
        except (OSError, KafkaError, TimeoutError) as exc:
            self._suspect.add(node_id)
            raise NodeNotReadyError(
                f"Cannot connect to broker {node_id} at {link.host}:{link.port}: "
                f"{str(exc) or type(exc).__name__}"
            ) from exc
        try:
            response = await conn.send(request)
        except (KafkaConnectionError, TimeoutError, asyncio.CancelledError):
            self._suspect.add(node_id)
            raise
        self._suspect.discard(node_id)
        if isinstance(response, protocol.Metadata | protocol.MetadataLoad):
            self._learn(response, refreshed=False)
        return response

    async def api_versions(self, node_id: int) -> dict[int, tuple[int, int]]:
        """Broker `node_id`'s API versions (connecting if need be)."""
        return await self._link(node_id).api_versions()

    def known_api_versions(self) -> Iterable[dict[int, tuple[int, int]]]:
        """The API versions already asked of the brokers connected to (no request)."""
        for link in self._links.values():
            versions = link.known_versions()
            if versions is not None:
                yield versions

    def refresh(self) -> asyncio.Future[bool]:
        """Learn the brokers again (True: a broker answered), from the known brokers, else
        from the bootstrap servers; one refresh at a time, shared by its callers (shield it
        before bounding the wait)."""
        if self._refreshing is None or self._refreshing.done():
            self._refreshing = asyncio.ensure_future(self._refresh())
        return self._refreshing

    async def _refresh(self) -> bool:
        try:
            for node in routing.refresh_order(self.cluster.node_ids(), self._suspect):
                if self._closed:
                    return False
                with contextlib.suppress(KafkaError, OSError, TimeoutError):
                    answer = await asyncio.wait_for(
                        self._deliver(node, protocol.MetadataRequest([])), self.refresh_timeout_s
                    )
                    self._learn(protocol.MetadataRequest.answer(answer), refreshed=True)
                    return True
            if self._closed:
                return False
            with contextlib.suppress(KafkaError, OSError, TimeoutError):
                await asyncio.wait_for(self.bootstrap(), self.refresh_timeout_s)
                return True
            return False
        except asyncio.CancelledError:
            return False  # closed

    def _learn(self, answer: protocol.Metadata | protocol.MetadataLoad, refreshed: bool) -> None:
        self.cluster.learn(answer, refreshed)
        for node, link in list(self._links.items()):
            now = self.cluster.address(node)
            if now is not None and (now.host, now.port) != (link.host, link.port):
                # The broker moved (restarted elsewhere): its old connection is closed.
                link.close()
                del self._links[node]

    def _link(self, node_id: int) -> Link:
        link = self._links.get(node_id)
        if link is None:
            address = self.cluster.address(node_id)
            if address is None:
                raise NodeNotReadyError(f"Broker {node_id} is not in the cluster's metadata.")
            link = self._links[node_id] = Link(address.host, address.port, self._options)
        return link

    async def close(self) -> None:
        self._closed = True
        task = self._refreshing
        # Python 3.11's wait_for can swallow a cancellation that arrives as its inner call
        # completes (fixed in 3.12): cancel until the refresh has ended.
        while task is not None and not task.done():
            task.cancel()
            await asyncio.wait({task}, timeout=0.1)
        self._refreshing = None
        closing = [f for f in (link.close() for link in self._links.values()) if f is not None]
        self._links.clear()
        if closing:
            # Pending bytes are flushed as the sockets close (bounded: a frozen broker reads
            # nothing).
            await asyncio.wait(closing, timeout=CLOSE_WAIT_S)
