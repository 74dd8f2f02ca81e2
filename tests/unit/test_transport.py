"""kafka-tui's own broker connections (admin/transport.py) over fake aiokafka connections:
bootstrap, one connection per broker reused, a broken one opened again, refreshes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest
from aiokafka.errors import KafkaConnectionError, NodeNotReadyError
from aiokafka.protocol.admin import ApiVersionRequest

from kafka_tui.admin import protocol, transport
from kafka_tui.admin.protocol import Metadata, MetadataBroker
from kafka_tui.admin.transport import Transport


def _metadata(brokers: dict[int, int], controller: int) -> Metadata:
    listed = [MetadataBroker(n, "h", port, None, {}) for n, port in sorted(brokers.items())]
    return Metadata(0, listed, "cluster-a", controller, [], {})


class FakeConn:
    def __init__(self, cluster: FakeCluster, port: int) -> None:
        self.cluster = cluster
        self.port = port
        self.open = True
        self.sent: list[str] = []

    def connected(self) -> bool:
        return self.open

    def close(self) -> None:
        self.open = False

    async def send(self, request: Any) -> Any:
        self.sent.append(type(request).__name__)
        if not self.open or self.port in self.cluster.down:
            self.open = False
            raise KafkaConnectionError("broken")
        if self.port in self.cluster.frozen:
            await asyncio.sleep(3600)
        if isinstance(request, ApiVersionRequest):
            return SimpleNamespace(api_versions=[(3, 0, 12), (64, 0, 0)])
        return _metadata(self.cluster.brokers, self.cluster.controller)


class FakeCluster:
    def __init__(self, brokers: dict[int, int], controller: int = 1) -> None:
        self.brokers = brokers
        self.controller = controller
        self.down: set[int] = set()
        self.frozen: set[int] = set()
        self.opened: list[FakeConn] = []

    async def create_conn(self, host: str, port: int, **options: Any) -> FakeConn:
        if port in self.down:
            raise ConnectionRefusedError(f"{host}:{port}")
        assert options["security_protocol"] == "PLAINTEXT"
        conn = FakeConn(self, port)
        self.opened.append(conn)
        return conn


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeCluster:
    cluster = FakeCluster({1: 9091, 2: 9092, 3: 9093})
    monkeypatch.setattr(transport, "create_conn", cluster.create_conn)
    return cluster


def _transport(servers: str = "h:9092") -> Transport:
    return Transport(
        servers,
        client_id="test",
        request_timeout_ms=600_000,
        refresh_timeout_s=0.2,
        security={"security_protocol": "PLAINTEXT"},
    )


def run(test: Callable[[], Any]) -> Any:
    return asyncio.run(test())


def test_bootstrap_learns_the_brokers_and_keeps_the_connection_it_went_through(
    fake: FakeCluster,
) -> None:
    async def test() -> None:
        t = _transport("h:9099,h:9092")
        fake.down.add(9099)
        await t.bootstrap()
        assert t.cluster.node_ids() == [1, 2, 3] and t.cluster.controller == 1
        assert t.cluster.cluster_id == "cluster-a"
        [conn] = fake.opened
        assert conn.port == 9092 and conn.sent == ["MetadataRequest"]
        # The bootstrap connection is broker 2's own: no second connection to it.
        await t.send(2, protocol.MetadataRequest(["t"]))
        assert len(fake.opened) == 1 and conn.sent == ["MetadataRequest"] * 2
        await t.close()
        assert not conn.open

    run(test)


def test_a_bootstrap_that_no_server_answers_is_a_connection_error(fake: FakeCluster) -> None:
    async def test() -> None:
        fake.down |= {9091, 9092}
        with pytest.raises(KafkaConnectionError, match=r"h:9091.*h:9092"):
            await _transport("h:9091,h:9092").bootstrap()

    run(test)


def test_one_connection_per_broker_reused_and_opened_again_once_broken(
    fake: FakeCluster,
) -> None:
    async def test() -> None:
        t = _transport()
        await t.bootstrap()
        await asyncio.gather(*(t.send(3, protocol.MetadataRequest([])) for _ in range(5)))
        to_3 = [c for c in fake.opened if c.port == 9093]
        assert len(to_3) == 1 and len(to_3[0].sent) == 5
        to_3[0].close()  # the broker closed it (restarted)
        await t.send(3, protocol.MetadataRequest([]))
        assert len([c for c in fake.opened if c.port == 9093]) == 2
        # Down: the request fails, as does opening it again, until it is back.
        fake.down.add(9093)
        with pytest.raises(KafkaConnectionError):
            await t.send(3, protocol.MetadataRequest([]))
        with pytest.raises(NodeNotReadyError, match="broker 3 at h:9093"):
            await t.send(3, protocol.MetadataRequest([]))
        fake.down.clear()
        await t.send(3, protocol.MetadataRequest([]))
        with pytest.raises(NodeNotReadyError, match="Broker 9 is not"):
            await t.send(9, protocol.MetadataRequest([]))
        await t.close()

    run(test)


def test_a_metadata_answer_updates_the_map_and_a_moved_broker_is_connected_anew(
    fake: FakeCluster,
) -> None:
    async def test() -> None:
        t = _transport()
        await t.bootstrap()
        await t.send(3, protocol.MetadataRequest([]))
        [old] = [c for c in fake.opened if c.port == 9093]
        fake.brokers = {1: 9091, 2: 9092, 3: 9193, 4: 9094}
        fake.controller = 4
        await t.send(2, protocol.MetadataRequest(["t"]))
        assert t.cluster.node_ids() == [1, 2, 3, 4]
        assert t.cluster.controller == 1  # a read names no controller; a refresh does
        assert not old.open
        await t.send(3, protocol.MetadataRequest([]))
        assert fake.opened[-1].port == 9193
        await t.close()

    run(test)


def test_a_refresh_skips_a_broker_that_failed_and_is_shared(fake: FakeCluster) -> None:
    async def test() -> None:
        t = _transport()
        await t.bootstrap()
        fake.frozen.add(9091)
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(t.send(1, protocol.MetadataRequest([])), 0.05)
        fake.controller = 3
        first, second = t.refresh(), t.refresh()
        assert first is second
        assert await asyncio.wait_for(first, 1) is True
        assert t.cluster.controller == 3
        # No connection answers: the bootstrap servers are asked again.
        fake.frozen.clear()
        fake.down |= {9091, 9092, 9093}
        assert await t.refresh() is False
        fake.down.clear()
        fake.brokers = {5: 9092}
        fake.down.add(9091)
        fake.down.add(9093)
        assert await t.refresh() is True
        assert t.cluster.node_ids() == [5]
        await t.close()

    run(test)


def test_api_versions_are_asked_once_per_connection(fake: FakeCluster) -> None:
    async def test() -> None:
        t = _transport()
        await t.bootstrap()
        assert list(t.known_api_versions()) == []
        versions = await t.api_versions(2)
        assert versions[64] == (0, 0)
        assert await t.api_versions(2) is versions
        assert list(t.known_api_versions()) == [versions]
        [conn] = fake.opened
        assert conn.sent.count("ApiVersionRequest") == 1
        conn.close()
        assert list(t.known_api_versions()) == []
        await t.close()

    run(test)


def test_close_ends_a_refresh_in_progress(fake: FakeCluster) -> None:
    async def test() -> None:
        t = _transport()
        t.refresh_timeout_s = 3600
        await t.bootstrap()
        fake.frozen |= {9091, 9092, 9093}
        refreshing = t.refresh()
        await asyncio.sleep(0.01)
        await asyncio.wait_for(t.close(), 1)
        assert refreshing.done() and refreshing.result() is False

    run(test)
