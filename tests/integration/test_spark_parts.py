"""Plans above the streaming threshold (issue 29): Spark reads the plan file itself, places it
and writes a parts directory; the parent reads only the summary.

On the standalone cluster (2 workers, executors on both, their PATH `python3` a decoy that
cannot import the job: the driver's Python is what they run) and through Spark Connect, the
parts hold the in-process document's topic entries byte for byte, and the summary its
brokers, stats and warnings. The file
is cut into many small splits (`spark.sql.files.maxPartitionBytes`), so line numbers are
counted across splits. A bad row is reported as file:line:column with the in-process reader's
words. Then `plan preview --save DIR` and `plan apply DIR` on the real KRaft cluster, with the
threshold lowered so a small plan streams.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kafka_tui.cli import main
from kafka_tui.planning import plan_io, plan_rows
from kafka_tui.planning import streamed_parts as plan_parts
from kafka_tui.planning.bulk_plan import (
    ClusterView,
    ExistingTopic,
    PlanOptions,
    plan_in_process,
    prepare,
)
from kafka_tui.planning.placement import Broker, Load
from kafka_tui.planning.spark_job import APP_NAME
from kafka_tui.services import plan_parts as parts

from ..conftest import Cluster
from .test_spark_cluster import apps, executors_on_both

JOB = [sys.executable, "-m", "kafka_tui.planning.spark_job"]
# Small executors (two applications may share the workers) and many small splits.
SPLITS = [
    "--conf", "spark.sql.files.maxPartitionBytes=16384",
    "--conf", "spark.sql.files.openCostInBytes=0",
]  # fmt: skip
CONF = ["--conf", "spark.executor.memory=512m", *SPLITS]
OPTIONS = PlanOptions("disabled", None, 300)


def _view() -> ClusterView:
    """9 brokers in 3 racks, broker 9 offline, 21 existing topics (one collides with a_b)."""
    brokers = tuple(Broker(b, "abc"[b % 3], b != 9) for b in range(1, 10))
    existing = {f"old-{n}": ExistingTopic(((1, 2, 3), (4, 5, 6)), 3) for n in range(20)}
    existing["a.b"] = ExistingTopic(((1, 2, 3),), 3)
    load = Load.from_assignments(a for t in existing.values() for a in t.partitions)
    return ClusterView(brokers, load, existing, 1, 3, 2)


def _rows(count: int) -> list[dict[str, Any]]:
    """Creates, grows, a grow to the current count (skipped), a duplicate, a metric-name
    collision, unknown config keys, a refusal; about 2,000 rows."""
    rows: list[dict[str, Any]] = [{"topic": f"old-{n}", "partitions": 2 + n % 3} for n in range(20)]
    for n in range(count):
        row: dict[str, Any] = {
            "topic": f"new-{n:04d}",
            "partitions": 1 + n % 4,
            "replication_factor": 1 + n % 3,
        }
        if n % 15 == 5:
            row["min_required_replication_factor"] = 2
        if n % 7 == 0:
            row["configs"] = "retention.ms=1000;cleanup.policy=delete"
        elif n % 50 == 1:
            row["configs"] = "bogus.key=1"
        rows.append(row)
    rows += [
        {"topic": "new-0003", "partitions": 2, "replication_factor": 2},
        {"topic": "a_b", "partitions": 1, "replication_factor": 1},
        {"topic": "too-wide", "partitions": 1, "replication_factor": 12},
    ]
    return rows


def _csv(rows: list[dict[str, Any]]) -> str:
    lines = ["# a plan", ",".join(plan_rows.COLUMNS), ""]
    for row in rows:
        lines.append(",".join(f'"{row[c]}"' if c == "configs" and c in row else str(row.get(c, ""))
                              for c in plan_rows.COLUMNS))  # fmt: skip
    return "\n".join(lines) + "\n"


def _jsonl(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def _expected(name: str, text: str) -> tuple[list[str], dict[str, Any]]:
    """The in-process document's topic entries (one a line) and the document."""
    view = _view()
    prepared = prepare(view, plan_io.parse_plan(name, text), OPTIONS)
    out = io.StringIO()
    plan_in_process(prepared, out, engine="spark")
    inner = out.getvalue().split('"topics": [\n', 1)[1].split('\n],\n"brokers"', 1)[0]
    return inner.split(",\n"), json.loads(out.getvalue())


