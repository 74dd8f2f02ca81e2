"""The audit log against both real clusters: one line per change with who, where, what and
each topic's outcome; nothing for validate-only; never a secret; `audit tail`; whole lines
under concurrent writers; a log that cannot be written costs only a warning."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import textwrap
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kafka_tui.admin import TopicSpec
from kafka_tui.admin import audit_log as audit
from kafka_tui.cli import main

from ..conftest import Cluster

Names = Callable[[str], str]
TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def cli(capsys: pytest.CaptureFixture[str], cluster: Cluster, *args: str) -> tuple[int, str, str]:
    base = ["--bootstrap-server", cluster.bootstrap_servers]
    if cluster.zookeeper:
        base += ["--zookeeper", cluster.zookeeper]
    code = main([*base, *args])
    out, err = capsys.readouterr()
    return code, out, err


def entries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def outcomes(entry: dict[str, Any]) -> list[tuple[str, bool, str | None]]:
    return [(o["topic"], o["ok"], o["error"]) for o in entry["result"]["topics"]]


def run_process(
    *args: str, env: dict[str, str], stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kafka_tui.cli", *args],
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_each_change_appends_one_line_with_its_outcome(
    cluster: Cluster,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    topic_name: Names,
) -> None:
    log = tmp_path / "state" / "audit.jsonl"
    monkeypatch.setenv("KAFKA_TUI_AUDIT_LOG", str(log))
    a, b, c = topic_name("a"), topic_name("b"), topic_name("c")
    create = ["topics", "create", "--partitions", "2", "--replication-factor", "2"]

    code, out, err = cli(capsys, cluster, *create, a, b, "--config", "retention.ms=60000")
    assert code == 0, (out, err)
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    [first] = entries(log)
    assert TIME.match(first["time"])
    assert first["user"] and first["host"] and first["pid"] == os.getpid()
    assert first["profile"] == "(command line)"
    assert first["bootstrap_servers"] == cluster.bootstrap_servers
    assert first["security_protocol"] == "PLAINTEXT"
    code, out, _ = cli(capsys, cluster, "--output", "json", "cluster", "describe")
    assert first["cluster_id"] == json.loads(out)["cluster_id"] is not None
    assert (first["operation"], first["action"], first["topics"]) == (
        "topics create",
        "topics create",
        [a, b],
    )
    assert first["request"] == {
        "partitions": 2,
        "replication_factor": 2,
        "configs": {"retention.ms": "60000"},
        "assignment": True,  # kafka-tui's placer sends every assignment it previews
    }
    assert first["result"]["status"] == "ok"
    assert outcomes(first) == [(a, True, None), (b, True, None)]

    # One topic created, one refused: each topic's own outcome, "partial" overall.
    code, _, _ = cli(capsys, cluster, *create, a, c)
    assert code == 1
    partial = entries(log)[-1]
    assert partial["result"]["status"] == "partial"
    assert outcomes(partial) == [(a, False, "TOPIC_ALREADY_EXISTS"), (c, True, None)]
    assert "already exists" in partial["result"]["topics"][0]["message"]

    # Validate-only changes nothing, so it leaves no line.
    code, _, _ = cli(capsys, cluster, *create, topic_name("v"), "--validate-only")
    assert code == 0 and len(entries(log)) == 2

    code, out, err = cli(capsys, cluster, "topics", "alter", a, "--partitions", "3")
    assert code == 0, (out, err)
    code, out, err = cli(
        capsys, cluster, "topics", "configs", a, "--add-config", "retention.ms=120000"
    )
    assert code == 0, (out, err)
    code, out, err = cli(capsys, cluster, "topics", "delete", a, b, c, "--yes")
    assert code == 0, (out, err)
    grown, configured, deleted = entries(log)[2:]
    assert (grown["operation"], grown["action"]) == ("topics alter", "partitions")
    assert grown["request"] == {"partitions": 3, "assignment": True}
    assert outcomes(grown) == [(a, True, None)]
    assert configured["operation"] == "configs alter"
    assert configured["request"] == {"set": {"retention.ms": "120000"}, "delete": []}
    assert outcomes(configured) == [(a, True, None)]
    assert deleted["operation"] == "topics delete" and deleted["topics"] == [a, b, c]
    assert deleted["result"]["status"] == "ok"

    # The tail, readable and raw.
    code, out, _ = cli(capsys, cluster, "audit", "tail", "-n", "2")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 2
    assert "configs alter" in lines[0] and a in lines[0] and lines[0].endswith("ok")
    assert "topics delete" in lines[1] and f"{a}, {b}, {c}" in lines[1]
    code, out, _ = cli(capsys, cluster, "--output", "json", "audit", "tail", "-n", "2")
    assert code == 0 and out.splitlines() == log.read_text().splitlines()[-2:]


def test_plan_apply_is_audited_as_plan_apply(
    cluster: Cluster,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    log = tmp_path / "audit.jsonl"
    monkeypatch.setenv("KAFKA_TUI_AUDIT_LOG", str(log))
    prefix = f"audit-plan-{uuid.uuid4().hex[:6]}"
    names = [f"{prefix}-{n}" for n in range(3)]
    plan = tmp_path / "plan.csv"
    plan.write_text(
        "topic,partitions,replication_factor,min_required_replication_factor,configs\n"
        + "".join(f"{n},2,2,,\n" for n in names)
    )
    saved = tmp_path / "saved.json"
    code, out, err = cli(capsys, cluster, "--output", "json", "plan", "preview", str(plan),
                         "--save", str(saved))  # fmt: skip
    assert code == 0, err
    assert not log.exists()  # a preview changes nothing
    code, out, err = cli(capsys, cluster, "--output", "json", "plan", "apply", str(saved),
                         "--yes", "--batch-size", "2")  # fmt: skip
    assert code == 0, (out, err)
    lines = entries(log)
    # One line per batch sent, each named after the operator's operation.
    assert [(e["operation"], e["action"]) for e in lines] == [("plan apply", "topics create")] * 2
    assert [t for e in lines for t in e["topics"]] == names
    assert all(e["result"]["status"] == "ok" and e["request"]["assignment"] for e in lines)
    code, _, _ = cli(capsys, cluster, "topics", "delete", *names, "--yes")
    assert code == 0


def test_secrets_never_reach_the_log_or_the_output(
    cluster: Cluster, tmp_path: Path, topic_name: Names
) -> None:
    secret = f"s3cret-{uuid.uuid4().hex}"
    profile_log = tmp_path / "profile" / "audit.jsonl"
    config = tmp_path / "config.toml"
    # secrets from commands: one prints it, one fails with it on its stderr
    echo = f"{sys.executable} -c 'import os; print(os.environ[\"AUDIT_TEST_SECRET\"])'"
    leak = f"{sys.executable} -c 'import os, sys; sys.exit(os.environ[\"AUDIT_TEST_SECRET\"])'"
    # "plain" carries SASL settings it does not use, so its changes reach the log.
    config.write_text(
        textwrap.dedent(
            f"""
            [profiles.plain]
            bootstrap_servers = "{cluster.bootstrap_servers}"
            sasl_username = "alice"
            sasl_password_env = "AUDIT_TEST_SECRET"
            audit_log = "{profile_log}"

            [profiles.sasl]
            bootstrap_servers = "{cluster.bootstrap_servers}"
            security_protocol = "SASL_PLAINTEXT"
            sasl_mechanism = "SCRAM-SHA-512"
            sasl_username = "alice"
            sasl_password_env = "AUDIT_TEST_SECRET"
            request_timeout_ms = 5000
            audit_log = "{profile_log}"

            [profiles.command]
            bootstrap_servers = "{cluster.bootstrap_servers}"
            security_protocol = "SASL_PLAINTEXT"
            sasl_mechanism = "SCRAM-SHA-512"
            sasl_username = "alice"
            sasl_password_command = {json.dumps(echo)}
            request_timeout_ms = 5000
            audit_log = "{profile_log}"

            [profiles.leaky]
            bootstrap_servers = "{cluster.bootstrap_servers}"
            sasl_username = "alice"
            sasl_password_command = {json.dumps(leak)}
            audit_log = "{profile_log}"
            """
        )
    )
    env = {k: v for k, v in os.environ.items() if k != "KAFKA_TUI_AUDIT_LOG"}
    env["AUDIT_TEST_SECRET"] = secret
    common = ["--config-file", str(config), "--output", "json"]
    name = topic_name()

    made = run_process(*common, "--profile", "plain", "topics", "create", name, env=env)
    assert made.returncode == 0, made.stderr
    refused = run_process(*common, "--profile", "sasl", "topics", "create", name, env=env)
    assert refused.returncode == 2 and refused.stderr.startswith("kafka-tui: ")
    gone = run_process(*common, "--profile", "plain", "topics", "delete", name, "--yes", env=env)
    assert gone.returncode == 0, gone.stderr
    # the password from a command: refused the same way (-v: the Kafka client's log too); a
    # command that fails with the secret on its stderr: said by exit code, never by output
    by_command = run_process("-v", *common, "--profile", "command", "topics", "create", name,
                             env=env)  # fmt: skip
    assert by_command.returncode == 2 and "Cannot connect" in by_command.stderr
    leaked = run_process("-v", *common, "--profile", "leaky", "topics", "create", name, env=env)
    assert leaked.returncode == 2 and "failed with exit code 1" in leaked.stderr

    # The profile's audit_log holds the changes made (a refused connection changed nothing).
    logged = entries(profile_log)
    assert [(e["profile"], e["operation"], e["topics"]) for e in logged] == [
        ("plain", "topics create", [name]),
        ("plain", "topics delete", [name]),
    ]
    assert "alice" not in profile_log.read_text()
    runs = (made, refused, gone, by_command, leaked)
    for text in (profile_log.read_text(), *(p.stdout + p.stderr for p in runs)):
        assert secret not in text

    # $KAFKA_TUI_AUDIT_LOG wins over the profile's audit_log.
    elsewhere = tmp_path / "env" / "audit.jsonl"
    tail = run_process("--config-file", str(config), "--profile", "plain", "audit", "tail",
                       env={**env, "KAFKA_TUI_AUDIT_LOG": str(elsewhere)})  # fmt: skip
    assert (tail.returncode, tail.stdout) == (0, f"no audit log yet at {elsewhere}\n")
    tail = run_process("--config-file", str(config), "--profile", "plain", "audit", "tail",
                       env=env)  # fmt: skip
    assert tail.returncode == 0 and len(tail.stdout.splitlines()) == 2
    assert "topics delete" in tail.stdout.splitlines()[1]


def test_an_unwritable_log_warns_once_and_the_change_goes_on(
    cluster: Cluster,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    topic_name: Names,
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    log = blocker / "audit.jsonl"  # its folder is a file: never writable, even for root
    monkeypatch.setenv("KAFKA_TUI_AUDIT_LOG", str(log))
    name = topic_name()
    code, out, err = cli(capsys, cluster, "--output", "json", "topics", "create", name)
    assert code == 0
    assert [(r["topic"], r["ok"]) for r in json.loads(out)] == [(name, True)]
    warnings = [line for line in err.splitlines() if "audit log" in line]
    assert len(warnings) == 1 and str(log) in warnings[0], err
    code, out, err = cli(capsys, cluster, "--output", "json", "topics", "delete", name, "--yes")
    assert code == 0 and json.loads(out)[0]["ok"]
    assert "audit log" not in err  # once per process
    assert not log.exists()


_WRITER = """
import sys
from kafka_tui.admin import audit_log as audit
writer = int(sys.argv[1])
for n in range(200):
    audit.append({"writer": writer, "n": n, "padding": "x" * 8000})
