"""Rollback files: a change of replicas first writes the assignment it changes, in
kafka-reassign-partitions' JSON format, prints its path and records it in the audit log;
`topics reassign --reassignment-json-file` applies it and so undoes the change. Both real
clusters."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from kafka_tui.cli import main

from ..conftest import Cluster
from .test_alter_rf import run_json, settled
from .test_reassign import create

Names = Callable[[str], str]


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("KAFKA_TUI_ROLLBACK_DIR", str(tmp_path / "rollback"))
    monkeypatch.setenv("KAFKA_TUI_AUDIT_LOG", str(tmp_path / "audit.jsonl"))
    return tmp_path


def test_a_reassignment_writes_its_rollback_file_and_the_file_undoes_it(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names, folder: Path
) -> None:
    cluster.restore()
    topic = topic_name()
    create(capsys, cluster, topic, "1:2,2:3")
    args = ["topics", "reassign", topic, "--replica-assignment", "0=3:1"]
    code, preview = run_json(capsys, cluster, *args, "--validate-only")
    assert code == 0 and preview[0]["rollback_file"] is None  # type: ignore[index]
    assert not (folder / "rollback").exists()  # a preview changes nothing, so no file

    code, moved = run_json(capsys, cluster, *args)
    assert code == 0, moved
    path = Path(moved[0]["rollback_file"])  # type: ignore[index]
    assert path.parent == folder / "rollback"
    # Only the partition that moved, as it was before.
    assert json.loads(path.read_text()) == {
        "version": 1,
        "partitions": [
            {"topic": topic, "partition": 0, "replicas": [1, 2], "log_dirs": ["any", "any"]}
        ],
    }
    entries = [json.loads(line) for line in (folder / "audit.jsonl").read_text().splitlines()]
    [change] = [e for e in entries if e["action"] == "reassign"]
    assert change["rollback_file"] == str(path)
    settled(capsys, cluster, topic, lambda ps: ps[0]["replicas"] == [3, 1])

    code, undone = run_json(
        capsys, cluster, "topics", "reassign", "--reassignment-json-file", str(path)
    )
    assert code == 0, undone
    assert [(m["partition"], m["after"]) for m in undone[0]["moves"]] == [(0, [1, 2])]  # type: ignore[index]
    parts = settled(capsys, cluster, topic, lambda ps: ps[0]["replicas"] == [1, 2])
    assert [p["replicas"] for p in parts] == [[1, 2], [2, 3]]
    # The undo has its own rollback file: the way back to [3, 1].
    again = json.loads(Path(undone[0]["rollback_file"]).read_text())  # type: ignore[index]
    assert again["partitions"][0]["replicas"] == [3, 1]

    # As text, the path and the command that undoes the change are printed.
    code = main(["--bootstrap-server", cluster.bootstrap_servers, *args])
    out = capsys.readouterr().out
    assert code == 0
    assert "undo: kafka-tui topics reassign --reassignment-json-file " in out


def test_a_bad_reassignment_file_is_refused_naming_the_entry(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"version": 1, "partitions": [{"topic": "t", "partition": 0}]}))
    code = main(
        ["--bootstrap-server", cluster.bootstrap_servers, "topics", "reassign",
         "--reassignment-json-file", str(bad)]
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2
    assert f"{bad}: partitions[0]" in err and "replicas" in err