def _stream(
    tmp_path: Path, plan: Path, master: str, env: dict[str, str], *conf: str
) -> tuple[int, dict[str, Any] | None]:
    job = tmp_path / "job.json"
    job.write_text(json.dumps(plan_parts.job_to_json(_view(), OPTIONS, None, None, plan.name)))
    out = tmp_path / "parts"
    with (tmp_path / "spark.log").open("w") as log:
        done = subprocess.run(
            [*JOB, "--stream", str(plan), "--job", str(job), "--output", str(out),
             "--master", master, *conf],
            stdout=subprocess.PIPE, stderr=log, text=True, timeout=900, cwd=tmp_path, env=env,
        )  # fmt: skip
    summary = out / plan_parts.SUMMARY
    return done.returncode, json.loads(summary.read_text()) if summary.exists() else None


def _entries(folder: Path) -> list[str]:
    files = sorted((folder / "topics").glob("part-*"))
    return [line for p in files for line in p.read_text().splitlines()]


def _same_as_in_process(tmp_path: Path, name: str, text: str, summary: dict[str, Any]) -> None:
    entries, document = _expected(name, text)
    assert _entries(tmp_path / "parts") == entries
    assert summary["topics_count"] == len(entries)
    for key in ("brokers", "stats", "warnings"):
        assert summary[key] == document[key], key
    assert summary["warnings_left_off"] == 0
    assert document["stats"]["sanity"]["ok"]
    # the plan covers what the streamed path works out over the whole file
    errors = [(json.loads(e)["topic"], json.loads(e)["error"]) for e in entries]
    assert [e for t, e in errors if t == "new-0003"] == [None, "INVALID_REQUEST"]
    assert dict(errors)["too-wide"] == "INVALID_REPLICATION_FACTOR"
    assert any("collide on '.'/'_'" in w for w in document["warnings"])
    assert any("nothing to do" in w for w in document["warnings"])
    assert sum(1 for e in entries if '"INVALID_REQUEST"' in e) == 1  # the duplicate


@pytest.mark.parametrize(
    ("where", "name", "write", "settings"),
    [("master", "plan.csv", _csv, CONF), ("connect", "plan.jsonl", _jsonl, SPLITS)],
    ids=["standalone-csv", "connect-jsonl"],
)
def test_a_plan_read_by_spark_gets_the_in_process_placement(
    spark_cluster: dict[str, Any],
    tmp_path: Path,
    where: str,
    name: str,
    write: Callable[[list[dict[str, Any]]], str],
    settings: list[str],
) -> None:
    """On the standalone cluster (CSV, split over several parts) and over Spark Connect
    (JSON lines)."""
    text = write(_rows(2_000))
    plan = tmp_path / name
    plan.write_text(text)
    before = {a["id"] for a in apps(spark_cluster, APP_NAME)}
    code, summary = _stream(tmp_path, plan, spark_cluster[where], spark_cluster["env"], *settings)
    assert code == 0, (tmp_path / "spark.log").read_text()[-3000:]
    assert summary is not None
    _same_as_in_process(tmp_path, name, text, summary)
    if where == "master":
        assert len(list((tmp_path / "parts" / "topics").glob("part-*"))) > 1
        (app,) = [a for a in apps(spark_cluster, APP_NAME) if a["id"] not in before]
        assert len(executors_on_both(spark_cluster, app["id"], finished=True)) == 2


