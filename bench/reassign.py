"""Reassignment figures (issue 11); prints, asserts nothing.

1. Replicas moved to empty a broker: `kafka-tui topics reassign --from-broker ID
   --validate-only` vs Kafka's `kafka-reassign-partitions --generate` (ReassignPartitionsCommand
   from the 4.1 jars) with every other broker in --broker-list, for the same topics.
2. Wall time of `kafka-tui topics alter T --replication-factor 3` (waiting for the copy) for
   a topic of 12 partitions holding 100 MB, RF 1 -> 3.

Runs a KRaft dev cluster of 4 brokers in its own folder:
    .venv/bin/python bench/reassign.py [--topics 20] [--megabytes 100] [--keep]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import subprocess
import tempfile
import time
from pathlib import Path

from aiokafka import AIOKafkaProducer

from kafka_tui.cli import main
from kafka_tui.devcluster import KRAFT_VERSION, DevCluster, ensure_kafka
from kafka_tui.devcluster.node import java_bin

BROKERS = 4
LEAVING = 4


def cli_json(bootstrap: str, *args: str) -> list[dict[str, object]]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["--bootstrap-server", bootstrap, "--output", "json", *args])
    return json.loads(out.getvalue())  # type: ignore[no-any-return]


def replicas_now(bootstrap: str, topics: list[str]) -> dict[tuple[str, int], list[int]]:
    described = cli_json(bootstrap, "topics", "describe", *topics)
    return {
        (t["topic"], p["partition"]): p["replicas"]  # type: ignore[index]
        for t in described
        for p in t["partitions"]  # type: ignore[attr-defined]
    }


def kafka_generate(bootstrap: str, topics: list[str], brokers: list[int]) -> list[dict]:  # type: ignore[type-arg]
    jars = ensure_kafka(KRAFT_VERSION)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"version": 1, "topics": [{"topic": t} for t in topics]}, f)
    cmd = [
        java_bin(),
        "-Xmx256m",
        "-cp",
        jars.classpath,
        "-Dlog4j2.level=WARN",
        "org.apache.kafka.tools.reassign.ReassignPartitionsCommand",
        "--bootstrap-server",
        bootstrap,
        "--topics-to-move-json-file",
        f.name,
        "--broker-list",
        ",".join(map(str, brokers)),
        "--generate",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    lines = proc.stdout.splitlines()
    proposed = lines[lines.index("Proposed partition reassignment configuration") + 1]
    return json.loads(proposed)["partitions"]  # type: ignore[no-any-return]


def moved(before: dict[tuple[str, int], list[int]], after: dict[tuple[str, int], list[int]]) -> int:
    return sum(len(set(r) - set(before[k])) for k, r in after.items())


async def fill(bootstrap: str, topic: str, megabytes: int, partitions: int) -> None:
    producer = AIOKafkaProducer(
        bootstrap_servers=bootstrap, acks=1, linger_ms=20, max_request_size=2_000_000
    )
    await producer.start()
    try:
        value = b"x" * 100_000
        pending = [
            await producer.send(topic, value, partition=i % partitions)
            for i in range(megabytes * 10)
        ]
        await asyncio.gather(*pending)
    finally:
        await producer.stop()


def main_bench() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--topics", type=int, default=20)
    parser.add_argument("--megabytes", type=int, default=100)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    cluster = DevCluster(Path(tempfile.gettempdir()) / "kafka-tui-bench-reassign")
    cluster.down()
    cluster.up("kraft", brokers=BROKERS)
    bootstrap = cluster.bootstrap_servers()
    try:
        names = [f"bench-move-{i:03d}" for i in range(args.topics)]
        for i, name in enumerate(names):
            cli_json(
                bootstrap,
                "topics",
                "create",
                name,
                "--partitions",
                str(3 + i % 6),
                "--replication-factor",
                str(2 + i % 2),
            )
        before = replicas_now(bootstrap, names)
        holding = sum(1 for r in before.values() if LEAVING in r)
        ours = cli_json(
            bootstrap, "topics", "reassign", "--from-broker", str(LEAVING), "--validate-only"
        )
        ours_after = {
            (o["topic"], m["partition"]): m["after"]  # type: ignore[index]
            for o in ours
            for m in o["moves"]  # type: ignore[attr-defined]
        }
        others = [b for b in range(1, BROKERS + 1) if b != LEAVING]
        kafka_after = {
            (p["topic"], p["partition"]): p["replicas"]
            for p in kafka_generate(bootstrap, names, others)
        }
        total = sum(len(r) for r in before.values())
        print(
            f"Empty broker {LEAVING} of {BROKERS}: {args.topics} topics, {len(before)} "
            f"partitions, {total} replicas, {holding} partitions hold broker {LEAVING}"
        )
        print(f"  replicas moved by kafka-tui --from-broker:        {moved(before, ours_after)}")
        print(
            f"  replicas moved by kafka-reassign-partitions --generate: "
            f"{moved(before, kafka_after)}"
        )
        changed = sum(1 for k, r in kafka_after.items() if r != before[k])
        print(f"  partitions changed: kafka-tui {len(ours_after)}, Kafka {changed}")

        topic = "bench-rf"
        cli_json(
            bootstrap, "topics", "create", topic, "--partitions", "12", "--replication-factor", "1"
        )
        started = time.perf_counter()
        asyncio.run(fill(bootstrap, topic, args.megabytes, 12))
        print(f"Produced {args.megabytes} MB to {topic} in {time.perf_counter() - started:.1f}s")
        started = time.perf_counter()
        [result] = cli_json(bootstrap, "topics", "alter", topic, "--replication-factor", "3")
        seconds = time.perf_counter() - started
        print(
            f"RF 1 -> 3, 12 partitions, {int(result['bytes_to_move']) / 1e6:.0f} MB to copy: "  # type: ignore[call-overload]
            f"{seconds:.1f}s (ok={result['ok']}: {result['message']})"
        )
    finally:
        if not args.keep:
            cluster.down()


if __name__ == "__main__":
    main_bench()
