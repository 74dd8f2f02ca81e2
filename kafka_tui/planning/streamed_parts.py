"""Plans too big for one process (issue 29): the pieces of the streamed path that are not Spark.

Above `STREAM_ROWS` rows a plan file is read, prepared and placed by the Spark job itself
(`spark_parts.py`), which writes the plan as a *parts directory*:

    DIR/summary.json       the document without its topics: engine, cluster, options,
                           brokers, stats, warnings (the first MAX_WARNINGS), counts
    DIR/topics/part-*.txt  the topic entries, one JSON object a line, in plan order
                           (part files by name, then lines), the bytes the in-process
                           document has between "topics": [ and ]

or, for a plan with bad rows, `summary.json` alone with the first MAX_ERRORS problems. The
parent process reads only the summary, and `plan apply` reads the parts a batch at a time.

Pure (bytes and JSON in, values out): the job input (`job_to_json`), the rows of a Parquet
file from its footer (`parquet_footer_rows`), each executor's batch functions.
"""

from __future__ import annotations

import bisect
import itertools
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict
from typing import Any

from kafka_tui.planning import plan_prepared
from kafka_tui.planning.bulk_plan import (
    ClusterView,
    ExistingTopic,
    Group,
    Intent,
    PlanOptions,
    RowUnits,
    group_indexes,
    prepare_row,
    row_partitions,
    row_weight,
    run_group,
    skipped_warning,
)
from kafka_tui.planning.config_diff import ConfigState
from kafka_tui.planning.placement import Broker, Load

# Rows above which `--engine spark` (or auto) streams a plan file. 1,000,000 is where `--engine
# auto` turns to Spark anyway (cli/plans.py: a row has at least one partition), and where the
# in-process path's parent holds ~1.6 GB (bench/plans_scale.py): every plan that streams would
# have run in Spark, and every plan that does not fits in a laptop's memory.
STREAM_ROWS = 1_000_000
SUMMARY = "summary.json"
TOPICS = "topics"
MAX_ERRORS = 1_000  # bad rows reported by the streamed reader (then "and N more")
MAX_WARNINGS = 1_000  # plan warnings kept in the summary (each topic entry has its own)


def is_parts(summary: dict[str, Any]) -> bool:
    return "parts" in summary and "topics" not in summary


# -- the job input -----------------------------------------------------------------------------


def job_to_json(
    view: ClusterView,
    options: PlanOptions,
    cluster_id: str | None,
    snapshot_time: str | None,
    name: str,
) -> dict[str, Any]:
    """What the streamed job needs besides the plan file: the cluster, the options, the name
    errors give the file."""
    return {
        "brokers": [plan_prepared.broker_json(b) for b in view.brokers],
        "load": plan_prepared.load_json(view.load),
        "topics": [[t, _existing_json(e)] for t, e in sorted(view.topics.items())],
        "defaults": [view.num_partitions, view.replication_factor, view.min_insync],
        "options": [options.mode, options.min_required, options.group_partitions],
        "cluster": [cluster_id, snapshot_time],
        "name": name,
    }


def _existing_json(topic: ExistingTopic) -> str:
    configs = getattr(topic, "configs", None)
    return json.dumps(
        [
            [list(p) for p in topic.partitions],
            topic.replication_factor,
            topic.min_insync,
            None if configs is None else {k: asdict(v) for k, v in configs.items()},
        ]
    )


def existing_from_json(text: str) -> ExistingTopic:
    partitions, factor, min_insync, configs = json.loads(text)
    topic = ExistingTopic(tuple(tuple(p) for p in partitions), factor, min_insync)
    if configs is None:
        return topic
    states = {k: ConfigState(**v) for k, v in configs.items()}
    return ExistingTopic(topic.partitions, factor, min_insync, states)


def brokers_from(job: dict[str, Any]) -> tuple[Broker, ...]:
    return tuple(plan_prepared.broker_from(b) for b in job["brokers"])


def load_from(job: dict[str, Any]) -> Load:
    return plan_prepared.load_from(job["load"])


def options_from(job: dict[str, Any]) -> PlanOptions:
    mode, minimum, size = job["options"]
    return PlanOptions(mode, minimum, size)


def first_names(topics: Iterable[str]) -> dict[str, str]:
    """Each metric name's first existing topic, by name (what `prepare` starts its twins from)."""
    found: dict[str, str] = {}
    for name in sorted(topics):
        found.setdefault(name.replace(".", "_"), name)
    return found


# -- Parquet's row count, from the footer (no pyarrow in the parent) -----------------------------


def parquet_footer_rows(footer: bytes) -> int:
    """`num_rows` of a Parquet file's FileMetaData (Thrift compact protocol; field 3)."""
    reader = _Compact(footer)
    last = 0
    while True:
        kind, last = reader.field(last)
        if kind == 0:
            raise ValueError("no num_rows in the Parquet footer")
        if last == 3 and kind == 6:
            return reader.zigzag()
        reader.skip(kind)


