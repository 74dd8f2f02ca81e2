"""Bulk plans: topic intents -> one placement over all of them, statistics, a sanity check.

Pure and deterministic (no I/O, no clock, no randomness, no `hash()`), so the in-process run
and the Spark job (`spark_job.py`) write byte-identical documents: both call `prepare` once,
`run_group` per group and `write_document` over the groups in order.

Parallelism without losing balance: `prepare` cuts the rows (in file order) into groups of
about `group_partitions` partitions, and gives each group a share of every broker's existing
replicas and leaders proportional to the group's share of the new replicas (largest remainder,
so the shares add up to the cluster's load exactly). Each group then water-fills its scaled
copy of the cluster; the sum of evenly filled scaled copies is the evenly filled cluster. A
fill rarely ends level: r brokers end one above the rest, and the placer's ties would pick
the same lowest ids in every group, a bias that adds up with the groups (7 brokers, 10,100
one-partition topics of RF 3 in groups of 100: 4,242-4,343 replicas per broker, not
4,328-4,329). So `prepare` settles those remainders across the groups (`_Settle`): each
group's r go to the brokers that took fewest so far, and the others at the level get a
phantom replica (or leader) in the group's load, so the group ends level. The groups depend
on the plan only, never on the engine or its parallelism.

The data lives in `plan_model.py`; `plan_document.py` places a group and writes the document,
`plan_stats.py` counts. Their public names are re-exported here, where the CLI, the TUI, the
Spark job and the tests import them from.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Literal

from kafka_tui.planning.config_diff import config_diff
from kafka_tui.planning.placement import MAX_PLACED_REPLICAS, MODES, Broker, Load, Mode, Request
from kafka_tui.planning.plan_document import (
    PlanStopped,
    plan_in_process,
    run_group,
    write_document,
)
from kafka_tui.planning.plan_model import (
    DEFAULT_GROUP_PARTITIONS,
    Action,
    ClusterView,
    ExistingTopic,
    Group,
    Intent,
    PlanOptions,
    Prepared,
    Row,
)
from kafka_tui.planning.plan_stats import (
    MAX_PROBLEMS,
    Tally,
    broker_rows,
    statistics,
    summary,
    tally,
)

__all__ = [
    "DEFAULT_GROUP_PARTITIONS",
    "KNOWN_TOPIC_CONFIGS",
    "MAX_PROBLEMS",
    "Action",
    "ClusterView",
    "ExistingTopic",
    "Group",
    "Intent",
    "PlanOptions",
    "PlanStopped",
    "Prepared",
    "Row",
    "Tally",
    "broker_rows",
    "plan_in_process",
    "prepare",
    "row_mode",
    "run_group",
    "statistics",
    "summary",
    "tally",
    "write_document",
]

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


def row_mode(options: PlanOptions, intent: Intent) -> Mode:
    """A row's minimum alone implies `enabled`, as KIP-409's minimum required RF does."""
    if options.mode != "disabled" or intent.min_required is None:
        return options.mode
    return "enabled"


def prepare(view: ClusterView, intents: Sequence[Intent], options: PlanOptions) -> Prepared:
    if options.mode not in MODES:
        raise ValueError(f"unknown mode {options.mode!r}")
    live = sum(b.live for b in view.brokers)
    warnings: list[str] = []
    rows: list[Row] = []
    skipped = 0
    normalized: dict[str, str] = {}
    for name in sorted(view.topics):
        normalized.setdefault(metric_name(name), name)
    seen: set[str] = set()
    for intent in intents:
        twin = normalized.setdefault(metric_name(intent.topic), intent.topic)
        row = prepare_row(view, intent, options, live, twin, intent.topic in seen)
        seen.add(intent.topic)
        if row is None:
            skipped += 1
            warnings.append(skipped_warning(intent))
            continue
        rows.append(row)
    warnings.extend(f"{r.topic}: {w}" for r in rows for w in r.warnings)
    groups = _groups(view.brokers, rows, view.load, max(1, options.group_partitions))
    return Prepared(view.brokers, view.load, groups, tuple(warnings), options, skipped)


def metric_name(topic: str) -> str:
    """Kafka's metrics spell '.' as '_': topics equal under it collide there."""
    return topic.replace(".", "_")


def skipped_warning(intent: Intent) -> str:
    return f"'{intent.topic}' already has {intent.partitions} partitions: nothing to do"


