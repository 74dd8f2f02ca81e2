"""`--load-max-age` on both real clusters (issue 30): a script's creates and grows count every
partition once, then place against that count plus what kafka-tui placed since, and the kept
load is what a fresh count shows; kafka-tui's own delete drops it."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kafka_tui.admin import ConnectionSettings, KafkaAdmin
from kafka_tui.cli import main
from kafka_tui.planning.placement import Load

from ..conftest import Cluster, record_written
from .test_load_read import _stable

Names = Callable[[str], str]


def _cli(capsys: pytest.CaptureFixture[str], cluster: Cluster, *args: str) -> list[dict[str, Any]]:
    base = ["--bootstrap-server", cluster.bootstrap_servers, "--output", "json"]
    if cluster.zookeeper:
        base += ["--zookeeper", cluster.zookeeper]
    code = main([*base, *args])
    out, err = capsys.readouterr()
    assert code == 0, (out, err)
    results: list[dict[str, Any]] = json.loads(out)
    return results


async def _exact_load(cluster: Cluster) -> Load:
    """Every partition counted, once two counts in a row agree."""

    async def count() -> Load:
        async with KafkaAdmin(ConnectionSettings(cluster.bootstrap_servers)) as admin:
            _, counted = await admin.topics_with_load([])
        return Load(counted.replicas, counted.leaders)

    return await _stable(count)


def _create(
    capsys: pytest.CaptureFixture[str], cluster: Cluster, topic: str, counts: str, *extra: str
) -> dict[str, Any]:
    """`counts`: "PARTITIONS:RF"."""
    partitions, factor = counts.split(":")
    args = ["--partitions", partitions, "--replication-factor", factor, *extra]
    [created] = _cli(capsys, cluster, "topics", "create", topic, *args)
    assert created["ok"], created
    return created


def test_a_scripts_creates_count_the_cluster_once(
    cluster: Cluster,
    capsys: pytest.CaptureFixture[str],
    topic_name: Names,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("KAFKA_TUI_LOAD_CACHE", str(tmp_path))
    written = record_written(monkeypatch)
    a, b, c, d = (topic_name(x) for x in "abcd")
    before = asyncio.run(_exact_load(cluster))
    written.clear()
    reuse = ["--load-max-age", "600"]

    _create(capsys, cluster, a, "3:2", *reuse)
    assert written.count("MetadataLoadRequest") == 1  # the first counts every partition
    [kept_file] = tmp_path.glob("*.json")

    written.clear()
    caplog.set_level(logging.INFO, logger="kafka_tui.services.snapshot")
    _create(capsys, cluster, b, "4:2", *reuse)
    grown = _cli(capsys, cluster, "topics", "alter", a, "--partitions", "5", *reuse)
    assert grown[0]["ok"], grown
    assert "MetadataLoadRequest" not in written  # placed against the kept load
    said = [r.getMessage() for r in caplog.records if "placing against the load" in r.getMessage()]
    assert len(said) == 2 and "(topics kafka-tui placed since: 1)" in said[0], said
    kept = json.loads(kept_file.read_text())
    assert kept["added"] == {a: 5, b: 4}
    # What was kept is what a count of every partition shows now: the first read, plus
    # every replica the three commands placed.
    now = asyncio.run(_exact_load(cluster))
    assert {int(k): v for k, v in kept["replicas"].items()} == now.replicas
    assert {int(k): v for k, v in kept["leaders"].items()} == now.leaders
    assert sum(now.replicas.values()) - sum(before.replicas.values()) == 2 * (5 + 4)

    # kafka-tui's own delete, which the kept load does not know of: the next create counts.
    _cli(capsys, cluster, "topics", "delete", a, "--yes")
    written.clear()
    _create(capsys, cluster, c, "1:1", *reuse)
    assert written.count("MetadataLoadRequest") == 1
    # Without a max age (the default), every create counts.
    written.clear()
    _create(capsys, cluster, d, "1:1")
    assert written.count("MetadataLoadRequest") == 1
    _cli(capsys, cluster, "topics", "delete", b, c, d, "--yes")


def test_a_max_age_that_is_not_a_number_of_seconds_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for wrong in ("-1", "soon", "inf", "nan"):
        with pytest.raises(SystemExit) as exit_:
            main(
                [
                    "--bootstrap-server",
                    "localhost:1",
                    "topics",
                    "create",
                    "t",
                    "--load-max-age",
                    wrong,
                ]
            )
        assert exit_.value.code == 2
        assert "a number of seconds, 0 or more" in capsys.readouterr().err
