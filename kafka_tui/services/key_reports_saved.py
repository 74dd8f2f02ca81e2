"""The last `topics keys` count of each topic, kept so a grow can show its exact numbers
(issue 51 point 3): `topics alter --partitions N` says, for a topic counted recently, which
share of its keys and records N sends elsewhere and the skew after, with the count's age.

What is kept is the merged tally (one row per distinct (partition, key): planning/key_stats.py),
so any N can be weighed later, as an Arrow IPC file per cluster and topic under
$KAFKA_TUI_KEY_REPORTS (default: the XDG cache's kafka-tui/key-reports), with when it was read,
the partition count then, its --since, and whether the topic was compacted (its tally then
carries each key's latest record, and a grow weighs those: one record per key and partition,
tombstoned keys left out, as `topics keys` counted it). A file kept before that flag existed
reads as not compacted. A count is used while it is younger than FRESH_S and
the topic still has the partition count it was read with. numpy and pyarrow are imported only
when such a file exists.

`grow_keys` is the one answer of every front end (the partitions form, `topics alter
--partitions N`, a plan's grows): the numbers for a count, or why there are none; `lines`
words them. A loaded `SavedCount` weighs any count again cheaply (planning/key_weights.py).
"""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..paths import user_path

if TYPE_CHECKING:
    import pyarrow as pa

    from ..planning.key_stats import Grow

FRESH_S = 24 * 3600.0
_META = b"kafka_tui_key_report"
# A cluster id as Kafka makes them (URL-safe base64) and a legal topic name: safe as paths.
_CLUSTER_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_TOPIC = re.compile(r"[A-Za-z0-9._-]{1,249}")


def folder() -> Path:
    return user_path("KAFKA_TUI_KEY_REPORTS", "XDG_CACHE_HOME", ".cache", "key-reports")


def _path(cluster_id: str | None, topic: str) -> Path | None:
    if cluster_id is None or not _CLUSTER_ID.fullmatch(cluster_id):
        return None
    if not _TOPIC.fullmatch(topic) or topic in (".", ".."):
        return None
    return folder() / cluster_id / f"{topic}.arrow"


def save(
    cluster_id: str | None,
    topic: str,
    tally: pa.Table,
    partitions: int,
    read_at_ms: int,
    since_ms: int | None,
    compacted: bool = False,
) -> None:
    """Keep `tally` (best effort: a cache that cannot be written keeps nothing); `compacted`:
    counted with each key's latest record (key_stats.latest_only)."""
    import pyarrow as pa

    path = _path(cluster_id, topic)
    if path is None:
        return
    meta = {
        "read_at_ms": read_at_ms,
        "partitions": partitions,
        "since_ms": since_ms,
        "compacted": compacted,
    }
    table = tally.replace_schema_metadata({_META: json.dumps(meta).encode()})
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".partial")
        with pa.OSFile(str(partial), "wb") as sink, pa.ipc.new_file(sink, table.schema) as out:
            out.write_table(table)
        partial.replace(path)


def kept_topics(cluster_id: str | None) -> set[str]:
    """The topics of `cluster_id` with a kept count (fresh or not): a streamed plan weighs
    only these (its topics are too many to look each up)."""
    if cluster_id is None or not _CLUSTER_ID.fullmatch(cluster_id):
        return set()
    try:
        return {p.stem for p in (folder() / cluster_id).glob("*.arrow") if _TOPIC.fullmatch(p.stem)}
    except OSError:
        return set()


@dataclass(frozen=True)
class RecentGrow:
    topic: str
    age_s: float
    since_ms: int | None
    grow: Grow
    compacted: bool = False  # counted each key's latest record (records = keys per partition)


class SavedCount:
    """A kept count, read once and weighed for any partition count (the partitions form
    recomputes as the operator types): `weights` holds what does not depend on the count."""

    def __init__(
        self,
        topic: str,
        tally: pa.Table,
        partitions: int,
        read_at_ms: int,
        since_ms: int | None,
        compacted: bool = False,
    ) -> None:
        from ..planning.key_weights import KeyWeights

        self.topic = topic
        self.partitions = partitions
        self.read_at_ms = read_at_ms
        self.since_ms = since_ms
        self.compacted = compacted
        self.rows = tally.num_rows
        self.weights = KeyWeights(tally, compacted)

    def age_s(self, now_ms: int) -> float:
        return (now_ms - self.read_at_ms) / 1000

    def stale(self, current: int, now_ms: int) -> str | None:
        """Why the count cannot stand for the topic now (None: it can)."""
        if self.partitions != current:
            return f"its last key report counted {self.partitions} partitions; it has {current} now"
        age = self.age_s(now_ms)
        if not 0 <= age <= FRESH_S:
            return f"its last key report is {_age(age)} old (fresh: {_age(FRESH_S)})"
        return None

    def recent(self, total: int, now_ms: int) -> RecentGrow:
        """What growing to `total` partitions moves, by this count."""
        return RecentGrow(
            self.topic, self.age_s(now_ms), self.since_ms, self.weights.grow(total), self.compacted
        )


def load(cluster_id: str | None, topic: str) -> SavedCount | None:
    """The kept count of `topic`, fresh or not; None when none can be read. numpy and pyarrow
    are imported only when the file exists."""
    path = _path(cluster_id, topic)
    if path is None or not path.exists():
        return None
    import pyarrow as pa

    try:
        with pa.memory_map(str(path)) as source:
            table = pa.ipc.open_file(source).read_all()
        meta = json.loads((table.schema.metadata or {})[_META])
        partitions, read_at_ms = int(meta["partitions"]), int(meta["read_at_ms"])
        since = meta.get("since_ms")
        compacted = meta.get("compacted") is True
        if compacted and "latest_offset" not in table.column_names:
            return None
    except (OSError, KeyError, TypeError, ValueError, pa.ArrowException):
        return None
    tally = table.replace_schema_metadata(None)
    since_ms = None if since is None else int(since)
    return SavedCount(topic, tally, partitions, read_at_ms, since_ms, compacted)


