"""Bulk plans: topic intents -> one placement over all of them, statistics, a sanity check.

Pure and deterministic (no I/O, no clock, no randomness, no `hash()`), so the in-process run
and the Spark job (`spark_job.py`) write byte-identical documents: both call `prepare` once,
`run_group` per group and `write_document` over the groups in order.

Parallelism without losing balance: `prepare` cuts the rows (in file order) into groups of
about `group_partitions` partitions, and gives each group a share of every broker's existing
replicas and leaders proportional to the group's share of the new replicas (largest remainder,
so the shares add up to the cluster's load exactly). Each group then water-fills its scaled
copy of the cluster; the sum of evenly filled scaled copies is the evenly filled cluster, with
at most one replica of rounding per broker and group. The groups depend on the plan only,
never on the engine or its parallelism.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TextIO

from kafka_tui.planning.placement import MODES, Broker, Load, Mode, Placement, Request, place

Action = Literal["create", "grow"]
DEFAULT_GROUP_PARTITIONS = 20_000

# Kafka 4.x topic-level configs (TopicConfig and the log configs a topic may override).
KNOWN_TOPIC_CONFIGS = frozenset(
    """cleanup.policy compression.type compression.gzip.level compression.lz4.level
    compression.zstd.level delete.retention.ms file.delete.delay.ms flush.messages flush.ms
    follower.replication.throttled.replicas index.interval.bytes
    leader.replication.throttled.replicas local.retention.bytes local.retention.ms
    max.compaction.lag.ms max.message.bytes message.downconversion.enable
    message.format.version message.timestamp.after.max.ms message.timestamp.before.max.ms
    message.timestamp.difference.max.ms message.timestamp.type min.cleanable.dirty.ratio
    min.compaction.lag.ms min.insync.replicas preallocate remote.storage.enable
    remote.log.copy.disable remote.log.delete.on.disable retention.bytes retention.ms
    segment.bytes segment.index.bytes segment.jitter.ms segment.ms
    unclean.leader.election.enable""".split()  # noqa: SIM905 (a list of 36 names reads worse)
)


@dataclass(frozen=True)
class Intent:
    """One plan row; None = the cluster's default (or, for a grow, the topic's own)."""

    topic: str
    partitions: int | None = None
    replication_factor: int | None = None
    min_required: int | None = None
    configs: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class ExistingTopic:
    partitions: tuple[tuple[int, ...], ...]
    replication_factor: int  # intended: a placeholder record's, else the topic's
    min_insync: int | None = None


@dataclass(frozen=True)
class ClusterView:
    brokers: tuple[Broker, ...]
    load: Load
    topics: dict[str, ExistingTopic]
    num_partitions: int = 1
    replication_factor: int = 1
    min_insync: int = 1


@dataclass(frozen=True)
class PlanOptions:
    mode: Mode = "disabled"
    min_required: int | None = None
    group_partitions: int = DEFAULT_GROUP_PARTITIONS


@dataclass(frozen=True)
class Row:
    """A validated intent: what to place, or why not (`error`, `message`)."""

    topic: str
    action: Action
    total: int  # partitions after the plan (a create: its count)
    request: Request
    mode: Mode
    configs: tuple[tuple[str, str], ...] = ()
    min_required: int | None = None
    warnings: tuple[str, ...] = ()
    error: str | None = None
    message: str = ""


@dataclass(frozen=True)
class Group:
    index: int
    rows: tuple[Row, ...]
    load: Load = field(default_factory=Load)


@dataclass(frozen=True)
class Prepared:
    brokers: tuple[Broker, ...]
    before: Load
    groups: tuple[Group, ...]
    warnings: tuple[str, ...]
    options: PlanOptions
    skipped: int = 0  # rows with nothing to do (a grow to the current count)


def row_mode(options: PlanOptions, intent: Intent) -> Mode:
    """A row's minimum alone implies `enabled`, as KIP-409's --min-required flag does."""
    if options.mode != "disabled" or intent.min_required is None:
        return options.mode
    return "enabled"


def prepare(view: ClusterView, intents: Sequence[Intent], options: PlanOptions) -> Prepared:
    if options.mode not in MODES:
        raise ValueError(f"unknown mode {options.mode!r}")
    live = sum(b.live for b in view.brokers)
    observed = len(view.brokers)
    warnings: list[str] = []
    rows: list[Row] = []
    skipped = 0
    normalized: dict[str, str] = {}
    for name in sorted(view.topics):
        normalized.setdefault(name.replace(".", "_"), name)
    seen: set[str] = set()
    for intent in intents:
        row_warnings = _config_warnings(intent)
        twin = normalized.get(intent.topic.replace(".", "_"))
        if twin is not None and twin != intent.topic:
            row_warnings.append(f"'{intent.topic}' and '{twin}' collide on '.'/'_' in metric names")
        normalized.setdefault(intent.topic.replace(".", "_"), intent.topic)
        if intent.topic in seen:
            rows.append(_refused(intent, options, "INVALID_REQUEST", "listed twice in the plan"))
            continue
        seen.add(intent.topic)
        existing = view.topics.get(intent.topic)
        row = (
            _create_row(view, intent, options, row_warnings)
            if existing is None
            else _grow_row(view, existing, intent, options, row_warnings)
        )
        if row is None:
            skipped += 1
            warnings.append(
                f"'{intent.topic}' already has {intent.partitions} partitions: nothing to do"
            )
            continue
        factor = row.request.replication_factor
        if row.error is None and factor > observed:
            row = _with_warning(row, f"replication factor {factor} > {observed} brokers")
        elif row.error is None and factor > live:
            row = _with_warning(row, f"replication factor {factor} > {live} live brokers")
        rows.append(row)
    warnings.extend(f"{r.topic}: {w}" for r in rows for w in r.warnings)
    groups = _groups(rows, view.load, max(1, options.group_partitions))
    return Prepared(view.brokers, view.load, groups, tuple(warnings), options, skipped)


def _config_warnings(intent: Intent) -> list[str]:
    return [f"unknown config key '{k}'" for k, _ in intent.configs if k not in KNOWN_TOPIC_CONFIGS]


def _with_warning(row: Row, warning: str) -> Row:
    return Row(**{**row.__dict__, "warnings": (*row.warnings, warning)})


def _min_live(options: PlanOptions, intent: Intent, min_isr: int) -> int:
    return max(intent.min_required or options.min_required or 1, min_isr)


def _refused(intent: Intent, options: PlanOptions, error: str, message: str) -> Row:
    request = Request(intent.topic, 0, intent.replication_factor or 0)
    return Row(
        intent.topic,
        "create",
        intent.partitions or 0,
        request,
        row_mode(options, intent),
        intent.configs,
        intent.min_required,
        error=error,
        message=f"Topic '{intent.topic}': {message}.",
    )


def _create_row(
    view: ClusterView, intent: Intent, options: PlanOptions, warnings: list[str]
) -> Row:
    partitions = intent.partitions if intent.partitions is not None else view.num_partitions
    factor = (
        intent.replication_factor
        if intent.replication_factor is not None
        else view.replication_factor
    )
    configs = dict(intent.configs)
    raw = configs.get("min.insync.replicas", "")
    min_isr = int(raw) if raw.isdigit() else view.min_insync
    request = Request(intent.topic, partitions, factor, _min_live(options, intent, min_isr))
    return Row(
        intent.topic,
        "create",
        partitions,
        request,
        row_mode(options, intent),
        intent.configs,
        intent.min_required,
        tuple(warnings),
    )


def _grow_row(
    view: ClusterView,
    existing: ExistingTopic,
    intent: Intent,
    options: PlanOptions,
    warnings: list[str],
) -> Row | None:
    current = len(existing.partitions)
    factor = existing.replication_factor
    if intent.configs:
        warnings.append("exists: a plan does not change configs (use topics configs)")
    if intent.replication_factor not in (None, factor):
        return _refused(
            intent,
            options,
            "INVALID_REPLICATION_FACTOR",
            f"exists with replication factor {factor}, not {intent.replication_factor} "
            "(a plan grows a topic, it does not change its replication factor)",
        )
    total = intent.partitions if intent.partitions is not None else current
    if total == current:
        return None
    if total < current:
        return _refused(
            intent,
            options,
            "INVALID_PARTITIONS",
            f"exists with {current} partitions; a topic's partitions can only grow, not "
            f"shrink to {total}",
        )
    min_isr = existing.min_insync or view.min_insync
    request = Request(
        intent.topic,
        total - current,
        factor,
        _min_live(options, intent, min_isr),
        existing.partitions,
    )
    return Row(
        intent.topic,
        "grow",
        total,
        request,
        row_mode(options, intent),
        (),
        intent.min_required,
        tuple(warnings),
    )


def _groups(rows: Sequence[Row], load: Load, size: int) -> tuple[Group, ...]:
    chunks: list[list[Row]] = [[]]
    weights: list[int] = [0]
    count = 0
    for row in rows:
        if count >= size:
            chunks.append([])
            weights.append(0)
            count = 0
        chunks[-1].append(row)
        if row.error is None:
            count += row.request.partitions
            weights[-1] += row.request.partitions * row.request.replication_factor
    if len(chunks) == 1:
        return (Group(0, tuple(chunks[0]), load),)
    replicas = _apportion(load.replicas, weights)
    leaders = _apportion(load.leaders, weights)
    return tuple(
        Group(i, tuple(chunk), Load(replicas[i], leaders[i])) for i, chunk in enumerate(chunks)
    )


def _apportion(counts: dict[int, int], weights: Sequence[int]) -> list[dict[int, int]]:
    """Each broker's count split over the groups in proportion to their weights (largest
    remainder, ties to the earlier group), so the parts add up exactly."""
    total = sum(weights)
    parts: list[dict[int, int]] = [{} for _ in weights]
    if total == 0:
        parts[0] = dict(counts)
        return parts
    for broker in sorted(counts):
        value = counts[broker]
        floors = [value * w // total for w in weights]
        order = sorted(range(len(weights)), key=lambda i: (-(value * weights[i] % total), i))
        for i in order[: value - sum(floors)]:
            floors[i] += 1
        for i, share in enumerate(floors):
            if share:
                parts[i][broker] = share
    return parts


# -- one group ---------------------------------------------------------------------------------


def run_group(brokers: Sequence[Broker], group: Group) -> tuple[str, Tally]:
    """Place one group; returns its topic entries (JSON, one line each) and its tally."""
    load = Load(dict(group.load.replicas), dict(group.load.leaders))
    placements: dict[int, Placement] = {}
    runs: list[list[int]] = []
    for i, row in enumerate(group.rows):
        if row.error is not None:
            continue
        if runs and group.rows[runs[-1][-1]].mode == row.mode:
            runs[-1].append(i)
        else:
            runs.append([i])
    for run in runs:
        mode = group.rows[run[0]].mode
        results = place(brokers, load, [group.rows[i].request for i in run], mode)
        load = load.plus(results)
        placements.update(zip(run, results, strict=True))
    entries = []
    placed: list[tuple[Row, Placement]] = []
    refused = 0
    for i, row in enumerate(group.rows):
        placement = placements.get(i)
        if placement is not None and row.action == "grow" and not placement.error:
            placement = _grow_check(row, placement)
        entries.append(json.dumps(_entry(row, placement), separators=(",", ":")))
        if placement is not None and placement.error is None:
            placed.append((row, placement))
        else:
            refused += 1
    return ",\n".join(entries), tally(brokers, placed, refused)


def _grow_check(row: Row, placement: Placement) -> Placement:
    """Kafka needs every new partition to have the topic's replica count: no placeholders."""
    if not any(placement.placeholder_racks):
        return placement
    real = min(sum(b >= 0 for b in replicas) for replicas in placement.assignment)
    return Placement(
        row.topic,
        (),
        (),
        (),
        "INVALID_REPLICATION_FACTOR",
        f"Topic '{row.topic}' has {row.request.replication_factor} replicas per partition, "
        f"and Kafka needs as many for each new partition; only {real} brokers can take them. "
        "Add brokers, or fill the placeholders first.",
    )


