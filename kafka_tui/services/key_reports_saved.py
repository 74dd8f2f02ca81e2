"""The last `topics keys` count of each topic, kept so a grow can show its exact numbers
(issue 51 point 3): `topics alter --partitions N` says, for a topic counted recently, which
share of its keys and records N sends elsewhere and the skew after, with the count's age.

What is kept is the merged tally (one row per distinct (partition, key): planning/key_stats.py),
so any N can be weighed later, as an Arrow IPC file per cluster and topic under
$KAFKA_TUI_KEY_REPORTS (default: the XDG cache's kafka-tui/key-reports), with when it was read,
the partition count then and its --since. A count is used while it is younger than FRESH_S and
the topic still has the partition count it was read with. numpy and pyarrow are imported only
when such a file exists.
"""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

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
) -> None:
    """Keep `tally` (best effort: a cache that cannot be written keeps nothing)."""
    import pyarrow as pa

    path = _path(cluster_id, topic)
    if path is None:
        return
    meta = {"read_at_ms": read_at_ms, "partitions": partitions, "since_ms": since_ms}
    table = tally.replace_schema_metadata({_META: json.dumps(meta).encode()})
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".partial")
        with pa.OSFile(str(partial), "wb") as sink, pa.ipc.new_file(sink, table.schema) as out:
            out.write_table(table)
        partial.replace(path)


@dataclass(frozen=True)
class RecentGrow:
    topic: str
    age_s: float
    since_ms: int | None
    grow: Grow


def recent_grow(
    cluster_id: str | None, topic: str, current: int, total: int, now_ms: int
) -> RecentGrow | None:
    """What growing `topic` from `current` to `total` partitions moves, by its kept count;
    None without a fresh one (none kept, too old, or the topic's count changed since)."""
    path = _path(cluster_id, topic)
    if path is None or total <= current or not path.exists():
        return None
    import pyarrow as pa

    from ..planning import key_stats

    try:
        with pa.memory_map(str(path)) as source:
            table = pa.ipc.open_file(source).read_all()
        meta = json.loads((table.schema.metadata or {})[_META])
        age_s = (now_ms - int(meta["read_at_ms"])) / 1000
    except (OSError, KeyError, ValueError, pa.ArrowException):
        return None
    if meta.get("partitions") != current or not 0 <= age_s <= FRESH_S:
        return None
    report = key_stats.report(topic, table.replace_schema_metadata(None), current, [total], 0)
    return RecentGrow(topic, age_s, meta.get("since_ms"), report.grow[0])


def sentence(recent: RecentGrow) -> str:
    """The numbers as one line, with the count's age."""
    g = recent.grow
    minutes = recent.age_s / 60
    age = f"{minutes:.0f} min" if minutes < 90 else f"{minutes / 60:.1f} h"
    window = ""
    if recent.since_ms is not None:
        since = datetime.fromtimestamp(recent.since_ms / 1000, UTC).isoformat(timespec="seconds")
        window = f" (the records since {since})"
    return (
        f"Keys of '{recent.topic}' as counted {age} ago{window}: growing to {g.partitions} "
        f"partitions sends {g.keys_moving:.1%} of its keys and {g.records_moving:.1%} of its "
        f"keyed records to another partition; records per partition after: max/avg "
        f"{g.max_over_avg:.2f}."
    )
