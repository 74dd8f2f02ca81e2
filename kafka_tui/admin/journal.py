"""What kafka-tui changed recently, so its next reads never show the cluster from before.

A change is done when the controller answers (KIP-4): the brokers apply it afterwards, and
under load (thousands of partitions) a broker can lag seconds behind; ZooKeeper-mode brokers
learn of a topic one by one. Rather than waiting for every broker after every change, each
change leaves an *expectation* here ("topic t exists with >= n partitions", "topic t with
id i is gone"), and a read waits for a broker whose metadata meets the expectations about
the topics it reads (see `AdminConnection._metadata`).

The expectations live in memory and in a small JSON-lines file shared by every kafka-tui
process of the user, so the `describe` a script runs after a `create` sees the topic too.
The file is a hint, never a source of truth: lines older than `TTL_SECONDS` are ignored, a
broken line is skipped, a file that cannot be written only costs that cross-process hint.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterable
from itertools import repeat
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ..paths import user_path

if TYPE_CHECKING:
    from .protocol import MetadataTopic

# Long enough for a cluster still applying a 100,000-partition change; short enough that a
# stale hint (a topic changed by another tool since) is not checked for long.
TTL_SECONDS = 600.0
# Past this size the file is rewritten with only the entries still in force, when at least
# half of what it holds has expired or been superseded (a delete after a create of the same
# topics): every kafka-tui start reads it, and a 2,000-topic line costs ~2 ms to read.
_COMPACT_BYTES = 64 * 2**10


class Expectation(NamedTuple):
    """`exists`: the topic is listed with at least `partitions` partitions (and, when known,
    the id `topic_id`). Otherwise the topic with id `topic_id` (any, when None) is gone.
    A tuple: a bulk change makes thousands, and a frozen dataclass costs several times more."""

    topic: str
    exists: bool
    partitions: int = 0
    topic_id: str | None = None
    at: float = 0.0

    def met_by(self, listed: MetadataTopic | None) -> bool:
        """`listed`: the topic's entry in a Metadata response (None or an error: not listed)."""
        present = listed is not None and not listed.error_code
        if not self.exists:
            return not present or (
                self.topic_id is not None
                and listed is not None
                and listed.topic_id != self.topic_id
            )
        if not present or listed is None:
            return False
        if self.topic_id is not None and listed.topic_id not in (None, self.topic_id):
            # Re-created by someone else since: a newer state than the one expected.
            return True
        return listed.partition_count >= self.partitions


def default_path() -> Path:
    return user_path("KAFKA_TUI_JOURNAL", "XDG_STATE_HOME", ".local/state", "recent-changes.jsonl")


