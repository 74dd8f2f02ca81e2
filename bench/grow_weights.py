"""Weighing a grow on a kept key count: key_stats.report (what a grow's numbers cost before, per
count: every partition's stats and the distinct keys again) against planning/key_weights.py
(what the partitions form does as a count is typed: murmur2 and key codes once, then a modulo
and two bincounts per count), side by side in one run, on tallies of 100,000 and 1,000,000
distinct keys over 3 partitions. Pure: no cluster. Prints milliseconds (median of --rounds),
the ratio, and the machine's load before and after; asserts only that both give the same
numbers.

Usage: python bench/grow_weights.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

import pyarrow as pa

from kafka_tui.planning import key_stats
from kafka_tui.planning.key_weights import KeyWeights


def tally(keys: int, partitions: int) -> pa.Table:
    names = pa.array([f"customer-{i:08d}".encode() for i in range(keys)], pa.binary())
    home = key_stats.partition_for(names, partitions)
    return pa.table(
        [
            pa.array(home, pa.int32()),
            names,
            pa.array([1 + i % 7 for i in range(keys)], pa.int64()),
            pa.array([100 * (1 + i % 7) for i in range(keys)], pa.int64()),
            pa.array([0] * keys, pa.int64()),
            pa.array([0] * keys, pa.int64()),
            # Not a compacted topic's count: no latest record per key.
            *(pa.nulls(keys, key_stats.TALLY_SCHEMA.field(n).type) for n in key_stats.LATEST),
        ],
        schema=key_stats.TALLY_SCHEMA,
    )


def timed(run: Callable[[], object], rounds: int) -> float:
    seconds = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    print("keys       report/count ms  weights: load ms  per count ms  ratio (report/count)")
    for keys in (100_000, 1_000_000):
        table = tally(keys, 3)
        report = timed(lambda t=table: key_stats.report("t", t, 3, [5], 0), args.rounds)
        weights = KeyWeights(table)
        load = timed(lambda t=table: KeyWeights(t), args.rounds)
        count = timed(lambda w=weights: w.grow(5), args.rounds)
        assert weights.grow(5) == key_stats.report("t", table, 3, [5], 0).grow[0]
        print(f"{keys:>9,}  {report:15.1f}  {load:16.1f}  {count:12.1f}  {report / count:6.1f}x")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
