"""`kafka-tui plan` on both real clusters: preview then apply (metadata equal to the preview),
an interrupted apply resumed, a broker down (KIP-409 modes), bad plan files, export."""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from kafka_tui.admin import ConnectionSettings, KafkaAdmin
from kafka_tui.cli import main

from ..conftest import Cluster


def cli(capsys: pytest.CaptureFixture[str], cluster: Cluster, *args: str) -> tuple[int, Any]:
    base = ["--bootstrap-server", cluster.bootstrap_servers, "--output", "json"]
    if cluster.zookeeper:
        base += ["--zookeeper", cluster.zookeeper]
    code = main([*base, *args])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out.strip() else err


def write_csv(path: Path, rows: list[str]) -> Path:
    header = "topic,partitions,replication_factor,min_required_replication_factor,configs"
    path.write_text("\n".join([header, *rows]) + "\n")
    return path


async def replicas_of(cluster: Cluster, names: list[str]) -> dict[str, list[list[int]]]:
    async with KafkaAdmin(ConnectionSettings(cluster.bootstrap_servers)) as admin:
        found, missing = await admin.describe_topics(names, configs=False)
    assert not missing
    return {t.name: [list(p.replicas) for p in t.partitions] for t in found}


def stem() -> str:
    return f"plan-{uuid.uuid4().hex[:6]}"


