"""`kafka-tui topics keys`: the in-process engine vs Spark local[2], side by side, with the floor
of reading the same records at all (kcat to /dev/null, when kcat is installed).

On a fresh KRaft cluster (3 brokers, in a temp folder): one topic of --partitions partitions
(RF 1) filled by Kafka's console producer (one JVM) with --records keyed records (--keys
distinct keys, 100-byte values), then per round, each a whole process:
  (L) `kafka-tui topics keys T --output json` (in process);
  (S) the same with `--engine spark --spark-master local[2]` (a Spark start included);
  (F) `kcat -C -t T -o beginning -e -q` to /dev/null (librdkafka, C: the floor).
Prints each run's seconds and records/s, the medians and the ratios, and checks that L and S
printed the same document. Asserts nothing about time.

Usage: python bench/topic_keys.py [--records 1000000] [--keys 100000] [--partitions 4]
[--rounds 1] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kafka_tui.devcluster import DevCluster
from kafka_tui.devcluster.jars import ensure_kafka


def timed(command: list[str], **kwargs: object) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, **kwargs)  # type: ignore[call-overload]
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{command[:6]} failed: {done.stderr[-2000:]}")
    return seconds, done.stdout


def fill(cluster: DevCluster, bootstrap: str, topic: str, records: int, keys: int) -> float:
    state = cluster.load()
    assert state is not None
    classpath = ensure_kafka(state.version, cluster.cache).classpath
    lines = "".join(f"key-{i % keys}:{'v' * 100}\n" for i in range(records))
    command = [
        "java", "-Xmx512m", "-cp", classpath, "org.apache.kafka.tools.ConsoleProducer",
        "--bootstrap-server", bootstrap, "--topic", topic,
        "--producer-property", "acks=all", "--producer-property", "linger.ms=20",
        "--producer-property", "batch.size=262144",
        "--reader-property", "parse.key=true", "--reader-property", "key.separator=:",
    ]  # fmt: skip
    seconds, _ = timed(command, input=lines, timeout=900)
    return seconds


def kafka_tui(bootstrap: str, *args: str) -> tuple[float, dict[str, object]]:
    command = [sys.executable, "-m", "kafka_tui.cli", "--bootstrap-server", bootstrap]
    seconds, out = timed([*command, "--output", "json", *args], timeout=1800)
    return seconds, json.loads(out)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--keys", type=int, default=100_000)
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="leave the cluster running")
    args = parser.parse_args()

    cluster = DevCluster(Path(tempfile.gettempdir()) / "kafka-tui-bench-topic-keys")
    cluster.down()
    cluster.up("kraft", brokers=3)
    try:
        bootstrap = cluster.status()["bootstrap_servers"]
        topic = "bench-keys"
        subprocess.run(
            [sys.executable, "-m", "kafka_tui.cli", "--bootstrap-server", bootstrap, "topics",
             "create", topic, "--partitions", str(args.partitions), "--replication-factor", "1"],
            check=True, capture_output=True,
        )  # fmt: skip
        seconds = fill(cluster, bootstrap, topic, args.records, args.keys)
        print(f"filled {args.records:,} records ({args.keys:,} keys) in {seconds:.1f} s")
        kcat = shutil.which("kcat")
        times: dict[str, list[float]] = {"L local": [], "S spark local[2]": []}
        if kcat:
            times["F kcat (floor)"] = []
        for r in range(args.rounds):
            local_s, local = kafka_tui(bootstrap, "topics", "keys", topic, "--partitions", "8")
            times["L local"].append(local_s)
            spark_s, spark = kafka_tui(
                bootstrap, "topics", "keys", topic, "--partitions", "8",
                "--engine", "spark", "--spark-master", "local[2]",
            )  # fmt: skip
            times["S spark local[2]"].append(spark_s)
            same = "same numbers" if local == spark else "DIFFERENT NUMBERS"
            line = f"  round {r + 1}: L {local_s:6.1f} s, S {spark_s:6.1f} s ({same})"
            if kcat:
                floor_s, _ = timed(
                    [kcat, "-C", "-b", bootstrap, "-t", topic, "-o", "beginning", "-e", "-q",
                     "-f", "%k\n"],
                    timeout=900,
                )  # fmt: skip
                times["F kcat (floor)"].append(floor_s)
                line += f", F {floor_s:6.1f} s"
            print(line, flush=True)
            assert local["records"] == args.records, local["records"]
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        print(
            f"\n{args.records:,} records, {args.partitions} partitions, {os.cpu_count()} cores, "
            f"load average {load} (other work on the machine stretches every figure)"
        )
        medians = {name: statistics.median(values) for name, values in times.items()}
        for name, median in medians.items():
            rate = args.records / median
            print(f"  {name:18} {median:7.1f} s  {rate:>12,.0f} records/s")
        local_m, spark_m = medians["L local"], medians["S spark local[2]"]
        print(f"  S / L = {spark_m / local_m:.2f}")
        if kcat:
            floor_m = medians["F kcat (floor)"]
            print(f"  L / F = {local_m / floor_m:.2f}, S / F = {spark_m / floor_m:.2f}")
    finally:
        if not args.keep:
            cluster.down()


if __name__ == "__main__":
    main()
