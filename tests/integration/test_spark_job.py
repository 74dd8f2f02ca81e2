"""The Spark job (`local[1]`, one session for the comparison) writes the in-process plan byte for
byte, streams JSON progress lines, and stops cleanly on SIGTERM."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from kafka_tui.planning import plan_prepared
from kafka_tui.planning.bulk_plan import (
    ClusterView,
    ExistingTopic,
    Intent,
    PlanOptions,
    plan_in_process,
    prepare,
)
from kafka_tui.planning.placement import Broker, Load

JOB = [sys.executable, "-m", "kafka_tui.planning.spark_job"]


def prepared_input(path: Path) -> str:
    """300 rows (creates, grows and a refusal) on 9 brokers in 3 racks, broker 9 offline,
    skewed load, cut into 13 groups; returns the in-process document."""
    brokers = tuple(Broker(b, "abc"[b % 3], b != 9) for b in range(1, 10))
    existing = {f"old-{n}": ExistingTopic(((1, 2, 3), (4, 5, 6)), 3) for n in range(20)}
    load = Load.from_assignments(a for t in existing.values() for a in t.partitions)
    view = ClusterView(brokers, load, existing, 1, 3, 2)
    intents = [Intent(f"old-{n}", 4 + n % 3) for n in range(20)]
    intents += [Intent(f"new-{n:03d}", 1 + n % 4, 1 + n % 3, 2 if n % 15 == 5 else None)
                for n in range(279)]  # fmt: skip
    intents.append(Intent("too-wide", 1, 12))
    prepared = prepare(view, intents, PlanOptions("disabled", None, 60))
    assert len(prepared.groups) == 13
    path.write_text(json.dumps(plan_prepared.prepared_to_json(prepared)))
    out = io.StringIO()
    plan_in_process(prepared, out, engine="spark")
    return out.getvalue()


def test_spark_local_1_writes_the_in_process_plan_byte_for_byte(tmp_path: Path) -> None:
    expected = prepared_input(tmp_path / "in.json")
    result = tmp_path / "out.json"
    with (tmp_path / "spark.log").open("w") as log:
        done = subprocess.run(
            [
                *JOB,
                "--input",
                str(tmp_path / "in.json"),
                "--output",
                str(result),
                "--master",
                "local[1]",
            ],
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            timeout=300,
            # From a folder outside the repository, with no PYSPARK_PYTHON: Spark's Python
            # workers must still find kafka_tui (they once ran "python3" from the cwd).
            cwd=tmp_path,
            env={k: v for k, v in os.environ.items() if k != "PYSPARK_PYTHON"},
        )
    assert done.returncode == 0, (tmp_path / "spark.log").read_text()[-3000:]
    assert result.read_bytes() == expected.encode()
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert all(set(line) == {"stage", "done", "total"} for line in lines)
    assert lines[-1] == {"stage": "done", "done": 1, "total": 1}
    writes = [line["done"] for line in lines if line["stage"] == "write"]
    assert writes == list(range(1, 14))
    document = json.loads(expected)
    assert document["stats"]["sanity"]["ok"]
    assert [t["error"] for t in document["topics"] if t["error"]] == ["INVALID_REPLICATION_FACTOR"]


def test_sigterm_ends_the_job_without_a_result(tmp_path: Path) -> None:
    prepared_input(tmp_path / "in.json")
    result = tmp_path / "out.json"
    with (tmp_path / "spark.log").open("w") as log:
        job = subprocess.Popen(
            [
                *JOB,
                "--input",
                str(tmp_path / "in.json"),
                "--output",
                str(result),
                "--master",
                "local[1]",
            ],
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
        )
        assert job.stdout is not None
        first = json.loads(job.stdout.readline())
        assert first == {"stage": "session", "done": 0, "total": 1}
        # Cancel once PySpark has started its JVM, the moment that once left it running. Only
        # the job's own JVMs count: the other workers' tests start Spark sessions meanwhile
        # (one started in this window was once taken for a JVM left behind).
        deadline = time.monotonic() + 60
        while not (started := _spark_jvms(job.pid)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert started, "the job's Spark JVM did not start within 60 s"
        job.send_signal(signal.SIGTERM)
        rest = job.stdout.read()
        assert job.wait(timeout=120) == 130
    assert json.loads(rest.splitlines()[-1])["stage"] == "cancelled"
    assert not result.exists()
    # Cancelled while PySpark starts its JVM, the JVM once lived on alone (1 GB heap).
    deadline = time.monotonic() + 30
    while (left := started & _spark_jvms()) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not left, f"Spark JVMs left running: {left}"


def _spark_jvms(under: int | None = None) -> set[int]:
    """PySpark gateway JVMs running on this machine (their command line ends in pyspark-shell);
    with `under`, only those descending from that process."""
    found, parents = set(), {}
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            # /proc/PID/stat: "pid (comm) state ppid ..."; comm may hold spaces.
            parents[int(proc.name)] = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            if (proc / "cmdline").read_bytes().rstrip(b"\0").endswith(b"pyspark-shell"):
                found.add(int(proc.name))
        except (OSError, IndexError, ValueError):
            continue
    if under is None:
        return found

    def descends(pid: int) -> bool:
        seen = set()
        while pid > 1 and pid not in seen:
            seen.add(pid)
            pid = parents.get(pid, 0)
            if pid == under:
                return True
        return False

    return {pid for pid in found if descends(pid)}
