"""Rollback files wherever replicas change (issue 32 point 3), on the real clusters: a
placeholder fill writes one that, applied with `topics reassign --reassignment-json-file`,
puts the partition back on its replicas before the fill; the reassign screen shows the file
of its run and rolls back with ctrl+z after a confirmation."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.widgets import Label

from kafka_tui.admin import ConnectionSettings, KafkaAdmin, TopicSpec
from kafka_tui.admin.placeholders import PlaceholderEntry, PlaceholderStore, Slot
from kafka_tui.services import rollback
from kafka_tui.tui.screens.reassign import RollbackConfirm

from ..conftest import Cluster
from .test_kip409 import cli
from .test_tui import app_for
from .test_tui_reassign import SIZE, open_screen, until

Names = Callable[[str], str]


async def replicas_until(
    cluster: Cluster, topic: str, wanted: list[int], seconds: float = 60
) -> list[int]:
    """Partition 0's replicas once they are `wanted` (a reassignment ends after the
    controller answered; the broker answering Metadata may lag), or as they are at the end."""
    deadline = time.monotonic() + seconds
    async with KafkaAdmin(ConnectionSettings(cluster.bootstrap_servers)) as admin:
        while True:
            found, _ = await admin.describe_topics([topic], configs=False)
            replicas = list(found[0].partitions[0].replicas)
            if replicas == wanted or time.monotonic() > deadline:
                return replicas
            await asyncio.sleep(0.2)


def rows_of(path: Path) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = json.loads(path.read_text())["partitions"]
    return rows


async def under_replicated_topic(cluster: Cluster, topic: str) -> None:
    """A one-partition topic on broker 1 whose kafka-tui record wants a second replica: what
    a KIP-409 create leaves when no other broker could take it."""
    settings = ConnectionSettings(cluster.bootstrap_servers)
    async with KafkaAdmin(settings) as admin:
        [created] = await admin.create_topics([TopicSpec(topic, assignment={0: [1]})])
        assert created.ok, created.message
        entry = PlaceholderEntry(topic, created.topic_id, 2, {0: [Slot(-1, None)]})
        await PlaceholderStore(settings).write([entry])


def test_a_fill_writes_a_rollback_file_that_undoes_it(
    cluster: Cluster,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    topic_name: Names,
) -> None:
    monkeypatch.setenv(rollback.ENV, str(tmp_path))
    topic = topic_name()
    asyncio.run(under_replicated_topic(cluster, topic))
    code, fills = cli(capsys, cluster, "placeholders", "fill")
    mine = [f for f in fills if f["topic"] == topic]
    assert code == 0 and [(f["ok"], len(f["added"])) for f in mine] == [(True, 1)], fills
    [fill] = mine
    path = Path(fill["rollback_file"])
    assert path.parent == tmp_path
    assert asyncio.run(replicas_until(cluster, topic, [1, *fill["added"]])) == [1, *fill["added"]]
    # The replicas before the fill, in kafka-reassign-partitions' format (other topics the
    # same round filled are in it too).
    written = json.loads(path.read_text())
    assert written["version"] == 1
    assert {"topic": topic, "partition": 0, "replicas": [1], "log_dirs": ["any"]} in written[
        "partitions"
    ]
    # A round with nothing to move writes no file.
    code, fills = cli(capsys, cluster, "placeholders", "fill")
    assert all(f["rollback_file"] is None for f in fills if f["topic"] == topic)
    assert sorted(tmp_path.iterdir()) == [path]
    # Applied: the partition is back on broker 1 alone.
    code, outcomes = cli(
        capsys, cluster, "topics", "reassign", "--reassignment-json-file", str(path)
    )
    assert code == 0, outcomes
    assert asyncio.run(replicas_until(cluster, topic, [1])) == [1]


async def test_the_reassign_screen_shows_its_rollback_file_and_rolls_back(
    kraft_cluster: Cluster,
    kadmin: KafkaAdmin,
    topic_name: Names,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(rollback.ENV, str(tmp_path))
    topic = topic_name()
    assert (await kadmin.create_topics([TopicSpec(topic, assignment={0: [1]})]))[0].ok
    app = app_for(kraft_cluster)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(app, pilot, topic)
        await pilot.press("2")
        await pilot.press("ctrl+s")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.finished and screen.rollback_file is not None
        first = Path(screen.rollback_file)
        assert first.parent == tmp_path
        assert rows_of(first) == [
            {"topic": topic, "partition": 0, "replicas": [1], "log_dirs": ["any"]}
        ]
        status = str(screen.query_one("#reassign-status", Label).render())
        assert f"Rollback file: {first} (ctrl+z rolls back)" in status
        grown = await replicas_until(kraft_cluster, topic, [1, 0], seconds=0)
        assert len(grown) == 2 and grown[0] == 1
        # ctrl+z asks first; escape leaves everything as it is.
        await pilot.press("ctrl+z")
        await until(pilot, lambda: isinstance(app.screen, RollbackConfirm))
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen)
        await app.workers.wait_for_complete()
        found, _ = await kadmin.describe_topics([topic], configs=False)
        assert list(found[0].partitions[0].replicas) == grown
        # Confirmed: the file goes through the reassign service.
        await pilot.press("ctrl+z")
        await until(pilot, lambda: isinstance(app.screen, RollbackConfirm))
        await pilot.press("enter")
        await until(pilot, lambda: app.screen is screen)
        await app.workers.wait_for_complete()
        await pilot.pause()
        status = str(screen.query_one("#reassign-status", Label).render())
        assert status.startswith("Rolled back:"), status
        # The rollback has its own rollback file (the replicas it undid).
        assert screen.rollback_file is not None and Path(screen.rollback_file) != first
        assert rows_of(Path(screen.rollback_file))[0]["replicas"] == grown
    assert await replicas_until(kraft_cluster, topic, [1]) == [1]
