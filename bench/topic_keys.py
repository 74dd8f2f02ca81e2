"""`kafka-tui topics keys` on each engine, side by side with the floor of reading the same
records at all: Kafka's console consumer and kcat, each to /dev/null.

On a KRaft cluster of 3 brokers of its own (in a temp folder): one topic of --partitions
partitions (RF 1) filled by Kafka's console producer (one JVM, lines streamed to it) with
--records keyed records (--keys distinct keys, 100-byte values). With --reuse, the cluster and
topic a --keep run left are used again and the topic only topped up to --records (1M, then 3M,
then 10M without producing the first million three times). Then per round, each a whole
process, JVM or Spark start included:
  (L) `kafka-tui topics keys T --output json` (in process);
  (S) the same with `--engine spark --spark-master local[2]`;
  (N) S with KAFKA_TUI_CDS=off: the driver JVM loads its classes from the jars, as before the
      class archive (planning/spark_archive.py; S writes it if it is not there yet);
  (W) the same on a standalone Spark cluster of 2 workers (started once, not timed);
  (C) Kafka's ConsoleConsumer (kafka-console-consumer.sh's class and heap) to /dev/null,
      printing keys, --max-messages the topic's records;
  (F) `kcat -C -e -q -f '%k\\n'` to /dev/null (librdkafka, C).
Prints each run's seconds, the medians, records/s, the ratios to C and F and the load average
before and after each run; checks that L, S and W printed the same document. Asserts nothing
about time.

Usage: python bench/topic_keys.py [--records 1000000] [--keys 100000] [--partitions 4]
[--rounds 1] [--sides L,S,N,W,C,F] [--topic bench-keys] [--keep] [--reuse]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from kafka_tui.devcluster import DevCluster
from kafka_tui.devcluster.jars import ensure_kafka
from kafka_tui.devcluster.spark import SparkDevCluster

FOLDER = Path(tempfile.gettempdir()) / "kafka-tui-bench-topic-keys"
SIDES = {
    "L": "L in process",
    "S": "S spark local[2]",
    "N": "N S, no class archive",
    "W": "W spark 2 workers",
    "C": "C console consumer",
    "F": "F kcat",
}


def load() -> str:
    return "load " + ", ".join(f"{x:.1f}" for x in os.getloadavg())


def timed(command: list[str], **kwargs: object) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, **kwargs)  # type: ignore[call-overload]
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{command[:6]} failed: {done.stderr[-2000:]}")
    return seconds, done.stdout


def classpath(cluster: DevCluster) -> str:
    state = cluster.load()
    assert state is not None
    return ensure_kafka(state.version, cluster.cache).classpath


def fill(
    cluster: DevCluster, bootstrap: str, topic: str, first: int, last: int, keys: int
) -> float:
    """Records `first` to `last` (key-{i % keys}), streamed to one console producer."""
    command = [
        "java", "-Xmx512m", "-cp", classpath(cluster), "org.apache.kafka.tools.ConsoleProducer",
        "--bootstrap-server", bootstrap, "--topic", topic,
        "--producer-property", "acks=all", "--producer-property", "linger.ms=20",
        "--producer-property", "batch.size=262144",
        "--reader-property", "parse.key=true", "--reader-property", "key.separator=:",
    ]  # fmt: skip
    start = time.perf_counter()
    producer = subprocess.Popen(command, stdin=subprocess.PIPE, stderr=subprocess.PIPE)
    assert producer.stdin is not None
    value = "v" * 100
    for chunk in range(first, last, 100_000):
        lines = "".join(
            f"key-{i % keys}:{value}\n" for i in range(chunk, min(last, chunk + 100_000))
        )
        producer.stdin.write(lines.encode())
    producer.stdin.close()
    if producer.wait() != 0:
        assert producer.stderr is not None
        raise SystemExit(f"the console producer failed: {producer.stderr.read()[-2000:]!r}")
    return time.perf_counter() - start


def kafka_tui(
    bootstrap: str, *args: str, env: dict[str, str] | None = None
) -> tuple[float, dict[str, object]]:
    command = [sys.executable, "-m", "kafka_tui.cli", "--bootstrap-server", bootstrap]
    seconds, out = timed([*command, "--output", "json", *args], timeout=3600, env=env)
    return seconds, json.loads(out)


@contextlib.contextmanager
def standalone(wanted: bool) -> Iterator[str | None]:
    if not wanted:
        yield None
        return
    cluster = SparkDevCluster(FOLDER / "spark-cluster")
    start = time.perf_counter()
    state = cluster.up(2, worker_memory="2g")
    print(f"standalone Spark (master + 2 workers) up in {time.perf_counter() - start:.1f} s")
    try:
        yield cluster.master_url(state)
    finally:
        cluster.down()


def end_offsets(bootstrap: str, topic: str, partitions: int) -> int:
    """The topic's records now (sum of the partitions' log end offsets)."""
    import asyncio

    from kafka_tui.admin.key_reader import offset_ranges
    from kafka_tui.admin.model import ConnectionSettings

    ranges = asyncio.run(offset_ranges(ConnectionSettings(bootstrap), topic, partitions))
    return sum(r.end for r in ranges)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--keys", type=int, default=100_000)
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--sides", default="L,S,N,W,C,F")
    parser.add_argument("--topic", default="bench-keys")
    parser.add_argument("--keep", action="store_true", help="leave the Kafka cluster running")
    parser.add_argument("--reuse", action="store_true", help="use the cluster --keep left")
    args = parser.parse_args()
    sides = [s for s in args.sides.split(",") if s]
    if "F" in sides and not shutil.which("kcat"):
        sides.remove("F")

    cluster = DevCluster(FOLDER / "kafka")
    reused = args.reuse and cluster.load() is not None
    if not reused:
        cluster.down()
        cluster.up("kraft", brokers=3)
    try:
        bootstrap = cluster.status()["bootstrap_servers"]
        topic = args.topic
        # (reused: the topic may be there already, which the create then refuses)
        subprocess.run(
            [sys.executable, "-m", "kafka_tui.cli", "--bootstrap-server", bootstrap, "topics",
             "create", topic, "--partitions", str(args.partitions),
             "--replication-factor", "1"],
            check=not reused, capture_output=True,
        )  # fmt: skip
        have = end_offsets(bootstrap, topic, args.partitions)
        if have < args.records:
            seconds = fill(cluster, bootstrap, topic, have, args.records, args.keys)
            print(
                f"produced records {have:,} to {args.records:,} ({args.keys:,} keys) in "
                f"{seconds:.1f} s ({load()})"
            )
        records = end_offsets(bootstrap, topic, args.partitions)
        times: dict[str, list[float]] = {SIDES[s]: [] for s in sides}
        keys = ["topics", "keys", topic, "--partitions", "8"]
        java = [
            "java", "-Xmx512M", "-server", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
            "-XX:InitiatingHeapOccupancyPercent=35", "-Djava.awt.headless=true",
            "-cp", classpath(cluster), "org.apache.kafka.tools.consumer.ConsoleConsumer",
        ]  # fmt: skip
        with standalone("W" in sides) as url:
            commands = {
                "C": [
                    *java, "--bootstrap-server", bootstrap, "--topic", topic,
                    "--from-beginning", "--max-messages", str(records),
                    "--property", "print.key=true",
                ],
                "F": ["kcat", "-C", "-b", bootstrap, "-t", topic, "-o", "beginning", "-e", "-q",
                      "-f", "%k\n"],
            }  # fmt: skip
            for r in range(args.rounds):
                documents: dict[str, object] = {}
                for side in sides:
                    before = load()
                    if side == "L":
                        seconds, documents[side] = kafka_tui(bootstrap, *keys)
                    elif side in ("S", "N", "W"):
                        master = str(url) if side == "W" else "local[2]"
                        env = {**os.environ, "KAFKA_TUI_CDS": "off"} if side == "N" else None
                        seconds, documents[side] = kafka_tui(
                            bootstrap, *keys, "--engine", "spark", "--spark-master", master,
                            env=env,
                        )  # fmt: skip
                    else:
                        with open(os.devnull, "w") as sink:
                            start = time.perf_counter()
                            subprocess.run(
                                commands[side], stdout=sink, stderr=sink, check=True, timeout=3600
                            )
                            seconds = time.perf_counter() - start
                    times[SIDES[side]].append(seconds)
                    print(
                        f"  round {r + 1} {SIDES[side]:20} {seconds:7.1f} s  ({before} before, "
                        f"{load()} after)",
                        flush=True,
                    )
                found = list(documents.values())
                if found:
                    same = all(d == found[0] for d in found)
                    print(f"  round {r + 1}: {'same documents' if same else 'DIFFERENT DOCUMENTS'}")
                    counted = found[0]["records"]  # type: ignore[index]
                    assert counted == records, (counted, records)
        print(
            f"\n{records:,} records, {args.partitions} partitions, {os.cpu_count()} cores, "
            f"{load()} (other work on the machine stretches every figure)"
        )
        medians = {name: statistics.median(values) for name, values in times.items()}
        floors = {n: m for n, m in medians.items() if n[0] in "CF"}
        for name, median in medians.items():
            ratios = "  ".join(f"{median / f:5.2f}x {n[0]}" for n, f in floors.items())
            print(f"  {name:20} {median:7.1f} s  {records / median:>10,.0f} records/s  {ratios}")
    finally:
        if not args.keep:
            cluster.down()


if __name__ == "__main__":
    main()
