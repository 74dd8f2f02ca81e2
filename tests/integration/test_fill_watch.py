"""`placeholders fill --watch` run as a service would run it, on both real clusters: two
watchers at once, a broker that joins gets the placeholders within a round, no partition is
filled twice, and SIGTERM ends each watcher cleanly."""

from __future__ import annotations

import asyncio
import json
import queue
import signal
import subprocess
import sys
import threading
import time
import uuid
from typing import Any

import pytest

from ..conftest import Cluster
from .test_kip409 import _describe, cli

ROUND_S = 0.5


class Watcher:
    """A `placeholders fill --watch` process; its stdout lines (one JSON list per round) are
    read as they come."""

    def __init__(self, cluster: Cluster) -> None:
        command = [sys.executable, "-m", "kafka_tui.cli", "--output", "json"]
        command += ["--bootstrap-server", cluster.bootstrap_servers]
        if cluster.zookeeper:
            command += ["--zookeeper", cluster.zookeeper]
        command += ["placeholders", "fill", "--watch", "--interval", str(ROUND_S)]
        self.process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        self.lines: queue.Queue[tuple[float, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put((time.monotonic(), json.loads(line)))

    def round_where(self, wanted: Any, timeout_s: float) -> tuple[float, list[Any]]:
        deadline = time.monotonic() + timeout_s
        while (left := deadline - time.monotonic()) > 0:
            try:
                at, results = self.lines.get(timeout=left)
            except queue.Empty:
                break
            if wanted(results):
                return at, results
        raise AssertionError(f"no such round within {timeout_s}s; stderr: {self.stop()[1]}")

    def stop(self) -> tuple[int, str]:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        _, err = self.process.communicate(timeout=60)
        return self.process.returncode, err


def _of(topic: str, results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in results if r["topic"] == topic]


def test_two_watchers_fill_a_joining_broker_once_and_stop_on_sigterm(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    cluster.restore()
    topic = f"kip409-watched-{uuid.uuid4().hex[:6]}"
    code, results = cli(
        capsys,
        cluster,
        "topics",
        "create",
        topic,
        "--partitions",
        "2",
        "--replication-factor",
        "4",
        "--under-replicated",
        "enabled",
    )
    assert code == 0, results
    watchers = [Watcher(cluster), Watcher(cluster)]
    added = None
    try:
        for w in watchers:  # each waits, as no broker can take the placeholders yet
            w.round_where(
                lambda rs: [r["error"] for r in _of(topic, rs)] == ["NO_BROKER_AVAILABLE"] * 2, 60
            )
        added = cluster.dev.add_broker()
        joined = time.monotonic()
        filled = []
        for w in watchers:
            at, rs = w.round_where(
                lambda rs: all(r["error"] != "NO_BROKER_AVAILABLE" for r in _of(topic, rs)), 120
            )
            filled += [r for r in _of(topic, rs) if r["ok"]]
            # Within a round of the broker's registration (a copy of an empty partition
            # takes a moment; a round in flight when it joined may not have seen it).
            assert at - joined < 60
        # Each partition was filled by one watcher or the other (the second found it being
        # moved, or filled already, or sent the very same target); the replica counts below
        # show that none was filled twice.
        assert {r["partition"] for r in filled} == {0, 1}
        assert all(r["added"] == [added.id] for r in filled)
        stopped = [w.stop() for w in watchers]
        assert [code for code, _ in stopped] == [0, 0], stopped
        assert all("Traceback" not in err for _, err in stopped), stopped
        parts = asyncio.run(_describe(cluster, topic, lambda ps: all(len(p.isr) == 4 for p in ps)))
        assert all(sorted(p.replicas) == [1, 2, 3, added.id] for p in parts)
        code, rows = cli(capsys, cluster, "placeholders", "list")
        assert _of(topic, rows) == []
    finally:
        for w in watchers:
            w.stop()
        cli(capsys, cluster, "topics", "delete", topic, "--yes")
        if added is not None:
            cluster.dev.remove_broker(added.id)
            cli(capsys, cluster, "brokers", "forget", str(added.id), "--yes")