class ChangeJournal:
    """One JSON line per change, `{"c": cluster, "at": time, "x": exists (None: forgotten),
    "e": [[topic, partitions, topic id], ...]}`: a 2,000-topic change is one line, read with
    one json.loads (a line per topic cost a second to read back and rewrite after a few bulk
    changes). Lines of the older one-topic form are still read."""

    def __init__(self, path: Path | None = None, *, persist: bool = True) -> None:
        self.path = path or default_path()
        self.persist = persist
        # cluster -> topic -> (exists, at, its entry as written: [topic, partitions, id])
        self._by_cluster: dict[str, dict[str, _Held]] = {}
        self._loaded = False

    def _load(self) -> None:
        """Index the file's entries by topic, as they were written: an Expectation is built
        only for a topic a read asks about. A start reads every line in force, and building
        20,000 of them (a few bulk changes) cost 30-60 ms of each kafka-tui process."""
        if self._loaded:
            return
        self._loaded = True
        if not self.persist:
            return
        try:
            text = self.path.read_text()
        except OSError:
            return
        horizon = time.time() - TTL_SECONDS
        read = 0
        for line in text.splitlines():
            try:
                row = json.loads(line)
                cluster, at, exists = str(row["c"]), float(row["at"]), row.get("x")
                if "e" in row:
                    entries = row["e"]
                    names = [entry[0] for entry in entries]
                else:
                    entries = [[row["t"], row.get("p", 0), row.get("id")]]
                    names = [row["t"]]
            except (ValueError, KeyError, TypeError, IndexError):
                continue
            known = self._by_cluster.setdefault(cluster, {})
            read += len(entries)
            if exists is None or at < horizon:
                for name in names if known else ():
                    known.pop(name, None)
                continue
            known.update(zip(names, zip(repeat(bool(exists)), repeat(at), entries), strict=True))
        # Rewritten only when mostly expired or superseded: a file of changes still in force
        # stays as it is.
        kept = sum(len(known) for known in self._by_cluster.values())
        if len(text) > _COMPACT_BYTES and kept * 2 <= read:
            with contextlib.suppress(OSError):
                self._compact()

    def expectations(self, cluster: str | None, topics: Iterable[str] | None) -> list[Expectation]:
        """The expectations in force about `topics` (None: all) of `cluster`."""
        if cluster is None:
            return []
        self._load()
        known = self._by_cluster.get(cluster)
        if not known:
            return []
        horizon = time.time() - TTL_SECONDS
        chosen = known.items() if topics is None else ((t, known.get(t)) for t in topics)
        found = []
        for topic, held in chosen:
            if held is not None and held[1] >= horizon:
                expectation = _expectation(topic, held)
                if expectation is not None:
                    found.append(expectation)
        return found

    def changes_since(self, cluster: str, at: float) -> dict[str, int]:
        """The topics of `cluster` that kafka-tui changed after `at` (epoch seconds), by the
        user's processes: each one's partition count after its latest change, -1 if deleted."""
        self._load()
        return {
            topic: (int(entry[1] or 0) if exists else -1)
            for topic, (exists, changed_at, entry) in self._by_cluster.get(cluster, {}).items()
            if changed_at > at
        }

    def record(self, cluster: str | None, expectations: Iterable[Expectation]) -> None:
        self.commit(self.prepare(cluster, expectations))

    def prepare(self, cluster: str | None, expectations: Iterable[Expectation]) -> Pending | None:
        """A record's rows, rendered before the change is answered (a bulk create renders
        them while the controller works); `commit` stamps and writes them."""
        if cluster is None:
            return None
        by_kind: dict[bool, list[Expectation]] = {}
        for e in expectations:
            by_kind.setdefault(e.exists, []).append(e)
        kinds = [
            (exists, es, _rows([[e.topic, e.partitions, e.topic_id] for e in es]))
            for exists, es in by_kind.items()
        ]
        return Pending(cluster, kinds)

    def commit(self, pending: Pending | None) -> None:
        if pending is None:
            return
        self._load()
        now = round(time.time(), 3)
        known = self._by_cluster.setdefault(pending.cluster, {})
        for exists, expectations, _ in pending.kinds:
            for e in expectations:
                known[e.topic] = (exists, now, [e.topic, e.partitions, e.topic_id])
        self._append(
            [_line_text(pending.cluster, now, exists, rows) for exists, _, rows in pending.kinds]
        )

    def forget(self, cluster: str | None, topics: Iterable[str]) -> None:
        """Drop expectations the cluster has moved past: the topic changed again elsewhere
        (every broker contradicts them, or a broker that met them no longer does)."""
        if cluster is None:
            return
        known = self._by_cluster.get(cluster, {})
        gone = [[topic] for topic in topics if known.pop(topic, None) is not None]
        if gone:
            self._append([_line(cluster, round(time.time(), 3), None, gone)])

    def _append(self, lines: list[str]) -> None:
        if not lines or not self.persist:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # One write of whole lines in append mode: concurrent processes do not interleave
            # within a line.
            with self.path.open("a") as f:
                f.write("\n".join(lines) + "\n")
        except OSError:
            pass

    def _compact(self) -> None:
        horizon = time.time() - TTL_SECONDS
        groups: dict[tuple[str, float, bool], list[list[Any]]] = {}
        for cluster, known in self._by_cluster.items():
            for exists, at, entry in known.values():
                if at >= horizon:
                    groups.setdefault((cluster, at, exists), []).append(entry)
        text = "".join(_line(c, at, x, rows) + "\n" for (c, at, x), rows in groups.items())
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        tmp.write_text(text)
        tmp.replace(self.path)


_Held = tuple[bool, float, list[Any]]


def _expectation(topic: str, held: _Held) -> Expectation | None:
    """The Expectation an entry of the file holds; None for an entry that is not one."""
    exists, at, entry = held
    try:
        partitions = int(entry[1]) if len(entry) > 1 and entry[1] else 0
        topic_id = entry[2] if len(entry) > 2 else None
    except (ValueError, TypeError, KeyError):
        return None
    return Expectation(str(topic), exists, partitions, topic_id, at)


class Pending(NamedTuple):
    """A record prepared: per kind (exists), its expectations and their rows' JSON."""

    cluster: str
    kinds: list[tuple[bool, list[Expectation], str]]


def _rows(entries: list[list[Any]]) -> str:
    return json.dumps(entries, separators=(",", ":"))


def _line(cluster: str, at: float, exists: bool | None, entries: list[list[Any]]) -> str:
    return _line_text(cluster, at, exists, _rows(entries))


def _line_text(cluster: str, at: float, exists: bool | None, rows: str) -> str:
    """json.dumps({"c": cluster, "at": at, "x": exists, "e": rows}, separators=(",", ":")),
    with the rows already rendered."""
    head = f'{{"c":{json.dumps(cluster)},"at":{json.dumps(at)},"x":{json.dumps(exists)}'
    return f'{head},"e":{rows}}}'
