"""The headless command line against a real cluster: output shapes and exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kafka_tui.admin import TopicResult
from kafka_tui.admin.reading import AdminReads
from kafka_tui.cli import main, output

from ..conftest import Cluster, record_written

Names = Callable[[str], str]


def run(capsys: pytest.CaptureFixture[str], cluster: Cluster, *args: str) -> tuple[int, str, str]:
    code = main(["--bootstrap-server", cluster.bootstrap_servers, *args])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(
    capsys: pytest.CaptureFixture[str], cluster: Cluster, *args: str
) -> tuple[int, object]:
    code, out, _ = run(capsys, cluster, "--output", "json", *args)
    return code, json.loads(out)


def test_create_describe_alter_configs_delete_round_trip(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    a, b = topic_name("a"), topic_name("b")
    code, created = run_json(
        capsys,
        cluster,
        "topics",
        "create",
        a,
        b,
        "--partitions",
        "2",
        "--replication-factor",
        "2",
        "--config",
        "retention.ms=60000",
    )
    assert code == 0
    assert [(r["topic"], r["ok"], r["error"]) for r in created] == [
        (a, True, None),
        (b, True, None),
    ]
    assert set(created[0]) >= {"topic", "ok", "error", "message", "assignment"}
    assert created[0]["under_replicated_partitions"] == 0 and "warning" not in created[0]
    assert [len(r) for r in created[0]["assignment"]] == [2, 2]

    code, described = run_json(capsys, cluster, "topics", "describe", a)
    assert code == 0 and len(described) == 1
    topic = described[0]
    assert set(topic) == {"topic", "topic_id", "internal", "partitions", "configs"}
    assert topic["topic"] == a and topic["internal"] is False and topic["topic_id"]
    assert [set(p) for p in topic["partitions"]] == [
        {
            "partition",
            "leader",
            "replicas",
            "isr",
            "offline_replicas",
            "elr",
            "last_known_elr",
            "placeholders",
        }
    ] * 2
    # Eligible leader replicas where the broker reads them (KRaft 4.x), else unknown.
    expected_elr = [] if cluster.mode == "kraft" else None
    assert [p["elr"] for p in topic["partitions"]] == [expected_elr] * 2
    assert [p["placeholders"] for p in topic["partitions"]] == [[], []]
    # What the create reported placing is what the cluster holds.
    assert [p["replicas"] for p in topic["partitions"]] == created[0]["assignment"]
    assert topic["configs"]["retention.ms"]["value"] == "60000"
    assert topic["configs"]["retention.ms"]["source"] == "DYNAMIC_TOPIC_CONFIG"

    code, altered = run_json(
        capsys, cluster, "topics", "alter", a, "--partitions", "3", "--replica-assignment", "3:1"
    )
    assert code == 0 and altered[0]["ok"], altered
    code, configured = run_json(
        capsys,
        cluster,
        "topics",
        "configs",
        a,
        "--add-config",
        "cleanup.policy=[compact,delete],segment.ms=100000",
        "--delete-config",
        "retention.ms",
    )
    assert code == 0 and configured[0]["ok"], configured
    code, described = run_json(capsys, cluster, "topics", "describe", a)
    overrides = {
        k: v["value"]
        for k, v in described[0]["configs"].items()
        if v["source"] == "DYNAMIC_TOPIC_CONFIG"
    }
    assert overrides == {"cleanup.policy": "compact,delete", "segment.ms": "100000"}
    assert described[0]["partitions"][2]["replicas"] == [3, 1]

    code, deleted = run_json(capsys, cluster, "topics", "delete", a, b, "--yes")
    assert code == 0 and [r["ok"] for r in deleted] == [True, True]


def test_a_partly_failed_batch_exits_1_and_reports_each_topic(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    good = topic_name()
    code, results = run_json(
        capsys,
        cluster,
        "topics",
        "create",
        good,
        "bad:name",
        "--partitions",
        "1",
        "--replication-factor",
        "1",
    )
    assert code == 1
    assert [(r["ok"], r["error"]) for r in results] == [
        (True, None),
        (False, "INVALID_TOPIC_EXCEPTION"),
    ]
    code, again = run_json(capsys, cluster, "topics", "create", good, "--if-not-exists")
    assert code == 0 and "already exists" in again[0]["message"]
    code, _, err = run(capsys, cluster, "topics", "create", good)
    assert code == 1 and "Error (TOPIC_ALREADY_EXISTS)" in err


def test_text_describe_reads_like_kafka_topics_sh(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    name = topic_name()
    run(capsys, cluster, "topics", "create", name, "--replica-assignment", "1:2,2:3")
    code, out, _ = run(capsys, cluster, "topics", "describe", name)
    lines = out.splitlines()
    assert code == 0
    assert lines[0].startswith(f"Topic: {name}\tTopicId: ")
    assert "PartitionCount: 2\tReplicationFactor: 2" in lines[0]
    # kafka-tui prints Elr and LastKnownElr where the broker reads them, as kafka-topics.sh
    # 3.8+ does (KRaft 4.x here; ZooKeeper-mode 3.9 brokers lack DescribeTopicPartitions).
    elr = "\tElr: \tLastKnownElr: " if cluster.mode == "kraft" else ""
    assert lines[1] == f"\tTopic: {name}\tPartition: 0\tLeader: 1\tReplicas: 1,2\tIsr: 1,2{elr}"


def test_partition_filters_show_only_matching_partitions(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    name = topic_name()
    run(
        capsys,
        cluster,
        "topics",
        "create",
        name,
        "--replica-assignment",
        "1:2,1:3",
        "--config",
        "min.insync.replicas=2",
    )
    cluster.dev.stop_broker(3)
    try:
        _, under = run_json(
            capsys, cluster, "topics", "describe", name, "--under-replicated-partitions"
        )
        assert [p["partition"] for p in under[0]["partitions"]] == [1]
        _, below = run_json(
            capsys, cluster, "topics", "describe", name, "--under-min-isr-partitions"
        )
        assert [p["partition"] for p in below[0]["partitions"]] == [1]
        _, at = run_json(capsys, cluster, "topics", "describe", name, "--at-min-isr-partitions")
        assert [p["partition"] for p in at[0]["partitions"]] == [0]
        _, unavailable = run_json(
            capsys, cluster, "topics", "describe", name, "--unavailable-partitions"
        )
        assert unavailable == []
        _, overrides = run_json(capsys, cluster, "topics", "describe", "--topics-with-overrides")
        assert name in [t["topic"] for t in overrides]
    finally:
        cluster.restore()


def test_cluster_describe_json(cluster: Cluster, capsys: pytest.CaptureFixture[str]) -> None:
    code, info = run_json(capsys, cluster, "cluster", "describe")
    assert code == 0
    assert {"cluster_id", "controller_id", "brokers"} <= set(info)
    assert [(b["id"], b["rack"], b["fenced"]) for b in info["brokers"]] == [
        (1, "rack-a", False),
        (2, "rack-b", False),
        (3, "rack-c", False),
    ]
    assert all(b["host"] == "127.0.0.1" and b["port"] > 0 for b in info["brokers"])


def test_usage_config_and_connection_errors_exit_2_with_one_line(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(capsys, cluster, "topics", "create", "x", "--replica-assignment", "1:a")
    assert code == 2 and err.strip() == (
        "kafka-tui: --replica-assignment has a bad partition entry 0: 'a' is not a broker id"
    )
    code, _, err = run(capsys, cluster, "topics", "delete", "x")  # stdin is not a terminal
    assert code == 2 and "pass --yes" in err
    assert main(["--bootstrap-server", "127.0.0.1:1", "cluster", "describe"]) == 2
    assert "Cannot connect to Kafka at 127.0.0.1:1" in capsys.readouterr().err
    bad = tmp_path / "bad.toml"
    bad.write_text('[profiles.x]\nbootstrap_server = "typo"\n')
    assert main(["--config-file", str(bad), "topics", "list"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown key(s) ['bootstrap_server']" in err


def test_a_read_only_profile_refuses_every_change(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], tmp_path: Path, topic_name: Names
) -> None:
    config = tmp_path / "ro.toml"
    config.write_text(
        f'[profiles.prod]\nbootstrap_servers = "{cluster.bootstrap_servers}"\nread_only = true\n'
    )
    name = topic_name()
    base = ["--config-file", str(config), "--profile", "prod"]
    for command in (
        ["topics", "create", name],
        ["topics", "alter", name, "--partitions", "9"],
        ["topics", "delete", name, "--yes"],
        ["topics", "configs", name, "--add-config", "retention.ms=1"],
    ):
        assert main([*base, *command]) == 2
        assert "read-only" in capsys.readouterr().err
    assert main([*base, "topics", "list"]) == 0  # reading is allowed
    assert main([*base, "topics", "create", name, "--validate-only"]) == 0
    assert name not in capsys.readouterr().out.split()


def test_the_installed_entry_point_prints_no_traceback(tmp_path: Path) -> None:
    env = os.environ | {"KAFKA_TUI_CONFIG": str(tmp_path / "none.toml")}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "kafka_tui.cli",
            "--bootstrap-server",
            "127.0.0.1:1",
            "topics",
            "list",
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and proc.stderr.startswith("kafka-tui: ")


def test_results_print_what_json_prints(capsys: pytest.CaptureFixture[str]) -> None:
    """Off a terminal the results are one compact json.dumps document, one object per
    topic in order; the exit code is 1 when any topic failed."""
    placed = TopicResult("a", True, message="m", partitions=3, assignment=[[1, 2], [2, 1]])
    refused = TopicResult("b", False, error="TOPIC_ALREADY_EXISTS", message='é "q"\n')
    changed = TopicResult("c", True, message="already exists; skipped.")
    assert output.results([placed, refused, changed], True) == 1
    printed = capsys.readouterr().out
    assert printed == json.dumps([r.to_json() for r in (placed, refused, changed)]) + "\n"
    assert output.results([], True) == 0
    assert capsys.readouterr().out == "[]\n"


def test_a_create_with_both_counts_reads_no_broker_default(
    cluster: Cluster,
    capsys: pytest.CaptureFixture[str],
    topic_name: Names,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The placer reads num.partitions, default.replication.factor and min.insync.replicas
    only when a count is left to the broker or an enabled mode weighs min.insync.replicas:
    a create giving both counts in the disabled mode skips that DescribeConfigs, the
    snapshot's slowest read. Left to the broker, the counts still come from it. Either way
    each broker is asked its own `cordoned.log.dirs` (one DescribeConfigs each) instead of
    describing its log directories (test_cordon.py)."""
    sent = record_written(monkeypatch)
    defaults_read: list[list[str]] = []
    reads = AdminReads.broker_configs

    async def broker_configs(admin: AdminReads, broker: int | None, keys: list[str]) -> Any:
        defaults_read.append(list(keys))
        return await reads(admin, broker, keys)

    monkeypatch.setattr(AdminReads, "broker_configs", broker_configs)
    brokers = sum(b["running"] for b in cluster.dev.status()["brokers"])
    given, defaulted = topic_name("given"), topic_name("defaulted")
    code, created = run_json(
        capsys, cluster, "topics", "create", given, "--partitions", "2", "--replication-factor", "2"
    )
    assert code == 0 and [r["assignment"] for r in created] != [None]
    assert "CreateTopicsRequest" in sent and not defaults_read, (sent, defaults_read)
    assert sent.count("DescribeConfigsRequest") == brokers, sent
    assert "DescribeLogDirsRequest" not in sent, sent
    sent.clear()
    code, created = run_json(capsys, cluster, "topics", "create", defaulted)
    assert code == 0 and sent.count("DescribeConfigsRequest") == brokers + 1, sent
    assert [sorted(k) for k in defaults_read] == [
        ["default.replication.factor", "min.insync.replicas", "num.partitions"]
    ]
    assert [(r["partitions"], r["replication_factor"]) for r in created] == [(1, 1)]
    assert run(capsys, cluster, "topics", "delete", given, defaulted, "--yes")[0] == 0


