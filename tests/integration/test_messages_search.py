"""`messages search` (issue 51 point 4) on the real ZooKeeper-mode 3.9 cluster (nothing here
differs by mode, and its group of CI's workers is the lightest): the matches are exactly the
lines `messages read --filter` prints for the same expression; an aborted transaction's records
are not searched under read_committed and are under read_uncommitted; --partition,
--from-time/--until-time and --limit narrow it; a bad jq expression and an unknown topic are one
sentence each (exit 2); --progress says what was scanned; and the Spark engine (local[1], each
partition cut into several ranges: one JVM start) prints the same matches. The ranges stop at an
open transaction under read_committed (ListOffsets, by time too, under the isolation).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import pytest
from aiokafka import AIOKafkaProducer

from kafka_tui.admin import ConnectionSettings, TopicSpec
from kafka_tui.admin.key_reader import OffsetRange
from kafka_tui.admin.range_reader import search_ranges
from kafka_tui.services import message_search

from ..conftest import Cluster
from .test_consumer_groups import create
from .test_messages import markers_written, run, send

Names = Callable[[str], str]
BASE_MS = 1_700_000_000_000  # records of 2023: kept whatever their age (retention -1)
FILTER = 'select(.value.n? != null) | .value.n % 3 == 0 and .key != "skip"'


async def _aborted(bootstrap: str, topic: str) -> None:
    """5 records that match the filter, in a transaction aborted, on partition 0. While it is
    open, read_committed's range ends at its first offset (the last stable offset), and
    ListOffsets by time under read_committed does not answer its records either (the range
    of what is that new is empty at the end, not at the record)."""
    producer = AIOKafkaProducer(
        bootstrap_servers=bootstrap, transactional_id=f"{topic}-tx", acks="all"
    )
    await producer.start()
    try:
        await producer.begin_transaction()
        for n in range(5):
            value = json.dumps({"n": 3 * n, "aborted": True}).encode()
            sent = await producer.send_and_wait(
                topic, value, partition=0, timestamp_ms=BASE_MS + 500 + n
            )
        first = sent.offset - 4
        settings = ConnectionSettings(bootstrap)
        expected = {"read_committed": (first, first), "read_uncommitted": (first + 2, first + 5)}
        for isolation, (start, end) in expected.items():
            ranges = await search_ranges(settings, topic, [0], isolation, BASE_MS + 502)
            assert ranges == [OffsetRange(0, start, end)], (isolation, ranges)
        await producer.abort_transaction()
    finally:
        await producer.stop()


def _lines(capsys: pytest.CaptureFixture[str], cluster: Cluster, *args: str) -> list[str]:
    code, out, err = run(capsys, cluster, "--output", "jsonl", "messages", *args)
    assert code == 0, err
    return sorted(out.splitlines())


def test_search_prints_what_read_filters_on_both_engines(
    zk_cluster: Cluster,
    capsys: pytest.CaptureFixture[str],
    topic_name: Names,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    topic = topic_name()
    servers = zk_cluster.bootstrap_servers
    asyncio.run(create(servers, TopicSpec(topic, 3, 1, configs={"retention.ms": "-1"})))
    records = [
        {
            "key": (b"skip" if n == 9 else f"k{n}".encode()),
            "value": json.dumps({"n": n}).encode(),
            "partition": n % 3,
            "timestamp_ms": BASE_MS + n,
            "headers": [("h", b"x")] if n % 4 == 0 else [],
        }
        for n in range(90)
    ]
    records.append({"value": b"not json", "partition": 1, "timestamp_ms": BASE_MS + 90})
    asyncio.run(send(servers, topic, records))
    asyncio.run(_aborted(servers, topic))
    asyncio.run(markers_written(servers, topic))

    expected = _lines(capsys, zk_cluster, "read", topic, "--filter", FILTER)
    assert len(expected) == 29  # n = 0, 3, ..., 87 but 9 (its key is "skip")
    found = _lines(capsys, zk_cluster, "search", topic, "--filter", FILTER)
    assert found == expected
    assert not any('"aborted"' in line for line in found)
    uncommitted = _lines(
        capsys, zk_cluster, "search", topic, "--filter", FILTER,
        "--isolation", "read_uncommitted",
    )  # fmt: skip
    assert len(uncommitted) == 29 + 5

    # Narrowed: one partition, a time window (n 10..20), a limit.
    one = _lines(capsys, zk_cluster, "search", topic, "--filter", FILTER, "--partition", "1")
    assert one == [line for line in expected if json.loads(line)["partition"] == 1]
    window = _lines(
        capsys, zk_cluster, "search", topic, "--filter", ".value.n? != null",
        "--from-time", str(BASE_MS + 10), "--until-time", str(BASE_MS + 20),
    )  # fmt: skip
    assert sorted(json.loads(line)["value"]["n"] for line in window) == list(range(10, 21))
    limited = _lines(capsys, zk_cluster, "search", topic, "--filter", FILTER, "--limit", "4")
    assert len(limited) == 4 and set(limited) <= set(expected)

    # The table and progress lines of people; bad input in one sentence, exit 2.
    code, out, err = run(
        capsys, zk_cluster, "messages", "search", topic, "--filter", FILTER, "--progress"
    )
    assert code == 0, err
    assert out.startswith("PARTITION\tOFFSET\t") and len(out.splitlines()) == 1 + 29
    assert f"local: {91 + 5 + 1} of {91 + 5 + 1} records scanned" in err, err  # + abort marker
    assert "29 matches" in err, err
    code, _, err = run(capsys, zk_cluster, "messages", "search", topic, "--filter", ".[")
    assert code == 2 and err.count("\n") == 1 and "--filter" in err and "jq" in err, err
    code, _, err = run(capsys, zk_cluster, "messages", "search", f"{topic}-no", "--filter", ".")
    assert code == 2 and err.count("\n") == 1 and f"{topic}-no" in err, err

    # Spark (local[1]), every partition cut into ranges of 20 offsets (6 tasks): the same matches.
    monkeypatch.setattr(message_search, "RANGE_RECORDS", 20)
    on_spark = _lines(
        capsys, zk_cluster, "search", topic, "--filter", FILTER,
        "--engine", "spark", "--spark-master", "local[1]",
    )  # fmt: skip
    assert on_spark == expected