def prepare_row(
    view: ClusterView,
    intent: Intent,
    options: PlanOptions,
    live: int,
    twin: str,
    duplicate: bool,
) -> Row | None:
    """One intent's row, as `prepare` makes it (None: nothing to do). `live`: the view's live
    brokers; `twin`: the first topic (the cluster's, by name, then the plan's, in order) with
    the same metric name; `duplicate`: the topic is on an earlier row. The Spark job's streamed
    path works these out over the whole file and calls this on executors."""
    row_warnings = _config_warnings(intent)
    if twin != intent.topic:
        row_warnings.append(f"'{intent.topic}' and '{twin}' collide on '.'/'_' in metric names")
    if duplicate:
        return _refused(intent, options, "INVALID_REQUEST", "listed twice in the plan")
    existing = view.topics.get(intent.topic)
    row = (
        _create_row(view, intent, options, row_warnings)
        if existing is None
        else _grow_row(view, existing, intent, options, row_warnings)
    )
    if row is None:
        return None
    factor = row.request.replication_factor
    observed = len(view.brokers)
    if row.error is None and factor > observed:
        row = _with_warning(row, f"replication factor {factor} > {observed} brokers")
    elif row.error is None and factor > live:
        row = _with_warning(row, f"replication factor {factor} > {live} live brokers")
    return row


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
    changes = () if existing.configs is None else config_diff(intent.configs, existing.configs)
    if intent.replication_factor not in (None, factor):
        return _refused(
            intent,
            options,
            "INVALID_REPLICATION_FACTOR",
            f"exists with replication factor {factor}, not {intent.replication_factor} "
            "(a plan grows a topic, it does not change its replication factor)",
        )
    total = intent.partitions if intent.partitions is not None else current
    if total == current and not changes:
        return None
    if total == current:
        request = Request(intent.topic, 0, factor, existing=existing.partitions)
        mode = row_mode(options, intent)
        return Row(
            intent.topic,
            "configs",
            total,
            request,
            mode,
            intent.configs,
            intent.min_required,
            tuple(warnings),
            config_changes=changes,
        )
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
        intent.configs,
        intent.min_required,
        tuple(warnings),
        config_changes=changes,
    )


def _groups(
    brokers: Sequence[Broker], rows: Sequence[Row], load: Load, size: int
) -> tuple[Group, ...]:
    chunks: list[list[Row]] = []
    for row, index in zip(
        rows, group_indexes((row_partitions(r) for r in rows), size), strict=True
    ):
        if index == len(chunks):
            chunks.append([])
        chunks[-1].append(row)
    if not chunks:
        chunks = [[]]
    settle = RowUnits(brokers)
    weights = [sum(row_weight(r) for r in chunk) for chunk in chunks]
    units = [_summed(settle(r) for r in chunk) for chunk in chunks]
    loads = group_loads(brokers, load, weights, units)
    return tuple(Group(i, tuple(chunk), loads[i]) for i, chunk in enumerate(chunks))


def row_partitions(row: Row) -> int:
    """What a row counts toward its group's size: its new partitions (none if refused)."""
    return row.request.partitions if row.error is None else 0


def row_weight(row: Row) -> int:
    """A row's new replicas, which share out the cluster's load between the groups."""
    return row.request.partitions * row.request.replication_factor if row.error is None else 0


def group_indexes(partitions: Iterable[int], size: int) -> Iterator[int]:
    """Each row's group, rows in plan order: a group ends once it holds `size` partitions."""
    index = count = 0
    for number in partitions:
        if count >= size:
            index += 1
            count = 0
        count += number
        yield index


Units = tuple[int, int, int, int]  # replicas anywhere, on live, on offline brokers; leaders


def _summed(units: Iterable[Units]) -> Units:
    anywhere = on_live = on_offline = leaders = 0
    for a, b, c, d in units:
        anywhere, on_live, on_offline, leaders = (
            anywhere + a,
            on_live + b,
            on_offline + c,
            leaders + d,
        )
    return anywhere, on_live, on_offline, leaders


def group_loads(
    brokers: Sequence[Broker], load: Load, weights: Sequence[int], units: Sequence[Units]
) -> list[Load]:
    """Each group's share of the cluster's `load`, settled (`_Settle`), from each group's
    weight (`row_weight`) and units (`RowUnits`) summed over its rows."""
    if len(weights) == 1:
        return [load]
    replicas = _apportion(load.replicas, weights)
    leaders = _apportion(load.leaders, weights)
    settle = _Settle(brokers)
    return [settle.load_for(Load(replicas[i], leaders[i]), units[i]) for i in range(len(weights))]


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


