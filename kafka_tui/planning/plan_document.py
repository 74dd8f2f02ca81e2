"""The plan document: one group placed (`run_group`, what the Spark job's executors run) and
the document written from the groups in order (`write_document`), the same bytes whichever
engine placed them.

Pure and deterministic, like the rest of `planning/`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from typing import Any, TextIO

from kafka_tui.planning.explicit import check_assignment
from kafka_tui.planning.placement import Broker, Load, Placement, Request, place
from kafka_tui.planning.plan_model import Group, Prepared, Row
from kafka_tui.planning.plan_stats import Tally, balance_warnings, broker_rows, statistics, tally


def run_group(brokers: Sequence[Broker], group: Group) -> tuple[str, Tally]:
    """Place one group; returns its topic entries (JSON, one line each) and its tally."""
    load = Load(dict(group.load.replicas), dict(group.load.leaders))
    placements: dict[int, Placement] = {}
    runs: list[list[int]] = []
    for i, row in enumerate(group.rows):
        if row.error is not None or row.action == "configs":  # nothing to place
            continue
        if runs and group.rows[runs[-1][-1]].mode == row.mode:
            runs[-1].append(i)
        else:
            runs.append([i])
    for run in runs:
        mode = group.rows[run[0]].mode
        results = place(brokers, load, [_kafka_request(group.rows[i]) for i in run], mode)
        load = load.plus(results)
        placements.update(zip(run, results, strict=True))
    entries = []
    placed: list[tuple[Row, Placement]] = []
    refused = 0
    for i, row in enumerate(group.rows):
        placement = placements.get(i)
        if placement is not None and row.action == "grow" and not placement.error:
            placement = _grow_check(row, placement)
            if not placement.error and _kafka_count(row) < row.request.replication_factor:
                placement = _toward_intended(brokers, row, placement)
        entries.append(json.dumps(_entry(row, placement), separators=(",", ":")))
        if placement is not None and placement.error is None:
            placed.append((row, placement))
        elif row.action != "configs" or row.error is not None:
            refused += 1
    return ",\n".join(entries), tally(brokers, placed, refused)


def _kafka_count(row: Row) -> int:
    """A grown topic's replicas per partition in Kafka (its request's factor is the one
    intended, which a topic created under-replicated has more of)."""
    existing = row.request.existing
    return len(existing[0]) if existing else row.request.replication_factor


def _kafka_request(row: Row) -> Request:
    """What the placer places: for a grow, Kafka's count per new partition (Kafka needs as
    many as the topic's partitions have); placeholders toward the intended factor follow."""
    count = _kafka_count(row)
    if row.action != "grow" or count >= row.request.replication_factor:
        return row.request
    return replace(row.request, replication_factor=count)


def _toward_intended(brokers: Sequence[Broker], row: Row, placement: Placement) -> Placement:
    """The new partitions of a topic created under-replicated get a placeholder for each
    replica its intended factor has beyond Kafka's, as `kafka-tui topics alter` gives them."""
    count, intended = _kafka_count(row), row.request.replication_factor
    holes = tuple(range(-1, -(intended - count) - 1, -1))
    extended = [[*replicas, *holes] for replicas in placement.assignment]
    return check_assignment(brokers, row.topic, extended, "enabled", kafka_replicas=count)


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
        "config_changes": [
            {"key": key, "before": before, "after": after}
            for key, before, after in row.config_changes
        ],
    }
    if placement is not None and not error and any(placement.placeholder_racks):
        entry["placeholder_racks"] = [list(r) for r in placement.placeholder_racks]
    if placement is not None and error and placement.remedies:
        # What would let it through, for each front end to word (fields.py).
        entry["remedies"] = [
            {"settings": [[str(f), v] for f, v in r.settings], "purpose": r.purpose}
            for r in placement.remedies
        ]
    return entry


def write_document(
    out: TextIO, prepared: Prepared, groups: Iterable[tuple[str, Tally]], engine: str
) -> Tally:
    """The plan document, one topic per line; `groups` in group order. Returns the tally."""
    options = prepared.options
    out.write("{\n")
    out.write(f'"engine": {json.dumps(engine)},\n')
    cluster = {"id": prepared.cluster_id, "snapshot_time": prepared.snapshot_time}
    out.write(f'"cluster": {_compact(cluster)},\n')
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
    warnings = [*prepared.warnings, *balance_warnings(stats)]
    out.write(f'"warnings": {_compact(warnings)}\n}}\n')
    return total


def _compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


class PlanStopped(Exception):
    """`plan_in_process` was stopped between two groups; nothing useful was written."""


def plan_in_process(
    prepared: Prepared,
    out: TextIO,
    engine: str = "local",
    *,
    progress: Callable[[int, int], None] = lambda done, total: None,
    stop: Callable[[], bool] = lambda: False,
) -> Tally:
    """The whole document placed here, one group at a time: `progress(done, total)` after
    each group, and `stop()` asked before each one (PlanStopped when it says so)."""
    total = len(prepared.groups)

    def groups() -> Iterator[tuple[str, Tally]]:
        for done, group in enumerate(prepared.groups, start=1):
            if stop():
                raise PlanStopped
            yield run_group(prepared.brokers, group)
            progress(done, total)

    return write_document(out, prepared, groups(), engine)
