"""`brokers list` names the Kafka release each live broker runs, read from its own ApiVersions
answer (admin/releases.py): the dev clusters run 4.4 (KRaft: the newest release known, so
"4.4+") and 3.9 (ZooKeeper mode)."""

from __future__ import annotations

import contextlib
import io

import pytest

from kafka_tui.cli.main import main

from ..conftest import Cluster
from .test_plans import cli


def test_brokers_list_names_each_brokers_release(
    capsys: pytest.CaptureFixture[str], cluster: Cluster
) -> None:
    version = cluster.dev.status()["kafka_version"]
    expected = {"4.4.0": "4.4+", "3.9.2": "3.9"}[version]
    code, brokers = cli(capsys, cluster, "brokers", "list")
    assert code == 0, brokers
    assert [b["kafka_version"] for b in brokers if b["live"]] == [expected] * 3

    text = io.StringIO()
    base = ["--bootstrap-server", cluster.bootstrap_servers, "brokers", "list"]
    with contextlib.redirect_stdout(text):
        assert main(base) == 0
    header, *rows = text.getvalue().splitlines()
    column = header.split("\t").index("VERSION")
    assert [r.split("\t")[column] for r in rows] == [expected] * 3
