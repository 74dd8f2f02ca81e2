"""The plan job on a real Spark standalone cluster (`kafka-tui dev-cluster spark up --workers 2
--connect`, from the pyspark wheel's jars): through Spark Connect `sc://` it writes the
in-process plan byte for byte, with executors on both workers (the master's `/json/`). The
workers' PATH `python3` cannot import the job (nor pyspark): naming it ends with a sentence
saying so. A Python without kafka-tui installed proves the planning code reaches the
executors on `spark://` as the shipped zip. (A plan on `spark://` with the driver's Python,
the default: test_spark_parts.py, streamed.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from kafka_tui.devcluster.spark import master_json
from kafka_tui.planning.spark_job import APP_NAME
from tests.integration.test_spark_job import prepared_input

JOB = [sys.executable, "-m", "kafka_tui.planning.spark_job"]
CLI = [sys.executable, "-m", "kafka_tui.cli", "dev-cluster", "spark"]
# Small executors: two applications share the 2-core machine's workers.
SMALL = ["--conf", "spark.executor.memory=512m"]
BASE_PYTHON = getattr(sys, "_base_executable", "")


def _decoy_path(folder: Path) -> str:
    """PATH for the workers: this venv's bin/ left out, and first a `python3` that ignores
    PYTHONPATH (-I), so it finds neither pyspark (Spark ships it on PYTHONPATH) nor the job."""
    folder.mkdir()
    decoy = folder / "python3"
    decoy.write_text(f'#!/bin/sh\nexec "{BASE_PYTHON or "/usr/bin/python3"}" -I "$@"\n')
    decoy.chmod(0o755)
    venv_bin = str(Path(sys.executable).parent)
    rest = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and p != venv_bin]
    return os.pathsep.join([str(folder), *rest])


def _run(tmp_path: Path, master: str, env: dict[str, str], *args: str) -> tuple[int, list[Any]]:
    with (tmp_path / "spark.log").open("w") as log:
        done = subprocess.run(
            [*JOB, "--input", str(tmp_path / "in.json"), "--output", str(tmp_path / "out.json"),
             "--master", master, *args],
            stdout=subprocess.PIPE, stderr=log, text=True, timeout=300, cwd=tmp_path, env=env,
        )  # fmt: skip
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines()]


def _ui_port(url: str) -> int:
    return int(url.rsplit(":", 1)[1].rstrip("/"))


def _workers_running(status: dict[str, Any], app_id: str, finished: bool) -> set[str]:
    """The workers (by id) holding an executor of `app_id`, from each worker's /json/ as the
    master's /json/ lists them."""
    master = master_json(_ui_port(status["ui"])) or {}
    found = set()
    for worker in master.get("workers", []):
        answer = master_json(_ui_port(worker["webuiaddress"])) or {}
        executors = answer.get("finishedexecutors" if finished else "executors", [])
        if any(e["appid"] == app_id for e in executors):
            found.add(worker["id"])
    return found


def apps(status: dict[str, Any], name: str) -> list[dict[str, Any]]:
    master = master_json(_ui_port(status["ui"])) or {}
    return [a for a in master["activeapps"] + master["completedapps"] if a["name"] == name]


def executors_on_both(status: dict[str, Any], app_id: str, finished: bool) -> set[str]:
    """Workers move an application's executors to "finished" a moment after it stops."""
    deadline = time.monotonic() + 30
    while len(found := _workers_running(status, app_id, finished)) < 2:
        if time.monotonic() > deadline:
            break
        time.sleep(0.2)
    return found


def test_up_prints_the_cluster_as_json(spark_cluster: dict[str, Any]) -> None:
    assert spark_cluster["master"].startswith("spark://127.0.0.1:")
    assert spark_cluster["ui"].startswith("http://127.0.0.1:")
    assert spark_cluster["connect"].startswith("sc://127.0.0.1:")
    assert [w["state"] for w in spark_cluster["workers"]] == ["ALIVE", "ALIVE"]


def test_spark_connect_runs_the_plan_on_both_workers(
    spark_cluster: dict[str, Any], tmp_path: Path
) -> None:
    expected = prepared_input(tmp_path / "in.json")
    code, lines = _run(tmp_path, spark_cluster["connect"], spark_cluster["env"])
    assert code == 0, (tmp_path / "spark.log").read_text()[-3000:]
    assert (tmp_path / "out.json").read_bytes() == expected.encode()
    assert lines[-1] == {"stage": "done", "done": 1, "total": 1}
    (server,) = apps(spark_cluster, "Spark Connect server")
    assert len(executors_on_both(spark_cluster, server["id"], finished=False)) == 2


def test_a_python_that_cannot_import_the_job_is_named_in_a_sentence(
    spark_cluster: dict[str, Any], tmp_path: Path
) -> None:
    """On `local[1]`, whose Python workers the JVM starts as a cluster's executors start
    theirs (one application fewer on the shared standalone workers)."""
    prepared_input(tmp_path / "in.json")
    # python3: the PATH decoy; one attempt per task, not Spark's four, fails sooner.
    conf = ["--conf", "spark.pyspark.python=python3", "--conf", "spark.task.maxFailures=1"]
    code, lines = _run(tmp_path, "local[1]", spark_cluster["env"], *conf)
    assert code != 0
    assert not (tmp_path / "out.json").exists()
    (error,) = [line for line in lines if line["stage"] == "error"]
    assert error["message"].startswith("the executors' Python (python3) cannot import"), error
    assert "the Spark setting spark.pyspark.python=PATH" in error["message"]
    print(error["message"])


@pytest.mark.skipif(
    not BASE_PYTHON
    or subprocess.run(
        [BASE_PYTHON, "-c", "import kafka_tui"], cwd="/", stderr=subprocess.DEVNULL
    ).returncode
    == 0,
    reason="needs a Python of this version without kafka-tui installed",
)
def test_executors_without_kafka_tui_get_the_planning_code_as_a_zip(
    spark_cluster: dict[str, Any], tmp_path: Path
) -> None:
    expected = prepared_input(tmp_path / "in.json")
    before = {a["id"] for a in apps(spark_cluster, APP_NAME)}
    conf = [*SMALL, "--conf", f"spark.pyspark.python={BASE_PYTHON}"]
    code, lines = _run(tmp_path, spark_cluster["master"], spark_cluster["env"], *conf)
    assert code == 0, (tmp_path / "spark.log").read_text()[-3000:]
    assert (tmp_path / "out.json").read_bytes() == expected.encode()
    assert lines[-1] == {"stage": "done", "done": 1, "total": 1}
    (app,) = [a for a in apps(spark_cluster, APP_NAME) if a["id"] not in before]
    assert len(executors_on_both(spark_cluster, app["id"], finished=True)) == 2
