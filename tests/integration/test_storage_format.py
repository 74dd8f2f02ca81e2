"""Every node of a KRaft cluster formatted in one JVM (devcluster/storage_format.py): Kafka's
own StorageTool, called once per node, on the storage role's class archive with the launcher
appended to the classpath; a node that cannot be formatted is named."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from kafka_tui.devcluster import class_archive, node, props, storage_format
from kafka_tui.devcluster.cluster import write_class_archives
from kafka_tui.devcluster.jars import ensure_kafka
from kafka_tui.devcluster.versions import KRAFT_VERSION, release

pytestmark = pytest.mark.kraft

CLUSTER_ID = "Yk6PQ7mDQ3Gx1d5l0X8V2w"


def _format(tmp_path: Path, per_node: list[list[str]]) -> subprocess.CompletedProcess[str]:
    jars = ensure_kafka(KRAFT_VERSION)
    write_class_archives(KRAFT_VERSION, "kraft", tmp_path / "archives")  # no-op after setup
    launcher = storage_format.launcher()
    assert launcher is not None, "javac did not compile the launcher"
    archive = class_archive.archive_path(jars.classpath, "storage")
    return subprocess.run(
        [node.java_bin(), "-Xshare:on", f"-XX:SharedArchiveFile={archive}",
         "-cp", f"{jars.classpath}:{launcher}", storage_format.CLASS,
         *storage_format.arguments(per_node)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def _configs(tmp_path: Path) -> list[Path]:
    found = release(KRAFT_VERSION)
    controller = props.kraft_controller(
        tmp_path / "controller.properties", port=19093, data_dir=tmp_path / "controller"
    )
    brokers = [
        props.kraft_broker(
            tmp_path / f"broker-{b}.properties",
            broker_id=b,
            port=19093 + b,
            controller_port=19093,
            data_dir=tmp_path / f"broker-{b}",
            brokers=2,
            found=found,
        )
        for b in (1, 2)
    ]
    return [controller, *brokers]


def _meta(folder: Path) -> dict[str, str]:
    lines = (folder / "meta.properties").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line and not line.startswith("#"))


def test_every_node_is_formatted_in_one_jvm_on_the_storage_archive(tmp_path: Path) -> None:
    configs = _configs(tmp_path)
    done = _format(tmp_path, [["format", "-t", CLUSTER_ID, "-c", str(c)] for c in configs])
    assert done.returncode == 0, done.stdout[-1000:] + done.stderr[-1000:]
    for folder, node_id in [("controller", "1000"), ("broker-1", "1"), ("broker-2", "2")]:
        meta = _meta(tmp_path / folder)
        assert (meta["cluster.id"], meta["node.id"]) == (CLUSTER_ID, node_id), folder
        assert f"Formatting metadata directory {tmp_path / folder} " in done.stdout
    # The controller's bootstrap metadata: its metadata log's first checkpoint (Kafka 4.4).
    assert list((tmp_path / "controller" / "__cluster_metadata-0").glob("*.checkpoint"))


def test_a_node_that_cannot_be_formatted_is_named_and_stops_the_rest(tmp_path: Path) -> None:
    configs = _configs(tmp_path)
    broken = tmp_path / "broken.properties"
    broken.write_text(configs[1].read_text().replace("node.id=1", "node.id=x"))
    per_node = [
        ["format", "-t", CLUSTER_ID, "-c", str(c)] for c in (configs[0], broken, configs[2])
    ]
    done = _format(tmp_path, per_node)
    assert done.returncode != 0
    assert storage_format.failed_node(done.stderr) == 1, done.stderr[-1000:]
    assert "Invalid value x for configuration" in done.stderr, done.stderr[-1000:]
    assert (tmp_path / "controller" / "meta.properties").exists()
    assert not (tmp_path / "broker-2" / "meta.properties").exists()
