"""Topics as desired state (issue 32 point 5) on both real clusters: `plan export` then
`plan preview` of the export shows no change at all; a plan's configs differ from a topic's
overrides as added, changed and removed (defaults and read-only keys are no difference);
`plan apply --configs` sets them, `--prune-configs` also removes, without them nothing moves;
the Spark engine writes the same document."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from kafka_tui.admin import ConnectionSettings, KafkaAdmin
from kafka_tui.cli import main

from ..conftest import Cluster
from .test_plans import cli, stem, write_csv


def overrides(cluster: Cluster, name: str) -> dict[str, str | None]:
    """A topic's overrides, read by a fresh connection (from whichever broker it picks)."""

    async def read() -> dict[str, str | None]:
        async with KafkaAdmin(ConnectionSettings(cluster.bootstrap_servers)) as admin:
            found, _ = await admin.describe_topics([name])
        return {k: c.value for k, c in found[0].configs.items() if c.is_override}

    return asyncio.run(read())


def export(cluster: Cluster, capsys: pytest.CaptureFixture[str], pattern: str) -> str:
    base = ["--bootstrap-server", cluster.bootstrap_servers]
    assert main([*base, "plan", "export", "--topics", pattern]) == 0
    return capsys.readouterr().out


def changes_of(document: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    return {t["topic"]: t["config_changes"] for t in document["topics"]}


def test_export_then_preview_shows_no_change_at_all(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    prefix = stem()
    code, _ = cli(capsys, cluster, "topics", "create", f"{prefix}-a", "--partitions", "2",
                  "--replication-factor", "2", "--config", "retention.ms=5000",
                  "--config", "cleanup.policy=compact,delete",
                  "--config", "segment.bytes=1073741824")  # fmt: skip
    assert code == 0
    code, _ = cli(capsys, cluster, "topics", "create", f"{prefix}-b", "--partitions", "1",
                  "--replication-factor", "1")  # fmt: skip
    assert code == 0
    out = export(cluster, capsys, f"{prefix}-.*")
    # Only the topics' own overrides: segment.bytes=1073741824 is also the default, and an
    # override all the same (the round trip keeps it).
    assert out.splitlines()[1:] == [
        f'{prefix}-a,2,2,,"cleanup.policy=compact,delete;retention.ms=5000;'
        'segment.bytes=1073741824"',
        f"{prefix}-b,1,1,,",
    ]
    plan = tmp_path / "export.csv"
    plan.write_text(out)
    code, document = cli(capsys, cluster, "plan", "preview", str(plan))
    assert code == 0, document
    assert document["topics"] == []
    assert document["stats"]["unchanged_topics"] == 2
    assert document["stats"]["partitions"] == 0
    # On a terminal: nothing to create, grow or change.
    assert main(["--bootstrap-server", cluster.bootstrap_servers, *(
        ["--zookeeper", cluster.zookeeper] if cluster.zookeeper else []),
        "plan", "preview", str(plan)]) == 0  # fmt: skip
    text = capsys.readouterr().out
    assert "0 topic(s) to create, 0 to grow, 0 refused; 0 new partitions" in text
    assert "Config changes" not in text


def test_preview_shows_the_config_diff_and_apply_configs_makes_it_true(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    prefix = stem()
    name = f"{prefix}-t"
    code, _ = cli(capsys, cluster, "topics", "create", name, "--partitions", "2",
                  "--replication-factor", "1", "--config", "retention.ms=5000",
                  "--config", "segment.ms=600000", "--config", "max.message.bytes=2000000",
                  "--config", "segment.bytes=1073741824")  # fmt: skip
    assert code == 0
    # retention.ms changed, segment.ms kept, max.message.bytes not named (removed),
    # segment.bytes not named but its override is the default (no difference),
    # cleanup.policy added, compression.type=producer is the default (no difference).
    plan = write_csv(
        tmp_path / "plan.csv",
        [f'{name},2,,,"retention.ms=7000;segment.ms=600000;cleanup.policy=compact;'
         'compression.type=producer"'],
    )  # fmt: skip
    code, document = cli(capsys, cluster, "plan", "preview", str(plan))
    assert code == 0, document
    [topic] = document["topics"]
    assert topic["action"] == "configs" and topic["assignment"] == [] and not topic["error"]
    assert topic["config_changes"] == [
        {"key": "cleanup.policy", "before": None, "after": "compact"},
        {"key": "max.message.bytes", "before": "2000000", "after": None},
        {"key": "retention.ms", "before": "5000", "after": "7000"},
    ]
    assert set(document) == {"engine", "cluster", "options", "topics", "brokers", "stats",
                             "warnings"}  # fmt: skip
    base = ["--bootstrap-server", cluster.bootstrap_servers]
    base += ["--zookeeper", cluster.zookeeper] if cluster.zookeeper else []
    assert main([*base, "plan", "preview", str(plan)]) == 0
    text = capsys.readouterr().out
    assert "1 with config changes" in text
    assert (
        f"  {name}: +cleanup.policy=compact; -max.message.bytes (was 2000000); "
        "retention.ms: 5000 -> 7000" in text
    )
    assert "not applied without `plan apply --configs`; removals need --prune-configs" in text

    before = overrides(cluster, name)
    # Without --configs: nothing changes, and the result says so.
    code, results = cli(capsys, cluster, "plan", "apply", str(plan), "--yes")
    assert code == 0, results
    assert "not applied: config changes were not asked for" in results[0]["message"]
    assert overrides(cluster, name) == before
    # --configs: set and changed, the removal waits for --prune-configs.
    code, results = cli(capsys, cluster, "plan", "apply", str(plan), "--yes", "--configs")
    assert code == 0 and results[0]["ok"], results
    assert overrides(cluster, name) == {
        "retention.ms": "7000",
        "segment.ms": "600000",
        "max.message.bytes": "2000000",
        "segment.bytes": "1073741824",
        "cleanup.policy": "compact",
    }
    code, document = cli(capsys, cluster, "plan", "preview", str(plan))
    assert changes_of(document) == {
        name: [{"key": "max.message.bytes", "before": "2000000", "after": None}]
    }
    code, results = cli(capsys, cluster, "plan", "apply", str(plan), "--yes", "--configs",
                        "--prune-configs")  # fmt: skip
    assert code == 0 and results[0]["ok"], results
    # Every broker showed the change before apply returned: a fresh connection, whichever
    # broker it reads from, sees no difference left.
    code, document = cli(capsys, cluster, "plan", "preview", str(plan))
    assert code == 0 and document["topics"] == [], document
    assert overrides(cluster, name) == {
        "retention.ms": "7000",
        "segment.ms": "600000",
        "segment.bytes": "1073741824",
        "cleanup.policy": "compact",
    }


def test_a_grow_applies_its_config_changes_with_the_partitions(
    kraft_cluster: Cluster, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    name = f"{stem()}-g"
    code, _ = cli(capsys, kraft_cluster, "topics", "create", name, "--partitions", "1",
                  "--replication-factor", "2", "--config", "retention.ms=5000")  # fmt: skip
    assert code == 0
    plan = write_csv(tmp_path / "plan.csv", [f"{name},3,,,retention.ms=9000"])
    saved = tmp_path / "saved.json"
    code, document = cli(capsys, kraft_cluster, "plan", "preview", str(plan), "--save",
                         str(saved))  # fmt: skip
    assert code == 0
    [topic] = document["topics"]
    assert topic["action"] == "grow" and len(topic["assignment"]) == 2
    assert topic["config_changes"] == [{"key": "retention.ms", "before": "5000", "after": "9000"}]
    code, results = cli(capsys, kraft_cluster, "plan", "apply", str(saved), "--yes", "--configs")
    assert code == 0 and results[0]["ok"], results
    assert overrides(kraft_cluster, name) == {"retention.ms": "9000"}
    code, document = cli(capsys, kraft_cluster, "plan", "preview", str(plan))
    assert document["topics"] == [] and document["stats"]["unchanged_topics"] == 1


def test_the_spark_engine_writes_the_same_config_changes(
    kraft_cluster: Cluster, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    name = f"{stem()}-s"
    code, _ = cli(capsys, kraft_cluster, "topics", "create", name, "--partitions", "1",
                  "--replication-factor", "1", "--config", "retention.ms=5000")  # fmt: skip
    assert code == 0
    plan = write_csv(tmp_path / "plan.csv", [f"{name},2,,,segment.ms=700000", f"{name}-new,1,1,,"])
    documents = []
    for engine in ("local", "spark"):
        code, document = cli(capsys, kraft_cluster, "plan", "preview", str(plan), "--engine",
                             engine, "--spark-master", "local[1]")  # fmt: skip
        assert code == 0, document
        documents.append({**document, "engine": None, "cluster": None})
    assert documents[0] == documents[1]
    assert changes_of(documents[0]) == {
        name: [
            {"key": "retention.ms", "before": "5000", "after": None},
            {"key": "segment.ms", "before": None, "after": "700000"},
        ],
        f"{name}-new": [],
    }
    assert json.dumps(documents[0])  # plain JSON