def test_bad_rows_read_by_spark_are_worded_and_placed_as_in_process(
    spark_cluster: dict[str, Any], tmp_path: Path
) -> None:
    """Through Spark Connect, its executors on both workers (no application of its own: one
    costs a driver and two executor JVMs on the 2-core machine)."""
    lines = _csv(_rows(2_000)).splitlines()
    # late in the file (a later split than the first), and a few in one line
    lines[1500] = "bad topic!,0,x,,retention.ms"
    lines[1800] = "new-x,1,1,,a=1,extra"
    lines[1900] = 'new-y,1,"1'  # a quoted field running on to the next line
    text = "\n".join(lines) + "\n"
    plan = tmp_path / "plan.csv"
    plan.write_text(text)
    code, summary = _stream(tmp_path, plan, spark_cluster["connect"], spark_cluster["env"], *SPLITS)
    assert code == 0, (tmp_path / "spark.log").read_text()[-3000:]
    assert summary is not None and "parts" not in summary
    with pytest.raises(plan_rows.PlanFileErrors) as in_process:
        plan_io.parse_plan("plan.csv", "\n".join(lines[:1901]) + "\n")
    expected = [str(e) for e in in_process.value.errors if e.line < 1901]
    assert summary["errors"][: len(expected)] == expected
    assert summary["errors"][0].startswith("plan.csv:1501:1: 'bad topic!' is not a legal")
    assert summary["errors"][-1] == (
        "plan.csv:1901:9: a quoted field runs past the end of the line: the Spark reader reads "
        "one record per line (quoted line breaks: the local engine)"
    )
    assert summary["errors_total"] == len(summary["errors"]) == len(expected) + 1
    assert not (tmp_path / "parts" / "topics").exists()


def cli(capsys: pytest.CaptureFixture[str], cluster: Cluster, *args: str) -> tuple[int, str, str]:
    code = main(["--bootstrap-server", cluster.bootstrap_servers, "--output", "json", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_parts_directory_is_previewed_saved_and_applied(
    kraft_cluster: Cluster,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("KAFKA_TUI_SPARK_LOG", str(tmp_path / "spark.log"))
    monkeypatch.setenv(parts.STREAM_ROWS_VARIABLE, "5")
    prefix = f"parts-{uuid.uuid4().hex[:6]}"
    rows = [f"{prefix}-{n},{1 + n % 3},{1 + n % 3},," for n in range(12)]
    plan = tmp_path / "plan.csv"
    plan.write_text(",".join(plan_rows.COLUMNS) + "\n" + "\n".join(rows) + "\n")
    saved = tmp_path / "saved"
    code, out, err = cli(capsys, kraft_cluster, "plan", "preview", str(plan), "--save", str(saved),
                         "--engine", "spark", "--spark-master", "local[1]",
                         "--group-partitions", "5")  # fmt: skip
    assert code == 0, err + (tmp_path / "spark.log").read_text()[-3000:]
    summary = json.loads(out)
    assert summary["parts"] == str(saved / "topics")
    assert summary["topics_count"] == 12 and summary["stats"]["partitions"] == 24
    entries = {e["topic"]: e for e in parts.entries(saved, summary)}
    assert list(entries) == [f"{prefix}-{n}" for n in range(12)]

    # The same file in process: the same placement, as the cluster has not changed.
    monkeypatch.setenv(parts.STREAM_ROWS_VARIABLE, "1000")
    code, out, err = cli(capsys, kraft_cluster, "plan", "preview", str(plan), "--engine", "local",
                         "--group-partitions", "5")  # fmt: skip
    assert code == 0, err
    document = json.loads(out)
    assert [t["assignment"] for t in document["topics"]] == [
        e["assignment"] for e in entries.values()
    ]
    assert document["stats"] == summary["stats"]

    code, out, err = cli(capsys, kraft_cluster, "plan", "apply", str(saved), "--yes",
                         "--batch-size", "4")  # fmt: skip
    assert code == 0, err
    assert json.loads(out) == {"ok": 12, "failed": 0, "failures": []}
    code, out, err = cli(capsys, kraft_cluster, "topics", "describe", "--topic", f"{prefix}-.*")
    assert code == 0, err
    described = {t["topic"]: t for t in json.loads(out)}
    for name, entry in entries.items():
        replicas = [p["replicas"] for p in described[name]["partitions"]]
        assert replicas == entry["assignment"], name
    # Applied again: every topic is already as planned (the resume path).
    code, out, err = cli(capsys, kraft_cluster, "plan", "apply", str(saved), "--yes")
    assert code == 0, err
    assert json.loads(out)["ok"] == 12
