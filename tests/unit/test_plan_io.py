"""Plan files (every bad field with file:line:column, all at once) and the pure planner:
groups placed apart keep the balance, warnings, the job input round trip."""

from __future__ import annotations

import io
import json

import pytest

from kafka_tui.planning import plan_io, plan_prepared, plan_rows
from kafka_tui.planning.bulk_plan import (
    ClusterView,
    ExistingTopic,
    Intent,
    PlanOptions,
    plan_in_process,
    prepare,
)
from kafka_tui.planning.placement import Broker, Load


def errors_of(name: str, text: str) -> list[str]:
    with pytest.raises(plan_rows.PlanFileErrors) as caught:
        plan_io.parse_plan(name, text)
    return [str(e) for e in caught.value.errors]


def test_csv_errors_name_file_line_and_column_all_at_once() -> None:
    text = (
        "topic,partitions,replication_factor,min_required_replication_factor,configs\n"
        "ok,3,2,,retention.ms=1000;cleanup.policy=compact\n"
        "# a comment\n"
        "bad name,x,3,,\n"
        "t2,1,2,3,\n"
        ',1,1,,"a=1;b"\n'
    )
    assert errors_of("p.csv", text) == [
        "p.csv:4:1: 'bad name' is not a legal topic name (letters, digits, '.', '_', '-')",
        "p.csv:4:10: partitions must be a whole number >= 1 (or empty for the default), got 'x'",
        "p.csv:5:8: 3 > replication_factor 2",
        "p.csv:6:1: the topic name is missing",
        "p.csv:6:7: configs must be key=value;key=value, got 'b'",
    ]
    assert errors_of("p.csv", "topic,partition\n") == [
        "p.csv:1:7: unknown column 'partition' (expected topic, partitions, replication_factor,"
        " min_required_replication_factor, configs)"
    ]


def test_json_and_json_lines_rows() -> None:
    text = (
        '{"topics": [\n  {"topic": "a", "partitions": 3},\n'
        '  {"topic": "b", "replication_factor": 0, "extra": 1}\n]}'
    )
    assert errors_of("p.json", text) == [
        "p.json:3:18: replication_factor must be a whole number >= 1 (or empty for the default),"
        " got 0",
        "p.json:3:43: unknown field 'extra' (expected topic, partitions, replication_factor,"
        " min_required_replication_factor, configs)",
    ]
    assert errors_of("p.json", '[{"topic": "a"},]') == ["p.json:1:17: not JSON: Expecting value"]
    lines = '{"topic": "a", "configs": {"retention.ms": 5}}\n\n{"topic": "b", "partitions": "2"}\n'
    assert plan_io.parse_plan("p.jsonl", lines) == [
        Intent("a", configs=(("retention.ms", "5"),)),
        Intent("b", 2),
    ]
    assert errors_of("p.jsonl", '{"topic": "a"}\n{"topic": 7, "partitions": -1}\n') == [
        "p.jsonl:2:14: partitions must be a whole number >= 1 (or empty for the default), got -1",
    ]


def test_export_csv_parses_back() -> None:
    intents = [Intent("a", 3, 2, None, (("retention.ms", "1"),)), Intent("b.c", 1, 1)]
    assert plan_io.parse_plan("x.csv", plan_io.intents_to_csv(intents)) == intents


def view(load: Load | None = None) -> ClusterView:
    brokers = tuple(Broker(b, f"r{b % 4}", b not in (5, 11)) for b in range(1, 19))
    skew = Load({b: (300 if b <= 4 else 100) for b in range(1, 19)}, {b: 100 for b in range(1, 19)})
    existing = {"old_topic": ExistingTopic(((1, 2), (2, 3)), 2)}
    return ClusterView(brokers, load or skew, existing, 1, 3, 1)


def document(intents: list[Intent], options: PlanOptions) -> str:
    out = io.StringIO()
    plan_in_process(prepare(view(), intents, options), out)
    return out.getvalue()


def test_groups_placed_apart_keep_the_balance() -> None:
    intents = [Intent(f"t{n:04d}", 1 + n % 7, 3) for n in range(1500)]
    whole = json.loads(document(intents, PlanOptions("disabled", None, 10**9)))["stats"]
    grouped = json.loads(document(intents, PlanOptions("disabled", None, 500)))["stats"]
    assert grouped["partitions"] == whole["partitions"] == sum(1 + n % 7 for n in range(1500))
    for key in ("replicas_after", "leaders_after"):
        assert (
            grouped[key]["max"] - grouped[key]["min"] <= whole[key]["max"] - whole[key]["min"] + 16
        )
        assert grouped[key]["max_avg"] <= 1.02
    assert grouped["same_rack_partitions"] == 0 and grouped["sanity"]["ok"]


def test_warnings_and_refusals() -> None:
    intents = [
        Intent("old.topic", 1, 1),
        Intent("old_topic", 2, 3),
        Intent("cfg", 1, 1, None, (("retention.msx", "1"),)),
        Intent("wide", 1, 20),
        Intent("cfg", 1, 1),
    ]
    doc = json.loads(document(intents, PlanOptions()))
    by = {t["topic"]: t for t in doc["topics"] if not t["message"].endswith("plan.")}
    assert "'old.topic' and 'old_topic' collide" in by["old.topic"]["warnings"][0]
    assert by["old_topic"]["error"] == "INVALID_REPLICATION_FACTOR"
    assert by["cfg"]["warnings"] == ["unknown config key 'retention.msx'"]
    assert by["wide"]["error"] == "INVALID_REPLICATION_FACTOR"
    assert by["wide"]["warnings"] == ["replication factor 20 > 18 brokers"]
    assert doc["topics"][-1]["error"] == "INVALID_REQUEST"
    assert "wide: replication factor 20 > 18 brokers" in doc["warnings"]


def test_the_job_input_round_trip_gives_the_same_document() -> None:
    intents = [Intent(f"t{n}", 2, 2, 1 if n % 2 else None) for n in range(100)]
    intents.append(Intent("old_topic", 5))
    prepared = prepare(view(), intents, PlanOptions("disabled", None, 30))
    again = plan_prepared.prepared_from_json(
        json.loads(json.dumps(plan_prepared.prepared_to_json(prepared)))
    )
    assert again == prepared
    first, second = io.StringIO(), io.StringIO()
    plan_in_process(prepared, first)
    plan_in_process(again, second)
    assert first.getvalue() == second.getvalue()
    grow = json.loads(first.getvalue())["topics"][-1]
    assert grow["action"] == "grow" and len(grow["assignment"]) == 3
