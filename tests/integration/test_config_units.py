"""Config values with their units in `--output table` (topics configs, topics describe), the
raw value in JSON, on a real broker's answers (issue 53.5)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ..conftest import Cluster
from .test_cli import run, run_json

Names = Callable[[str], str]


def test_tables_show_units_and_json_keeps_raw_values(
    kraft_cluster: Cluster, capsys: pytest.CaptureFixture[str], topic_name: Names
) -> None:
    name = topic_name()
    code, _ = run_json(
        capsys, kraft_cluster, "topics", "create", name, "--partitions", "1",
        "--replication-factor", "1", "--config", "retention.ms=86400000",
    )  # fmt: skip
    assert code == 0
    code, out, _ = run(capsys, kraft_cluster, "topics", "configs", name)
    assert code == 0
    lines = dict(line.split("\t", 1)[0].split("=", 1) for line in out.splitlines())
    assert lines["retention.ms"] == "86400000 (1 d)"
    assert lines["segment.bytes"] == "1073741824 (1 GiB)"  # Kafka's default
    assert lines["flush.ms"] == "9223372036854775807 (no limit)"
    assert lines["cleanup.policy"] == "delete"
    code, out, _ = run(capsys, kraft_cluster, "topics", "describe", name)
    assert code == 0 and "Configs: retention.ms=86400000 (1 d)" in out
    code, configs = run_json(capsys, kraft_cluster, "topics", "configs", name)
    assert code == 0
    assert {c["name"]: c["value"] for c in configs}["retention.ms"] == "86400000"  # type: ignore[index]
