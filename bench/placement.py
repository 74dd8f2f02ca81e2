"""kafka-tui's placer against Kafka's StripedReplicaPlacer, on the same cluster; prints figures.

Cluster: 30 brokers in 4 uneven racks (a: 1-12, b: 13-20, c: 21-26, d: 27-30), brokers 5, 15
and 25 offline. Work: 1,000 topics x 10 partitions, RF 3 (10,000 partitions), on a fresh
cluster and on one with skewed existing load; kafka-tui in modes `disabled` and `enabled`
(min 2 live replicas); Kafka's placer with 5 seeds (it starts at a random broker per topic).
Kafka keeps offline brokers registered (fenced) in KRaft and may put followers on them; with
`disabled` the comparison runs Kafka's placer over the live brokers only (as if the offline
ones were unregistered). Figures are over live brokers, after the placement (existing load
included). Then 100,000 partitions, timed.

Usage: python bench/placement.py [--seeds 5]. Nothing here asserts anything.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from striped import striped_place

from kafka_tui.planning.placement import Broker, Load, Mode, Request, place

RACKS = [("a", 12), ("b", 8), ("c", 6), ("d", 4)]
OFFLINE = {5, 15, 25}


def uneven_cluster() -> list[Broker]:
    brokers = []
    for rack, count in RACKS:
        for _ in range(count):
            broker = len(brokers) + 1
            brokers.append(Broker(broker, rack, broker not in OFFLINE))
    return brokers


def skewed_load(brokers: Sequence[Broker]) -> Load:
    # Rack a's first six brokers carry three times the others' load (an old, smaller cluster).
    return Load(
        replicas={b.id: 3000 if b.id <= 6 else 1000 for b in brokers},
        leaders={b.id: 1000 if b.id <= 6 else 333 for b in brokers},
    )


@dataclass
class Figures:
    seconds: float
    replicas_max_avg: float
    replicas_min_max: tuple[int, int]
    leaders_max_avg: float
    leaders_min_max: tuple[int, int]
    same_rack: int
    on_offline: int
    min_degree: int
    min_topic_brokers: int


def measure(
    brokers: Sequence[Broker], load: Load, topics: list[list[list[int]]], seconds: float
) -> Figures:
    assignments = [replicas for topic in topics for replicas in topic]
    after = Load.from_assignments(assignments)
    live = [b.id for b in brokers if b.live]
    rack = {b.id: b.rack for b in brokers}
    offline = {b.id for b in brokers if not b.live}
    replicas = [load.replicas.get(b, 0) + after.replicas.get(b, 0) for b in live]
    leaders = [load.leaders.get(b, 0) + after.leaders.get(b, 0) for b in live]
    partners: dict[int, set[int]] = {b.id: set() for b in brokers}
    same_rack = on_offline = 0
    for replicas_of in assignments:
        real = [b for b in replicas_of if b >= 0]
        same_rack += len({rack[b] for b in real}) < len(real)
        on_offline += sum(b in offline for b in real)
        for b in real:
            partners[b].update(other for other in real if other != b)
    return Figures(
        seconds,
        max(replicas) / (sum(replicas) / len(replicas)),
        (min(replicas), max(replicas)),
        max(leaders) / (sum(leaders) / len(leaders)),
        (min(leaders), max(leaders)),
        same_rack,
        on_offline,
        min(len(partners[b]) for b in live),
        min(len({b for replicas in topic for b in replicas}) for topic in topics),
    )


def ours(
    brokers: Sequence[Broker],
    load: Load,
    topics: int,
    partitions: int,
    mode: Mode,
    factor: int = 3,
    min_live: int = 2,
) -> Figures:
    requests = [
        Request(f"t{n}", partitions, factor, min_live_replicas=min_live) for n in range(topics)
    ]
    start = time.perf_counter()
    results = place(brokers, load, requests, mode)
    seconds = time.perf_counter() - start
    assert all(result.error is None for result in results)
    placed = [[list(replicas) for replicas in result.assignment] for result in results]
    return measure(brokers, load, placed, seconds)


def kafka(
    brokers: Sequence[Broker],
    load: Load,
    topics: int,
    partitions: int,
    seed: int,
    live_only: bool,
    factor: int = 3,
) -> Figures:
    rng = random.Random(seed)
    usable = [(b.id, b.rack, not b.live) for b in brokers if b.live or not live_only]
    start = time.perf_counter()
    placed = [striped_place(rng, usable, partitions, factor) for _ in range(topics)]
    seconds = time.perf_counter() - start
    return measure(brokers, load, placed, seconds)


def line(name: str, figures: Figures) -> str:
    return (
        f"  {name:<26} {figures.seconds:6.2f}s  replicas max/avg {figures.replicas_max_avg:.4f}"
        f" min-max {figures.replicas_min_max[0]}-{figures.replicas_min_max[1]}"
        f"  leaders max/avg {figures.leaders_max_avg:.4f}"
        f" min-max {figures.leaders_min_max[0]}-{figures.leaders_min_max[1]}"
        f"  same-rack {figures.same_rack}  on-offline {figures.on_offline}"
        f"  min degree {figures.min_degree}  min brokers/topic {figures.min_topic_brokers}"
    )


def average(figures: list[Figures], pick: Callable[[Figures], float]) -> float:
    return sum(pick(f) for f in figures) / len(figures)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    brokers = uneven_cluster()
    print("30 brokers, racks a=12 b=8 c=6 d=4, offline 5, 15, 25; 1,000 topics x 10, RF 3")
    print(
        "(rack rule: rack a can hold at most one replica per partition, so its 11 live brokers"
        " get 10,000/11 while the other 16 share 20,000: max/avg 1.125 is the floor)"
    )
    for load_name, load in (("fresh", Load()), ("skewed", skewed_load(brokers))):
        for mode in ("disabled", "enabled"):
            mine = ours(brokers, load, 1000, 10, mode)
            runs = [
                kafka(brokers, load, 1000, 10, seed, live_only=mode == "disabled")
                for seed in range(args.seeds)
            ]
            print(f"{load_name} load, mode {mode}:")
            print(line("kafka-tui", mine))
            for seed, run in enumerate(runs):
                print(line(f"Kafka striped, seed {seed}", run))
            ratio_replicas = mine.replicas_max_avg / average(runs, lambda f: f.replicas_max_avg)
            ratio_leaders = mine.leaders_max_avg / average(runs, lambda f: f.leaders_max_avg)
            print(
                f"  ours / Kafka's (mean of seeds): replicas max/avg {ratio_replicas:.4f},"
                f" leaders max/avg {ratio_leaders:.4f},"
                f" time {mine.seconds / average(runs, lambda f: f.seconds):.1f}x"
            )
    even = [Broker(b, "abc"[b % 3], True) for b in range(1, 31)]
    print("100,000 partitions, RF 3, 30 live brokers in 3 even racks:")
    for topics, partitions in ((10_000, 10), (1, 100_000)):
        mine = ours(even, Load(), topics, partitions, "disabled")
        theirs = kafka(even, Load(), topics, partitions, 0, live_only=True)
        print(line(f"kafka-tui {topics} x {partitions}", mine))
        print(line(f"Kafka {topics} x {partitions}", theirs))
    small = [Broker(1, "a", True), Broker(2, "b", True), Broker(3, "c", False)]
    print("3 brokers on racks a, b, c, broker 3 offline, 1 topic x 1,000 partitions, RF 2:")
    print(line("kafka-tui disabled", ours(small, Load(), 1, 1000, "disabled", factor=2)))
    print(
        line(
            "kafka-tui prefer_observed",
            ours(small, Load(), 1, 1000, "enabled_prefer_observed", 2, 1),
        )
    )
    striped = kafka(small, Load(), 1, 1000, 0, live_only=False, factor=2)
    print(line("Kafka striped (registered)", striped))


if __name__ == "__main__":
    main()