class _Compact:
    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def byte(self) -> int:
        value = self.data[self.at]
        self.at += 1
        return value

    def varint(self) -> int:
        shift = value = 0
        while True:
            b = self.byte()
            value |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return value

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def field(self, last: int) -> tuple[int, int]:
        head = self.byte()
        if head == 0:
            return 0, last
        delta, kind = head >> 4, head & 0x0F
        return kind, last + delta if delta else self.zigzag()

    def skip(self, kind: int) -> None:
        if kind in (1, 2):  # booleans live in the type
            return
        if kind == 3:
            self.at += 1
        elif kind in (4, 5, 6):
            self.varint()
        elif kind == 7:
            self.at += 8
        elif kind == 8:
            self.at += self.varint()
        elif kind in (9, 10):
            head = self.byte()
            size, inner = head >> 4, head & 0x0F
            if size == 15:
                size = self.varint()
            for _ in range(size):
                self.skip(inner)
        elif kind == 11:
            size = self.varint()
            if size:
                types = self.byte()
                for _ in range(size):
                    self.skip(types >> 4)
                    self.skip(types & 0x0F)
        elif kind == 12:
            last = 0
            while True:
                inner, last = self.field(last)
                if inner == 0:
                    return
                self.skip(inner)
        else:
            raise ValueError(f"not a Thrift compact type: {kind}")


# -- the executors' work, a batch at a time ------------------------------------------------------

Checked = tuple[int, Intent | None, list[str]]  # line, intent, problems (as printed)


def checked_columns(rows: Iterable[Checked]) -> dict[str, list[Any]]:
    """Checked rows as the columns of the job's `rows` frame."""
    out: dict[str, list[Any]] = {k: [] for k in ("line", "topic", "p", "rf", "mr", "configs")}
    out["errors"] = []
    for line, intent, errors in rows:
        out["line"].append(line)
        out["topic"].append(intent.topic if intent else None)
        out["p"].append(intent.partitions if intent else None)
        out["rf"].append(intent.replication_factor if intent else None)
        out["mr"].append(intent.min_required if intent else None)
        out["configs"].append(json.dumps(intent.configs) if intent else None)
        out["errors"].append(json.dumps(errors) if errors else None)
    return out


def intent_of(topic: str, p: int | None, rf: int | None, mr: int | None, configs: str) -> Intent:
    return Intent(topic, p, rf, mr, tuple((k, v) for k, v in json.loads(configs)))


class RowPreparer:
    """`plan.prepare_row` over a batch of checked rows (their twin and duplicate already worked
    out over the whole plan), with what grouping needs of each row."""

    def __init__(self, job: dict[str, Any]) -> None:
        self.brokers = brokers_from(job)
        self.options = options_from(job)
        self.defaults = job["defaults"]
        self.live = sum(b.live for b in self.brokers)
        self.units = RowUnits(self.brokers)

    def __call__(
        self,
        rows: Sequence[tuple[int, Intent, str, bool, str | None]],
    ) -> dict[str, list[Any]]:
        """rows: (line, intent, twin, duplicate, existing topic as JSON or None)."""
        topics = {i.topic: existing_from_json(e) for _, i, _, _, e in rows if e is not None}
        view = ClusterView(self.brokers, Load(), topics, *self.defaults)
        names = ("line", "row", "skipped", "p", "weight", "u0", "u1", "u2", "u3", "warnings")
        out: dict[str, list[Any]] = {k: [] for k in names}
        for line, intent, twin, duplicate, _ in rows:
            row = prepare_row(view, intent, self.options, self.live, twin, duplicate)
            out["line"].append(line)
            if row is None:
                out["row"].append(None)
                out["skipped"].append(skipped_warning(intent))
                values: tuple[int, ...] = (0, 0, 0, 0, 0, 0)
                out["warnings"].append(None)
            else:
                out["row"].append(json.dumps(plan_prepared.row_json(row)))
                out["skipped"].append(None)
                values = (row_partitions(row), row_weight(row), *self.units(row))
                texts = [f"{row.topic}: {w}" for w in row.warnings]
                out["warnings"].append(json.dumps(texts) if texts else None)
            for key, value in zip(("p", "weight", "u0", "u1", "u2", "u3"), values, strict=True):
                out[key].append(value)
        return out


def group_starts(rows: Iterable[tuple[int, int]], size: int) -> Iterator[int]:
    """The first line of each group: `rows` are (line, partitions) in plan order."""
    ours, counted = itertools.tee(rows)
    last = -1
    for (line, _), index in zip(ours, group_indexes((p for _, p in counted), size), strict=True):
        if index != last:
            yield line
            last = index


def group_of(starts: Sequence[int], line: int) -> int:
    return bisect.bisect_right(starts, line) - 1


def place_groups(
    brokers: Sequence[Broker], loads: dict[int, Load], rows: Iterable[tuple[int, str]]
) -> Iterator[tuple[int, int, str | None, str | None]]:
    """(group, row as JSON) in group and plan order -> (group, seq, entry, None) for each
    topic entry, then (group, -1, None, tally) once a group is placed."""
    current: int | None = None
    members: list[Any] = []

    def flush() -> Iterator[tuple[int, int, str | None, str | None]]:
        assert current is not None
        group = Group(current, tuple(plan_prepared.row_from(m) for m in members), loads[current])
        text, tally = run_group(brokers, group)
        for seq, entry in enumerate(text.split(",\n") if text else []):
            yield current, seq, entry, None
        yield current, -1, None, json.dumps(tally.to_json())

    for group, row in rows:
        if group != current and current is not None:
            yield from flush()
            members = []
        current = group
        members.append(json.loads(row))
    if current is not None:
        yield from flush()
