"""`groups list / describe / reset-offsets / delete` on the real clusters, compared with Kafka's
own kafka-consumer-groups.sh (ConsumerGroupCommand from the cluster's jars) where it has the
same mode.

Pinned here (KRaft 4.4.0 and ZooKeeper-mode 3.9.2): an admin's OffsetCommit (no member,
generation -1) to a classic group with a member is refused with UNKNOWN_MEMBER_ID, and kafka-tui
refuses it before sending (NON_EMPTY_GROUP, naming the state); DeleteGroups deletes an Empty
group and answers NON_EMPTY_GROUP for one with members.
"""

from __future__ import annotations

import asyncio
import csv
import datetime
import io
import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from aiokafka import AIOKafkaProducer

from kafka_tui.admin import ConnectionSettings, KafkaAdmin, TopicSpec
from kafka_tui.admin.protocol_group_changes import OffsetCommitRequest
from kafka_tui.devcluster.jars import ensure_kafka
from kafka_tui.devcluster.node import java_bin
from kafka_tui.services.groups import describe_groups

from ..conftest import Cluster
from ..java_mains import run_mains
from .test_cli import run, run_json
from .test_consumer_groups import ActiveMember, commit_and_leave, create

Names = Callable[[str], str]
PARTITIONS = 3
RECORDS = 10  # per partition
STEP_MS = 15 * 60_000  # between two records' timestamps
COMMITTED = {0: 3, 1: 5, 2: 9}


def _tools(cluster: Cluster, calls: list[list[str]]) -> list[dict[tuple[str, int], int]]:
    """kafka-consumer-groups.sh of the cluster's own Kafka release, once per call (one JVM):
    the offsets of each call's CSV output."""
    state = cluster.dev.load()
    assert state is not None
    classpath = ensure_kafka(state.version, cluster.dev.cache).classpath
    tool = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand"
    done = run_mains(
        java_bin(),
        classpath,
        [[tool, "--bootstrap-server", cluster.bootstrap_servers, *args] for args in calls],
    )
    for (code, text), args in zip(done, calls, strict=True):
        assert code == 0, (args, text[-2000:])
    return [_csv_offsets(text) for _, text in done]


def _csv_offsets(text: str) -> dict[tuple[str, int], int]:
    rows = {}
    for line in csv.reader(io.StringIO(text)):
        if len(line) == 3 and line[1].isdigit():
            rows[(line[0], int(line[1]))] = int(line[2])
    return rows


