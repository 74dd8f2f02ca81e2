"""Rollback files: before replicas move, the current assignment of every partition touched,
in kafka-reassign-partitions' JSON format, so
`kafka-tui topics reassign --reassignment-json-file FILE` (or Kafka's own tool) undoes the
change. Also reads such files (Kafka's own included) into per-topic targets.

`{"version": 1, "partitions": [{"topic", "partition", "replicas": [...],
"log_dirs": ["any", ...]}]}`, one file per change under the state folder
($KAFKA_TUI_ROLLBACK_DIR, else $XDG_STATE_HOME/kafka-tui/rollback).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable
from pathlib import Path

from ..paths import user_path
from .parsing import UsageError

ENV = "KAFKA_TUI_ROLLBACK_DIR"
VERSION = 1
ANY_DIR = "any"


def folder() -> Path:
    return user_path(ENV, "XDG_STATE_HOME", ".local/state", "rollback")


def document(partitions: Iterable[tuple[str, int, Iterable[int]]]) -> dict[str, object]:
    """The file's content. Placeholders (negative ids, kafka-tui's own) are left out: Kafka
    refuses them, and a placeholder is a missing replica anyway."""
    rows = []
    for topic, partition, replicas in sorted(partitions, key=lambda p: (p[0], p[1])):
        real = [b for b in replicas if b >= 0]
        rows.append(
            {
                "topic": topic,
                "partition": partition,
                "replicas": real,
                "log_dirs": [ANY_DIR] * len(real),
            }
        )
    return {"version": VERSION, "partitions": rows}


def write(what: str, partitions: Iterable[tuple[str, int, Iterable[int]]]) -> Path:
    """Write the rollback file of a change (`what`: "reassign", "replication-factor", ...)
    and return its path. Raises OSError when it cannot be written: the change must not go
    ahead without its way back."""
    return write_text(what, "json", json.dumps(document(partitions), indent=1) + "\n")


def write_text(what: str, suffix: str, text: str) -> Path:
    """Write `text` as a new rollback file `<time>-<what>-<pid>.<suffix>` (never over another
    one; readable by the user only) and return its path. Raises OSError."""
    where = folder()
    where.mkdir(mode=0o700, parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    path = where / f"{stamp}-{what}-{os.getpid()}.{suffix}"
    n = 1
    while path.exists():
        n += 1
        path = where / f"{stamp}-{what}-{os.getpid()}-{n}.{suffix}"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    return path


def read(path: Path) -> dict[str, dict[int, list[int]]]:
    """topic -> partition -> replicas, from a kafka-reassign-partitions JSON file. Errors
    name the file and the entry."""
    try:
        data = json.loads(path.read_text())
    except OSError as exc:
        raise UsageError(f"{path}: cannot read it ({exc.strerror})") from None
    except ValueError as exc:
        raise UsageError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("version") != VERSION:
        raise UsageError(f'{path}: expected an object with "version": {VERSION}')
    partitions = data.get("partitions")
    if not isinstance(partitions, list) or not partitions:
        raise UsageError(f'{path}: "partitions" must be a non-empty list')
    targets: dict[str, dict[int, list[int]]] = {}
    for index, entry in enumerate(partitions):
        where = f"{path}: partitions[{index}]"
        if not isinstance(entry, dict):
            raise UsageError(f"{where}: expected an object")
        topic, partition, replicas = (
            entry.get("topic"),
            entry.get("partition"),
            entry.get("replicas"),
        )
        if not isinstance(topic, str) or not topic:
            raise UsageError(f'{where}: "topic" must be a topic name')
        if type(partition) is not int or partition < 0:
            raise UsageError(f'{where}: "partition" must be a partition number')
        if (
            not isinstance(replicas, list)
            or not replicas
            or any(type(b) is not int or b < 0 for b in replicas)
        ):
            raise UsageError(f'{where}: "replicas" must be a list of broker ids')
        if len(set(replicas)) != len(replicas):
            raise UsageError(f'{where}: "replicas" names a broker twice')
        dirs = entry.get("log_dirs")
        if dirs is not None and (not isinstance(dirs, list) or any(d != ANY_DIR for d in dirs)):
            raise UsageError(
                f'{where}: "log_dirs" other than "any" (moves between a broker\'s disks) '
                "are not supported; leave them out or use kafka-reassign-partitions.sh"
            )
        per_topic = targets.setdefault(topic, {})
        if partition in per_topic:
            raise UsageError(f"{where}: {topic}-{partition} is given twice")
        per_topic[partition] = list(replicas)
    return targets
