"""Changing the throttle of a running move (`reassignments throttle RATE`), on both real
clusters: a real reassignment of a partition with data, held back by a 1 KB/s throttle, gets
a new rate that every broker involved describes afterwards, with one audit line."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from aiokafka import AIOKafkaProducer

from kafka_tui.admin import ConnectionSettings, KafkaAdmin, TopicSpec
from kafka_tui.admin.reassignments import FOLLOWER_RATE, LEADER_RATE

from ..conftest import Cluster
from .test_cli import run, run_json
from .test_consumer_groups import create

Names = Callable[[str], str]


async def _fill(bootstrap: str, topic: str, records: int, size: int) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=20)
    await producer.start()
    try:
        sent = [await producer.send(topic, os.urandom(size), partition=0) for _ in range(records)]
        await asyncio.gather(*sent)
    finally:
        await producer.stop()


async def _rates(bootstrap: str, brokers: list[int]) -> dict[int, dict[str, str | None]]:
    async with KafkaAdmin(ConnectionSettings(bootstrap)) as admin:
        return {b: await admin.broker_configs(b, [LEADER_RATE, FOLLOWER_RATE]) for b in brokers}


def _start_slow_move(
    capsys: pytest.CaptureFixture[str], cluster: Cluster, topic: str, records: int
) -> None:
    """`topic` on broker 1 with `records` records of 5 kB, moving to broker 2 at 1 KB/s."""
    asyncio.run(create(cluster.bootstrap_servers, TopicSpec(topic, assignment={0: [1]})))
    asyncio.run(_fill(cluster.bootstrap_servers, topic, records, 5000))
    code, moved = run_json(
        capsys,
        cluster,
        *("topics", "reassign", topic, "--replica-assignment", "0=2"),
        *("--throttle", "1000", "--no-wait"),
    )
    assert code == 0, moved


def test_throttle_change_reaches_every_broker_of_the_move(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    topic = topic_name()
    servers = cluster.bootstrap_servers
    _start_slow_move(capsys, cluster, topic, 400)  # ~2 MB: minutes at 1 KB/s
    try:
        assert asyncio.run(_rates(servers, [2]))[2][FOLLOWER_RATE] == "1000"
        code, change = run_json(capsys, cluster, "reassignments", "throttle", "3000000")
        assert code == 0, change
        assert isinstance(change, dict) and change["ok"] is True
        assert {b["broker"] for b in change["brokers"]} >= {1, 2}
        # Read back independently: each broker describes its own new rate.
        shown = asyncio.run(_rates(servers, [1, 2]))
        for broker in (1, 2):
            assert shown[broker] == {LEADER_RATE: "3000000", FOLLOWER_RATE: "3000000"}
        log = Path(os.environ["KAFKA_TUI_AUDIT_LOG"]).read_text().splitlines()
        entry = [json.loads(line) for line in log if '"throttle rate"' in line][-1]
        assert entry["request"]["rate"] == 3000000
        assert entry["result"]["status"] == "ok"
    finally:
        # At 3 MB/s the ~2 MB move may have finished already: then there is nothing to cancel.
        code, _out, err = run(capsys, cluster, "reassignments", "cancel", topic)
        assert code == 0 or "NO_REASSIGNMENT_IN_PROGRESS" in err, err
        run(capsys, cluster, "throttles", "clear", "--yes")


def test_throttle_change_without_a_move_says_so(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _out, err = run(capsys, cluster, "reassignments", "throttle", "1000")
    assert code == 1
    assert "NO_REASSIGNMENT_IN_PROGRESS" in err and "No reassignment is in progress" in err
    code, _out, err = run(capsys, cluster, "reassignments", "throttle", "0")
    assert code == 2 and "at least 1 byte per second" in err


def test_auto_mode_raises_the_rate_while_the_brokers_cope(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    """A move started at a 1 KB/s throttle, handed to `--auto --min 2000`: the rule doubles
    the rate while nothing falls out of sync (an idle dev cluster), each raise read back from
    the brokers, until the move ends; the rates were set before it, so it leaves them."""
    topic = topic_name()
    # ~4 MB: a throttle lets the first fetch (replica.fetch.max.bytes, 1 MB) through at once
    # (the quota is measured over a window): with 1 MB the move was done before a first step.
    _start_slow_move(capsys, cluster, topic, 800)
    try:
        code, auto = run_json(
            capsys,
            cluster,
            "reassignments",
            "throttle",
            "--auto",
            "--min",
            "2000",
            "--max",
            "100000000",
            "--interval",
            "0.5",
            "--latency-limit",
            "5000",
        )
        assert code == 0, auto
        assert isinstance(auto, dict)
        rates = [s["rate"] for s in auto["steps"]]
        assert all(s["verified"] for s in auto["steps"]), auto
        assert len(rates) >= 2 and rates[0] == 2000 and rates[1] == 4000, auto
        assert auto["removed"] is False  # `topics reassign --throttle` set them
        code, listed = run_json(capsys, cluster, "reassignments", "list", topic)
        assert listed == []  # it ran until the move ended
    finally:
        run(capsys, cluster, "reassignments", "cancel", topic)
        run(capsys, cluster, "throttles", "clear", "--yes")


def test_auto_mode_lowers_the_rate_while_a_broker_answers_too_slowly(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    """`--latency-limit 0.001` (ms): no broker answers that fast, so at each step the rule
    halves the rate, from 64,000 B/s towards `--min`; the brokers show each lower rate. The
    run ends when the move does: here when the test cancels it."""
    topic = topic_name()
    _start_slow_move(capsys, cluster, topic, 800)
    auto = subprocess.Popen(
        [
            *(sys.executable, "-m", "kafka_tui.cli", "--bootstrap-server"),
            *(cluster.bootstrap_servers, "--output", "json", "reassignments", "throttle"),
            *("64000", "--auto", "--min", "2000", "--interval", "0.5", "--latency-limit", "0.001"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lowered = None
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and auto.poll() is None:
            shown = asyncio.run(_rates(cluster.bootstrap_servers, [2]))[2][FOLLOWER_RATE]
            # The move's own throttle is 1,000 B/s; the run's rates are 64,000 down to 2,000.
            if shown is not None and 2000 <= int(shown) <= 16000:
                lowered = int(shown)
                break
            time.sleep(0.3)
    finally:
        run(capsys, cluster, "reassignments", "cancel", topic)
        out, err = auto.communicate(timeout=120)
        run(capsys, cluster, "throttles", "clear", "--yes")
    assert lowered is not None, err
    assert auto.returncode == 0, err
    steps = json.loads(out)["steps"]
    assert [s["rate"] for s in steps][:3] == [64000, 32000, 16000], steps
    assert all(s["verified"] for s in steps), steps
    assert all(s["latency_ms"] > 0.001 for s in steps[1:]), steps
