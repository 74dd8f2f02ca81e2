"""The dev cluster's class-data-sharing flags (devcluster/class_archive.py), without a JVM."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafka_tui.devcluster import class_archive

CP = "/jars/a.jar:/jars/b.jar"


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KAFKA_TUI_CACHE", str(tmp_path))
    monkeypatch.delenv("KAFKA_TUI_CDS", raising=False)
    monkeypatch.delenv("KAFKA_TUI_CDS_DUMPING", raising=False)


def test_no_archive_no_flags() -> None:
    assert class_archive.jvm_flags(CP, "broker") == []
    assert class_archive.missing(CP, ("broker", "controller")) == ["broker", "controller"]


def test_an_archive_is_used_per_role_and_classpath() -> None:
    path = class_archive.archive_path(CP, "broker")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"x")
    assert f"-XX:SharedArchiveFile={path}" in class_archive.jvm_flags(CP, "broker")
    assert class_archive.jvm_flags(CP, "controller") == []
    assert class_archive.jvm_flags(CP + ":/jars/c.jar", "broker") == []
    assert class_archive.missing(CP, ("broker", "controller")) == ["controller"]


def test_off_turns_an_existing_archive_off(monkeypatch: pytest.MonkeyPatch) -> None:
    path = class_archive.archive_path(CP, "broker")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"x")
    monkeypatch.setenv("KAFKA_TUI_CDS", "off")
    assert class_archive.jvm_flags(CP, "broker") == []


def test_written_archives_count_only_after_a_clean_dump() -> None:
    with class_archive.dumping():
        flags = class_archive.jvm_flags(CP, "broker")
        written = Path(flags[0].split("=", 1)[1])
        written.write_bytes(b"archive")  # what the JVM does as it exits
    assert class_archive.archive_path(CP, "broker").read_bytes() == b"archive"
    assert not written.exists()

    with pytest.raises(RuntimeError), class_archive.dumping():
        flags = class_archive.jvm_flags(CP, "controller")
        Path(flags[0].split("=", 1)[1]).write_bytes(b"half")
        raise RuntimeError("the cluster did not start")
    assert class_archive.missing(CP, ("controller",)) == ["controller"]
    assert not list(class_archive.archive_path(CP, "controller").parent.glob("*.part"))