@dataclass(frozen=True)
class GrowKeys:
    """What growing `topic` from `current` to `total` partitions moves, by its kept count
    (`recent`), or why there are no numbers (`missing`): one result the partitions form, `topics
    alter --partitions N` and a plan's grows all word (`lines`)."""

    topic: str
    current: int
    total: int
    recent: RecentGrow | None
    missing: str | None = None


def grow_keys(
    cluster_id: str | None, topic: str, current: int, total: int, now_ms: int
) -> GrowKeys:
    """The numbers of growing `topic` from `current` to `total` partitions by its kept count."""
    return weighed(load(cluster_id, topic), topic, current, total, now_ms)


def weighed(
    saved: SavedCount | None, topic: str, current: int, total: int, now_ms: int
) -> GrowKeys:
    """The numbers of growing `topic` to `total` by `saved` (a count loaded already, or
    None). A count not fresh, or read at another partition count, gives none and says why."""
    if saved is None:
        return GrowKeys(topic, current, total, None, "no key report of it has been kept")
    why = saved.stale(current, now_ms)
    if why is not None:
        return GrowKeys(topic, current, total, None, why)
    if total <= current:
        return GrowKeys(topic, current, total, None, "partitions only grow")
    return GrowKeys(topic, current, total, saved.recent(total, now_ms))


def recent_grow(
    cluster_id: str | None, topic: str, current: int, total: int, now_ms: int
) -> RecentGrow | None:
    """What growing `topic` from `current` to `total` partitions moves, by its kept count;
    None without a fresh one (none kept, too old, or the topic's count changed since)."""
    if total <= current:
        return None
    return grow_keys(cluster_id, topic, current, total, now_ms).recent


def _age(seconds: float) -> str:
    minutes = seconds / 60
    return f"{minutes:.0f} min" if minutes < 90 else f"{minutes / 60:.1f} h"


def grow_json(found: GrowKeys) -> dict[str, object]:
    """The numbers as JSON (a plan's `key_moves` entries; names as `topics keys`' grow)."""
    recent = found.recent
    entry: dict[str, object] = {
        "topic": found.topic,
        "partitions_before": found.current,
        "partitions": found.total,
    }
    if recent is None:
        return entry | {"key_report": None, "missing": found.missing}
    g = recent.grow
    return entry | {
        "key_report": {
            "age_s": round(recent.age_s, 1),
            "since_ms": recent.since_ms,
            "keys_moving": g.keys_moving,
            "records_moving": g.records_moving,
            "records_per_partition": g.records_per_partition,
            "max_over_avg": g.max_over_avg,
            "compacted": recent.compacted,
        }
    }


def from_json(entry: dict[str, Any]) -> GrowKeys:
    """A `grow_json` entry read back (a plan document's `key_moves`)."""
    from ..planning.key_stats import Grow

    report = entry.get("key_report")
    topic, current, total = (
        str(entry["topic"]),
        int(entry["partitions_before"]),
        int(entry["partitions"]),
    )
    if not report:
        return GrowKeys(topic, current, total, None, str(entry.get("missing") or "no key report"))
    grow = Grow(
        total,
        float(report["keys_moving"]),
        float(report["records_moving"]),
        [int(n) for n in report["records_per_partition"]],
        [],
    )
    since = report.get("since_ms")
    return GrowKeys(
        topic,
        current,
        total,
        RecentGrow(
            topic,
            float(report["age_s"]),
            None if since is None else int(since),
            grow,
            report.get("compacted") is True,
        ),
    )


PER_PARTITION_SHOWN = 12


def per_partition(grow: Grow) -> str:
    """Records per partition after, the first PER_PARTITION_SHOWN of them, with max, avg and
    max/avg (the skew)."""
    records = grow.records_per_partition
    shown = ", ".join(f"{n:,}" for n in records[:PER_PARTITION_SHOWN])
    hidden = len(records) - PER_PARTITION_SHOWN
    more = f", … ({hidden} more)" if hidden > 0 else ""
    avg = sum(records) / len(records) if records else 0.0
    top = max(records, default=0)
    return f"{shown}{more} (max {top:,}, avg {avg:,.1f}, max/avg {grow.max_over_avg:.2f})"


def lines(found: GrowKeys) -> list[str]:
    """The numbers worded (every front end shows these), or why there are none (without the
    remedy: each front end offers its own way to count)."""
    if found.recent is None:
        return [f"No fresh key report of '{found.topic}': {found.missing}."]
    after = per_partition(found.recent.grow)
    return [sentence(found.recent), f"Records per partition after: {after}."]


def sentence(recent: RecentGrow) -> str:
    """The shares moving as one line, with the count's age (`lines` adds the records per
    partition after)."""
    g = recent.grow
    age = _age(recent.age_s)
    window = ""
    if recent.since_ms is not None:
        since = datetime.fromtimestamp(recent.since_ms / 1000, UTC).isoformat(timespec="seconds")
        window = f" (the records since {since})"
    if recent.compacted:
        window += " (compacted: each key's latest record)"
    return (
        f"Keys of '{recent.topic}' as counted {age} ago{window}: growing to {g.partitions} "
        f"partitions sends {g.keys_moving:.1%} of its keys and {g.records_moving:.1%} of its "
        "keyed records to another partition."
    )
