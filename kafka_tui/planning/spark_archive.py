"""A class-data-sharing archive for the Spark jobs' driver JVM (JDK 13+'s dynamic CDS), as the
dev cluster's Kafka JVMs have theirs (devcluster/class_archive.py).

Most of a Spark job's start is its driver JVM loading and verifying the same ~15,000 classes
from pyspark's jars: measured on local[2] (bench/README.md, topic_keys.py), the driver's JVM
spent 7.0 CPU-s until the session was up and 12.7 until the first job had run; mapping them
from an archive instead, 3.3 and 6.3.

The first job on a machine (per java and pyspark) runs its driver with
`-XX:ArchiveClassesAtExit` to a file of its own, and as the job's Python exits it closes the
JVM's stdin (PySpark's gateway exits on that), waits for the JVM to write the archive and
moves it into place; a later job's driver maps it (`-XX:SharedArchiveFile`). An archive the
JVM cannot use (another JDK build) is refused by the JVM itself, which then loads its classes
as usual (`-Xshare:auto`). The flags go in $SPARK_SUBMIT_OPTS, beside (not instead of) the
job's and the user's `spark.driver.extraJavaOptions`. Not used (`usable`) when the driver's
classpath has more than pyspark's jars. Only the driver: a standalone cluster's executors are
started by its workers, wherever they run. `KAFKA_TUI_CDS=off` turns it off (as for the dev
cluster).
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from ..paths import user_path

SUBMIT_OPTS = "SPARK_SUBMIT_OPTS"  # spark-submit adds them to the driver JVM's options
QUIET = "-Xlog:cds=off,cds+dynamic=off"  # a refused archive is said on every start otherwise
_PART = ".part"
_WRITE_SECONDS = 120.0  # the longest wait for a driver writing its archive as it exits
_STALE_SECONDS = 3600.0  # a part file this old was left by a job that died while writing it


def _java() -> str:
    """The java bin/spark-class runs: $JAVA_HOME/bin/java, else the first on PATH."""
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java") or "java"
    return os.path.realpath(java)


def archive_path(spark_home: Path) -> Path:
    """The archive of drivers of this java on `spark_home`'s jars (a new one for another)."""
    java = _java()
    try:
        stat = os.stat(java)
        identity = f"{java}:{stat.st_size}:{int(stat.st_mtime)}"
    except OSError:
        identity = java
    jars = sorted(p.name for p in (spark_home / "jars").glob("*.jar"))
    key = hashlib.sha256("\n".join([identity, str(spark_home), *jars]).encode()).hexdigest()
    folder = user_path("KAFKA_TUI_CACHE", "XDG_CACHE_HOME", ".cache") / "cds"
    return folder / f"{key[:16]}-spark.jsa"


# Each adds folders or jars to the driver's classpath, which the archive does not cover.
_CLASSPATH_ENV = ("HADOOP_CONF_DIR", "YARN_CONF_DIR", "SPARK_DIST_CLASSPATH", "SPARK_CLASSPATH")
_CDS_FLAGS = ("Xshare", "SharedArchiveFile", "ArchiveClassesAtExit")


def usable(spark_home: Path, conf: dict[str, str]) -> bool:
    """Whether the driver can have an archive: not turned off, no CDS flags of the user's, and
    no folder with files on its classpath (the JVM refuses to write an archive then, "Cannot
    have non-empty directory in paths": $SPARK_CONF_DIR with a spark-defaults.conf, as the
    tests have), nor classpath additions."""
    if os.environ.get("KAFKA_TUI_CDS", "").lower() == "off":
        return False
    options = conf.get("spark.driver.extraJavaOptions", "") + os.environ.get(SUBMIT_OPTS, "")
    if any(flag in options for flag in _CDS_FLAGS) or "spark.driver.extraClassPath" in conf:
        return False
    if any(os.environ.get(name) for name in _CLASSPATH_ENV):
        return False
    folder = Path(os.environ.get("SPARK_CONF_DIR") or spark_home / "conf")
    return not (folder.is_dir() and any(folder.iterdir()))


def driver_flags(spark_home: Path) -> tuple[list[str], Path | None]:
    """The driver's JVM flags, and the part file it writes at exit (None when it maps an
    archive, or when archives are off)."""
    if os.environ.get("KAFKA_TUI_CDS", "").lower() == "off":
        return [], None
    path = archive_path(spark_home)
    if path.exists():
        return [f"-XX:SharedArchiveFile={path}", QUIET], None
    path.parent.mkdir(parents=True, exist_ok=True)
    for old in path.parent.glob(f"{path.name}.*{_PART}"):
        with contextlib.suppress(OSError):
            if time.time() - old.stat().st_mtime > _STALE_SECONDS:
                old.unlink()
    part = path.with_name(f"{path.name}.{os.getpid()}{_PART}")
    return [f"-XX:ArchiveClassesAtExit={part}", QUIET], part


def finish_at_exit(spark: Any, part: Path) -> None:
    """As this process exits: end the driver JVM (its stdin closed) and move the archive it
    wrote into place; a JVM that was killed or did not end in time leaves none."""
    process = getattr(getattr(spark.sparkContext, "_gateway", None), "proc", None)
    if isinstance(process, subprocess.Popen):  # PySpark's own handle on its JVM
        atexit.register(_finish, process, part)


def _finish(process: subprocess.Popen[bytes], part: Path) -> None:
    with contextlib.suppress(OSError, ValueError):
        if process.stdin is not None:
            process.stdin.close()
    try:
        code = process.wait(_WRITE_SECONDS)
    except subprocess.TimeoutExpired:
        code = None
    final = part.with_name(part.name.split(".")[0] + ".jsa")
    with contextlib.suppress(OSError):
        if code == 0 and part.stat().st_size > 0:
            part.replace(final)
        else:
            part.unlink()
