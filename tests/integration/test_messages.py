"""`messages read` and `messages produce` on real brokers (KRaft 4.4 and ZooKeeper-mode 3.9).

Pinned here: aiokafka's consumer reads every record codec (none, gzip, snappy, lz4, zstd) as
both brokers store it; read_committed skips aborted records and control batches and the
read still ends at the partition's end (its last offset is a commit marker); ListOffsets by
timestamp gives the first record at or after a time; aiokafka does not expose a record's
leader epoch (null). Kafka's own Java console consumer reads what `messages produce` wrote.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

from kafka_tui.admin import ConnectionSettings, TopicSpec
from kafka_tui.admin.record_fetch import RecordConnection
from kafka_tui.cli.main import main
from kafka_tui.devcluster.jars import ensure_kafka

from ..conftest import Cluster
from .test_consumer_groups import create

Names = Callable[[str], str]
NOT_UTF8 = b"\xff\xfe\x00binary"
CODECS = ("none", "gzip", "snappy", "lz4", "zstd")


def run(capsys: pytest.CaptureFixture[str], cluster: Cluster, *args: str) -> tuple[int, str, str]:
    code = main(["--bootstrap-server", cluster.bootstrap_servers, *args])
    out, err = capsys.readouterr()
    return code, out, err


def read_jsonl(
    capsys: pytest.CaptureFixture[str], cluster: Cluster, topic: str, *args: str
) -> tuple[int, list[dict[str, Any]]]:
    code, out, err = run(capsys, cluster, "--output", "jsonl", "messages", "read", topic, *args)
    assert code in (0, 1), err
    return code, [json.loads(line) for line in out.splitlines()]


async def send(bootstrap: str, topic: str, records: list[dict[str, Any]], **options: Any) -> None:
    """`records` (send()'s keyword arguments), every one acknowledged by all in-sync
    replicas: the high watermark a read stops at includes them."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", **options)
    await producer.start()
    try:
        pending = [await producer.send(topic, **r) for r in records]
        await asyncio.gather(*pending)
    finally:
        await producer.stop()


async def leader_epoch(bootstrap: str, topic: str, partition: int) -> int:
    """The partition's leader epoch as Metadata (v7+) says it now."""
    async with RecordConnection(ConnectionSettings(bootstrap)) as connection:
        answer = await connection._metadata([topic])
    [found] = [p for t in answer.topics if t.name == topic for p in t.partitions]
    assert found.partition_index == partition
    return int(found.leader_epoch)


def test_every_codec_headers_tombstones_and_bytes_read_back_as_record_objects(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    topic = topic_name()
    servers = cluster.bootstrap_servers
    # records of 2023: kept whatever their age
    asyncio.run(create(servers, TopicSpec(topic, 1, 2, configs={"retention.ms": "-1"})))
    for codec in CODECS:
        records = [
            {
                "key": codec.encode(),
                "value": json.dumps({"codec": codec, "pad": "x" * 300}).encode(),
                "headers": [("codec", codec.encode()), ("raw", NOT_UTF8)],
                "timestamp_ms": 1_700_000_000_000,
            },
            {"key": f"{codec}-gone".encode(), "value": None},  # a tombstone
            {"key": None, "value": NOT_UTF8},
            {"key": None, "value": b"plain text"},
        ]
        compression = None if codec == "none" else codec
        asyncio.run(send(servers, topic, records, compression_type=compression))
    code, docs = read_jsonl(capsys, cluster, topic)
    assert code == 0
    assert [d["offset"] for d in docs] == list(range(4 * len(CODECS)))
    # Each batch's PartitionLeaderEpoch: the leader's epoch when it was written, which is the
    # partition's epoch now (its leader never moved).
    epoch = asyncio.run(leader_epoch(servers, topic, 0))
    assert epoch >= 0 and {d["leader_epoch"] for d in docs} == {epoch}
    for i, codec in enumerate(CODECS):
        first, tombstone, binary, text = docs[4 * i : 4 * i + 4]
        assert first == {
            "topic": topic,
            "partition": 0,
            "offset": 4 * i,
            "timestamp": 1_700_000_000_000,
            "timestamp_type": "CreateTime",
            "key": codec,
            "value": {"codec": codec, "pad": "x" * 300},
            "headers": [["codec", codec], ["raw", base64.b64encode(NOT_UTF8).decode()]],
            "key_format": "string",
            "value_format": "json",
            "schema_id": None,
            "leader_epoch": epoch,
        }
        assert (tombstone["key"], tombstone["value"]) == (f"{codec}-gone", None)
        assert (binary["key"], binary["value"]) == (None, base64.b64encode(NOT_UTF8).decode())
        assert binary["value_format"] == "bytes" and "error" not in binary
        assert (text["value"], text["value_format"]) == ("plain text", "string")
    # Asked for JSON, a record that is not JSON is kept with an error and its bytes; exit 1.
    code, docs = read_jsonl(capsys, cluster, topic, "--value-format", "json", "--limit", "4")
    assert code == 1
    assert [d["value_format"] for d in docs] == ["json", "json", "bytes", "bytes"]
    assert docs[2]["value"] == base64.b64encode(NOT_UTF8).decode()
    assert docs[2]["error"].startswith("value not JSON")
    assert "error" not in docs[1]  # a tombstone is null in every format
    _, docs = read_jsonl(capsys, cluster, topic, "--value-format", "hex", "--offset", "2")
    assert docs[0]["value"] == NOT_UTF8.hex() and len(docs) == 4 * len(CODECS) - 2


async def ends(bootstrap: str, topic: str, isolation: str) -> int:
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, isolation_level=isolation)
    await consumer.start()
    try:
        tp = TopicPartition(topic, 0)
        return int((await consumer.end_offsets([tp]))[tp])
    finally:
        await consumer.stop()


