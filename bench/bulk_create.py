"""Create 2,000 topics (3 partitions, RF 3) on a local KRaft cluster, three ways, and print:

  (a) kafka-tui's command line: one `kafka-tui topics create` process for all topics
      (validates, batches, waits until every broker shows a leader for every partition);
  (b) one raw CreateTopics request with the same topics: the broker's own cost, the limit;
  (c) Kafka's own kafka-topics.sh way: its TopicCommand class (from the Maven jars), one JVM
      per topic, timed on a sample and scaled to the whole batch.

Usage: python bench/bulk_create.py [--topics 2000] [--sample 10] [--keep]
The cluster runs in its own folder (not the demo's) and is removed at the end unless --keep.
Nothing here asserts a time; it prints figures.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kafka_tui.admin import ConnectionSettings, KafkaAdmin
from kafka_tui.admin.batches import creatable
from kafka_tui.admin.model import TopicSpec
from kafka_tui.admin.protocol import CreateTopicsRequest
from kafka_tui.devcluster import KRAFT_VERSION, DevCluster, ensure_kafka
from kafka_tui.devcluster.node import java_bin


def ours(bootstrap: str, names: list[str]) -> float:
    cmd = [
        sys.executable,
        "-m",
        "kafka_tui.cli",
        "--bootstrap-server",
        bootstrap,
        "--output",
        "json",
        "topics",
        "create",
        *names,
        "--partitions",
        "3",
        "--replication-factor",
        "3",
        "--timeout-ms",
        "300000",
    ]
    started = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"kafka-tui create failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return elapsed


async def raw(bootstrap: str, names: list[str]) -> float:
    specs = [creatable(TopicSpec(n, 3, 3)) for n in names]
    async with KafkaAdmin(ConnectionSettings(bootstrap, request_timeout_ms=300_000)) as admin:
        controller = await admin._controller()
        started = time.perf_counter()
        response = await admin._send(CreateTopicsRequest(specs, 300_000, False), controller)
        elapsed = time.perf_counter() - started
    failed = [t for t in response.to_object()["topics"] if t["error_code"]]
    if failed:
        raise SystemExit(f"raw CreateTopics failed for {len(failed)} topics: {failed[:2]}")
    return elapsed


async def delete_all(bootstrap: str, names: list[str]) -> float:
    async with KafkaAdmin(ConnectionSettings(bootstrap, request_timeout_ms=300_000)) as admin:
        started = time.perf_counter()
        results = await admin.delete_topics(names, timeout_ms=300_000)
        elapsed = time.perf_counter() - started
    if not all(r.ok for r in results):
        raise SystemExit(f"deleting failed: {[r for r in results if not r.ok][:2]}")
    return elapsed


def topic_command(bootstrap: str, names: list[str]) -> list[float]:
    jars = ensure_kafka(KRAFT_VERSION)
    times = []
    for name in names:
        cmd = [
            java_bin(),
            "-Xmx256m",
            "-cp",
            jars.classpath,
            "-Dlog4j2.level=WARN",
            "org.apache.kafka.tools.TopicCommand",
            "--bootstrap-server",
            bootstrap,
            "--create",
            "--topic",
            name,
            "--partitions",
            "3",
            "--replication-factor",
            "3",
        ]
        started = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        times.append(time.perf_counter() - started)
        if proc.returncode != 0:
            raise SystemExit(f"TopicCommand failed: {proc.stdout[-1000:]}{proc.stderr[-1000:]}")
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=2000)
    parser.add_argument("--sample", type=int, default=10)
    parser.add_argument("--keep", action="store_true", help="leave the cluster running")
    args = parser.parse_args()

    os.environ.setdefault("KAFKA_TUI_BROKER_HEAP_MB", "1024")
    root = Path(tempfile.gettempdir()) / "kafka-tui-bench-cluster"
    cluster = DevCluster(root)
    cluster.down()
    started = time.perf_counter()
    cluster.up("kraft", brokers=3)
    print(f"KRaft {KRAFT_VERSION} cluster, 3 brokers, up in {time.perf_counter() - started:.1f}s")
    bootstrap = cluster.bootstrap_servers()
    n = args.topics
    try:
        a = ours(bootstrap, [f"bench-ours-{i:05d}" for i in range(n)])
        d = asyncio.run(delete_all(bootstrap, [f"bench-ours-{i:05d}" for i in range(n)]))
        b = asyncio.run(raw(bootstrap, [f"bench-raw-{i:05d}" for i in range(n)]))
        asyncio.run(delete_all(bootstrap, [f"bench-raw-{i:05d}" for i in range(n)]))
        sample = topic_command(bootstrap, [f"bench-tc-{i:05d}" for i in range(args.sample)])
    finally:
        if not args.keep:
            cluster.down()
    per_topic = sum(sample) / len(sample)
    c = per_topic * n
    print(f"\n{n} topics x 3 partitions x RF 3")
    print(f"{'way':58} {'seconds':>9} {'topics/s':>9} {'vs raw':>7}")
    for label, seconds in (
        ("(a) kafka-tui topics create (one process, waits for leaders)", a),
        ("(b) one raw CreateTopics request (broker's own cost)", b),
        (f"(c) kafka-topics.sh / TopicCommand per topic (scaled from {len(sample)})", c),
    ):
        print(f"{label:58} {seconds:9.2f} {n / seconds:9.1f} {seconds / b:6.1f}x")
    print(f"\n(a) vs (c): kafka-tui is {c / a:.0f}x faster than one TopicCommand per topic")
    print(
        f"TopicCommand per topic: mean {per_topic:.2f}s, min {min(sample):.2f}s, "
        f"max {max(sample):.2f}s"
    )
    print(f"bonus: deleting the {n} topics through the admin layer took {d:.2f}s")


if __name__ == "__main__":
    main()