def test_a_300_topic_plan_is_applied_exactly_as_previewed(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    prefix = stem()
    grown = f"{prefix}-grown"
    code, _ = cli(capsys, cluster, "topics", "create", grown, "--partitions", "2",
                  "--replication-factor", "2")  # fmt: skip
    assert code == 0
    rows = [f"{grown},5,,,"]
    rows += [
        f"{prefix}-{n:03d},{1 + n % 3},{1 + n % 3},,retention.ms={1000 + n}" for n in range(299)
    ]
    plan = write_csv(tmp_path / "plan.csv", rows)
    saved = tmp_path / "saved.json"
    code, document = cli(capsys, cluster, "plan", "preview", str(plan), "--save", str(saved))
    assert code == 0, document
    assert document["engine"] == "local"
    assert json.loads(saved.read_text()) == document
    topics = {t["topic"]: t for t in document["topics"]}
    assert len(topics) == 300
    assert topics[grown]["action"] == "grow" and len(topics[grown]["assignment"]) == 3
    assert all(len(a) == 2 for a in topics[grown]["assignment"])
    assert topics[f"{prefix}-005"] | {"assignment": None} == {
        "topic": f"{prefix}-005",
        "action": "create",
        "partitions": 3,
        "replication_factor": 3,
        "assignment": None,
        "warnings": [],
        "error": None,
        "message": "",
        "configs": {"retention.ms": "1005"},
        "min_required_replication_factor": None,
        "mode": "disabled",
        "config_changes": [],
    }
    assert sorted(document["brokers"][0]) == sorted(
        [
            "id",
            "rack",
            "live",
            "replicas_before",
            "replicas_after",
            "leaders_before",
            "leaders_after",
            "followers_before",
            "followers_after",
            "degree",
        ]
    )
    new_replicas = sum(len(a) for t in topics.values() for a in t["assignment"])
    assert document["stats"]["new_replicas"] == new_replicas == 3 * 2 + 100 * (1 + 4 + 9) - 9
    assert sum(b["replicas_after"] - b["replicas_before"] for b in document["brokers"]) == (
        new_replicas
    )
    assert document["stats"]["sanity"] == {"ok": True, "problems": []}

    code, results = cli(capsys, cluster, "plan", "apply", str(saved), "--yes", "--batch-size", "64")
    assert code == 0, results
    assert [r["topic"] for r in results] == list(topics)
    assert all(r["ok"] for r in results)
    have = asyncio.run(replicas_of(cluster, list(topics)))
    for name, entry in topics.items():
        first = entry["partitions"] - len(entry["assignment"])
        assert have[name][first:] == entry["assignment"], name
        assert len(have[name]) == entry["partitions"]


def test_an_interrupted_apply_resumes_where_it_stopped(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    prefix = stem()
    plan = write_csv(tmp_path / "plan.csv", [f"{prefix}-{n},2,2,," for n in range(30)])
    saved = tmp_path / "saved.json"
    code, document = cli(capsys, cluster, "plan", "preview", str(plan), "--save", str(saved))
    assert code == 0, document
    # As if the first apply stopped after its first batch of 10 topics.
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps({**document, "topics": document["topics"][:10]}))
    code, results = cli(capsys, cluster, "plan", "apply", str(partial), "--yes")
    assert code == 0 and len(results) == 10, results

    code, results = cli(capsys, cluster, "plan", "apply", str(saved), "--yes", "--batch-size", "7")
    assert code == 0, results
    assert all(r["ok"] for r in results)
    assert all("already created as planned" in r["message"] for r in results[:10])
    assert all("created with 2 partition(s)" in r["message"] for r in results[10:])
    names = [t["topic"] for t in document["topics"]]
    have = asyncio.run(replicas_of(cluster, names))
    assert [have[n] for n in names] == [t["assignment"] for t in document["topics"]]

    # A topic made otherwise since the preview is reported, not changed.
    changed = tmp_path / "changed.json"
    other = document["topics"][0] | {
        "assignment": [a[::-1] for a in document["topics"][0]["assignment"]]
    }
    changed.write_text(json.dumps({**document, "topics": [other]}))
    code, results = cli(capsys, cluster, "plan", "apply", str(changed), "--yes")
    assert code == 1 and results[0]["error"] == "TOPIC_ALREADY_EXISTS"

    # A saved plan edited by hand into nonsense: its place, not a traceback; nothing sent.
    broken = tmp_path / "broken.json"
    mangled = {**document["topics"][1], "assignment": "1,2", "partitions": "two"}
    broken.write_text(json.dumps({**document, "topics": [mangled]}, indent=1))
    code, err = cli(capsys, cluster, "plan", "apply", str(broken), "--yes")
    assert code == 2 and "Traceback" not in err, err
    assert f"{broken}:" in err and "plan.topics[0]" in err and "nothing was sent" in err


def test_a_plan_with_a_broker_down_follows_its_mode(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    prefix = stem()
    # The cluster as it is now (all live): a saved plan that apply must refuse later.
    early = tmp_path / "early.json"
    plan = write_csv(tmp_path / "one.csv", [f"{prefix}-early,1,1,,"])
    code, _ = cli(capsys, cluster, "plan", "preview", str(plan), "--save", str(early))
    assert code == 0
    code, _ = cli(capsys, cluster, "brokers", "list")  # ZooKeeper mode: broker 3 observed
    assert code == 0
    cluster.dev.stop_broker(3)
    try:
        rows = [f"{prefix}-strict,2,3,,", f"{prefix}-min2,4,3,2,", f"{prefix}-rf2,3,2,,"]
        plan = write_csv(tmp_path / "plan.csv", rows)
        saved = tmp_path / "saved.json"
        code, document = cli(capsys, cluster, "plan", "preview", str(plan), "--save", str(saved))
        assert code == 0, document
        topics = {t["topic"].removeprefix(prefix + "-"): t for t in document["topics"]}
        assert topics["strict"]["error"] == "INVALID_REPLICATION_FACTOR"
        assert "broker 3 is offline" in topics["strict"]["message"]
        # The remedy names fields; the table's summary words them as flags.
        assert topics["strict"]["remedies"] == [
            {
                "settings": [
                    ["under_replicated_mode", "enabled"],
                    ["min_required_replication_factor", "2"],
                ],
                "purpose": "to create it under-replicated",
            }
        ]
        assert "remedies" not in topics["min2"]
        base = ["--bootstrap-server", cluster.bootstrap_servers]
        base += ["--zookeeper", cluster.zookeeper] if cluster.zookeeper else []
        assert main([*base, "plan", "preview", str(plan)]) == 0
        err = capsys.readouterr().err
        assert (
            f"Error (INVALID_REPLICATION_FACTOR): 1 topic(s) ({prefix}-strict): Replication "
            "factor 3 needs 3 live brokers" in err
        )
        assert "Pass --under-replicated enabled (or --min-required-replication-factor 2)" in err
        assert topics["min2"]["mode"] == "enabled" and topics["min2"]["error"] is None
        assert all(sorted(a) == [1, 2, 3] and a[0] in (1, 2) for a in topics["min2"]["assignment"])
        assert all(3 not in a for a in topics["rf2"]["assignment"])
        assert document["stats"]["replicas_on_offline_brokers"] == 4
        assert [b["live"] for b in document["brokers"]] == [True, True, False]

        code, results = cli(capsys, cluster, "plan", "apply", str(saved), "--yes")
        assert code == 1
        by_name = {r["topic"].removeprefix(prefix + "-"): r for r in results}
        assert not by_name["strict"]["ok"]
        assert by_name["min2"]["ok"] and by_name["min2"]["warning"] == "CREATED_UNDER_REPLICATED"
        assert by_name["rf2"]["ok"]
        have = asyncio.run(replicas_of(cluster, [f"{prefix}-min2", f"{prefix}-rf2"]))
        assert have[f"{prefix}-min2"] == topics["min2"]["assignment"]
        assert have[f"{prefix}-rf2"] == topics["rf2"]["assignment"]

        code, err = cli(capsys, cluster, "plan", "apply", str(early), "--yes")
        assert code == 1 and "broker 3 is offline now (was live)" in err
        code, results = cli(capsys, cluster, "plan", "apply", str(early), "--yes", "--replan")
        assert code == 0 and results[0]["ok"], results
    finally:
        cluster.restore()


def test_bad_plan_files_report_every_error_with_its_place_and_send_nothing(
    kraft_cluster: Cluster, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    prefix = stem()
    plan = write_csv(
        tmp_path / "bad.csv",
        [f"{prefix}-ok,1,1,,", "bad name,2,1,,", f"{prefix}-x,zero,1,,", f"{prefix}-y,1,1,,k"],
    )
    code, err = cli(capsys, kraft_cluster, "plan", "apply", str(plan), "--yes")
    assert code == 2
    assert f"{plan}:3:1: 'bad name' is not a legal topic name" in err
    assert f"{plan}:4:{len(prefix) + 4}: partitions must be a whole number" in err
    assert f"{plan}:5:{len(prefix) + 9}: configs must be key=value" in err
    assert "3 error(s); nothing was sent" in err
    code, topics = cli(capsys, kraft_cluster, "topics", "list")
    assert f"{prefix}-ok" not in [t["topic"] for t in topics]


def test_export_writes_a_plan_that_replays(
    kraft_cluster: Cluster, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    prefix = stem()
    code, _ = cli(capsys, kraft_cluster, "topics", "create", f"{prefix}-a", "--partitions", "3",
                  "--replication-factor", "2", "--config", "retention.ms=5000")  # fmt: skip
    assert code == 0
    assert main(["--bootstrap-server", kraft_cluster.bootstrap_servers, "plan", "export",
                 "--topics", f"{prefix}-.*"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert out.splitlines() == [
        "topic,partitions,replication_factor,min_required_replication_factor,configs",
        f"{prefix}-a,3,2,,retention.ms=5000",
    ]
    # Replayed on the same cluster: the topic exists as exported, so nothing to do.
    plan = tmp_path / "export.csv"
    plan.write_text(out)
    code, document = cli(capsys, kraft_cluster, "plan", "preview", str(plan))
    assert code == 0 and document["topics"] == []
    assert document["stats"]["unchanged_topics"] == 1


def test_a_saved_plan_is_applied_only_to_its_cluster_and_replanned_with_its_options(
    kraft_cluster: Cluster,
    zk_cluster: Cluster,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    prefix = stem()
    plan = write_csv(tmp_path / "plan.csv", [f"{prefix}-rf3,2,3,,"])
    saved = tmp_path / "saved.json"
    code, document = cli(
        capsys,
        kraft_cluster,
        "plan",
        "preview",
        str(plan),
        "--save",
        str(saved),
        "--under-replicated",
        "enabled",
    )
    assert code == 0, document
    made_for = document["cluster"]["id"]
    assert made_for and document["cluster"]["snapshot_time"]
    assert document["options"]["mode"] == "enabled"

    # Another cluster whose broker ids match: refused, naming both clusters.
    code, err = cli(capsys, zk_cluster, "plan", "apply", str(saved), "--yes")
    assert code == 1 and "CLUSTER_MISMATCH" in err and made_for in err, err

    # The brokers changed: --replan plans the rows again with the options the plan was made
    # with (enabled), not this command's (disabled by default), and says what changed.
    kraft_cluster.dev.stop_broker(3)
    try:
        code = main(
            [
                "--bootstrap-server",
                kraft_cluster.bootstrap_servers,
                "--output",
                "json",
                "plan",
                "apply",
                str(saved),
                "--yes",
                "--replan",
            ]
        )
        out, err = capsys.readouterr()
        assert code == 0, err
        assert "planned again with the saved options" in err
        [result] = json.loads(out)
        assert result["ok"] and result["warning"] == "CREATED_UNDER_REPLICATED", result
    finally:
        kraft_cluster.restore()
    assert cli(capsys, kraft_cluster, "topics", "delete", f"{prefix}-rf3", "--yes")[0] == 0
