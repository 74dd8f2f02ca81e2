"""The operator's scenario on every Kafka version kafka-tui serves, each a real cluster started
from Maven Central's jars with Kafka's defaults (3 brokers on racks a, b, c): describe the
cluster, create, refuse an existing name, validate only, grow, set and remove configs (keeping
the others), describe, elect preferred leaders, move a topic off a broker, delete.

Every run (the README's test command) covers the oldest version, 2.2.2 in ZooKeeper mode; the
newest, 4.4.0, is the default KRaft cluster every integration test runs on. The whole matrix:

    KAFKA_TUI_COMPAT=1 .venv/bin/python -m pytest tests/compat -n 0
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from kafka_tui.admin import ConnectionSettings, KafkaAdmin, TopicSpec
from kafka_tui.cli.main import main
from kafka_tui.config import Profile, Settings
from kafka_tui.devcluster import DevCluster
from kafka_tui.services.keys import KEY_MAPPING_WARNING
from kafka_tui.tui.app import make_app
from kafka_tui.tui.widgets.tables import PartitionTable

from ..tui.conftest import filter_to, loaded, settle, shown

# (version, mode, what that version lacks that the scenario meets)
OLDEST = ("2.2.2", "zk")
MATRIX = [
    OLDEST,
    ("2.8.2", "zk"),
    ("3.3.2", "kraft"),
    ("3.9.2", "zk"),
    ("3.9.2", "kraft"),
    ("4.0.2", "kraft"),
    ("4.2.2", "kraft"),
    ("4.4.0", "kraft"),
]
CASES = MATRIX if os.environ.get("KAFKA_TUI_COMPAT") == "1" else [OLDEST]


@dataclass(frozen=True)
class Versioned:
    flags: list[str]  # the CLI's connection flags
    version: tuple[int, ...]
    mode: str


@pytest.fixture(scope="module", params=CASES, ids=[f"{v}-{m}" for v, m in CASES])
def versioned(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Versioned]:
    """A 3-broker cluster of the version, shared by this module's tests."""
    version, mode = request.param
    dev = DevCluster(tmp_path_factory.mktemp(f"kafka-{version}-{mode}"))
    try:
        dev.up(mode, brokers=3, kafka_version=version)
        status = dev.status()
        flags = ["--bootstrap-server", status["bootstrap_servers"]]
        if status["zookeeper"]:
            flags += ["--zookeeper", status["zookeeper"]]
        yield Versioned(flags, tuple(int(n) for n in version.split(".")), mode)
    finally:
        dev.down(kill=True)  # its data goes with its folder: no controlled shutdown


def run(capsys: pytest.CaptureFixture[str], flags: list[str], *args: str) -> tuple[int, str]:
    code = main([*flags, "--output", "json", *args])
    captured = capsys.readouterr()
    return code, captured.out