def _entry(row: Row, placement: Placement | None) -> dict[str, Any]:
    error = row.error or (placement.error if placement else None)
    message = row.message or (placement.message if placement else "")
    entry: dict[str, Any] = {
        "topic": row.topic,
        "action": row.action,
        "partitions": row.total,
        "replication_factor": row.request.replication_factor,
        "assignment": [] if placement is None or error else [list(a) for a in placement.assignment],
        "warnings": list(row.warnings),
        "error": error,
        "message": message,
        "configs": dict(row.configs),
        "min_required_replication_factor": row.min_required,
        "mode": row.mode,
    }
    if placement is not None and not error and any(placement.placeholder_racks):
        entry["placeholder_racks"] = [list(r) for r in placement.placeholder_racks]
    return entry


# -- the document ------------------------------------------------------------------------------


def write_document(
    out: TextIO, prepared: Prepared, groups: Iterable[tuple[str, Tally]], engine: str
) -> Tally:
    """The plan document, one topic per line; `groups` in group order. Returns the tally."""
    options = prepared.options
    out.write("{\n")
    out.write(f'"engine": {json.dumps(engine)},\n')
    head = {
        "mode": options.mode,
        "min_required_replication_factor": options.min_required,
        "group_partitions": options.group_partitions,
    }
    out.write(f'"options": {_compact(head)},\n"topics": [\n')
    total = Tally.empty()
    first = True
    for text, part in groups:
        if text:
            out.write(text if first else ",\n" + text)
            first = False
        total = total.merged(part)
    out.write('\n],\n"brokers": [\n')
    rows = broker_rows(prepared.brokers, prepared.before, total)
    out.write(",\n".join(_compact(r) for r in rows))
    stats = statistics(prepared.brokers, prepared.before, total, prepared.skipped)
    out.write(f'\n],\n"stats": {_compact(stats)},\n')
    out.write(f'"warnings": {_compact(list(prepared.warnings))}\n}}\n')
    return total