def test_commands_that_do_not_place_do_not_load_the_placer() -> None:
    """A deletion, a listing or a describe imports neither the placer nor its build: ~15 ms
    of each such command's start. The commands that place import it when they run."""
    code = (
        "import sys\n"
        "from kafka_tui.cli.main import build_parser\n"
        "from kafka_tui.cli import topics\n"
        "build_parser(['topics', 'delete', 't'])\n"
        "print(sorted(m for m in sys.modules if m.startswith(('kafka_tui.planning', "
        "'kafka_tui.services.placing'))))\n"
        "from kafka_tui.services import placing\n"
        "print('kafka_tui.planning.placement' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.splitlines() == ["[]", "True"], proc.stderr


def test_a_count_typed_by_mistake_is_refused_at_once(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    """2,000,000,000 partitions used to have the placer fill the memory until the process
    was killed; now the topic is refused before placing, with Kafka's error name."""
    huge = topic_name("huge")
    code, created = run_json(
        capsys,
        cluster,
        "topics",
        "create",
        huge,
        "--partitions",
        "2000000000",
        "--replication-factor",
        "1",
    )
    assert code == 1
    [refused] = created  # type: ignore[misc]
    assert refused["error"] == "INVALID_PARTITIONS" and "replicas to place" in refused["message"]
    code, listed = run_json(capsys, cluster, "topics", "list")
    assert code == 0 and huge not in [t["topic"] for t in listed]  # type: ignore[index, union-attr]