_Kind = Literal["replicas", "leaders"]


class _Settle:
    """Which brokers take the remainder of each group's even fill, settled across groups.

    A group's rows, spread evenly over its share of the cluster, leave the brokers at a level
    L with r of them at L + 1; left to the placer, those r are the same lowest ids in every
    group. Here the r go to the brokers that took fewest such extras in the groups before
    (ties to the lowest id: that broker then has one more), and every other broker at L gets
    one phantom replica (or leader) in the group's load: the group ends level, each broker
    with its share. Groups are settled in order, before any is placed.
    """

    def __init__(self, brokers: Sequence[Broker]) -> None:
        ordered = sorted(brokers, key=lambda b: b.id)
        self.observed = [b.id for b in ordered]
        self.live = [b.id for b in ordered if b.live]
        self.offline = [b.id for b in ordered if not b.live]
        self.extras: dict[_Kind, dict[int, int]] = {"replicas": {}, "leaders": {}}

    def load_for(self, share: Load, summed: Units) -> Load:
        """`share` (the group's part of the cluster's load) with the group's phantoms;
        `summed`: its rows' `RowUnits`, summed."""
        anywhere, on_live, on_offline, leaders = summed
        fills: list[tuple[list[int], int, _Kind]] = [
            (self.observed, anywhere, "replicas"),
            (self.live, on_live, "replicas"),
            (self.offline, on_offline, "replicas"),
            (self.live, leaders, "leaders"),
        ]
        start = {"replicas": dict(share.replicas), "leaders": dict(share.leaders)}
        counts_now = {"replicas": dict(share.replicas), "leaders": dict(share.leaders)}
        for holders, units, kind in fills:
            if not units or not holders:
                continue
            now = counts_now[kind]
            level, line, extra = _water_line(now, units, holders)
            given = self.extras[kind]
            chosen = sorted(line, key=lambda b: (given.get(b, 0), b))[:extra]
            for broker in line:
                now[broker] = level
            for broker in chosen:
                now[broker] = level + 1
                given[broker] = given.get(broker, 0) + 1
            if extra:
                for broker in line:
                    if broker not in chosen:
                        start[kind][broker] = start[kind].get(broker, 0) + 1
        return Load(start["replicas"], start["leaders"])

    def _per_partition(self, row: Row) -> tuple[int, int, int] | None:
        """A partition's replicas on any observed broker (enabled_prefer_observed), on live
        brokers, on offline ones; None when the placer refuses the row (the checks of
        placement._refusal that decide it, without their words)."""
        request = row.request
        factor, partitions = request.replication_factor, request.partitions
        live = len(self.live)
        if row.error is not None or partitions < 1 or factor < 1 or not live:
            return None
        if partitions * factor > MAX_PLACED_REPLICAS:
            return None
        if row.mode == "disabled":
            return None if factor > live else (0, factor, 0)
        if max(1, request.min_live_replicas) > min(factor, live):
            return None
        if row.mode == "enabled_prefer_observed":
            return (min(factor, len(self.observed)), 0, 0)
        return (0, min(factor, live), min(factor - min(factor, live), len(self.offline)))


class RowUnits:
    """What a row adds to its group's even fill (`_Settle`): its new replicas anywhere, on
    live and on offline brokers, and its leaders; zeros for a row the placer refuses."""

    def __init__(self, brokers: Sequence[Broker]) -> None:
        self._settle = _Settle(brokers)

    def __call__(self, row: Row) -> Units:
        counts = self._settle._per_partition(row)
        if counts is None:
            return 0, 0, 0, 0
        partitions = row.request.partitions
        return (
            partitions * counts[0],
            partitions * counts[1],
            partitions * counts[2],
            partitions,
        )


def _water_line(
    counts: dict[int, int], units: int, holders: Sequence[int]
) -> tuple[int, list[int], int]:
    """`units` spread evenly over `holders` on top of `counts`: the level the lightest reach,
    those brokers (by id), and how many of them take one more for what is left."""
    order = sorted(holders, key=lambda b: (counts.get(b, 0), b))
    values = [counts.get(b, 0) for b in order]
    level, below, left = values[0], 1, units
    while True:
        while below < len(order) and values[below] <= level:
            below += 1
        if below == len(order) or (values[below] - level) * below > left:
            break
        left -= (values[below] - level) * below
        level = values[below]
    rise, extra = divmod(left, below)
    return level + rise, sorted(order[:below]), extra