async def markers_written(bootstrap: str, topic: str) -> None:
    """Until the last stable offset meets the high watermark: a commit returns once the
    coordinator decided it; its markers reach the partition a moment later."""
    deadline = time.monotonic() + 30
    while await ends(bootstrap, topic, "read_committed") < await ends(
        bootstrap, topic, "read_uncommitted"
    ):
        assert time.monotonic() < deadline, "transaction markers not written in 30 s"
        await asyncio.sleep(0.1)


def test_isolation_levels_hide_or_show_aborted_and_open_transactions(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    topic = topic_name()
    servers = cluster.bootstrap_servers
    asyncio.run(create(servers, TopicSpec(topic, 1, 3)))

    def read(*args: str) -> list[tuple[str, int]]:
        code, docs = read_jsonl(capsys, cluster, topic, *args)
        assert code == 0
        return [(d["value"], d["offset"]) for d in docs]

    async def scenario() -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
        producer = AIOKafkaProducer(bootstrap_servers=servers, transactional_id=topic)
        await producer.start()
        try:
            for value, commit in ((b"A", True), (b"B", False), (b"C", True)):
                await producer.begin_transaction()
                await producer.send_and_wait(topic, value)
                if commit:
                    await producer.commit_transaction()
                else:
                    await producer.abort_transaction()
            await markers_written(servers, topic)
            # D's transaction stays open while both reads run (each ends, neither waits)
            await producer.begin_transaction()
            await producer.send_and_wait(topic, b"D")
            committed = await asyncio.to_thread(read)
            everything = await asyncio.to_thread(read, "--isolation", "read_uncommitted")
            await producer.abort_transaction()
        finally:
            await producer.stop()
        return committed, everything

    committed, everything = asyncio.run(scenario())
    # offsets: A 0, its commit marker 1, B 2, abort marker 3, C 4, commit marker 5, D 6
    assert committed == [("A", 0), ("C", 4)]
    assert everything == [("A", 0), ("B", 2), ("C", 4), ("D", 6)]


def test_start_stop_filter_and_group_commit(
    kraft_cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    topic, group = topic_name(), topic_name("group")
    servers = kraft_cluster.bootstrap_servers
    asyncio.run(create(servers, TopicSpec(topic, 2, 1)))
    # an hour ago (a broker refuses CreateTimes more than an hour ahead of its clock)
    base = (int(time.time()) // 60 - 60) * 60_000
    records = [
        {"value": json.dumps({"n": n}).encode(), "partition": n % 2, "timestamp_ms": base + n}
        for n in range(10)
    ]  # partition 0: n 0 2 4 6 8 (offsets 0-4); partition 1: n 1 3 5 7 9
    asyncio.run(send(servers, topic, records))

    def values(*args: str) -> list[tuple[int, int]]:
        code, docs = read_jsonl(capsys, kraft_cluster, topic, *args)
        assert code == 0
        return sorted((d["partition"], d["value"]["n"]) for d in docs)

    assert values("--from-time", str(base + 5)) == [(0, 6), (0, 8), (1, 5), (1, 7), (1, 9)]
    iso = datetime.fromtimestamp((base + 6) / 1000, UTC).isoformat()  # base + 6 ms
    assert values("--from-time", iso, "--partition", "1") == [(1, 7), (1, 9)]
    assert values("--last", "2") == [(0, 6), (0, 8), (1, 7), (1, 9)]
    assert values("--last", "99", "--partition", "0") == [(0, n) for n in (0, 2, 4, 6, 8)]
    assert values("--offset", "3", "--partition", "0") == [(0, 6), (0, 8)]
    assert values("--until-time", str(base + 4)) == [(0, 0), (0, 2), (0, 4), (1, 1), (1, 3)]
    assert values("--filter", ".value.n >= 7") == [(0, 8), (1, 7), (1, 9)]
    assert values("--filter", "select(.partition == 1) | .value.n % 3 == 0") == [(1, 3), (1, 9)]
    # a filter failing on a record (indexing a number) leaves that record out
    assert values("--filter", ".value.n.x") == []
    assert len(values("--limit", "3", "--group", group, "--partition", "1")) == 3
    assert asyncio.run(committed(servers, group, TopicPartition(topic, 1))) == 3
    # --output json: one list; table: a header and a tab-separated line per record
    code, out, _ = run(capsys, kraft_cluster, "--output", "json", *("messages", "read", topic))
    assert code == 0 and len(json.loads(out)) == 10
    code, out, _ = run(capsys, kraft_cluster, "messages", "read", topic, "--last", "1")
    header, *rows = out.splitlines()
    assert header.split("\t") == ["PARTITION", "OFFSET", "TIMESTAMP", "KEY", "VALUE", "HEADERS"]
    assert sorted(r.split("\t")[:2] + r.split("\t")[3:] for r in rows) == [
        ["0", "4", "-", '{"n": 8}', "-"],
        ["1", "4", "-", '{"n": 9}', "-"],
    ]


async def committed(bootstrap: str, group: str, tp: TopicPartition) -> int | None:
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, group_id=group)
    await consumer.start()
    try:
        return await consumer.committed(tp)  # type: ignore[no-any-return]
    finally:
        await consumer.stop()


def test_produce_read_back_by_kafkas_console_consumer_and_replayed(
    kraft_cluster: Cluster,
    capsys: pytest.CaptureFixture[str],
    topic_name: Names,
    tmp_path: Path,
) -> None:
    source, copy = topic_name("source"), topic_name("copy")
    servers = kraft_cluster.bootstrap_servers
    kept = {"retention.ms": "-1"}  # a record of 2026-01-01 is kept whatever its age
    asyncio.run(
        create(servers, TopicSpec(source, 3, 1, configs=kept), TopicSpec(copy, 3, 1, configs=kept))
    )
    code, out, err = run(
        capsys,
        kraft_cluster,
        "--output",
        "jsonl",
        "messages",
        "produce",
        source,
        "--key",
        "k1",
        "--value",
        '{"amount": 5}',
        "--header",
        "origin=test",
        "--partition",
        "2",
        "--timestamp",
        "2026-01-01T00:00:00Z",
    )
    assert code == 0, err
    assert [json.loads(line) for line in out.splitlines()] == [
        {
            "topic": source,
            "partition": 2,
            "offset": 0,
            "timestamp": 1_767_225_600_000,
            "error": None,
            "message": None,
        }
    ]
    asyncio.run(
        send(
            servers,
            source,
            [
                {"key": b"k2", "value": NOT_UTF8, "partition": 0, "headers": [("h", b"v")]},
                {"key": b"k3", "value": None, "partition": 1},
            ],
        )
    )
    code, docs = read_jsonl(capsys, kraft_cluster, source)
    dump = tmp_path / "records.jsonl"
    dump.write_text("".join(json.dumps(d) + "\n" for d in docs))
    code, out, err = run(
        capsys, kraft_cluster, "--output", "json", "messages", "produce", copy, "--file", str(dump)
    )
    assert code == 0, err
    assert sorted((r["partition"], r["offset"]) for r in json.loads(out)) == [
        (0, 0),
        (1, 0),
        (2, 0),
    ]
    _, copied = read_jsonl(capsys, kraft_cluster, copy)

    def comparable(d: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(v for k, v in sorted(d.items()) if k != "topic")

    assert sorted(map(comparable, copied)) == sorted(map(comparable, docs))
    # Kafka's own consumer (one JVM) reads what kafka-tui wrote, byte for byte.
    state = kraft_cluster.dev.load()
    assert state is not None
    java = [
        "java",
        "-Xmx128m",
        "-XX:TieredStopAtLevel=1",
        "-XX:+UseSerialGC",
        "-cp",
        ensure_kafka(state.version, kraft_cluster.dev.cache).classpath,
        "org.apache.kafka.tools.consumer.ConsoleConsumer",
        "--bootstrap-server",
        servers,
        "--topic",
        copy,
        "--partition",
        "2",
        "--offset",
        "earliest",
        "--max-messages",
        "1",
        "--formatter-property",
        "print.key=true",
        "--formatter-property",
        "print.headers=true",
        "--formatter-property",
        "print.timestamp=true",
    ]
    done = subprocess.run(java, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines()[0].split("\t") == [
        "CreateTime:1767225600000",
        "origin:test",
        "k1",
        '{"amount":5}',
    ]


def test_bad_input_is_one_sentence(
    kraft_cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names, tmp_path: Path
) -> None:
    topic = topic_name()
    asyncio.run(create(kraft_cluster.bootstrap_servers, TopicSpec(topic, 2, 1)))
    asyncio.run(send(kraft_cluster.bootstrap_servers, topic, [{"value": b"v", "partition": 0}]))
    cases = {
        ("messages", "read", topic + "-nope"): f"Topic '{topic}-nope' does not exist.",
        ("messages", "read", topic, "--partition", "2"): f"Topic '{topic}' has no partition 2",
        ("messages", "produce", topic, "--value", "v", "--partition", "5"): "has no partition 5",
        ("messages", "read", topic, "--partition", "0", "--offset", "2"): (
            f"Offset 2 is past the end of partition 0 of topic '{topic}'"
        ),
        ("messages", "read", topic, "--filter", ".value |||"): "--filter is not a jq expression",
        ("messages", "read", topic, "--from-time", "yesterday"): "is not an ISO-8601 time",
    }
    for args, said in cases.items():
        code, out, err = run(capsys, kraft_cluster, *args)
        assert (code, out) == (2, ""), (args, err)
        assert said in err and len(err.strip().splitlines()) == 1, (args, err)
    # a read-only profile reads, and refuses to produce
    config = tmp_path / "ro.toml"
    config.write_text(
        f'[profiles.prod]\nbootstrap_servers = "{kraft_cluster.bootstrap_servers}"\n'
        "read_only = true\n"
    )
    base = ["--config-file", str(config), "--profile", "prod", "messages"]
    assert main([*base, "produce", topic, "--value", "v"]) == 2
    assert "Profile 'prod' is read-only: producing records is refused" in capsys.readouterr().err
    assert main([*base, "read", topic]) == 0


def test_follow_prints_new_records_and_ctrl_c_ends_it_committing_what_was_read(
    kraft_cluster: Cluster, topic_name: Names
) -> None:
    topic, group = topic_name(), topic_name("group")
    servers = kraft_cluster.bootstrap_servers
    asyncio.run(create(servers, TopicSpec(topic, 1, 1)))
    asyncio.run(send(servers, topic, [{"value": b"before"}]))
    command = [sys.executable, "-m", "kafka_tui.cli", "--bootstrap-server", servers]
    command += ["--output", "jsonl", "messages", "read", topic, "--follow", "--from-beginning"]
    command += ["--group", group]
    follower = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=os.environ | {"NO_COLOR": "1"}
    )
    try:
        assert follower.stdout is not None
        assert json.loads(follower.stdout.readline())["value"] == "before"
        asyncio.run(send(servers, topic, [{"value": b"after"}]))
        assert json.loads(follower.stdout.readline())["value"] == "after"
        follower.send_signal(signal.SIGINT)
        assert follower.wait(30) == 0, follower.stderr.read() if follower.stderr else ""
        assert asyncio.run(committed(servers, group, TopicPartition(topic, 0))) == 2
    finally:
        if follower.poll() is None:
            follower.kill()
            follower.wait()


def test_a_file_of_many_records_lands_where_each_result_says(
    kraft_cluster: Cluster,
    capsys: pytest.CaptureFixture[str],
    topic_name: Names,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Several full record batches per partition (1 KB values, 256 KB batches): keyed records
    on Kafka's murmur2 partition, each result's partition and offset where the record is."""
    from aiokafka.partitioner import murmur2

    from kafka_tui.services import messages

    topic = topic_name()
    asyncio.run(create(kraft_cluster.bootstrap_servers, TopicSpec(topic, 3, 1)))
    monkeypatch.setattr(messages, "_HASH_ALL_AT_ONCE_FROM", 100)  # the numpy murmur2 too
    file = tmp_path / "many.jsonl"
    with file.open("w") as f:
        for n in range(1200):
            key = f"key-{n}" if n % 3 else None  # a third without a key: sticky partitions
            f.write(json.dumps({"key": key, "value": f"{n:04d}" + "v" * 1000}) + "\n")
    # a partition the topic lacks (line 2), then a bad last line: the line is refused with
    # its number, as when the file was read before the topic was looked at, and nothing is
    # sent (the read back below finds the 1200 records of the good file)
    bad = tmp_path / "bad.jsonl"
    lines = file.read_text().splitlines(keepends=True)
    lines[1] = '{"value": "x", "partition": 7}\n'
    bad.write_text("".join(lines) + "{oops\n")
    code, out, err = run(capsys, kraft_cluster, "messages", "produce", topic, "--file", str(bad))
    assert (code, out) == (2, "") and f"{bad}, line 1201: " in err, err
    code, out, err = run(
        capsys,
        kraft_cluster,
        "--output",
        "jsonl",
        "messages",
        "produce",
        topic,
        "--file",
        str(file),
    )
    assert code == 0, err
    results = [json.loads(line) for line in out.splitlines()]
    assert len(results) == 1200 and not any(r["error"] for r in results)
    _, docs = read_jsonl(capsys, kraft_cluster, topic)
    at = {(d["partition"], d["offset"]): d for d in docs}
    assert len(at) == 1200
    for n, result in enumerate(results):
        doc = at[(result["partition"], result["offset"])]
        assert doc["value"].startswith(f"{n:04d}") and doc["timestamp"] == result["timestamp"]
        if n % 3:
            assert doc["key"] == f"key-{n}"
            assert result["partition"] == (murmur2(f"key-{n}".encode()) & 0x7FFFFFFF) % 3


async def test_the_records_screen_newest_first_filtered_per_partition_and_followed(
    kraft_cluster: Cluster, topic_name: Names
) -> None:
    """`v` on a topic: its records newest first, the highlighted one's object in the detail
    pane, a jq filter, one partition after the other, and a follow showing a new record on
    top (Pilot on the real KRaft cluster)."""
    from textual.widgets import DataTable, Input, Static

    from kafka_tui.tui.screens.records import RecordsScreen

    from ..tui.conftest import filter_to, loaded
    from .test_tui import app_for

    topic = topic_name()
    servers = kraft_cluster.bootstrap_servers
    await create(servers, TopicSpec(topic, 2, 1))
    base = (int(time.time()) // 60 - 60) * 60_000
    records = [
        {"value": json.dumps({"n": n}).encode(), "partition": n % 2, "timestamp_ms": base + n}
        for n in range(6)
    ]
    await send(servers, topic, records)
    app = app_for(kraft_cluster)
    async with app.run_test(size=(120, 40)) as pilot:

        async def until(shown: list[int]) -> None:
            deadline = time.monotonic() + 30
            while [d["value"]["n"] for d in screen.shown] != shown:
                assert time.monotonic() < deadline, [d["value"] for d in screen.shown]
                await pilot.pause(0.05)

        await loaded(app, pilot)
        await filter_to(pilot, topic)
        await pilot.press("v")
        screen = app.screen
        assert isinstance(screen, RecordsScreen)
        await until([5, 4, 3, 2, 1, 0])
        table = screen.query_one("#records", DataTable)
        assert [str(c) for c in table.get_row_at(0)[:2]] == ["1", "2"]  # n 5: partition 1, 2
        assert '"n": 5' in str(screen.query_one("#record-detail", Static).render())
        screen.query_one("#records-filter", Input).value = ".value.n % 2 == 0"
        await until([4, 2, 0])
        screen.query_one("#records-filter", Input).value = ".value.n >"  # still typing
        status = screen.query_one("#records-status", Static)
        deadline = time.monotonic() + 30
        while "not a jq expression" not in str(status.render()):
            assert time.monotonic() < deadline, str(status.render())
            await pilot.pause(0.05)
        await until([4, 2, 0])  # the last good filter stays
        screen.query_one("#records-filter", Input).value = ""
        await until([5, 4, 3, 2, 1, 0])
        await pilot.press("p")
        await until([4, 2, 0])
        await pilot.press("p")
        await until([5, 3, 1])
        await pilot.press("f")
        await send(servers, topic, [{"value": b'{"n": 6}', "partition": 1}])
        await until([6, 5, 3, 1])
        await pilot.press("f", "escape")
        await pilot.pause()
        assert not isinstance(app.screen, RecordsScreen)
