"""A broker lost in the middle of a batch change, on both real clusters: every topic is
reported, and each report matches the cluster's metadata afterwards.

The broker the change goes to is frozen (SIGSTOP) just as the request leaves, so its answer
is lost every time (a kill would race with a fast answer); afterwards it is killed and
restarted. The product must then find out by metadata what happened and send the rest
again elsewhere — never report a created topic as failed, or a missing one as created.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from kafka_tui.admin import ConnectionSettings, KafkaAdmin, TopicSpec
from kafka_tui.admin.connection import poll_until
from kafka_tui.admin.protocol import CreateTopicsRequest, DeleteTopicsRequest

from .conftest import Cluster


def _freeze_first(admin: KafkaAdmin, cluster: Cluster, kind: type) -> list[int]:
    """Freeze the broker the first `kind` request is sent to, as it is sent."""
    frozen: list[int] = []
    original: Callable[..., Awaitable[Any]] = admin.client.send
    pids = {b["id"]: b["pid"] for b in cluster.dev.status()["brokers"]}

    async def send(node_id: int, request: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(request, kind) and not frozen:
            os.kill(pids[node_id], signal.SIGSTOP)
            frozen.append(node_id)
        return await original(node_id, request, *args, **kwargs)

    admin.client.send = send  # type: ignore[method-assign]
    return frozen


async def _kill(cluster: Cluster, broker: int) -> None:
    """SIGKILL the frozen broker and wait until it is gone, so that `restore()` sees it
    stopped and starts it again (a kill is asynchronous: a check right after it can still
    find the process)."""
    await asyncio.to_thread(cluster.dev.stop_broker, broker, kill=True)


async def _existing(
    cluster: Cluster, names: list[str], settled: Callable[[set[str]], bool]
) -> set[str]:
    async with KafkaAdmin(ConnectionSettings(cluster.bootstrap_servers)) as admin:

        async def check() -> set[str] | None:
            found, _ = await admin.describe_topics(names, configs=False)
            exist = {t.name for t in found}
            return exist if settled(exist) else None

        result = await poll_until(check, time.monotonic() + 60)
        assert result is not None
        return result


@pytest.mark.timeout(300)
async def test_a_broker_lost_mid_create_and_mid_delete_loses_no_result(cluster: Cluster) -> None:
    stem = f"fault-{uuid.uuid4().hex[:6]}"
    names = [f"{stem}-{i:04d}" for i in range(300)]
    settings = ConnectionSettings(cluster.bootstrap_servers, request_timeout_ms=5_000)
    frozen: list[int] = []
    try:
        async with KafkaAdmin(settings) as admin:
            frozen = _freeze_first(admin, cluster, CreateTopicsRequest)
            specs = [TopicSpec(n, 1, 1) for n in names]
            results = await admin.create_topics(specs, timeout_ms=10_000)
            assert frozen, "the create request was never sent"
        await _kill(cluster, frozen[0])
        assert [r.topic for r in results] == names
        reported = {r.topic for r in results if r.ok}
        exist = await _existing(cluster, names, lambda e: e >= reported)
        timed_out = {r.topic for r in results if r.error == "REQUEST_TIMED_OUT"}
        # Nothing reported created is missing; nothing reported failed exists (a timeout is
        # "may still complete", the only honest answer when the change cannot be confirmed).
        assert reported <= exist and not (exist - reported - timed_out)
        # The frozen broker never read the request: everything was sent again elsewhere
        # (KRaft: another broker forwards; ZooKeeper mode: once a new controller is elected).
        assert all(r.ok for r in results), [r.message for r in results if not r.ok][:3]
        cluster.restore()

        async with KafkaAdmin(settings) as admin:
            frozen = _freeze_first(admin, cluster, DeleteTopicsRequest)
            deleted = await admin.delete_topics(sorted(exist), timeout_ms=10_000)
            assert frozen
        await _kill(cluster, frozen[0])
        gone = {r.topic for r in deleted if r.ok}
        still = await _existing(cluster, sorted(exist), lambda e: not (e & gone))
        assert not (still & gone)
        assert all(r.ok or r.error == "REQUEST_TIMED_OUT" for r in deleted)
    finally:
        # A broker left frozen by a failed assertion would look alive to restore().
        for broker in frozen:
            await _kill(cluster, broker)
        cluster.restore()
