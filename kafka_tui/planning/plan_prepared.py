"""The job input: a Prepared plan as JSON (what the Spark job reads), and back."""

from __future__ import annotations

from typing import Any

from kafka_tui.planning.placement import Broker, Load, Request
from kafka_tui.planning.plan_model import Group, PlanOptions, Prepared, Row


def prepared_to_json(prepared: Prepared) -> dict[str, Any]:
    return {
        "brokers": [broker_json(b) for b in prepared.brokers],
        "before": load_json(prepared.before),
        "warnings": list(prepared.warnings),
        "skipped": prepared.skipped,
        "cluster": [prepared.cluster_id, prepared.snapshot_time],
        "options": [
            prepared.options.mode,
            prepared.options.min_required,
            prepared.options.group_partitions,
        ],
        "groups": [
            {"index": g.index, "load": load_json(g.load), "rows": [row_json(r) for r in g.rows]}
            for g in prepared.groups
        ],
    }


def prepared_from_json(data: dict[str, Any]) -> Prepared:
    mode, minimum, size = data["options"]
    return Prepared(
        tuple(broker_from(b) for b in data["brokers"]),
        load_from(data["before"]),
        tuple(group_from_json(g) for g in data["groups"]),
        tuple(data["warnings"]),
        PlanOptions(mode, minimum, size),
        data["skipped"],
        *data.get("cluster", [None, None]),
    )


def group_from_json(data: dict[str, Any]) -> Group:
    return Group(data["index"], tuple(row_from(r) for r in data["rows"]), load_from(data["load"]))


def broker_json(broker: Broker) -> list[Any]:
    """[id, rack, live], and `true` after them when every log directory is cordoned."""
    row: list[Any] = [broker.id, broker.rack, broker.live]
    return [*row, True] if broker.cordoned else row


def broker_from(row: list[Any]) -> Broker:
    return Broker(*row)


def load_json(load: Load) -> list[list[list[int]]]:
    return [
        sorted([b, n] for b, n in load.replicas.items()),
        sorted([b, n] for b, n in load.leaders.items()),
    ]


def load_from(data: list[list[list[int]]]) -> Load:
    return Load({b: n for b, n in data[0]}, {b: n for b, n in data[1]})


def row_json(row: Row) -> list[Any]:
    q = row.request
    return [
        row.topic,
        row.action,
        row.total,
        [q.partitions, q.replication_factor, q.min_live_replicas, [list(p) for p in q.existing]],
        row.mode,
        [list(c) for c in row.configs],
        row.min_required,
        list(row.warnings),
        row.error,
        row.message,
        [list(c) for c in row.config_changes],
    ]


def row_from(data: list[Any]) -> Row:
    topic, action, total, q, mode, configs, minimum, warnings, error, message = data[:10]
    changes = data[10] if len(data) > 10 else []
    request = Request(topic, q[0], q[1], q[2], tuple(tuple(p) for p in q[3]))
    return Row(
        topic,
        action,
        total,
        request,
        mode,
        tuple((k, v) for k, v in configs),
        minimum,
        tuple(warnings),
        error,
        message,
        tuple((k, before, after) for k, before, after in changes),
    )
