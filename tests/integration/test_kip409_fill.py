"""KIP-409 placeholders on both real clusters: a replication factor above the observed
brokers leaves placeholders; they survive kafka-tui's restarts (a compacted topic); a broker
that joins fills them to a full ISR; deleting a topic clears its record."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from kafka_tui.admin import ConnectionSettings, KafkaAdmin
from kafka_tui.admin.placeholders import PlaceholderStore
from kafka_tui.services.snapshot import take_snapshot

from ..conftest import Cluster
from .test_kip409 import _describe, cli


async def _snapshot_placeholders(cluster: Cluster, current: list[str]) -> set[str]:
    """The topics whose placeholder records a snapshot for an operation on `current` holds."""
    settings = ConnectionSettings(cluster.bootstrap_servers)
    async with KafkaAdmin(settings) as admin:
        snapshot = await take_snapshot(admin, store=PlaceholderStore(settings), current=current)
    return set(snapshot.placeholders)


def test_placeholders_are_recorded_filled_by_a_new_broker_and_cleared_on_delete(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    topic = f"kip409-placeholders-{uuid.uuid4().hex[:6]}"
    code, results = cli(
        capsys,
        cluster,
        "topics",
        "create",
        topic,
        "--partitions",
        "3",
        "--replication-factor",
        "4",
        "--under-replicated",
        "enabled",
    )
    assert code == 0, results
    r = results[0]
    assert r["warning"] == "CREATED_UNDER_REPLICATED" and r["under_replicated_partitions"] == 3
    assert all(sorted(a) == [-1, 1, 2, 3] and a[-1] == -1 for a in r["assignment"])

    # Another process (each cli() call is a fresh start of kafka-tui) still knows them.
    code, rows = cli(capsys, cluster, "placeholders", "list")
    mine = [row for row in rows if row["topic"] == topic]
    assert [(row["partition"], row["placeholders"]) for row in mine] == [
        (0, [-1]),
        (1, [-1]),
        (2, [-1]),
    ]
    code, described = cli(capsys, cluster, "topics", "describe", topic)
    assert [p["placeholders"] for p in described[0]["partitions"]] == [[-1], [-1], [-1]]
    # An operation on the topic reads its record; a create of new topics reads none.
    assert topic in asyncio.run(_snapshot_placeholders(cluster, [topic]))
    assert asyncio.run(_snapshot_placeholders(cluster, [f"{topic}-new"])) == set()

    code, fills = cli(capsys, cluster, "placeholders", "fill")
    assert [f["ok"] for f in fills if f["topic"] == topic] == [False] * 3  # no broker to take them
    added = cluster.dev.add_broker()
    try:
        code, fills = cli(capsys, cluster, "placeholders", "fill")
        assert code == 0, fills
        assert [
            (f["topic"], f["partition"], f["added"], f["ok"]) for f in fills if f["topic"] == topic
        ] == [(topic, p, [added.id], True) for p in range(3)]
        parts = asyncio.run(_describe(cluster, topic, lambda ps: all(len(p.isr) == 4 for p in ps)))
        assert all(sorted(p.replicas) == [1, 2, 3, added.id] for p in parts)
        code, rows = cli(capsys, cluster, "placeholders", "list")
        assert [row for row in rows if row["topic"] == topic] == []
    finally:
        code, deleted = cli(capsys, cluster, "topics", "delete", topic, "--yes")
        cluster.dev.remove_broker(added.id)
        # Retired for good: KRaft unregisters it, ZooKeeper mode drops its observed znode;
        # otherwise it stays an observed (offline) broker that later placements may use.
        code_forget, forgot = cli(capsys, cluster, "brokers", "forget", str(added.id), "--yes")
    assert code == 0 and deleted[0]["ok"]
    assert code_forget == 0 and forgot["ok"], forgot
    code, brokers = cli(capsys, cluster, "brokers", "list")
    assert [b["id"] for b in brokers] == [1, 2, 3]


def test_deleting_a_topic_clears_its_placeholders(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    topic = f"kip409-cleared-{uuid.uuid4().hex[:6]}"
    code, results = cli(
        capsys,
        cluster,
        "topics",
        "create",
        topic,
        "--partitions",
        "1",
        "--replication-factor",
        "5",
        "--under-replicated",
        "enabled",
    )
    assert code == 0 and results[0]["assignment"] == [results[0]["assignment"][0]]
    assert results[0]["assignment"][0][3:] == [-1, -2]
    code, rows = cli(capsys, cluster, "placeholders", "list")
    assert [row["placeholders"] for row in rows if row["topic"] == topic] == [[-1, -2]]
    code, _ = cli(capsys, cluster, "topics", "delete", topic, "--yes")
    assert code == 0
    code, rows = cli(capsys, cluster, "placeholders", "list")
    assert [row for row in rows if row["topic"] == topic] == []
    # Re-created under the same name, the topic has no placeholders of its old self.
    code, results = cli(
        capsys, cluster, "topics", "create", topic, "--partitions", "1", "--replication-factor", "1"
    )
    code, described = cli(capsys, cluster, "topics", "describe", topic)
    assert described[0]["partitions"][0]["placeholders"] == []
