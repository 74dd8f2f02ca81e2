"""The JVMs' class-data-sharing archives that `.ci/setup` writes (`dev-cluster fetch`) are
usable by this machine's JVM: with `-Xshare:on` a JVM refuses to start when it cannot map
the archive (another JDK, other jars), so each role's archive is tried on a real JVM."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from kafka_tui.devcluster import class_archive, node
from kafka_tui.devcluster.cluster import write_class_archives
from kafka_tui.devcluster.jars import ensure_kafka
from kafka_tui.devcluster.versions import KRAFT_VERSION

pytestmark = pytest.mark.kraft


def test_every_role_archive_maps_on_this_jvm(tmp_path: Path) -> None:
    jars = ensure_kafka(KRAFT_VERSION)
    write_class_archives(KRAFT_VERSION, "kraft", tmp_path)  # no-op when setup wrote them
    for role in ("controller", "broker", "storage"):
        archive = class_archive.archive_path(jars.classpath, role)
        done = subprocess.run(
            [
                node.java_bin(),
                "-Xshare:on",
                f"-XX:SharedArchiveFile={archive}",
                "-cp",
                jars.classpath,
                "kafka.tools.StorageTool",
                "random-uuid",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, (role, done.stdout[-500:], done.stderr[-500:])
        assert len(done.stdout.strip()) == 22  # a base64 Uuid
