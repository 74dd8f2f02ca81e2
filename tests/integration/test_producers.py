"""Who still writes to a topic, before it is deleted (DescribeProducers, KIP-664): a real
idempotent and a real transactional aiokafka producer, on both real clusters; a plain
producer (no producer id) is not seen, and a topic nobody writes to shows none."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any, cast

import pytest
from aiokafka import AIOKafkaProducer

from kafka_tui.admin import ConnectionSettings, KafkaAdmin, TopicSpec
from kafka_tui.admin.connection import poll_until
from kafka_tui.admin.errors import error_name
from kafka_tui.admin.producers import DescribeProducersRequest

from ..conftest import Cluster
from .test_cli import run, run_json
from .test_consumer_groups import create

Names = Callable[[str], str]


async def write(servers: str, topic: str, idempotent_at: int, transactional_id: str) -> None:
    """An idempotent producer writes to partitions 0 and 1 with the record timestamp
    `idempotent_at`; a transactional producer commits one record to partition 1; a plain
    producer (not idempotent: no producer id) writes to partition 0."""
    idempotent = AIOKafkaProducer(bootstrap_servers=servers, enable_idempotence=True)
    transactional = AIOKafkaProducer(bootstrap_servers=servers, transactional_id=transactional_id)
    plain = AIOKafkaProducer(bootstrap_servers=servers, acks="all")
    for p in (idempotent, transactional, plain):
        await p.start()
    try:
        for partition in (0, 1):
            await idempotent.send_and_wait(
                topic, b"v", partition=partition, timestamp_ms=idempotent_at
            )
        async with transactional.transaction():
            await transactional.send_and_wait(topic, b"t", partition=1)
        await plain.send_and_wait(topic, b"p", partition=0)
    finally:
        for p in (idempotent, transactional, plain):
            await p.stop()


def test_the_delete_names_the_producers_still_writing(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    written, quiet = topic_name("written"), topic_name("quiet")
    servers = cluster.bootstrap_servers
    asyncio.run(create(servers, TopicSpec(written, 2, 2), TopicSpec(quiet, 1, 1)))
    sent_at = time.time_ns() // 1_000_000 - 5_000  # a record stamped 5 s ago
    before_commit = time.time_ns() // 1_000_000
    asyncio.run(write(servers, written, sent_at, topic_name("txn")))
    # The Kafka facts producers_of's shortcut stands on: a just-created partition's leader
    # epoch is 0, and a broker without the partition's log answers NOT_LEADER_OR_FOLLOWER
    # (ReplicaManager.getPartitionOrError), as a leader that has not loaded it yet does.
    assert asyncio.run(without_the_log(servers, quiet)) == (0, "NOT_LEADER_OR_FOLLOWER", [])

    # Live producers write to `written`: an unconsumed-only delete refuses it, not `quiet`.
    code, out, err = run(
        capsys,
        cluster,
        "--output",
        "json",
        "topics",
        "delete",
        written,
        quiet,
        "--yes",
        "--if-unconsumed",
    )
    found = json.loads(out)
    assert code == 1, found
    refused, deleted = cast(list[dict[str, Any]], found)
    assert (refused["topic"], refused["error"]) == (written, "TOPIC_IN_USE")
    assert (deleted["topic"], deleted["ok"]) == (quiet, True)
    assert deleted["producers"] == [] and deleted["auto_create"] is True
    assert "producers_note" not in deleted

    producers = refused["producers"]
    assert refused["auto_create"] is True  # Kafka's default, kept by the dev clusters
    by_partition = {(p["partition"], p["producer_id"]): p for p in producers}
    # The idempotent producer: one id on both partitions, its last record's own timestamp.
    stamped = [p for p in producers if p["last_timestamp"] == sent_at]
    assert [p["partition"] for p in stamped] == [0, 1]
    idempotent_id = stamped[0]["producer_id"]
    assert stamped[1]["producer_id"] == idempotent_id >= 0
    # The transactional producer: another id, on partition 1 only; its commit marker (the
    # broker's clock) is its last write, the transaction closed.
    others = [p for p in producers if p["producer_id"] != idempotent_id]
    assert [p["partition"] for p in others] == [1]
    [txn] = others
    assert txn["last_timestamp"] >= before_commit and txn["transaction_open"] is False
    # The plain producer has no id: partition 0 shows the idempotent producer only.
    assert [k for k in by_partition if k[0] == 0] == [(0, idempotent_id)]
    assert all(p["live"] for p in producers)
    for pid in (idempotent_id, txn["producer_id"]):
        assert f"producer {pid} (partition 1, wrote " in refused["message"]
    assert "Stop their producers first." in refused["message"]
    assert (
        f"Warning: 2 producers wrote to '{written}', the last " in err
        and "with auto-creation on, the topic will come back as soon as one writes again" in err
    )

    # Deleted anyway, the result still names them.
    code, found = run_json(capsys, cluster, "topics", "delete", written, "--yes")
    assert code == 0, found
    [result] = cast(list[dict[str, Any]], found)
    assert result["ok"] and result["producers"] == producers

    # As warned: the next write brings it back, with the brokers' defaults (1 partition).
    assert asyncio.run(write_again(servers, written)) == {0}


async def without_the_log(servers: str, topic: str) -> tuple[int, str, list[Any]] | None:
    """Partition 0 of `topic`'s leader epoch, and DescribeProducers' answer about it from a
    broker that holds no replica of it (error name, producers), once that broker knows the
    topic (before, it answers UNKNOWN_TOPIC_OR_PARTITION); None if it did not within 30 s."""
    async with KafkaAdmin(ConnectionSettings(servers)) as admin:

        async def ask() -> tuple[int, str, list[Any]] | None:
            metadata = await admin._metadata([topic])
            partitions = metadata.topics[0].partitions
            if not partitions:
                return None
            [partition] = partitions
            other = min(
                b.node_id for b in metadata.brokers if b.node_id not in partition.replica_nodes
            )
            answer = await admin._send_to_itself(DescribeProducersRequest([(topic, 0)]), other)
            [p] = DescribeProducersRequest.answer(answer)
            name = error_name(p.error_code)
            if name == "UNKNOWN_TOPIC_OR_PARTITION":
                return None
            return partition.leader_epoch, name, p.producers

        return await poll_until(ask, time.monotonic() + 30)


async def write_again(servers: str, topic: str) -> set[int]:
    """The partitions of `topic` as a new producer finds them after writing a record to it
    (a deleted topic is auto-created by the Metadata request the write makes; while the
    deletion is still being applied the producer retries)."""
    producer = AIOKafkaProducer(
        bootstrap_servers=servers, enable_idempotence=True, request_timeout_ms=30_000
    )
    await producer.start()
    try:
        await producer.send_and_wait(topic, b"again")
        return set(await producer.partitions_for(topic))
    finally:
        await producer.stop()
