"""Apache Kafka jars from Maven Central, fetched once into a cache outside the repo.

Maven resolves the transitive dependencies (scala-library, jackson, zookeeper, ...), so the
classpath is exactly what Kafka's own POMs declare, plus a logging binding.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..paths import user_path

KRAFT_VERSION = "4.1.2"
ZK_VERSION = "3.9.2"

# Kafka 4.x logs through log4j2, 3.x through reload4j; neither POM brings the slf4j binding.
_LOGGING_BINDINGS: dict[str, list[tuple[str, str, str]]] = {
    "4": [("org.apache.logging.log4j", "log4j-slf4j-impl", "2.25.3")],
    "3": [("org.slf4j", "slf4j-reload4j", "1.7.36")],
}

_COMPLETE_MARKER = ".complete"


class JarFetchError(RuntimeError):
    """Maven could not fetch the Kafka jars."""


@dataclass(frozen=True)
class KafkaJars:
    version: str
    libs: Path
    downloaded: bool

    @property
    def classpath(self) -> str:
        return os.pathsep.join(str(p) for p in sorted(self.libs.glob("*.jar")))


def cache_root() -> Path:
    return user_path("KAFKA_TUI_CACHE", "XDG_CACHE_HOME", ".cache")


def _pom(version: str) -> str:
    coords = [
        ("org.apache.kafka", "kafka_2.13", version),
        # TopicCommand and StorageTool's helpers live here; the benchmarks use TopicCommand.
        ("org.apache.kafka", "kafka-tools", version),
        *_LOGGING_BINDINGS[version.split(".")[0]],
    ]
    deps = "\n".join(
        f"    <dependency><groupId>{g}</groupId><artifactId>{a}</artifactId>"
        f"<version>{v}</version></dependency>"
        for g, a, v in coords
    )
    return f"""<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>kafka-tui.devcluster</groupId>
  <artifactId>kafka-{version}</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
{deps}
  </dependencies>
</project>
"""


def ensure_kafka(version: str, cache: Path | None = None, mvn: str = "mvn") -> KafkaJars:
    """Return the cached jars for `version`, fetching them with Maven the first time only."""
    home = (cache or cache_root()) / f"kafka-{version}"
    libs = home / "libs"
    if (home / _COMPLETE_MARKER).exists() and any(libs.glob("kafka_2.13-*.jar")):
        return KafkaJars(version, libs, downloaded=False)
    if shutil.which(mvn) is None:
        raise JarFetchError(
            f"Maven ({mvn!r}) is not on PATH; it is needed once to fetch Kafka {version}"
        )
    home.mkdir(parents=True, exist_ok=True)
    (home / "pom.xml").write_text(_pom(version))
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
    return KafkaJars(version, libs, downloaded=True)
