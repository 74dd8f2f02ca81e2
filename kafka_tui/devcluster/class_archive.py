"""Class-data-sharing archives for the dev cluster's JVMs (JDK 13+'s dynamic CDS).

Most of a Kafka JVM's start-up CPU is loading and verifying the same ~5,000 classes from the
same jars every time. A dynamic archive, written once by a JVM that ran the same classpath
(`-XX:ArchiveClassesAtExit`), lets later JVMs map those classes instead
(`-XX:SharedArchiveFile`); the broker then starts on less CPU (bench/README.md has the figures).

`dev-cluster fetch` (run by `.ci/setup`) writes one archive per Kafka release, JVM and role
(controller, broker, zookeeper, storage tool) by starting a one-broker cluster once and
stopping it cleanly (the JVM writes its archive as it exits). A JVM started without a
matching archive runs as before; one whose archive does not match (another JDK, other jars)
is refused by the JVM itself, which then loads its classes as usual (`-Xshare:auto`).
`KAFKA_TUI_CDS=off` turns the archives off.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

from .jars import cache_root

# Set while `build` runs: the JVMs started then write their archive at exit.
_DUMPING = "KAFKA_TUI_CDS_DUMPING"
_PART = ".part"


def _java_identity() -> str:
    from . import node

    java = shutil.which(node.java_bin()) or node.java_bin()
    real = os.path.realpath(java)
    try:
        stat = os.stat(real)
    except OSError:
        return real
    return f"{real}:{stat.st_size}:{int(stat.st_mtime)}"


def archive_path(classpath: str, role: str) -> Path:
    """Where the archive of JVMs of `role` on `classpath` (and this machine's java) lives."""
    key = hashlib.sha256(f"{_java_identity()}\n{classpath}".encode()).hexdigest()[:16]
    return cache_root() / "cds" / f"{key}-{role}.jsa"


def jvm_flags(classpath: str, role: str) -> list[str]:
    """The flags that make a JVM of `role` use its archive, or write it while `build` runs."""
    if os.environ.get("KAFKA_TUI_CDS", "").lower() == "off":
        return []
    path = archive_path(classpath, role)
    if os.environ.get(_DUMPING):
        path.parent.mkdir(parents=True, exist_ok=True)
        return [f"-XX:ArchiveClassesAtExit={path}{_PART}", "-Xlog:cds=off,cds+dynamic=off"]
    if path.exists():
        # Quiet: a JVM update makes the archive unusable, which the JVM says on every start.
        return [f"-XX:SharedArchiveFile={path}", "-Xlog:cds=off,cds+dynamic=off"]
    return []


def is_dumping() -> bool:
    return bool(os.environ.get(_DUMPING))


def missing(classpath: str, roles: tuple[str, ...]) -> list[str]:
    return [r for r in roles if not archive_path(classpath, r).exists()]


def dumping() -> _Dumping:
    """A context in which started JVMs write their archives; on a clean exit from it the
    written ones become the archives later JVMs use."""
    return _Dumping()


class _Dumping:
    def __enter__(self) -> None:
        os.environ[_DUMPING] = "1"

    def __exit__(self, kind: object, *_: object) -> None:
        os.environ.pop(_DUMPING, None)
        folder = cache_root() / "cds"
        for part in folder.glob(f"*.jsa{_PART}") if folder.exists() else ():
            if kind is None and part.stat().st_size > 0:
                part.replace(part.with_name(part.name.removesuffix(_PART)))
            else:
                part.unlink(missing_ok=True)