@pytest.mark.xdist_group("compat")
def test_the_operator_scenario(versioned: Versioned, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, versioned.flags, "cluster", "describe")
    assert code == 0, out
    described = json.loads(out)
    assert sorted(b["id"] for b in described["brokers"]) == [1, 2, 3]
    if versioned.mode == "kraft":  # the quorum's leader, the dev cluster's controller 1000
        assert described["controller_id"] == described["quorum"]["leader"] == 1000, described
    else:
        assert described["quorum"] is None and described["controller_id"] in (1, 2, 3)

    code, out = run(
        capsys, versioned.flags, "topics", "create", "orders", "--partitions", "3",
        "--replication-factor", "2", "--config", "retention.ms=3600000",
    )  # fmt: skip
    assert code == 0, out
    code, out = run(capsys, versioned.flags, "topics", "create", "orders")
    assert code == 1 and json.loads(out)[0]["error"] == "TOPIC_ALREADY_EXISTS", out
    code, out = run(
        capsys, versioned.flags, "topics", "create", "probe", "--partitions", "2",
        "--replication-factor", "3", "--validate-only",
    )  # fmt: skip
    assert code == 0, out

    code, out = run(capsys, versioned.flags, "topics", "alter", "orders", "--partitions", "5")
    assert code == 0, out
    code, out = run(
        capsys, versioned.flags, "topics", "configs", "orders", "--add-config", "segment.ms=600000"
    )
    assert code == 0, out
    code, out = run(
        capsys, versioned.flags, "topics", "configs", "orders",
        "--add-config", "cleanup.policy=compact", "--delete-config", "segment.ms",
    )  # fmt: skip
    assert code == 0, out

    code, out = run(capsys, versioned.flags, "topics", "describe", "orders")
    assert code == 0, out
    (topic,) = json.loads(out)
    assert len(topic["partitions"]) == 5
    # Eligible leader replicas where the broker reads them (DescribeTopicPartitions: KRaft 3.8+).
    elr = [p["elr"] for p in topic["partitions"]]
    reads_elr = versioned.mode == "kraft" and versioned.version >= (3, 8)
    assert elr == ([[]] * 5 if reads_elr else [None] * 5), elr
    assert all(len(p["replicas"]) == 2 for p in topic["partitions"])
    overrides = {
        name: c["value"]
        for name, c in topic["configs"].items()
        if c["source"] == "DYNAMIC_TOPIC_CONFIG"
    }
    # the override set earlier is kept, the removed one is gone (before Kafka 2.3 too)
    assert overrides.get("retention.ms") == "3600000", topic["configs"]
    assert overrides.get("cleanup.policy") == "compact", topic["configs"]
    assert "segment.ms" not in overrides, topic["configs"]

    code, out = run(capsys, versioned.flags, "leaders", "elect", "--topic", "orders", "--yes")
    assert code == 0, out
    # Placed by kafka-tui, every partition is led by its preferred replica already: 2.2-2.3
    # answer that as elected (ElectLeaders v0), 2.4+ as ELECTION_NOT_NEEDED; both read alike.
    elected = json.loads(out)
    assert {r["error"] for r in elected} == {"ELECTION_NOT_NEEDED"}, elected

    code, out = run(capsys, versioned.flags, "topics", "list")
    assert code == 0 and "orders" in {t["topic"] for t in json.loads(out)}, out
    code, out = run(capsys, versioned.flags, "topics", "delete", "orders", "--yes")
    assert code == 0, out
    # Who still writes (DescribeProducers, KIP-664) is asked of brokers from 2.8; older ones
    # are told apart politely, and the deletion goes ahead.
    (deleted,) = json.loads(out)
    if versioned.version < (2, 8):
        assert deleted["producers"] == [], deleted
        assert "DescribeProducers needs Kafka 2.8 or newer" in deleted["producers_note"], deleted
    else:
        assert "producers_note" not in deleted, deleted


async def test_the_tui_opens_and_shows_what_the_broker_has(versioned: Versioned) -> None:
    """The app on the same cluster: its topics table lists a topic, the detail opens on it
    with its partitions (ELR shown as unknown where the broker cannot say)."""
    bootstrap = versioned.flags[versioned.flags.index("--bootstrap-server") + 1]
    settings = ConnectionSettings(bootstrap)
    async with KafkaAdmin(settings) as admin:
        (created,) = await admin.create_topics([TopicSpec("shown", 2, 2)])
        assert created.ok, created
    profile = Profile("compat", settings)
    app = make_app(Settings(profiles={"compat": profile}), profile, refresh_seconds=0)
    async with app.run_test(size=(100, 30)) as pilot:
        await loaded(app, pilot)
        assert "shown" in shown(app)
        await filter_to(pilot, "shown")
        await pilot.press("enter")
        await settle(app, pilot)
        table = app.screen.query_one(PartitionTable)
        assert table.row_count == 2


