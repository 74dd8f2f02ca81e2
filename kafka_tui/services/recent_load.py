"""A recent load, reused by creates and grows given a maximum age (the profile's load_max_age
or the command line's).

Client placement balances against every broker's replicas and preferred leaders, and Kafka
has no request that answers those without listing every partition: the broker's Metadata
answer for every topic took 90-120 ms at 30,000 partitions and 780 ms at 90,000 (30,000
topics; bench/create_scaling.py), more than a whole CreateTopics. A script creating topics
one process at a time pays it every time. With a maximum age, the load one kafka-tui command
counted (exactly, from every partition) is kept in a small file per cluster with the time of
that read, each later create or grow adds the replicas it placed, and a command finding it
younger than the age balances against it and reads only the topics it names. Sizes and
validity never depend on it: the brokers (live, fenced) are read every time.

Exact as of its read, plus kafka-tui's own creates and grows since. It is dropped (the next
command reads every partition again) when older than the age, and when kafka-tui's journal
of its own changes (admin/journal.py, shared by the user's processes) holds a change since
the read that the file did not add: a delete, a plan applied, a create made without reuse.
What it does not see: other tools' changes and reassignments made within the age (they
shift the balance of the next placements, never their validity).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from ..admin import TopicResult
from ..admin.journal import TTL_SECONDS, ChangeJournal
from ..paths import user_path
from ..planning.placement import Load

log = logging.getLogger(__name__)

# A cluster id as Kafka makes them (a UUID in URL-safe base64): the file's name. Any other
# answer (a broker's is not ours to trust as a path) keeps nothing.
_CLUSTER_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _named(cluster: str | None) -> TypeGuard[str]:
    """Whether `cluster` can name the file: a Kafka cluster id, not None."""
    return cluster is not None and _CLUSTER_ID.fullmatch(cluster) is not None


def default_folder() -> Path:
    return user_path("KAFKA_TUI_LOAD_CACHE", "XDG_CACHE_HOME", ".cache", "load")


@dataclass(frozen=True)
class RecentLoad:
    """What one reuse of the file saw: the load and how old its read was."""

    load: Load
    age_s: float
    added: int  # topics kafka-tui placed since the read, in the load


@dataclass(frozen=True)
class LoadReuse:
    """`max_age_s`: how old a kept load may be to serve; `journal`: kafka-tui's own changes."""

    max_age_s: float
    journal: ChangeJournal
    folder: Path = field(default_factory=default_folder)

    def _path(self, cluster: str) -> Path:
        return self.folder / f"{cluster}.json"

    def recent(self, cluster: str | None) -> RecentLoad | None:
        """The kept load of `cluster` if it may serve now, else None. Never older than the
        journal remembers kafka-tui's own changes (TTL_SECONDS, 10 minutes), whatever the age
        asked: past that, a delete made since would go unseen."""
        if not _named(cluster):
            return None
        with self._locked(cluster):
            kept = self._read(cluster)
        if kept is None:
            return None
        age = time.time() - kept.read_at
        if not 0 <= age <= min(self.max_age_s, TTL_SECONDS):
            return None
        # The journal's times are rounded to the millisecond: one more is looked back.
        since = self.journal.changes_since(cluster, kept.read_at - 0.001)
        for topic, partitions in since.items():
            if kept.added.get(topic) != partitions:
                log.info("kept load not used: kafka-tui changed %s since its read", topic)
                return None
        return RecentLoad(kept.load, age, len(kept.added))

    def keep(self, cluster: str | None, load: Load, read_at: float) -> None:
        """Keep `load`, counted from every partition by a read that started at `read_at`."""
        if not _named(cluster):
            return
        with self._locked(cluster):
            self._write(cluster, _Kept(read_at, load, {}))

    def placed(self, cluster: str | None, results: Sequence[TopicResult]) -> None:
        """Add what a create or grow placed (its `results` that succeeded: the replica lists
        placed, and the topic's partition count after it) to the kept load, if there is one."""
        done = [r for r in results if r.ok and r.assignment]
        if not _named(cluster) or not done:
            return
        with self._locked(cluster):
            kept = self._read(cluster)
            if kept is None:
                return
            load = kept.load.with_assignments(a for r in done for a in r.assignment or ())
            # Each topic's count as the journal records the change (the admin's expectations).
            added = {**kept.added, **{r.topic: r.partitions or 1 for r in done}}
            self._write(cluster, _Kept(kept.read_at, load, added))

    def _read(self, cluster: str) -> _Kept | None:
        try:
            data = json.loads(self._path(cluster).read_text())
            return _Kept(
                float(data["read_at"]),
                Load(_ids(data["replicas"]), _ids(data["leaders"])),
                {str(k): int(v) for k, v in data["added"].items()},
            )
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None  # none yet, or not ours to trust: the cluster is read

    def _write(self, cluster: str, kept: _Kept) -> None:
        path = self._path(cluster)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        data = {
            "read_at": kept.read_at,
            "replicas": kept.load.replicas,
            "leaders": kept.load.leaders,
            "added": kept.added,
        }
        with contextlib.suppress(OSError):
            tmp.write_text(json.dumps(data))
            tmp.replace(path)

    @contextlib.contextmanager
    def _locked(self, cluster: str) -> Iterator[None]:
        """One process at a time reads and rewrites a cluster's file (two scripts' creates
        each add their own placements). A folder that cannot be written: no lock, and no file
        either (every command reads the cluster)."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            lock = open(self.folder / f"{cluster}.lock", "a")  # noqa: SIM115
        except OSError:
            yield
            return
        with lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield


@dataclass(frozen=True)
class _Kept:
    read_at: float
    load: Load
    added: dict[str, int]  # topic -> partitions after kafka-tui's create or grow


def _ids(counts: dict[str, Any]) -> dict[int, int]:
    return {int(k): int(v) for k, v in counts.items()}
