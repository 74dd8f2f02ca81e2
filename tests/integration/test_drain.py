"""A broker's whole life on both real clusters (KRaft 4.4 with the cordon, ZooKeeper 3.9
without): `brokers drain` with a producer writing throughout (acks=all, every record read
back), an interrupted drain resumed, `brokers replace` (with a placeholder of the old
broker's rack offered to the new one) and `brokers undrain`.

Each test leaves the cluster as it found it: the drain's rollback file puts back every
partition it touched (other tests' topics too), the replace is replaced back, the added
broker removed and forgotten.

Kafka facts pinned here (measured on 4.4): AlterPartitionReassignments naming a broker
whose every log directory is cordoned is refused even when it only reorders replicas the
broker holds already (INVALID_REPLICA_ASSIGNMENT, "all its log directories are cordoned"),
so the drain reorders before it cordons; a target without the cordoned broker (moving off
it) is accepted, and so is a cancel (null target) that puts a replica back on it.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaProducer
from textual.widgets import Button, Input, Static

from kafka_tui.admin import ConnectionSettings, KafkaAdmin, TopicSpec
from kafka_tui.admin.model import DEFAULT_TIMEOUT_MS
from kafka_tui.admin.partition_moves import PartitionMove
from kafka_tui.cli import main
from kafka_tui.services.draining import CANCEL_WAIT_S
from kafka_tui.tui.screens.brokers import BrokersScreen
from kafka_tui.tui.screens.drain import DrainConfirm
from kafka_tui.tui.widgets.broker_table import BrokerTable

from ..conftest import Cluster
from .test_alter_rf import consume_all, produce
from .test_plans import cli
from .test_tui import app_for
from .test_tui_kip409 import loaded
from .test_tui_reassign import until

Names = Callable[[str], str]
DRAINED = 3


def _create(capsys: pytest.CaptureFixture[str], cluster: Cluster, topic: str, spec: str) -> None:
    code, created = cli(capsys, cluster, "topics", "create", topic, "--replica-assignment", spec)
    assert code == 0, created


def _replicas(capsys: pytest.CaptureFixture[str], cluster: Cluster, topic: str) -> list[list[int]]:
    code, described = cli(capsys, cluster, "topics", "describe", topic, "--no-configs")
    assert code == 0, described
    return [p["replicas"] for p in described[0]["partitions"]]


def _settled(
    capsys: pytest.CaptureFixture[str],
    cluster: Cluster,
    topic: str,
    ready: Callable[[list[list[int]]], bool],
) -> list[list[int]]:
    """The replica lists once `ready` holds (ZooKeeper-mode brokers learn of a move one by
    one), or as last read after 30 s."""
    deadline = time.monotonic() + 30
    while True:
        found = _replicas(capsys, cluster, topic)
        if ready(found) or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


def _roll_back(capsys: pytest.CaptureFixture[str], cluster: Cluster, path: str | None) -> None:
    """Every partition the drain touched back as it was (other tests' topics too)."""
    if path:
        code, undone = cli(capsys, cluster, "topics", "reassign", "--reassignment-json-file", path)
        assert code == 0, undone


class Producer:
    """An aiokafka producer (acks=all) writing to `topic` on a thread of its own until
    stopped; `acked` holds every record the cluster acknowledged."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        self.bootstrap, self.topic = bootstrap, topic
        self.acked: list[bytes] = []
        self.failed: list[BaseException] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)

    async def _run(self) -> None:
        producer = AIOKafkaProducer(bootstrap_servers=self.bootstrap, acks="all")
        await producer.start()
        try:
            n = 0
            while not self.stop.is_set():
                value = f"{n:08d}".encode() + b"y" * 200
                n += 1
                try:
                    await (await producer.send(self.topic, value))
                except Exception as exc:  # a send that failed is not acked
                    self.failed.append(exc)
                    continue
                self.acked.append(value)
        finally:
            await producer.stop()

    def __enter__(self) -> Producer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(60)


def test_drain_moves_leaders_then_replicas_off_while_a_producer_loses_nothing_then_undrain(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    busy, quiet, single = topic_name("busy"), topic_name("quiet"), topic_name("rf1")
    _create(capsys, cluster, busy, ",".join(["3:1", "2:3", "1:2", "3:2"] * 5))
    _create(capsys, cluster, quiet, ",".join(["3:2", "1:3", "2:1"] * 10))
    _create(capsys, cluster, single, "3,1,2,3")
    asyncio.run(produce(cluster.bootstrap_servers, quiet, 600, partitions=30))
    path = None
    try:
        code, preview = cli(capsys, cluster, "brokers", "drain", str(DRAINED), "--validate-only")
        assert preview["state"] == "preview" and preview["moved"] == 0
        moves = {(m["topic"], m["partition"]): m for m in preview["moves"]}
        mine = {k: m for k, m in moves.items() if k[0] in (busy, quiet, single)}
        # One new replica per replica moved: the drained broker replaced, nothing else.
        assert len(mine) == 15 + 20 + 2
        for m in mine.values():
            assert DRAINED in m["before"] and DRAINED not in m["after"]
            assert len(set(m["after"]) - set(m["before"])) == 1
        # Leadership first: every partition it leads and shares gets another first replica.
        reordered = {(r["topic"], r["partition"]): r for r in preview["leaders"]["reorders"]}
        assert {k for k in reordered if k[0] == busy} == {(busy, p) for p in range(0, 20, 4)} | {
            (busy, p) for p in range(3, 20, 4)
        }
        assert all(r["after"][0] != DRAINED for r in reordered.values())
        # The moves keep the leader the reorder gave: the drained broker is not first.
        assert moves[(busy, 0)]["before"] == [1, 3] and moves[(busy, 0)]["after"][0] == 1
        assert preview["bytes_to_move"] >= 20 * 600 // 30 * 100
        assert preview["replicas_after"][str(DRAINED)] == len(preview["unmovable"])
        assert _replicas(capsys, cluster, busy)[0] == [3, 1]  # nothing sent

        with Producer(cluster.bootstrap_servers, busy) as producer:
            deadline = time.monotonic() + 30
            while len(producer.acked) < 50 and time.monotonic() < deadline:
                time.sleep(0.05)
            code, drained = cli(
                capsys, cluster, "brokers", "drain", str(DRAINED), "--batch", "5",
                "--throttle", "50000000", "--yes",
            )  # fmt: skip
            during = len(producer.acked)
            deadline = time.monotonic() + 30
            while len(producer.acked) < during + 50 and time.monotonic() < deadline:
                time.sleep(0.05)
        path = drained["rollback_file"]
        assert drained["state"] == "done", drained
        # Only a partition every broker holds (a replication factor 3 internal topic of
        # another test) can stay; then the drain says so and exits 1.
        assert all(len(u["replicas"]) == 3 for u in drained["unmovable"]), drained["unmovable"]
        assert code == (1 if drained["unmovable"] else 0), drained
        assert drained["moved"] == len(drained["moves"]) and drained["cancelled"] == 0
        assert drained["leaders"]["reordered"] == len(drained["leaders"]["reorders"])
        for topic in (busy, quiet, single):
            found = _settled(capsys, cluster, topic, lambda rs: all(DRAINED not in r for r in rs))
            assert all(DRAINED not in r for r in found), (topic, found)
        assert [r[0] for r in _replicas(capsys, cluster, busy)][:4] == [1, 2, 1, 2]
        # No record lost: every acknowledged record reads back.
        assert producer.acked and not producer.failed
        read = asyncio.run(consume_all(cluster.bootstrap_servers, busy, 20, len(producer.acked)))
        assert set(producer.acked) <= set(read)
        assert len(asyncio.run(consume_all(cluster.bootstrap_servers, quiet, 30, 600))) == 600

        code, brokers = cli(capsys, cluster, "brokers", "list")
        by_id = {b["id"]: b for b in brokers}
        # Drained, not forgotten: still an observed broker (KIP-409) until `brokers forget`.
        assert by_id[DRAINED]["live"] and by_id[DRAINED]["observed"]
        assert by_id[DRAINED]["replicas"] == len(drained["unmovable"])
        code, throttles = cli(capsys, cluster, "throttles", "list")
        assert throttles == []  # removed at the end
        if cluster.mode == "kraft":
            assert drained["cordoned"] == [DRAINED] and drained["cordon_note"] is None
            (cordoned,) = by_id[DRAINED]["cordoned_log_dirs"]
            assert cordoned.startswith(cluster.dev.status()["dir"])
        else:
            assert drained["cordoned"] == [] and "Kafka 4.3" in drained["cordon_note"]

        code, undrained = cli(capsys, cluster, "brokers", "undrain", str(DRAINED))
        assert code == 0 and undrained[0]["ok"], undrained
        code, brokers = cli(capsys, cluster, "brokers", "list")
        after = {b["id"]: b for b in brokers}[DRAINED]
        if cluster.mode == "kraft":
            assert after["cordoned_log_dirs"] == []
            assert "uncordoned" in undrained[0]["message"]
        else:
            assert "nothing to uncordon" in undrained[0]["message"]
    finally:
        _roll_back(capsys, cluster, path)
        cli(capsys, cluster, "brokers", "undrain", str(DRAINED))
    # The rollback file undoes the whole drain, reorders included. Waited for on every
    # partition, not the first alone: a CI run read partition 3 still moving back ([3, 2, 1]),
    # and the rollback's moves still running then met the next tests on this cluster.
    before = [[3, 1], [2, 3], [1, 2], [3, 2]] * 5
    back = _settled(capsys, cluster, busy, lambda rs: rs == before)
    assert back == before


def _drain_process(cluster: Cluster, *args: str) -> subprocess.Popen[str]:
    base = ["--bootstrap-server", cluster.bootstrap_servers, "--output", "json"]
    if cluster.zookeeper:
        base += ["--zookeeper", cluster.zookeeper]
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    return subprocess.Popen(
        [sys.executable, "-m", "kafka_tui.cli", *base, "brokers", "drain", str(DRAINED), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


async def _wait_moving(cluster: Cluster, topic: str) -> list[Any]:
    """The reassignments of `topic` once one is in progress (30 s at most)."""
    async with KafkaAdmin(ConnectionSettings(cluster.bootstrap_servers)) as admin:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            ongoing = await admin.list_partition_reassignments([topic])
            if ongoing:
                return ongoing
            await asyncio.sleep(0.1)
    return []


def test_an_interrupted_drain_cancels_the_running_moves_keeps_the_finished_and_resumes(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    # `heavy` sorts before every other topic (the drain moves them in name order) and holds
    # 4 MB: at 1 KB/s its copy cannot finish before the stop.
    heavy, light = f"0drain-{uuid.uuid4().hex[:8]}", topic_name("light")
    _create(capsys, cluster, heavy, "1:3")
    _create(capsys, cluster, light, ",".join(["2:3", "3:1"] * 4))
    asyncio.run(produce(cluster.bootstrap_servers, heavy, 400, size=10_000, partitions=1))
    first: dict[str, Any] = {}
    second: dict[str, Any] = {}
    try:
        process = _drain_process(cluster, "--batch", "1", "--throttle", "1000", "--yes")
        try:
            ongoing = asyncio.run(_wait_moving(cluster, heavy))
            assert [(r.partition, r.adding, r.removing) for r in ongoing] == [(0, [2], [3])]
            process.send_signal(signal.SIGINT)
            out, err = process.communicate(timeout=90)
        finally:
            if process.poll() is None:
                process.kill()
        first = json.loads(out)
        assert process.returncode == 1, err
        assert first["state"] == "interrupted" and first["cancelled"] == 1, first
        assert "interrupted" in first["message"] and "1 cancelled" in first["message"]
        resume = first["resume"]
        assert resume.endswith(f"brokers drain {DRAINED} --batch 1 --throttle 1000 --yes")
        # Clean: nothing in progress, no throttle left, the cancelled partition unchanged.
        code, listed = cli(capsys, cluster, "reassignments", "list")
        assert listed == []
        code, throttles = cli(capsys, cluster, "throttles", "list")
        assert throttles == []
        assert _settled(capsys, cluster, heavy, lambda rs: rs == [[1, 3]]) == [[1, 3]]

        # Re-running resumes: only what is still on the broker moves.
        code, second = cli(capsys, cluster, "brokers", "drain", str(DRAINED), "--yes")
        assert second["state"] == "done", second
        still = {(m["topic"], m["partition"]) for m in second["moves"]}
        assert (heavy, 0) in still
        assert code == (1 if second["unmovable"] else 0)
        for topic in (heavy, light):
            found = _settled(capsys, cluster, topic, lambda rs: all(DRAINED not in r for r in rs))
            assert all(DRAINED not in r for r in found), (topic, found)
        assert _replicas(capsys, cluster, heavy) == [[1, 2]]
    finally:
        cli(capsys, cluster, "brokers", "undrain", str(DRAINED))
        # The second run's file holds the state after the first: undo it, then the first.
        _roll_back(capsys, cluster, second.get("rollback_file"))
        _roll_back(capsys, cluster, first.get("rollback_file"))


def _in_sync(capsys: pytest.CaptureFixture[str], cluster: Cluster, topic: str, b: int) -> bool:
    """Whether broker `b` joins partition 0's ISR within 30 s."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        _, described = cli(capsys, cluster, "topics", "describe", topic, "--no-configs")
        if b in described[0]["partitions"][0]["isr"]:
            return True
        time.sleep(0.2)
    return False


def _stopped(capsys: pytest.CaptureFixture[str], cluster: Cluster) -> int:
    """The broker to stop mid-copy (1 or 2; the drained 3 stays): in ZooKeeper mode the
    controller when it is one of them, so the drain also lives through the controller
    moving (its polls answered NOT_CONTROLLER for a moment)."""
    if cluster.mode == "zk":
        _, info = cli(capsys, cluster, "cluster", "describe")
        if info["controller_id"] in (1, 2):
            return int(info["controller_id"])
    return 2


def test_a_move_whose_new_broker_stops_mid_copy_is_cancelled_as_stalled_and_the_others_finish(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    # `heavy` (4 MB at 1 KB/s) moves KEPT:3 -> KEPT:GONE, onto the broker stopped mid-copy;
    # `light` (a few KB each, copied by the first throttled fetch) GONE:3 -> GONE:KEPT.
    gone = _stopped(capsys, cluster)
    kept = 3 - gone  # the other of brokers 1 and 2
    heavy, light = f"0stall-{uuid.uuid4().hex[:8]}", topic_name("light")
    _create(capsys, cluster, heavy, f"{kept}:3")
    _create(capsys, cluster, light, ",".join([f"{gone}:3"] * 4))
    asyncio.run(produce(cluster.bootstrap_servers, heavy, 400, size=10_000, partitions=1))
    asyncio.run(produce(cluster.bootstrap_servers, light, 200, partitions=4))
    out: dict[str, Any] = {}
    try:
        process = _drain_process(
            cluster, "--batch", "100", "--throttle", "1000", "--stall-timeout", "3", "--yes"
        )
        try:
            ongoing = asyncio.run(_wait_moving(cluster, heavy))
            assert [(r.partition, r.adding) for r in ongoing] == [(0, [gone])], ongoing
            # `light` done first: a ZooKeeper-mode move whose staying replica's broker stops
            # cannot end either (see below), so the test waits for it.
            assert (
                _settled(capsys, cluster, light, lambda rs: rs == [[gone, kept]] * 4)
                == [[gone, kept]] * 4
            )
            started = time.monotonic()
            cluster.dev.stop_broker(gone)
            raw, err = process.communicate(timeout=120)
            waited = time.monotonic() - started
        finally:
            if process.poll() is None:
                process.kill()
        assert raw, err
        out = json.loads(raw)
        assert process.returncode == 1, err
        assert out["state"] == "interrupted" and not out["ok"], out
        assert out["resume"].endswith(f"brokers drain {DRAINED} --batch 100 --throttle 1000 "
                                      "--stall-timeout 3 --yes")  # fmt: skip
        stalled = {(s["topic"], s["partition"]): s for s in out["stalled"]}
        assert stalled[(heavy, 0)] == {
            "topic": heavy, "partition": 0, "before": [kept, 3], "after": [kept, gone],
            "brokers_gone": [gone],
            "message": f"{heavy}-0: its new replica's broker {gone} left the cluster mid-copy; "
            "the move was cancelled (the partition keeps its replicas). Start broker "
            f"{gone} or drain again to plan afresh.",
        }  # fmt: skip
        # Only moves onto the stopped broker stall (other tests' partitions may too).
        assert all(s["brokers_gone"] == [gone] and gone in s["after"] for s in out["stalled"])
        assert "stalled and cancelled (" in out["message"], out["message"]
        assert f"broker {gone} left the cluster mid-copy" in out["message"]
        # Off a terminal, one stderr line says what the run waits for.
        assert "move(s) without progress for" in err and f"(broker {gone} gone" in err, err
        assert out["throttle_left_on"] == [gone]
        assert waited < 60, waited  # 3 s of absence, not for ever
        # The stalled partition keeps its replicas; the others finished (onto broker 1).
        assert _settled(capsys, cluster, heavy, lambda rs: rs == [[kept, 3]]) == [[kept, 3]]
        assert (
            _settled(capsys, cluster, light, lambda rs: rs == [[gone, kept]] * 4)
            == [[gone, kept]] * 4
        )
        code, listed = cli(capsys, cluster, "reassignments", "list")
        assert listed == []
        code, throttles = cli(capsys, cluster, "throttles", "list")
        assert throttles == []  # on the live brokers: the stopped one cannot be read

        # The Kafka fact the rule rests on (`_waits_on`): broker GONE stopped, a move that
        # keeps it and adds 3 ends once 3 is in sync on KRaft 4.4; ZooKeeper 3.9's
        # controller waits for the whole new list in the ISR, so the move never ends.
        cli(capsys, cluster, "brokers", "undrain", str(DRAINED))  # KRaft: the cordon off
        code, moving = cli(
            capsys, cluster, "topics", "reassign", light, "--replica-assignment", f"0={gone}:3",
            "--no-wait",
        )  # fmt: skip
        assert code == 0, moving
        if cluster.mode == "kraft":
            assert _settled(capsys, cluster, light, lambda rs: rs[0] == [gone, 3])[0] == [gone, 3]
        else:
            assert _in_sync(capsys, cluster, light, 3), "broker 3 never joined the ISR"
            code, listed = cli(capsys, cluster, "reassignments", "list", light)
            assert [(r["replicas"], r["adding"]) for r in listed] == [([gone, 3, kept], [3])], (
                listed
            )
            code, cancelled = cli(capsys, cluster, "reassignments", "cancel", light)
            assert code == 0, cancelled
            assert _settled(capsys, cluster, light, lambda rs: rs[0] == [gone, kept])[0] == [
                gone,
                kept,
            ]

        # Back, the stopped broker still has the rate it was given (its own dynamic
        # config, stored by the controller): orphaned, and cleared as the message says.
        cluster.restore()
        code, throttles = cli(capsys, cluster, "throttles", "list")
        assert {(t["kind"], t["name"], t["needed"]) for t in throttles} == {
            ("broker", str(gone), False)
        }, throttles
        code, cleared = cli(capsys, cluster, "throttles", "clear", "--orphaned")
        assert code == 0, cleared
        code, throttles = cli(capsys, cluster, "throttles", "list")
        assert throttles == []
    finally:
        cluster.restore()
        cli(capsys, cluster, "brokers", "undrain", str(DRAINED))
        _roll_back(capsys, cluster, out.get("rollback_file"))


async def _cordoned_reorder_is_refused(cluster: Cluster, topic: str) -> None:
    async with KafkaAdmin(ConnectionSettings(cluster.bootstrap_servers)) as admin:
        await admin.set_cordon(DRAINED, "*")
        try:
            [reorder] = await admin.alter_partition_reassignments(
                [PartitionMove(topic, 0, [1, DRAINED], [DRAINED, 1])]
            )
            [off] = await admin.alter_partition_reassignments(
                [PartitionMove(topic, 1, [1, 2], [DRAINED, 1])]
            )
            await admin.wait_for_reassignments([(topic, 1)], time.monotonic() + 30)
        finally:
            await admin.set_cordon(DRAINED, None)
    assert not reorder.ok and reorder.error == "INVALID_REPLICA_ASSIGNMENT"
    assert "all its log directories are cordoned" in reorder.message
    assert off.ok, off


def test_kafka_refuses_a_reorder_naming_a_cordoned_broker_so_the_drain_reorders_first(
    kraft_cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    topic = topic_name()
    _create(capsys, kraft_cluster, topic, "3:1,3:1")
    asyncio.run(_cordoned_reorder_is_refused(kraft_cluster, topic))
    assert _settled(capsys, kraft_cluster, topic, lambda rs: rs[1] == [1, 2])[1] == [1, 2]


def test_replace_of_a_stopped_broker_puts_the_new_one_in_place_and_offers_it_its_placeholders(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    moved, waiting = topic_name("moved"), topic_name("kip409")
    old_rack = {b["id"]: b["rack"] for b in cluster.dev.status()["brokers"]}[DRAINED]
    added = cluster.dev.add_broker(rack=old_rack)
    new = added.id
    forward: dict[str, Any] = {}
    try:
        _create(capsys, cluster, moved, "3:1,2:3,1:2,3:2")
        asyncio.run(produce(cluster.bootstrap_servers, moved, 200, partitions=4))
        # A KIP-409 topic whose placeholder waits for the rack brokers 1 and 2 lack: 3's.
        code, created = cli(
            capsys, cluster, "topics", "create", waiting, "--replica-assignment", "1:2:-1",
            "--under-replicated", "enabled",
        )  # fmt: skip
        assert code == 0, created
        # The failed machine: OLD is down while NEW copies its replicas from the others.
        cluster.dev.stop_broker(DRAINED)
        code, forward = cli(capsys, cluster, "brokers", "replace", str(DRAINED), str(new), "--yes")
        cluster.restore()
        assert forward["state"] == "done" and forward["cancelled"] == 0, forward
        mine = [
            (m["partition"], m["before"], m["after"])
            for m in forward["moves"]
            if m["topic"] == moved
        ]
        # In place: the new id where the old one was, the leader order kept.
        assert mine == [
            (0, [3, 1], [new, 1]),
            (1, [2, 3], [2, new]),
            (3, [3, 2], [new, 2]),
        ]
        assert _settled(
            capsys, cluster, moved, lambda rs: rs == [[new, 1], [2, new], [1, 2], [new, 2]]
        ) == [[new, 1], [2, new], [1, 2], [new, 2]]
        filled = [f for f in forward["placeholders_filled"] if f["topic"] == waiting]
        assert [(f["partition"], f["added"], f["ok"]) for f in filled] == [(0, [new], True)]
        assert _settled(capsys, cluster, waiting, lambda rs: rs == [[1, 2, new]]) == [[1, 2, new]]
        assert code == (1 if forward["unmovable"] else 0), forward
        assert len(asyncio.run(consume_all(cluster.bootstrap_servers, moved, 4, 200))) == 200
    finally:
        # Back on the old broker: every partition it held (other tests' too), then the new
        # broker removed and forgotten.
        cluster.restore()
        cli(capsys, cluster, "topics", "delete", waiting, "--yes")
        code, back = cli(capsys, cluster, "brokers", "replace", str(new), str(DRAINED), "--yes")
        cluster.dev.remove_broker(new)
        code_forget, forgot = cli(capsys, cluster, "brokers", "forget", str(new), "--yes")
    assert back["state"] == "done", back
    assert code_forget == 0 and forgot["ok"], forgot
    assert _settled(capsys, cluster, moved, lambda rs: rs[0] == [3, 1])[:2] == [[3, 1], [2, 3]]


async def test_the_brokers_screen_drains_the_highlighted_broker_and_esc_stops_it_cleanly(
    kraft_cluster: Cluster, kadmin: KafkaAdmin, topic_name: Names
) -> None:
    heavy = f"00drain-tui-{uuid.uuid4().hex[:8]}"  # first in name order, 4 MB at 1 KB/s
    assert (await kadmin.create_topics([TopicSpec(heavy, assignment={0: [1, 3]})]))[0].ok
    await produce(kraft_cluster.bootstrap_servers, heavy, 400, size=10_000, partitions=1)
    app = app_for(kraft_cluster)
    text = ""
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            # As an operator gets there: the topics screen loaded (the app connected), then
            # `b`. (A brokers screen pushed before the app's connection is up read "The admin
            # client is not connected." in 4 runs of 8 and showed no broker.)
            await loaded(app, pilot)
            await pilot.press("b")
            await until(pilot, lambda: isinstance(app.screen, BrokersScreen))
            screen = app.screen
            assert isinstance(screen, BrokersScreen)
            table = screen.query_one(BrokerTable)
            await until(pilot, lambda: table.row_count >= 3)
            table.move_cursor(row=[str(c) for c in table.get_column_at(0)].index(str(DRAINED)))
            await pilot.press("d")
            await until(pilot, lambda: bool(app.screen.query("#drain-throttle")))
            assert isinstance(app.screen, DrainConfirm)
            words = str(app.screen.query("Label")[1].render())
            assert "Leadership first" in words and "to copy" in words
            app.screen.query_one("#drain-batch", Input).value = "1"
            app.screen.query_one("#drain-throttle", Input).value = "1000"
            # pilot.click aims at the button's region as laid out when it is called: wait for
            # the dialog's first layout (on a loaded machine it can come after the mount), and
            # say so if the click still lands elsewhere.
            yes = app.screen.query_one("#drain-yes", Button)
            await until(pilot, lambda: yes.region.area > 0)
            assert await pilot.click("#drain-yes"), "the click missed the Drain button"
            status = screen.query_one("#drain-status", Static)
            seen: list[str] = []  # each status line shown, for a failure to say where it was

            def moving() -> bool:
                line = str(status.render())
                if not seen or seen[-1] != line:
                    seen.append(line)
                return "partitions moved" in line

            # Before its first move a drain may wait on Kafka twice: for its leadership
            # reorders to end (CANCEL_WAIT_S, when a replica is still catching up) and for the
            # election (the request's timeout); the test allows both, and some slack.
            try:
                await until(pilot, moving, CANCEL_WAIT_S + DEFAULT_TIMEOUT_MS / 1000 + 30)
            except AssertionError:
                raise AssertionError(f"no move started; the status read: {seen}") from None
            assert screen.draining == [DRAINED]
            ongoing = await kadmin.list_partition_reassignments([heavy])
            assert [(r.adding, r.removing) for r in ongoing] == [([2], [3])]
            await pilot.press("escape")  # stops the drain; the screen stays
            await until(pilot, lambda: not screen.draining, 60)
            assert app.screen is screen
            text = str(status.render())
            assert "interrupted" in text and "1 cancelled" in text and "Resume" in text
        assert await kadmin.list_partition_reassignments() == []
        async with KafkaAdmin(ConnectionSettings(kraft_cluster.bootstrap_servers)) as fresh:
            found, _ = await fresh.describe_topics([heavy], configs=False)
        assert found[0].partitions[0].replicas == (1, 3)
        dirs = (await kadmin.log_dirs([DRAINED]))[DRAINED]
        assert dirs.all_cordoned  # cordoned before the moves; `undrain` lifts it
    finally:
        await kadmin.set_cordon(DRAINED, None)
        path = text.split("Rollback file (the replicas before): ")[-1].strip()
        if path.endswith(".json"):
            code = await asyncio.to_thread(
                main,
                ["--bootstrap-server", kraft_cluster.bootstrap_servers, "--output", "json",
                 "topics", "reassign", "--reassignment-json-file", path],
            )  # fmt: skip
            assert code == 0