@pytest.mark.xdist_group("compat")
def test_a_classic_group_is_listed_described_reset_and_deleted(
    versioned: Versioned, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before Kafka 3.0 OffsetFetch and FindCoordinator take one group per request, before
    2.6 ListGroups names no state: the same commands, the same answers (the lag in time and
    the grow's key sampling Fetch at the version's highest Fetch, v10 on 2.2)."""
    import asyncio

    from aiokafka import AIOKafkaProducer

    from ..integration.test_consumer_groups import commit_and_leave

    bootstrap = versioned.flags[1]
    code, out = run(
        capsys, versioned.flags, "topics", "create", "billing", "--partitions", "2",
        "--replication-factor", "2",
    )  # fmt: skip
    assert code == 0, out

    async def prepare() -> None:
        producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
        await producer.start()
        try:
            for p in (0, 1):
                for _ in range(5):
                    await producer.send_and_wait("billing", b"v", partition=p)
        finally:
            await producer.stop()
        await commit_and_leave(bootstrap, "reader", {("billing", 0): 2, ("billing", 1): 5})

    asyncio.run(prepare())
    code, out = run(capsys, versioned.flags, "groups", "describe", "reader")
    assert code == 0, out
    [group] = json.loads(out)
    assert group["type"] == "classic" and group["state"] == "Empty", group
    assert [(p["committed"], p["log_end"], p["lag"]) for p in group["offsets"]] == [
        (2, 5, 3),
        (5, 5, 0),
    ]
    assert group["status"] == "STOP" and group["lag_seconds"] is not None
    code, out = run(capsys, versioned.flags, "groups", "list", "--topic", "billing")
    assert code == 0 and [g["group"] for g in json.loads(out)] == ["reader"], out
    code, out = run(
        capsys, versioned.flags, "groups", "reset-offsets", "reader", "--all-topics",
        "--to-earliest", "--execute",
    )  # fmt: skip
    assert code == 0, out
    assert [p["after"] for p in json.loads(out)["partitions"]] == [0, 0]
    code, out = run(capsys, versioned.flags, "groups", "describe", "reader")
    assert [p["committed"] for p in json.loads(out)[0]["offsets"]] == [0, 0]
    code, out = run(capsys, versioned.flags, "groups", "delete", "reader")
    assert code == 0 and json.loads(out) == [
        {"group": "reader", "ok": True, "error": None, "message": "Group 'reader' deleted."}
    ], out

    # Growing it samples each partition's last batch (messages read's Fetch): a keyed one warns.
    async def keyed() -> None:
        producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
        await producer.start()
        try:
            await producer.send_and_wait("billing", b"v", key=b"k", partition=1)
        finally:
            await producer.stop()

    asyncio.run(keyed())
    code, out = run(capsys, versioned.flags, "topics", "alter", "billing", "--partitions", "3")
    assert code == 0 and json.loads(out)[0]["warning"] == KEY_MAPPING_WARNING, out


@pytest.mark.xdist_group("compat")
def test_records_are_produced_and_read_back_with_each_codec(
    versioned: Versioned, capsys: pytest.CaptureFixture[str]
) -> None:
    """messages produce (idempotent, record batches of its own) and messages read: every
    codec the version has (zstd from 2.1), headers, a tombstone, a start by time."""
    code, out = run(
        capsys, versioned.flags, "topics", "create", "records", "--partitions", "1",
        "--replication-factor", "2",
    )  # fmt: skip
    assert code == 0, out
    codecs = ["none", "gzip", "snappy", "lz4", "zstd"]
    for n, codec in enumerate(codecs):
        code, out = run(
            capsys, versioned.flags, "messages", "produce", "records", "--key", codec,
            "--value", json.dumps({"n": n}), "--header", f"codec={codec}",
            "--compression", codec,
        )  # fmt: skip
        assert code == 0, out
        assert [(r["partition"], r["offset"]) for r in json.loads(out)] == [(0, n)]
    code, out = run(capsys, versioned.flags, "messages", "produce", "records", "--key", "gone")
    assert code == 0, out
    [tombstone] = json.loads(out)
    code, out = run(capsys, versioned.flags, "messages", "read", "records")
    assert code == 0, out
    docs = json.loads(out)
    assert [(d["key"], d["value"], d["headers"]) for d in docs] == [
        *((c, {"n": n}, [["codec", c]]) for n, c in enumerate(codecs)),
        ("gone", None, []),
    ]
    code, out = run(
        capsys, versioned.flags, "messages", "read", "records", "--from-time",
        str(tombstone["timestamp"]),
    )  # fmt: skip
    assert code == 0 and [d["offset"] for d in json.loads(out)] == [5], out
