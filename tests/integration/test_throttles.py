"""`throttles list | clear` and throttle removal that spares the rates other reassignments
still use, on both real clusters. Reassignments are held in progress by a 1 KB/s throttle
on a 4 MB partition (as in test_reassign.py)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

import pytest

from kafka_tui.admin import ConnectionSettings, KafkaAdmin
from kafka_tui.admin.partition_moves import ReplicationThrottle
from kafka_tui.admin.reassignments import (
    FOLLOWER_RATE,
    FOLLOWER_REPLICAS,
    LEADER_RATE,
    LEADER_REPLICAS,
)

from ..conftest import Cluster
from .test_alter_rf import produce, run_json
from .test_reassign import create

Names = Callable[[str], str]
RATE = "1000"


async def rates(cluster: Cluster) -> dict[int, list[str | None]]:
    """Per broker its two throttle rates (None: unset)."""
    async with KafkaAdmin(ConnectionSettings(cluster.bootstrap_servers)) as admin:
        keys = [LEADER_RATE, FOLLOWER_RATE]
        return {b: [(await admin.broker_configs(b, keys)).get(k) for k in keys] for b in (1, 2, 3)}


def listed(capsys: pytest.CaptureFixture[str], cluster: Cluster) -> list[dict[str, Any]]:
    code, throttles = run_json(capsys, cluster, "throttles", "list")
    assert code == 0, throttles
    assert isinstance(throttles, list)
    return throttles


def test_a_throttle_left_behind_is_listed_as_orphaned_and_cleared(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    cluster.restore()
    topic = topic_name()
    create(capsys, cluster, topic, "1:2")

    async def leave_throttle() -> None:
        throttle = ReplicationThrottle(
            int(RATE), [1, 2], leaders={topic: ["0:1"]}, followers={topic: ["0:2"]}
        )
        async with KafkaAdmin(ConnectionSettings(cluster.bootstrap_servers)) as admin:
            await admin.set_replication_throttle(throttle)

    asyncio.run(leave_throttle())
    throttles = listed(capsys, cluster)
    mine = [t for t in throttles if t["kind"] == "broker" or t["name"] == topic]
    brokers = [(n, key, RATE) for n in ("1", "2") for key in (LEADER_RATE, FOLLOWER_RATE)]
    assert mine == [
        {"kind": "broker", "name": n, "config": key, "value": value, "needed": False}
        for n, key, value in brokers
    ] + [
        {"kind": "topic", "name": topic, "config": key, "value": value, "needed": False}
        for key, value in ((LEADER_REPLICAS, "0:1"), (FOLLOWER_REPLICAS, "0:2"))
    ]

    code, cleared = run_json(capsys, cluster, "throttles", "clear", "--orphaned")
    assert code == 0, cleared
    assert isinstance(cleared, list)
    by_name = {(c["kind"], c["name"]): c for c in cleared}
    assert by_name[("broker", "1")]["ok"] and by_name[("broker", "2")]["ok"]
    assert by_name[("topic", topic)]["configs"] == [LEADER_REPLICAS, FOLLOWER_REPLICAS]
    assert "no reassignment in progress used it" in by_name[("topic", topic)]["message"]
    assert listed(capsys, cluster) == []
    assert asyncio.run(rates(cluster)) == {b: [None, None] for b in (1, 2, 3)}
    code, again = run_json(capsys, cluster, "throttles", "clear", "--orphaned")
    assert code == 0 and again == []


def start(capsys: pytest.CaptureFixture[str], cluster: Cluster, topic: str, target: str) -> None:
    # 4 MB: the first throttled fetch copies at most 1 MB, then 1 KB/s holds it for long.
    asyncio.run(produce(cluster.bootstrap_servers, topic, 400, size=10_000, partitions=1))
    args = ["topics", "reassign", topic, "--replica-assignment", f"0={target}"]
    code, started = run_json(capsys, cluster, *args, "--throttle", RATE, "--no-wait")
    assert code == 0, started
    assert "started moving" in started[0]["message"]  # type: ignore[index]


def test_a_cancel_keeps_the_rate_another_reassignment_still_needs(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    cluster.restore()
    a, b = topic_name("a"), topic_name("b")
    create(capsys, cluster, a, "1")
    create(capsys, cluster, b, "1")
    start(capsys, cluster, a, "1:2")  # brokers 1 and 2
    start(capsys, cluster, b, "1:3")  # brokers 1 and 3: broker 1 is shared
    assert asyncio.run(rates(cluster)) == {n: [RATE, RATE] for n in (1, 2, 3)}
    assert all(t["needed"] for t in listed(capsys, cluster))

    code, cancelled = run_json(capsys, cluster, "reassignments", "cancel", a)
    assert code == 0 and cancelled[0]["ok"], cancelled  # type: ignore[index]
    message = cancelled[0]["message"]  # type: ignore[index]
    assert "except on broker 1" in message and "still in progress" in message
    # Broker 2 served only the cancelled reassignment; 1 and 3 still throttle b's copy.
    assert asyncio.run(rates(cluster)) == {1: [RATE, RATE], 2: [None, None], 3: [RATE, RATE]}
    throttles = listed(capsys, cluster)
    assert {(t["kind"], t["name"]) for t in throttles} == {
        ("broker", "1"),
        ("broker", "3"),
        ("topic", b),
    }
    assert all(t["needed"] for t in throttles)
    code, cleared = run_json(capsys, cluster, "throttles", "clear", "--orphaned")
    assert code == 0 and cleared == []  # nothing orphaned: b's reassignment needs them all
    assert asyncio.run(rates(cluster))[1] == [RATE, RATE]

    code, cancelled = run_json(capsys, cluster, "reassignments", "cancel", b)
    assert code == 0 and cancelled[0]["ok"], cancelled  # type: ignore[index]
    assert cancelled[0]["message"].endswith("Throttles removed.")  # type: ignore[index]
    assert asyncio.run(rates(cluster)) == {n: [None, None] for n in (1, 2, 3)}
    assert listed(capsys, cluster) == []


def test_clear_without_orphaned_needs_yes_off_a_terminal_and_removes_needed_ones(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    cluster.restore()
    topic = topic_name()
    create(capsys, cluster, topic, "2")
    start(capsys, cluster, topic, "2:3")
    code = run_json_code(capsys, cluster, "throttles", "clear")
    assert code == 2  # refused: a reassignment needs them, and no terminal to ask on
    assert asyncio.run(rates(cluster))[2] == [RATE, RATE]
    code, cleared = run_json(capsys, cluster, "throttles", "clear", "--yes")
    assert code == 0, cleared
    assert isinstance(cleared, list)
    assert all(c["ok"] and c["needed"] for c in cleared)
    assert "copies unthrottled" in cleared[0]["message"]
    assert asyncio.run(rates(cluster)) == {n: [None, None] for n in (1, 2, 3)}
    # Unthrottled, the copy may finish before the cancel (it did in loaded CI runs: the
    # cancel then finds no reassignment, [] or NO_REASSIGNMENT_IN_PROGRESS as the race
    # falls); either way none is left, nor a throttle.
    code, cancelled = run_json(capsys, cluster, "reassignments", "cancel", topic)
    assert isinstance(cancelled, list), cancelled
    assert all(c["ok"] or c["error"] == "NO_REASSIGNMENT_IN_PROGRESS" for c in cancelled), cancelled
    assert code == (0 if all(c["ok"] for c in cancelled) else 1), cancelled
    assert listed(capsys, cluster) == []


def run_json_code(capsys: pytest.CaptureFixture[str], cluster: Cluster, *args: str) -> int:
    from kafka_tui.cli import main

    code = main(["--bootstrap-server", cluster.bootstrap_servers, "--output", "json", *args])
    capsys.readouterr()
    return code


def cancel_json(
    capsys: pytest.CaptureFixture[str], cluster: Cluster, *topics: str
) -> tuple[int, list[dict[str, Any]], str]:
    from kafka_tui.cli import main

    argv = ["--bootstrap-server", cluster.bootstrap_servers, "--output", "json"]
    code = main([*argv, "reassignments", "cancel", *topics])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def test_a_cancel_names_the_throttles_a_move_finished_before_it_left_and_keeps_them(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    cluster.restore()
    done, held = topic_name("done"), topic_name("held")
    create(capsys, cluster, done, "1")
    create(capsys, cluster, held, "1")
    # A few KB: the first throttled fetch copies it all, so the move ends at once.
    asyncio.run(produce(cluster.bootstrap_servers, done, 20, partitions=1))
    args = ["topics", "reassign", done, "--replica-assignment", "0=1:2"]
    code, started = run_json(capsys, cluster, *args, "--throttle", RATE, "--no-wait")
    assert code == 0, started
    deadline = time.monotonic() + 30
    while run_json(capsys, cluster, "reassignments", "list", done)[1] and (
        time.monotonic() < deadline
    ):
        time.sleep(0.2)

    # The cancel comes too late: nothing of `done` is in progress. Its throttles stay (an
    # operator may have set the same rate on purpose), named with the command that clears.
    code, cancelled, err = cancel_json(capsys, cluster, done)
    assert code == 0 and cancelled == [], cancelled
    assert f"No reassignment in progress for {done}." in err
    assert "still set on broker(s) 1,2 (rates) and topic(s)" in err and repr(done) in err, err
    assert err.rstrip().endswith("To clear them: kafka-tui throttles clear --orphaned"), err
    assert asyncio.run(rates(cluster)) == {1: [RATE, RATE], 2: [RATE, RATE], 3: [None, None]}

    # Another topic's cancel reports them too, in each JSON result.
    start(capsys, cluster, held, "1:3")
    code, cancelled, err = cancel_json(capsys, cluster, held)
    assert code == 0 and cancelled[0]["ok"], cancelled
    orphaned = {(t["kind"], t["name"]) for t in cancelled[0]["orphaned_throttles"]}
    # Broker 1 served both, and the cancel released it: it needed nothing any more.
    assert orphaned == {("broker", "2"), ("topic", done)}, cancelled
    assert all(not t["needed"] for t in cancelled[0]["orphaned_throttles"])
    assert "still set on broker(s) 2 (rates)" in err
    code, cleared = run_json(capsys, cluster, "throttles", "clear", "--orphaned")
    assert code == 0, cleared
    assert listed(capsys, cluster) == []
