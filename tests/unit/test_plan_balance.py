"""Balance of plans placed in groups (issue 29): the remainder of each group's even fill is
settled across the groups instead of going to the lowest broker ids in every group; and the
plan's own check warns when replicas or leaders are less even than the racks and the
existing load allow. Pure: no Kafka, no Spark."""

from __future__ import annotations

import io
import json
from typing import Any

from kafka_tui.planning.bulk_plan import (
    ClusterView,
    Intent,
    PlanOptions,
    Tally,
    plan_in_process,
    prepare,
    statistics,
)
from kafka_tui.planning.placement import Broker, Load
from kafka_tui.planning.plan_stats import balance_warnings, least_max

SEVEN = tuple(Broker(b, None, True) for b in range(1, 8))


def placed(
    brokers: tuple[Broker, ...], intents: list[Intent], group_partitions: int
) -> dict[str, Any]:
    view = ClusterView(brokers, Load(), {}, 1, 3, 1)
    out = io.StringIO()
    plan_in_process(prepare(view, intents, PlanOptions("disabled", None, group_partitions)), out)
    document: dict[str, Any] = json.loads(out.getvalue())
    return document


def counts(document: dict[str, Any], key: str) -> list[int]:
    return [b[key] for b in document["brokers"]]


def test_remainders_are_settled_across_groups_not_given_to_the_lowest_ids() -> None:
    # 30,300 replicas over 7 brokers: 4,328 or 4,329 each. Placed in 101 groups of 100, each
    # group's remainder once went to the same brokers: 4,242-4,343.
    intents = [Intent(f"t{n:05d}", 1, 3) for n in range(10_100)]
    grouped = placed(SEVEN, intents, 100)
    whole = placed(SEVEN, intents, 10**9)
    assert sorted(counts(grouped, "replicas_after")) == [4328] * 3 + [4329] * 4
    assert sorted(counts(grouped, "replicas_after")) == sorted(counts(whole, "replicas_after"))
    # Leaders follow the replicas the placer chose in each group, so they stay a little
    # further from level (1,442-1,443) than replicas; they once spread 1,414-1,515.
    assert grouped["stats"]["leaders_after"]["max_avg"] <= 1.025
    assert grouped["stats"]["sanity"]["ok"]


def test_one_partition_topics_of_rf_1_in_tiny_groups_come_out_level() -> None:
    # 1,010 groups of 10: 1,010-2,020 replicas (and leaders) per broker before the fix.
    grouped = placed(SEVEN, [Intent(f"t{n:05d}", 1, 1) for n in range(10_100)], 10)
    for key in ("replicas_after", "leaders_after"):
        assert sorted(counts(grouped, key)) == [1442] + [1443] * 6
    assert not [w for w in grouped["warnings"] if w.startswith("balance:")]


def test_groups_are_settled_on_a_skewed_cluster_with_racks_and_offline_brokers() -> None:
    brokers = tuple(Broker(b, f"r{b % 4}", b not in (5, 11)) for b in range(1, 19))
    skew = Load(
        {b: (300 if b <= 4 else 100) for b in range(1, 19)}, dict.fromkeys(range(1, 19), 100)
    )
    view = ClusterView(brokers, skew, {}, 1, 3, 1)
    intents = [Intent(f"t{n:04d}", 1 + n % 7, 3) for n in range(1500)]
    documents = []
    for size in (10**9, 500, 100):
        out = io.StringIO()
        plan_in_process(prepare(view, intents, PlanOptions("disabled", None, size)), out)
        documents.append(json.loads(out.getvalue()))
    whole, *grouped = documents
    for document in grouped:
        replicas = document["stats"]["replicas_after"]
        assert (replicas["min"], replicas["max"]) == (1274, 1275)  # as placed in one group
        assert document["stats"]["same_rack_partitions"] == 0
    assert (whole["stats"]["replicas_after"]["min"], whole["stats"]["replicas_after"]["max"]) == (
        1274,
        1275,
    )


def test_the_least_max_is_what_the_racks_force() -> None:
    # One broker alone in its rack holds one replica of every RF-2 partition.
    assert least_max([0, 0, 0], ["a", "b", "b"], [100] * 3, [(200, 100)]) == 100
    # Without racks the same replicas spread evenly.
    assert least_max([0, 0, 0], [None] * 3, [100] * 3, [(200, 200)]) == 67
    # Existing load counts: the heavy broker takes none, the others rise to 40.
    assert least_max([50, 0, 0], [None] * 3, [100] * 3, [(80, 80)]) == 50
    assert least_max([50, 0, 0], [None] * 3, [100] * 3, [(100, 100)]) == 50
    assert least_max([50, 0, 0], [None] * 3, [100] * 3, [(120, 120)]) == 57
    # A broker holds at most one replica of a partition: 3 partitions of RF 3, 3 brokers.
    assert least_max([0, 0, 0], [None] * 3, [3, 3, 3], [(9, 9)]) == 3
    assert least_max([0, 0], [None] * 2, [3, 3], [(9, 9)]) is None


def test_a_plan_forced_uneven_by_its_racks_does_not_warn() -> None:
    brokers = (Broker(1, "a", True), Broker(2, "b", True), Broker(3, "b", True))
    document = placed(brokers, [Intent(f"t{n}", 1, 2) for n in range(100)], 10**9)
    assert counts(document, "replicas_after") == [100, 50, 50]
    assert document["stats"]["balance"]["replicas_least_max"] == 100
    assert not [w for w in document["warnings"] if w.startswith("balance:")]


def test_the_plan_warns_when_a_broker_carries_more_than_it_must() -> None:
    brokers = [Broker(b, None, True) for b in (1, 2, 3)]
    # 100 partitions of RF 1 (one live replica each), broker 1 given 60 of them.
    total = Tally({1: 60, 2: 20, 3: 20}, {1: 60, 2: 20, 3: 20}, 100, live_spread={1: 100})
    stats = statistics(brokers, Load(), total)
    # A broker leads only partitions it holds: with these replicas, 60 leaders are forced.
    assert stats["balance"] == {"replicas_least_max": 34, "leaders_least_max": 60}
    assert balance_warnings(stats) == [
        "balance: replicas max/avg 1.8 (max 60) is above the 1.02 (max 34) that the existing"
        " load and the racks allow"
    ]
    level = Tally({1: 34, 2: 33, 3: 33}, {1: 34, 2: 33, 3: 33}, 100, live_spread={1: 100})
    assert balance_warnings(statistics(brokers, Load(), level)) == []
