"""`topics alter --replication-factor` on both real clusters: a topic with data goes from
RF 1 to 3 and back to 2; every record stays readable and every leader stays where it was."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

from kafka_tui.cli import main

from ..conftest import Cluster

Names = Callable[[str], str]


def run_json(
    capsys: pytest.CaptureFixture[str], cluster: Cluster, *args: str
) -> tuple[int, object]:
    code = main(["--bootstrap-server", cluster.bootstrap_servers, "--output", "json", *args])
    out, err = capsys.readouterr()
    assert out, err
    return code, json.loads(out)


async def produce(
    bootstrap: str, topic: str, count: int, size: int = 100, partitions: int = 3
) -> list[bytes]:
    values = [f"{i:08d}".encode() + b"x" * (size - 8) for i in range(count)]
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
    await producer.start()
    try:
        batch = [
            await producer.send(topic, v, partition=i % partitions) for i, v in enumerate(values)
        ]
        await asyncio.gather(*batch)
    finally:
        await producer.stop()
    return values


async def consume_all(bootstrap: str, topic: str, partitions: int, count: int) -> list[bytes]:
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    await consumer.start()
    seen: list[bytes] = []
    try:
        consumer.assign([TopicPartition(topic, p) for p in range(partitions)])
        await consumer.seek_to_beginning()
        deadline = time.monotonic() + 60
        while len(seen) < count and time.monotonic() < deadline:
            for records in (await consumer.getmany(timeout_ms=1000)).values():
                seen += [r.value for r in records if r.value is not None]
    finally:
        await consumer.stop()
    return seen


def partitions_of(capsys: pytest.CaptureFixture[str], cluster: Cluster, topic: str) -> list[dict]:  # type: ignore[type-arg]
    code, described = run_json(capsys, cluster, "topics", "describe", topic)
    assert code == 0
    return described[0]["partitions"]  # type: ignore[index, no-any-return]


def settled(
    capsys: pytest.CaptureFixture[str],
    cluster: Cluster,
    topic: str,
    ready: Callable[[list[dict]], bool],  # type: ignore[type-arg]
) -> list[dict]:  # type: ignore[type-arg]
    """The partitions once `ready` holds: ZooKeeper-mode brokers learn of a finished
    reassignment one by one, so a read from another broker can lag behind the controller."""
    deadline = time.monotonic() + 30
    while True:
        parts = partitions_of(capsys, cluster, topic)
        if ready(parts) or time.monotonic() > deadline:
            return parts
        time.sleep(0.2)


def test_replication_factor_1_to_3_then_2_keeps_records_and_leaders(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    topic = topic_name()
    code, _ = run_json(
        capsys, cluster, "topics", "create", topic, "--partitions", "3", "--replication-factor", "1"
    )
    assert code == 0
    values = asyncio.run(produce(cluster.bootstrap_servers, topic, 300))
    before = partitions_of(capsys, cluster, topic)
    leaders = {p["partition"]: p["leader"] for p in before}

    code, grown = run_json(capsys, cluster, "topics", "alter", topic, "--replication-factor", "3")
    assert code == 0, grown
    [result] = grown  # type: ignore[misc]
    assert set(result) == {
        "topic",
        "ok",
        "error",
        "message",
        "moves",
        "bytes_to_move",
        "rollback_file",  # issue 32: the file that undoes the change
    }
    assert result["ok"] and result["error"] is None, result
    assert [m["partition"] for m in result["moves"]] == [0, 1, 2]
    for m in result["moves"]:
        # Every current replica kept, in front; two new ones; three distinct brokers.
        assert len(m["before"]) == 1 and m["after"][0] == m["before"][0]
        assert sorted(m["after"]) == [1, 2, 3]
    # 300 records of 100 bytes, copied twice, plus batch headers.
    assert result["bytes_to_move"] >= 2 * 300 * 100
    assert "every leader kept" in result["message"]
    grown_parts = settled(capsys, cluster, topic, lambda ps: all(len(p["isr"]) == 3 for p in ps))
    assert [p["replicas"] for p in grown_parts] == [m["after"] for m in result["moves"]]
    assert {p["partition"]: p["leader"] for p in grown_parts} == leaders
    assert all(sorted(p["isr"]) == [1, 2, 3] for p in grown_parts)

    code, shrunk = run_json(capsys, cluster, "topics", "alter", topic, "--replication-factor", "2")
    assert code == 0, shrunk
    moves = shrunk[0]["moves"]  # type: ignore[index]
    assert shrunk[0]["bytes_to_move"] == 0  # type: ignore[index]
    assert all(len(m["after"]) == 2 and set(m["after"]) < set(m["before"]) for m in moves)
    assert all(leaders[m["partition"]] in m["after"] for m in moves)
    shrunk_parts = settled(
        capsys, cluster, topic, lambda ps: all(len(p["replicas"]) == 2 for p in ps)
    )
    assert [len(p["replicas"]) for p in shrunk_parts] == [2, 2, 2]
    assert {p["partition"]: p["leader"] for p in shrunk_parts} == leaders

    read = asyncio.run(consume_all(cluster.bootstrap_servers, topic, 3, len(values)))
    assert sorted(read) == sorted(values)


def test_refusals_are_sentences_and_send_nothing(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    topic = topic_name()
    code, _ = run_json(
        capsys, cluster, "topics", "create", topic, "--partitions", "2", "--replication-factor", "2"
    )
    assert code == 0
    before = partitions_of(capsys, cluster, topic)
    code, refused = run_json(capsys, cluster, "topics", "alter", topic, "--replication-factor", "4")
    assert code == 1
    assert refused[0]["error"] == "INVALID_REPLICATION_FACTOR"  # type: ignore[index]
    assert "needs 4 live brokers, but only 3 are live" in refused[0]["message"]  # type: ignore[index]
    assert refused[0]["moves"] == []  # type: ignore[index]
    code, preview = run_json(
        capsys, cluster, "topics", "alter", topic, "--replication-factor", "3", "--validate-only"
    )
    assert code == 0 and preview[0]["ok"], preview  # type: ignore[index]
    assert len(preview[0]["moves"]) == 2  # type: ignore[index]
    assert "would move 2 partition(s): 2 replica(s) added" in preview[0]["message"]  # type: ignore[index]
    assert partitions_of(capsys, cluster, topic) == before
    assert main(["--bootstrap-server", cluster.bootstrap_servers, "topics", "alter", topic]) == 2
    assert "give --partitions N or --replication-factor N" in capsys.readouterr().err
    both = ["topics", "alter", topic, "--partitions", "3", "--replication-factor", "3"]
    assert main(["--bootstrap-server", cluster.bootstrap_servers, *both]) == 2
    assert "in two steps" in capsys.readouterr().err
    assert partitions_of(capsys, cluster, topic) == before
