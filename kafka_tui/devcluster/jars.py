"""Apache Kafka jars from Maven Central, fetched once into a cache outside the repo.

Maven resolves the transitive dependencies (scala-library, jackson, zookeeper, ...), so the
classpath is exactly what Kafka's own POMs declare, plus a logging binding.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from ..paths import user_path
from .versions import KRAFT_VERSION, ZK_VERSION, Coordinate, Release, VersionError, release

__all__ = [
    "KRAFT_VERSION",
    "ZK_VERSION",
    "JarFetchError",
    "KafkaJars",
    "cache_root",
    "ensure_kafka",
]

_COMPLETE_MARKER = ".complete"


class JarFetchError(RuntimeError):
    """Maven could not fetch the Kafka jars."""


@dataclass(frozen=True)
class KafkaJars:
    version: str
    libs: Path
    downloaded: bool
    # The first fetch: Maven's wall time and the jars' total size (None when cached).
    fetch_seconds: float | None = None

    @property
    def size_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.libs.glob("*.jar"))

    @property
    def classpath(self) -> str:
        return os.pathsep.join(str(p) for p in sorted(self.libs.glob("*.jar")))


def cache_root() -> Path:
    return user_path("KAFKA_TUI_CACHE", "XDG_CACHE_HOME", ".cache")


def _xml(tag: str, coords: Coordinate, inner: str = "") -> str:
    g, a, v = coords
    return (
        f"    <{tag}><groupId>{g}</groupId><artifactId>{a}</artifactId>"
        f"<version>{v}</version>{inner}</{tag}>"
    )


def _pom(found: Release) -> str:
    exclusions = "".join(
        f"<exclusion><groupId>{g}</groupId><artifactId>{a}</artifactId></exclusion>"
        for g, a in found.excluded()
    )
    kafka = f"<exclusions>{exclusions}</exclusions>" if exclusions else ""
    deps = "\n".join(
        _xml("dependency", c, kafka if c[0] == "org.apache.kafka" else "")
        for c in found.dependencies()
    )
    pinned = "\n".join(_xml("dependency", c) for c in found.pinned())
    managed = (
        f"  <dependencyManagement><dependencies>\n{pinned}\n  </dependencies>"
        "</dependencyManagement>\n"
        if pinned
        else ""
    )
    return f"""<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>kafka-tui.devcluster</groupId>
  <artifactId>kafka-{found.version}</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
{managed}  <dependencies>
{deps}
  </dependencies>
</project>
"""


def ensure_kafka(version: str, cache: Path | None = None, mvn: str = "mvn") -> KafkaJars:
    """Return the cached jars for `version`, fetching them with Maven the first time only."""
    try:
        found = release(version)
    except VersionError as exc:
        raise JarFetchError(str(exc)) from None
    home = (cache or cache_root()) / f"kafka-{version}"
    libs = home / "libs"
    if (home / _COMPLETE_MARKER).exists() and any(libs.glob(f"{found.core_artifact}-*.jar")):
        return KafkaJars(version, libs, downloaded=False)
    if shutil.which(mvn) is None:
        raise JarFetchError(
            f"Maven ({mvn!r}) is not on PATH; it is needed once to fetch Kafka {version}"
        )
    started = time.monotonic()
    home.mkdir(parents=True, exist_ok=True)
    (home / "pom.xml").write_text(_pom(found))
    staging = home / "libs.partial"
    shutil.rmtree(staging, ignore_errors=True)
    proc = subprocess.run(
        [
            mvn,
            "-B",
            "-q",
            "-f",
            str(home / "pom.xml"),
            "dependency:copy-dependencies",
            "-DincludeScope=runtime",
            f"-DoutputDirectory={staging}",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-20:])
        raise JarFetchError(f"Maven failed to fetch Kafka {version}:\n{tail}")
    shutil.rmtree(libs, ignore_errors=True)
    staging.rename(libs)
    (home / _COMPLETE_MARKER).write_text(version + "\n")
    seconds = round(time.monotonic() - started, 2)
    return KafkaJars(version, libs, downloaded=True, fetch_seconds=seconds)
