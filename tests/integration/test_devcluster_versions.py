"""`dev-cluster up --kafka-version V`: a real 3-broker cluster of old and new Kafka.

The cluster tests are marked `compat` and run only when asked (each starts a cluster of its
own, and a version's first run fetches ~35-55 MB of jars):

    KAFKA_TUI_COMPAT=1 .venv/bin/pytest tests/integration/test_devcluster_versions.py -n 0
    .venv/bin/pytest -m compat -n 0

Every broker is asked on its own with plain aiokafka (ApiVersions, then Metadata): kafka-tui's
admin layer is not what is tested here, and it refuses brokers older than it supports. The
refusals of impossible version/mode pairs need no JVM and always run.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from aiokafka.conn import create_conn
from aiokafka.protocol.admin import ApiVersionRequest
from aiokafka.protocol.metadata import MetadataRequest

from kafka_tui.devcluster import DevCluster

RACKS = {1: "rack-a", 2: "rack-b", 3: "rack-c"}
METADATA_KEY = 3

# (version, mode): the oldest ZooKeeper-mode version that needs ZooKeeper 3.5.9 in place of
# its own, the last 2.x, the first production KRaft, the first 4.x and the newest.
CASES = [
    ("2.2.2", "zk"),
    ("2.8.2", "zk"),
    ("3.3.2", "kraft"),
    ("4.0.2", "kraft"),
    ("4.4.0", "kraft"),
]


def _asked_for(config: pytest.Config) -> bool:
    """KAFKA_TUI_COMPAT=1, or an -m expression that names `compat` (not `not compat`)."""
    if os.environ.get("KAFKA_TUI_COMPAT") == "1":
        return True
    expression = str(config.getoption("markexpr") or "")
    return re.search(r"(?<!not )\bcompat\b", expression) is not None


@pytest.fixture
def compat_wanted(request: pytest.FixtureRequest) -> None:
    if not _asked_for(request.config):
        pytest.skip("starts old Kafka clusters; run with KAFKA_TUI_COMPAT=1 or -m compat")


def _cli(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kafka_tui.cli", "dev-cluster", "--dir", str(root), *args],
        capture_output=True,
        text=True,
        check=check,
        timeout=600,
    )


async def _ask_broker(port: int) -> tuple[dict[int, tuple[int, int]], dict[int, str | None]]:
    """One broker's own answers: its ApiVersions and the brokers (and racks) its Metadata
    lists."""
    conn = await create_conn("127.0.0.1", port, request_timeout_ms=10_000)
    try:
        versions = await conn.send(ApiVersionRequest())
        assert versions.error_code == 0
        metadata = await conn.send(MetadataRequest([]))
        brokers = {b[0]: b[-1] for b in metadata.brokers}
        return {key: (low, high) for key, low, high, *_ in versions.api_versions}, brokers
    finally:
        conn.close()


@pytest.mark.compat
@pytest.mark.xdist_group("compat")  # one worker, one old cluster at a time on 2 cores
@pytest.mark.parametrize(("version", "mode"), CASES, ids=[f"{v}-{m}" for v, m in CASES])
def test_three_brokers_of_each_version_answer_and_status_names_the_version(
    version: str,
    mode: str,
    tmp_path: Path,
    compat_wanted: None,
    record_property: Any,
) -> None:
    root = tmp_path / "cluster"
    try:
        up = _cli(root, "up", "--kafka-version", version, "--mode", mode, "--output", "json")
        started = json.loads(up.stdout)
        record_property("up_seconds", started["timings"]["up_seconds"])
        record_property("fetch_seconds", started["timings"].get("fetch_seconds"))
        print(f"Kafka {version} ({mode}): {started['timings']}")

        for broker in started["brokers"]:
            versions, seen = asyncio.run(_ask_broker(broker["port"]))
            assert METADATA_KEY in versions, f"broker {broker['id']} lists no Metadata"
            assert seen == RACKS, f"broker {broker['id']} lists {seen}"

        status = json.loads(_cli(root, "status", "--output", "json").stdout)
        assert (status["kafka_version"], status["mode"]) == (version, mode)
        assert [(b["id"], b["running"]) for b in status["brokers"]] == [
            (1, True),
            (2, True),
            (3, True),
        ]
        assert (status["zookeeper"] is not None) == (mode == "zk")
        recorded = json.loads((root / "cluster.json").read_text())
        assert recorded["version"] == version
    finally:
        DevCluster(root).down()
    assert not root.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--kafka-version", "2.8.2", "--mode", "kraft"],
            "Kafka 2.8.2 has no production KRaft mode (KRaft is 3.3 and newer); use --mode zk",
        ),
        (
            ["--kafka-version", "4.0.2", "--mode", "zk"],
            "Kafka 4.0.2 has no ZooKeeper mode (removed in 4.0); use --mode kraft or a 3.x version",
        ),
        (["--kafka-version", "2.0.1"], "Kafka 2.0.1 is older than the dev cluster runs"),
        (["--kafka-version", "3.9"], "--kafka-version wants a full release like 3.9.2"),
        (
            ["--kafka-version", "3.2.3", "--security", "sasl_ssl"],
            "--security sasl_ssl needs Kafka 3.3 or newer in ZooKeeper mode",
        ),
        (
            ["--kafka-version", "3.3.2", "--security", "sasl_ssl"],
            "--security sasl_ssl needs Kafka 3.5 or newer in KRaft mode",
        ),
    ],
)
def test_an_impossible_version_is_refused_in_one_line_before_anything_starts(
    args: list[str], message: str, tmp_path: Path
) -> None:
    root = tmp_path / "cluster"
    refused = _cli(root, "up", *args, check=False)
    assert refused.returncode == 2
    lines = refused.stderr.splitlines()
    assert len(lines) == 1 and message in lines[0], refused.stderr
    assert not root.exists()