"""


def test_concurrent_writers_leave_only_whole_lines(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    env = {**os.environ, "KAFKA_TUI_AUDIT_LOG": str(log)}
    writers = [subprocess.Popen([sys.executable, "-c", _WRITER, str(w)], env=env) for w in range(4)]
    assert [w.wait(timeout=120) for w in writers] == [0] * 4
    rows = entries(log)  # every line parses as a whole entry
    assert len(rows) == 800
    for w in range(4):
        assert [r["n"] for r in rows if r["writer"] == w] == list(range(200))


def test_tail_reads_from_the_end_and_survives_bad_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "audit.jsonl"
    monkeypatch.setenv("KAFKA_TUI_AUDIT_LOG", str(log))
    assert main(["audit", "tail"]) == 0
    assert capsys.readouterr().out == f"no audit log yet at {log}\n"
    many = [f"t{n}" for n in range(7)]
    entry = {
        "time": "2025-01-02T03:04:05.678Z",
        "user": "ops",
        "host": "bastion",
        "profile": "prod",
        "operation": "topics delete",
        "topics": many,
        "result": {"status": "partial", "error": None, "topics": [
            {"topic": "t0", "ok": True, "error": None},
            {"topic": "t1", "ok": False, "error": "TOPIC_AUTHORIZATION_FAILED"},
        ]},
    }  # fmt: skip
    # Blocks of the tail reader are 64 KiB: 3,000 lines of ~300 bytes span many of them.
    filler = json.dumps({**entry, "topics": ["filler"]})
    log.write_text("\n".join([filler] * 3000 + ["{not json", json.dumps(entry)]) + "\n")
    assert main(["audit", "tail", "-n", "3"]) == 0
    first, bad, last = capsys.readouterr().out.splitlines()
    assert "filler" in first
    assert bad == "(malformed audit line: {not json)"
    assert last == (
        "2025-01-02T03:04:05.678Z  ops@bastion  prod  topics delete  t0, t1, t2 +4 more  "
        "partial: 1 ok, 1 not (TOPIC_AUTHORIZATION_FAILED)"
    )
    assert main(["--output", "json", "audit", "tail", "-n", "2"]) == 0
    assert capsys.readouterr().out.splitlines() == ["{not json", json.dumps(entry)]


def test_secret_looking_config_keys_are_redacted() -> None:
    request = audit.creates(
        [
            TopicSpec("a", 1, 1, configs={"retention.ms": "1", "x.sasl.jaas.config": "pw"}),
            TopicSpec("b", 3, 1, configs={"retention.ms": "2", "ssl.key.password": "pw"}),
        ]
    )
    assert request == {
        "partitions": [1, 3],
        "replication_factor": 1,
        "configs": {
            "retention.ms": ["1", "2"],
            "ssl.key.password": "(redacted)",
            "x.sasl.jaas.config": "(redacted)",
        },
        "assignment": False,
    }