async def _timed_records(bootstrap: str, topic: str, base_ms: int) -> None:
    """RECORDS per partition, the i-th stamped base_ms + i * STEP_MS (CreateTime)."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
    await producer.start()
    try:
        sent = [
            await producer.send(
                topic, b"v", key=f"k{i}".encode(), partition=p, timestamp_ms=base_ms + i * STEP_MS
            )
            for p in range(PARTITIONS)
            for i in range(RECORDS)
        ]
        await asyncio.gather(*sent)
    finally:
        await producer.stop()


def _prepare(cluster: Cluster, topic: str, group: str | None) -> int:
    """The topic and its records; `group` (if any) committed COMMITTED and left."""
    base = int(time.time() * 1000) - 3 * 3600_000

    async def go() -> None:
        await create(cluster.bootstrap_servers, TopicSpec(topic, PARTITIONS, 2))
        await _timed_records(cluster.bootstrap_servers, topic, base)
        if group is not None:
            await commit_and_leave(
                cluster.bootstrap_servers, group, {(topic, p): o for p, o in COMMITTED.items()}
            )

    asyncio.run(go())
    return base


def _ours(
    capsys: pytest.CaptureFixture[str], cluster: Cluster, group: str, *args: str
) -> dict[tuple[str, int], int]:
    code, out, err = run(capsys, cluster, "groups", "reset-offsets", group, *args, "--export")
    assert code == 0, err
    return _csv_offsets(out)


def test_each_reset_mode_previews_what_kafka_consumer_groups_sh_would(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names, tmp_path: Path
) -> None:
    """Every mode on KRaft 4.4; on ZooKeeper-mode 3.9 (with its own release's tool) the modes
    whose answer comes from the broker's log: by time, and the clamps to its start and end."""
    topic, group = topic_name(), topic_name("g")
    base = _prepare(cluster, topic, group)
    at = datetime.datetime.fromtimestamp((base + 4 * STEP_MS + 60_000) / 1000, datetime.UTC)
    when = at.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    plan = tmp_path / "plan.csv"
    plan.write_text(f"{topic},0,2\n{topic},1,99\n{topic},2,7\n")
    modes = [
        ["--to-earliest"],
        ["--to-latest"],
        ["--to-current"],
        ["--to-offset", "4"],
        ["--shift-by", "-4"],
        ["--shift-by", "3"],
        ["--to-datetime", when],
        # now - 97 min falls 7 min before the 7th record (base + 90 min from 3 h ago)
        ["--by-duration", "PT1H37M"],
        ["--from-file", str(plan)],
    ]
    if cluster.mode == "zk":
        modes = [m for m in modes if m[0] in ("--to-datetime", "--by-duration", "--from-file")]
    scopes = [
        [] if m[0] == "--from-file" else ["--all-topics"] if m[0] == "--to-current" else
        ["--topic", topic]
        for m in modes
    ]  # fmt: skip
    # Every mode's dry run in one JVM of the cluster's own tool (a JVM start each: ~2.5 CPU-s).
    answers = _tools(
        cluster,
        [
            ["--group", group, "--reset-offsets", *scope, *mode, "--dry-run", "--export"]
            for scope, mode in zip(scopes, modes, strict=True)
        ],
    )
    for scope, mode, theirs in zip(scopes, modes, answers, strict=True):
        ours = _ours(capsys, cluster, group, *scope, *mode)
        assert theirs, mode
        assert ours == theirs, mode
    # The chosen partitions only; a preview changes nothing.
    some = _ours(capsys, cluster, group, "--topic", f"{topic}:0,2", "--to-earliest")
    assert some == {(topic, 0): 0, (topic, 2): 0}
    [view] = asyncio.run(_describe(cluster, group))
    assert {(p.topic, p.partition): p.committed for p in view.offsets} == {
        (topic, p): o for p, o in COMMITTED.items()
    }


async def _describe(cluster: Cluster, group: str) -> list:  # type: ignore[type-arg]
    async with KafkaAdmin(ConnectionSettings(cluster.bootstrap_servers)) as admin:
        return await describe_groups(admin, [group])


def test_a_reset_is_refused_while_the_group_has_members_and_a_rollback_file_restores_it(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    topic, group = topic_name(), topic_name("g")
    _prepare(cluster, topic, None)
    with ActiveMember(cluster.bootstrap_servers, topic, group, PARTITIONS * RECORDS):
        code, refused = run_json(
            capsys, cluster, "groups", "reset-offsets", group, "--topic", topic,
            "--to-earliest", "--execute",
        )  # fmt: skip
        assert code == 1
        assert refused["executed"] is False and refused["rollback_file"] is None
        assert refused["error"] == "NON_EMPTY_GROUP"
        assert "active member" in refused["message"] and "Stable" in refused["message"]
        # Kafka's own answer to an admin commit while a member is in the group.
        pinned = asyncio.run(_admin_commit(cluster, group, {(topic, 0): 0}))
        assert pinned == ["UNKNOWN_MEMBER_ID"]
        [view] = asyncio.run(_describe(cluster, group))
        assert view.type == "classic" and view.state == "Stable" and view.members
        assert {p.committed for p in view.offsets} == {RECORDS}
        assert [tp for m in view.members for tp in m.assignment] == [
            (topic, p) for p in range(PARTITIONS)
        ]
    # Left: Empty. Execute to-earliest; the rollback file holds the offsets before.
    code, done = _until_empty(capsys, cluster, group, topic)
    assert code == 0, done
    assert done["executed"] is True
    assert [p["after"] for p in done["partitions"]] == [0] * PARTITIONS
    assert [p["rereads"] for p in done["partitions"]] == [RECORDS] * PARTITIONS
    path = Path(done["rollback_file"])
    assert _csv_offsets(path.read_text()) == {(topic, p): RECORDS for p in range(PARTITIONS)}
    [view] = asyncio.run(_describe(cluster, group))
    assert {p.committed for p in view.offsets} == {0}
    assert view.lag == PARTITIONS * RECORDS and view.status == "STOP"
    code, audit, _ = run(capsys, cluster, "--output", "json", "audit", "tail", "-n", "1")
    entry = json.loads(audit.strip().splitlines()[-1])
    assert entry["action"] == "group offsets reset" and entry["rollback_file"] == str(path)
    code, back = run_json(
        capsys, cluster, "groups", "reset-offsets", group, "--from-file", str(path), "--execute"
    )
    assert code == 0 and back["executed"] is True
    [view] = asyncio.run(_describe(cluster, group))
    assert {p.committed for p in view.offsets} == {RECORDS}


def _until_empty(
    capsys: pytest.CaptureFixture[str], cluster: Cluster, group: str, topic: str
) -> tuple[int, dict]:  # type: ignore[type-arg]
    """A member that left is gone from the group at once (LeaveGroup); still, a coordinator
    may answer a describe in between: reset as soon as the group reads Empty."""
    deadline = time.monotonic() + 60
    while True:
        [view] = asyncio.run(_describe(cluster, group))
        if view.state == "Empty" or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    code, done = run_json(
        capsys, cluster, "groups", "reset-offsets", group, "--topic", topic,
        "--to-earliest", "--execute",
    )  # fmt: skip
    return code, done  # type: ignore[return-value]


async def _admin_commit(
    cluster: Cluster, group: str, offsets: dict[tuple[str, int], int]
) -> list[str]:
    from kafka_tui.admin.errors import error_name

    async with KafkaAdmin(ConnectionSettings(cluster.bootstrap_servers)) as admin:
        node = await admin.group_coordinator(group)
        request = OffsetCommitRequest(group, offsets)
        answer = request.answer(await admin._send_to_itself(request, node))
    return [error_name(a.error_code) for a in answer]


def test_lag_in_seconds_is_the_age_of_the_first_unconsumed_record(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    topic, group = topic_name(), topic_name("g")
    base = _prepare(cluster, topic, group)
    before = time.time()
    code, described = run_json(capsys, cluster, "groups", "describe", group)
    after = time.time()
    assert code == 0
    [doc] = described
    by_partition = {p["partition"]: p for p in doc["offsets"]}
    for p, committed in COMMITTED.items():
        row = by_partition[p]
        assert (row["committed"], row["log_end"], row["lag"]) == (
            committed,
            RECORDS,
            RECORDS - committed,
        )
        stamp = (base + committed * STEP_MS) / 1000
        assert before - stamp - 1 <= row["lag_seconds"] <= after - stamp + 1
    assert doc["lag"] == sum(RECORDS - c for c in COMMITTED.values())
    assert doc["lag_seconds"] == max(p["lag_seconds"] for p in doc["offsets"])
    assert doc["status"] == "STOP" and doc["members"] == []
    # Retention deleted records the group never read: ERR, and the oldest record left counts.
    asyncio.run(_delete_records(cluster, topic, 0, 6))
    code, described = run_json(capsys, cluster, "groups", "describe", group)
    [doc] = described
    row = next(p for p in doc["offsets"] if p["partition"] == 0)
    assert row["log_start"] == 6 and row["committed"] == 3 and row["lag"] == RECORDS - 3
    assert "deleted by retention" in row["note"]
    stamp = (base + 6 * STEP_MS) / 1000
    assert row["lag_seconds"] <= time.time() - stamp + 1
    assert doc["status"] == "ERR" and "behind the log start 6" in doc["status_reason"]
    # The list shows the same group, lag and status.
    code, listed = run_json(capsys, cluster, "groups", "list", "--topic", topic)
    assert code == 0
    assert [(g["group"], g["type"], g["lag"], g["status"]) for g in listed] == [
        (group, "classic", doc["lag"], "ERR")
    ]


async def _delete_records(cluster: Cluster, topic: str, partition: int, before: int) -> None:
    from aiokafka import TopicPartition
    from aiokafka.admin import AIOKafkaAdminClient, RecordsToDelete

    client = AIOKafkaAdminClient(bootstrap_servers=cluster.bootstrap_servers)
    await client.start()
    try:
        await client.delete_records({TopicPartition(topic, partition): RecordsToDelete(before)})
    finally:
        await client.close()


def test_delete_groups_one_result_each(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    topic, idle, busy = topic_name(), topic_name("idle"), topic_name("busy")
    _prepare(cluster, topic, idle)
    with ActiveMember(cluster.bootstrap_servers, topic, busy, PARTITIONS * RECORDS):
        code, results = run_json(
            capsys, cluster, "groups", "delete", idle, busy, topic_name("none")
        )
    assert code == 1
    assert [(r["ok"], r["error"]) for r in results] == [
        (True, None),
        (False, "NON_EMPTY_GROUP"),
        (False, "GROUP_ID_NOT_FOUND"),
    ]
    assert "active member" in results[1]["message"]
    code, listed = run_json(capsys, cluster, "groups", "list", "--topic", topic)
    assert idle not in [g["group"] for g in listed]
