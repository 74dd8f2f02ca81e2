"""Describe 1,000 consumer groups: kafka-tui vs kafka-consumer-groups.sh, side by side.

On a real 3-broker KRaft 4.4 dev cluster of its own (or `--bootstrap-server` with `--tool-jars`
for another cluster), `--groups` classic groups each commit offsets on every partition of one
topic (`--partitions`), part of them behind the log end. Then, in rounds (odd rounds in
reverse order), each timed as a whole process, start-up included:
  (A) `kafka-tui --output json groups describe G1 ... GN`: members, committed, log end, lag in
      records and in seconds (one Fetch per leader for the first unconsumed records), status;
  (A2) `kafka-tui --output json groups list`: the same reads, one line per group;
  (K) kafka-consumer-groups.sh --describe --all-groups (ConsumerGroupCommand on the cluster's
      jars): committed, log end and lag in records.
Prints min / median / max seconds and the ratio of medians; asserts nothing.

Usage: python bench/groups.py [--groups 1000] [--partitions 6] [--rounds 3] [--keep]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from aiokafka import AIOKafkaProducer

from kafka_tui.admin import ConnectionSettings, KafkaAdmin, TopicSpec
from kafka_tui.devcluster import DevCluster, ensure_kafka

TOPIC = "bench-groups"


async def prepare(bootstrap: str, groups: int, partitions: int) -> list[str]:
    names = [f"bench-group-{i:05d}" for i in range(groups)]
    async with KafkaAdmin(ConnectionSettings(bootstrap)) as admin:
        await admin.create_topics([TopicSpec(TOPIC, partitions, 2)])
        producer = AIOKafkaProducer(bootstrap_servers=bootstrap, linger_ms=20)
        await producer.start()
        try:
            sent = [
                await producer.send(TOPIC, b"x" * 200, partition=p)
                for p in range(partitions)
                for _ in range(100)
            ]
            await asyncio.gather(*sent)
        finally:
            await producer.stop()
        for i, name in enumerate(names):
            node = await admin.group_coordinator(name)
            offsets = {(TOPIC, p): (i * 7 + p * 13) % 101 for p in range(partitions)}
            [*results] = await admin.commit_group_offsets(name, node, offsets)
            assert all(r.ok for r in results), results
    return names


def timed(cmd: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"{cmd[:5]} failed: {done.stderr[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=1000)
    parser.add_argument("--partitions", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keep", action="store_true", help="leave the cluster running")
    args = parser.parse_args()
    dev = DevCluster(Path(tempfile.mkdtemp(prefix="kafka-tui-bench-groups-")))
    dev.up("kraft", brokers=3)
    try:
        status = dev.status()
        bootstrap = status["bootstrap_servers"]
        state = dev.load()
        assert state is not None
        classpath = ensure_kafka(state.version, dev.cache).classpath
        started = time.perf_counter()
        names = asyncio.run(prepare(bootstrap, args.groups, args.partitions))
        print(
            f"{len(names)} groups x {args.partitions} partitions committed in "
            f"{time.perf_counter() - started:.1f} s",
            flush=True,
        )
        tui = [sys.executable, "-m", "kafka_tui.cli", "--bootstrap-server", bootstrap]
        commands = {
            "A  kafka-tui groups describe": [
                *tui,
                "--output",
                "json",
                "groups",
                "describe",
                *names,
            ],
            "A2 kafka-tui groups list": [*tui, "--output", "json", "groups", "list"],
            "K  kafka-consumer-groups.sh --describe --all-groups": [
                "java",
                "-cp",
                classpath,
                "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
                "--bootstrap-server",
                bootstrap,
                "--describe",
                "--all-groups",
            ],
        }
        for command in commands.values():  # warm-up: page cache, the brokers' JIT
            timed(command)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for r in range(args.rounds):
            order = list(commands.items())
            for name, command in order if r % 2 == 0 else reversed(order):
                times[name].append(timed(command))
        for name, values in times.items():
            print(
                f"{name:55s} min {min(values):6.2f}  median {statistics.median(values):6.2f}  "
                f"max {max(values):6.2f} s"
            )
        ours = statistics.median(times["A  kafka-tui groups describe"])
        theirs = statistics.median(times["K  kafka-consumer-groups.sh --describe --all-groups"])
        listing = statistics.median(times["A2 kafka-tui groups list"])
        print(f"describe: kafka-tui / kafka-consumer-groups.sh = {ours / theirs:.2f}x")
        print(f"list:     kafka-tui / kafka-consumer-groups.sh = {listing / theirs:.2f}x")
    finally:
        if not args.keep:
            dev.down()


if __name__ == "__main__":
    main()