def _compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def plan_in_process(prepared: Prepared, out: TextIO, engine: str = "local") -> Tally:
    return write_document(
        out, prepared, (run_group(prepared.brokers, g) for g in prepared.groups), engine
    )


# -- statistics --------------------------------------------------------------------------------

MAX_PROBLEMS = 20


@dataclass(frozen=True)
class Tally:
    """What the statistics need from a group's placements; small, and merged in group order."""

    replicas: dict[int, int]  # new replicas per broker
    leaders: dict[int, int]
    partitions: int = 0
    refused: int = 0
    same_rack: int = 0
    placeholders: int = 0
    on_offline: int = 0
    partners: dict[int, tuple[int, ...]] = field(default_factory=dict)
    problems: tuple[str, ...] = ()

    @classmethod
    def empty(cls) -> Tally:
        return cls({}, {})

    def merged(self, other: Tally) -> Tally:
        partners = dict(self.partners)
        for broker, more in other.partners.items():
            partners[broker] = tuple(sorted(set(partners.get(broker, ())) | set(more)))
        return Tally(
            _added(self.replicas, other.replicas),
            _added(self.leaders, other.leaders),
            self.partitions + other.partitions,
            self.refused + other.refused,
            self.same_rack + other.same_rack,
            self.placeholders + other.placeholders,
            self.on_offline + other.on_offline,
            partners,
            (self.problems + other.problems)[:MAX_PROBLEMS],
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "replicas": sorted(self.replicas.items()),
            "leaders": sorted(self.leaders.items()),
            "counts": [
                self.partitions,
                self.refused,
                self.same_rack,
                self.placeholders,
                self.on_offline,
            ],
            "partners": sorted((b, list(p)) for b, p in self.partners.items()),
            "problems": list(self.problems),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Tally:
        partitions, refused, same_rack, placeholders, on_offline = data["counts"]
        return cls(
            {b: n for b, n in data["replicas"]},
            {b: n for b, n in data["leaders"]},
            partitions,
            refused,
            same_rack,
            placeholders,
            on_offline,
            partners={b: tuple(p) for b, p in data["partners"]},
            problems=tuple(data["problems"]),
        )


def _added(left: dict[int, int], right: dict[int, int]) -> dict[int, int]:
    total = dict(left)
    for key, value in right.items():
        total[key] = total.get(key, 0) + value
    return total


def tally(
    brokers: Sequence[Broker], placed: Sequence[tuple[Row, Placement]], refused: int = 0
) -> Tally:
    """Counts of the placed partitions, and the sanity check of the placer's output: no broker
    twice in a partition, the row's replication factor, a live known leader."""
    rack = {b.id: b.rack for b in brokers}
    live = {b.id for b in brokers if b.live}
    replicas: dict[int, int] = {}
    leaders: dict[int, int] = {}
    partners: dict[int, set[int]] = {}
    partitions = same_rack = placeholders = on_offline = 0
    problems: list[str] = []
    for row, placement in placed:
        for number, members in enumerate(placement.assignment):
            partitions += 1
            real = [b for b in members if b >= 0]
            placeholders += len(members) - len(real)
            where = f"{row.topic} partition {row.total - len(placement.assignment) + number}"
            if len(set(members)) != len(members):
                problems.append(f"{where}: a broker twice in {list(members)}")
            if len(members) != row.request.replication_factor:
                problems.append(f"{where}: {len(members)} replicas, not the row's RF")
            if not members or members[0] not in live:
                problems.append(f"{where}: leader {members[:1]} is not a live broker")
            if any(b not in rack for b in real):
                problems.append(f"{where}: unknown broker in {list(members)}")
            same_rack += len({rack.get(b) for b in real}) < len(real)
            for position, broker in enumerate(real):
                replicas[broker] = replicas.get(broker, 0) + 1
                if position == 0:
                    leaders[broker] = leaders.get(broker, 0) + 1
                on_offline += broker not in live
                partners.setdefault(broker, set()).update(b for b in real if b != broker)
    return Tally(
        replicas,
        leaders,
        partitions,
        refused,
        same_rack,
        placeholders,
        on_offline,
        {b: tuple(sorted(p)) for b, p in sorted(partners.items())},
        tuple(problems[:MAX_PROBLEMS]),
    )


def broker_rows(brokers: Sequence[Broker], before: Load, total: Tally) -> list[dict[str, Any]]:
    rows = []
    for b in sorted(brokers, key=lambda b: b.id):
        replicas = before.replicas.get(b.id, 0)
        leaders = before.leaders.get(b.id, 0)
        after_replicas = replicas + total.replicas.get(b.id, 0)
        after_leaders = leaders + total.leaders.get(b.id, 0)
        rows.append(
            {
                "id": b.id,
                "rack": b.rack,
                "live": b.live,
                "replicas_before": replicas,
                "replicas_after": after_replicas,
                "leaders_before": leaders,
                "leaders_after": after_leaders,
                "followers_before": replicas - leaders,
                "followers_after": after_replicas - after_leaders,
                "degree": len(total.partners.get(b.id, ())),
            }
        )
    return rows


def summary(values: Sequence[int]) -> dict[str, float | int | None]:
    """min/max/avg/std and max/avg (None without values, or max/avg with no load)."""
    if not values:
        return {"min": None, "max": None, "avg": None, "std": None, "max_avg": None}
    avg = sum(values) / len(values)
    std = math.sqrt(sum((v - avg) ** 2 for v in values) / len(values))
    return {
        "min": min(values),
        "max": max(values),
        "avg": round(avg, 4),
        "std": round(std, 4),
        "max_avg": round(max(values) / avg, 4) if avg else None,
    }


def statistics(
    brokers: Sequence[Broker], before: Load, total: Tally, skipped: int = 0
) -> dict[str, Any]:
    """Over live brokers (those that lead and take new replicas in every mode but one)."""
    rows = [r for r in broker_rows(brokers, before, total) if r["live"]]
    racks: dict[str, dict[str, int]] = {}
    for r in broker_rows(brokers, before, total):
        name = r["rack"] if r["rack"] is not None else "(no rack)"
        entry = racks.setdefault(
            name,
            dict.fromkeys(
                ("brokers", "replicas_before", "replicas_after", "leaders_before", "leaders_after"),
                0,
            ),
        )
        entry["brokers"] += 1
        for key in ("replicas_before", "replicas_after", "leaders_before", "leaders_after"):
            entry[key] += r[key]
    return {
        "replicas_before": summary([r["replicas_before"] for r in rows]),
        "replicas_after": summary([r["replicas_after"] for r in rows]),
        "leaders_before": summary([r["leaders_before"] for r in rows]),
        "leaders_after": summary([r["leaders_after"] for r in rows]),
        "degree": summary([r["degree"] for r in rows]),
        "racks": [{"rack": name, **racks[name]} for name in sorted(racks)],
        "partitions": total.partitions,
        "new_replicas": sum(total.replicas.values()),
        "refused_topics": total.refused,
        "unchanged_topics": skipped,
        "same_rack_partitions": total.same_rack,
        "placeholders": total.placeholders,
        "replicas_on_offline_brokers": total.on_offline,
        "sanity": {"ok": not total.problems, "problems": list(total.problems)},
    }
