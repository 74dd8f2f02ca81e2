"""What counting a compacted topic's latest record per key costs `topics keys`, side by side
with counting every record (issue 51): the reader's columns (admin/key_reader._Columns over
aiokafka's C batch reader: offsets and tombstone flags too) and the tally
(planning/key_stats.KeyAggregator: each key's latest record kept, ordered by offset). No
cluster: record batches built in memory.

`python bench/key_tally.py [--records 1000000] [--keys 100000] [--rounds 3]`
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

import numpy as np
from aiokafka.record.default_records import DefaultRecordBatchBuilder
from aiokafka.record.memory_records import MemoryRecords

from kafka_tui.admin.key_reader import _Columns
from kafka_tui.planning import key_stats

BATCH = 1000


def cpu(run: Callable[[], object], rounds: int) -> float:
    seconds = []
    for _ in range(rounds):
        start = time.process_time()
        run()
        seconds.append(time.process_time() - start)
    return statistics.median(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--keys", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    names = np.random.default_rng(1).integers(0, args.keys, args.records)
    batches = []
    for at in range(0, args.records, BATCH):
        builder = DefaultRecordBatchBuilder(2, 0, 0, -1, -1, -1, 1 << 22)
        for i, k in enumerate(names[at : at + BATCH].tolist()):
            value = None if k % 50 == 0 else b"v" * 100  # a tombstone in 50 keys' records
            builder.append(i, timestamp=at + i, key=b"customer-%08d" % k, value=value, headers=[])
        batch = MemoryRecords(bytes(builder.build())).next_batch()
        assert batch is not None
        batches.append(list(batch))

    def columns(latest: bool) -> list[_Columns]:
        out = []
        for i, records in enumerate(batches):
            c = _Columns(latest)
            c.add(i % 4, records)
            out.append(c)
        return out

    read = {latest: columns(latest) for latest in (False, True)}

    def tally(latest: bool) -> None:
        aggregator = key_stats.KeyAggregator(latest)
        for c in read[latest]:
            aggregator.add_rows(*c.columns())
        aggregator.tally()

    figures = {}
    for latest in (False, True):
        figures[latest] = (
            cpu(lambda latest=latest: columns(latest), args.rounds),
            cpu(lambda latest=latest: tally(latest), args.rounds),
        )
    print(f"{args.records:,} records, {args.keys:,} keys; CPU-s, median of {args.rounds}")
    print(f"{'':28}{'columns':>10}{'tally':>10}{'both':>10}")
    for latest, name in ((False, "every record"), (True, "latest record per key")):
        c, t = figures[latest]
        print(f"{name:28}{c:10.2f}{t:10.2f}{c + t:10.2f}")
    (c0, t0), (c1, t1) = figures[False], figures[True]
    print(f"{'ratio (latest/every)':28}{c1 / c0:10.2f}{t1 / t0:10.2f}{(c1 + t1) / (c0 + t0):10.2f}")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
