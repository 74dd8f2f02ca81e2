"""The event loop's longest pause while a form counts a reused cluster read as per-broker load
(issue 30): counted inline, as it was, or in a thread (`services/snapshot._load_of` through
`asyncio.to_thread`, as it is). 100,000 topics x 10 partitions x RF 3 on 30 brokers,
synthetic; a 1 ms ticker on the loop records the pauses. Nothing here asserts a time.

Usage: python bench/load_count_pause.py [--topics 100000] [--rounds 2]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]

from kafka_tui.admin import TopicDescription  # noqa: E402
from kafka_tui.admin.model import PartitionInfo  # noqa: E402
from kafka_tui.services.snapshot import _load_of  # noqa: E402


def cluster(topics: int) -> list[TopicDescription]:
    def partition(n: int, p: int) -> PartitionInfo:
        first = (n + p) % 30
        return PartitionInfo(p, first, (first, (first + 1) % 30, (first + 2) % 30), (), ())

    return [
        TopicDescription(f"t{n}", None, False, [partition(n, p) for p in range(10)])
        for n in range(topics)
    ]


async def measure(topics: list[TopicDescription], inline: bool) -> tuple[float, float]:
    pauses: list[float] = []
    done = asyncio.Event()

    async def tick() -> None:
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            pauses.append(now - last)
            last = now

    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0.05)
    started = time.perf_counter()
    if inline:
        _load_of(topics)
    else:
        await asyncio.to_thread(_load_of, topics)
    took = time.perf_counter() - started
    done.set()
    await ticker
    return took, max(pauses)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    topics = cluster(args.topics)
    print(f"{args.topics * 10:,} partitions counted as load:")
    for _ in range(args.rounds):
        for inline in (True, False):
            took, pause = asyncio.run(measure(topics, inline))
            way = "inline" if inline else "in a thread"
            print(f"  {way:<12} {took:.3f} s, the event loop's longest pause {pause * 1000:.0f} ms")


if __name__ == "__main__":
    main()
