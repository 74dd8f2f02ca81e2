"""The Spark jobs' driver class archive (planning/spark_archive.py): the first driver writes it
to a part file of its own, which becomes the archive only when that JVM ended cleanly; later
drivers map it; KAFKA_TUI_CDS=off turns it off."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kafka_tui.planning import spark_archive

# Stands in for the driver JVM: it waits for its stdin to close (PySpark's gateway does), then
# writes the archive it was told to as it exits.
_DRIVER = "import sys; sys.stdin.read(); open(sys.argv[1], 'wb').write(b'archive')"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("KAFKA_TUI_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("KAFKA_TUI_CDS", raising=False)
    home = tmp_path / "spark"
    (home / "jars").mkdir(parents=True)
    (home / "jars" / "spark-core.jar").write_bytes(b"")
    return home


def test_the_first_driver_writes_the_archive_the_next_maps(cache: Path) -> None:
    flags, part = spark_archive.driver_flags(cache)
    assert part is not None
    assert flags == [f"-XX:ArchiveClassesAtExit={part}", spark_archive.QUIET]
    driver = subprocess.Popen([sys.executable, "-c", _DRIVER, str(part)], stdin=subprocess.PIPE)
    spark_archive._finish(driver, part)
    archive = spark_archive.archive_path(cache)
    assert archive.read_bytes() == b"archive"
    assert not part.exists()
    assert spark_archive.driver_flags(cache) == (
        [f"-XX:SharedArchiveFile={archive}", spark_archive.QUIET],
        None,
    )
    (cache / "jars" / "spark-sql.jar").write_bytes(b"")  # other jars: another archive
    assert spark_archive.driver_flags(cache)[1] is not None


def test_a_driver_that_did_not_end_cleanly_leaves_no_archive(cache: Path) -> None:
    _, part = spark_archive.driver_flags(cache)
    assert part is not None
    driver = subprocess.Popen([sys.executable, "-c", _DRIVER, str(part)], stdin=subprocess.PIPE)
    part.write_bytes(b"half an archive")
    driver.kill()
    spark_archive._finish(driver, part)
    assert not part.exists()
    assert not spark_archive.archive_path(cache).exists()


def test_archives_can_be_turned_off(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KAFKA_TUI_CDS", "off")
    assert spark_archive.driver_flags(cache) == ([], None)


def test_not_with_folders_of_files_on_the_classpath_or_the_users_own_flags(
    cache: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in ("SPARK_CONF_DIR", *spark_archive._CLASSPATH_ENV, spark_archive.SUBMIT_OPTS):
        monkeypatch.delenv(name, raising=False)
    assert spark_archive.usable(cache, {})  # no conf folder
    (cache / "conf").mkdir()
    assert spark_archive.usable(cache, {})  # an empty one
    # The JVM cannot write an archive with files in a classpath folder ("Cannot have non-empty
    # directory in paths"): a spark-defaults.conf, as the tests' SPARK_CONF_DIR has.
    (cache / "conf" / "spark-defaults.conf").write_text("spark.ui.enabled false\n")
    assert not spark_archive.usable(cache, {})
    monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path / "empty"))
    assert spark_archive.usable(cache, {})
    assert not spark_archive.usable(cache, {"spark.driver.extraJavaOptions": "-Xshare:off"})
    assert not spark_archive.usable(cache, {"spark.driver.extraClassPath": "/x.jar"})
    monkeypatch.setenv("HADOOP_CONF_DIR", "/etc/hadoop")
    assert not spark_archive.usable(cache, {})
