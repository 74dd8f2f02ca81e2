"""`kafka-tui brokers drain` of a broker holding 1,000 partitions with a producer writing
throughout (issue 42); prints figures, asserts nothing (the producer's records are read back
and counted).

1. The drain's wall time (`brokers drain 3 --batch N --yes`: cordon, leadership, moves).
2. The producer's throughput (acks=all, records acknowledged per second, a window of
   in-flight sends) for the same time before the drain, and during it.
3. Moves against Kafka's `kafka-reassign-partitions --generate` (ReassignPartitionsCommand
   from the cached jars) with the other brokers in --broker-list, for the same topics:
   partitions whose replica list changes and replicas copied.

A KRaft 4.4 dev cluster of 3 brokers in its own folder. Topics: 60 x 15 partitions RF 2 and
40 x 30 partitions RF 1, laid out so that exactly 1,000 partitions hold broker 3; ~20 KB per
partition.
    .venv/bin/python bench/drain.py [--batch 50] [--keep]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

from kafka_tui.cli import main
from kafka_tui.devcluster import KRAFT_VERSION, DevCluster, ensure_kafka
from kafka_tui.devcluster.node import java_bin

DRAINED = 3
PAIRS = ["3:1", "2:3", "1:2", "3:2", "1:3", "2:1"]  # 4 of 6 hold broker 3
SINGLES = ["1", "2", "3"]
LOAD = "drain-rf2-000"  # the producer's topic, drained too


def cli_json(bootstrap: str, *args: str) -> tuple[int, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["--bootstrap-server", bootstrap, "--output", "json", *args])
    return code, json.loads(out.getvalue())


def topics() -> dict[str, str]:
    """name -> --replica-assignment."""
    made = {
        f"drain-rf2-{i:03d}": ",".join(PAIRS[(i + p) % 6] for p in range(15)) for i in range(60)
    }
    made |= {
        f"drain-rf1-{i:03d}": ",".join(SINGLES[(i + p) % 3] for p in range(30)) for i in range(40)
    }
    return made


def replicas_now(bootstrap: str, names: list[str]) -> dict[tuple[str, int], list[int]]:
    _, described = cli_json(bootstrap, "topics", "describe", *names, "--no-configs")
    return {(t["topic"], p["partition"]): p["replicas"] for t in described for p in t["partitions"]}


def kafka_generate(bootstrap: str, names: list[str], brokers: list[int]) -> list[dict[str, Any]]:
    jars = ensure_kafka(KRAFT_VERSION)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"version": 1, "topics": [{"topic": t} for t in names]}, f)
    cmd = [
        java_bin(), "-Xmx256m", "-cp", jars.classpath, "-Dlog4j2.level=WARN",
        "org.apache.kafka.tools.reassign.ReassignPartitionsCommand",
        "--bootstrap-server", bootstrap, "--topics-to-move-json-file", f.name,
        "--broker-list", ",".join(map(str, brokers)), "--generate",
    ]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    lines = proc.stdout.splitlines()
    proposed = lines[lines.index("Proposed partition reassignment configuration") + 1]
    return json.loads(proposed)["partitions"]  # type: ignore[no-any-return]


async def prefill(bootstrap: str, names: list[str], partitions: dict[str, int]) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks=1, linger_ms=20)
    await producer.start()
    try:
        value = b"x" * 1000
        pending = [
            await producer.send(t, value, partition=p)
            for t in names
            for p in range(partitions[t])
            for _ in range(20)
        ]
        await asyncio.gather(*pending)
    finally:
        await producer.stop()


class Load:
    """A producer (acks=all) on its own thread, up to 500 sends in flight; `marks` lets the
    caller read the acknowledged count at moments."""

    def __init__(self, bootstrap: str) -> None:
        self.bootstrap = bootstrap
        self.acked: list[int] = []
        self.failed = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)

    async def _run(self) -> None:
        producer = AIOKafkaProducer(bootstrap_servers=self.bootstrap, acks="all", linger_ms=5)
        await producer.start()
        window: set[asyncio.Future[Any]] = set()
        n = 0
        try:
            while not self.stop.is_set():
                while len(window) < 500:
                    future = await producer.send(LOAD, n.to_bytes(8, "big") + b"z" * 192)
                    future.add_done_callback(self._done(n))
                    window.add(future)
                    n += 1
                _, window = await asyncio.wait(window, return_when=asyncio.FIRST_COMPLETED)
            await asyncio.gather(*window, return_exceptions=True)
        finally:
            await producer.stop()

    def _done(self, n: int) -> Any:
        def done(future: asyncio.Future[Any]) -> None:
            if future.exception() is None:
                self.acked.append(n)
            else:
                self.failed += 1

        return done


async def read_back(bootstrap: str, wanted: set[int]) -> int:
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    await consumer.start()
    seen: set[int] = set()
    try:
        consumer.assign([TopicPartition(LOAD, p) for p in range(15)])
        await consumer.seek_to_beginning()
        deadline = time.monotonic() + 120
        while not wanted <= seen and time.monotonic() < deadline:
            for records in (await consumer.getmany(timeout_ms=1000, max_records=50_000)).values():
                seen.update(int.from_bytes(r.value[:8], "big") for r in records if r.value)
    finally:
        await consumer.stop()
    return len(wanted & seen)


def main_bench() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch", type=int, default=50)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    cluster = DevCluster(Path(tempfile.gettempdir()) / "kafka-tui-bench-drain")
    cluster.down()
    cluster.up("kraft", brokers=3)
    bootstrap = cluster.bootstrap_servers()
    try:
        made = topics()
        names = sorted(made)
        for name, spec in made.items():
            code, created = cli_json(
                bootstrap, "topics", "create", name, "--replica-assignment", spec
            )
            assert code == 0, created
        asyncio.run(prefill(bootstrap, names, {t: s.count(",") + 1 for t, s in made.items()}))
        before = replicas_now(bootstrap, names)
        holding = sum(1 for r in before.values() if DRAINED in r)
        kafka_after = {
            (p["topic"], p["partition"]): p["replicas"]
            for p in kafka_generate(bootstrap, names, [1, 2])
        }
        print(
            f"Drain broker {DRAINED} of 3 (KRaft {KRAFT_VERSION}): {len(names)} topics, "
            f"{len(before)} partitions, {holding} hold broker {DRAINED}"
        )
        load = Load(bootstrap)
        load.thread.start()
        time.sleep(3)  # the producer warmed up
        start_count, started = len(load.acked), time.perf_counter()
        time.sleep(20)
        rate_before = (len(load.acked) - start_count) / (time.perf_counter() - started)
        start_count, started = len(load.acked), time.perf_counter()
        # In its own process, as an operator runs it: in this one it would share the
        # producer's interpreter lock.
        proc = subprocess.run(
            [sys.executable, "-m", "kafka_tui.cli", "--bootstrap-server", bootstrap,
             "--output", "json", "brokers", "drain", str(DRAINED), "--batch", str(args.batch),
             "--yes"],
            capture_output=True, text=True,
        )  # fmt: skip
        code, drained = proc.returncode, json.loads(proc.stdout)
        seconds = time.perf_counter() - started
        rate_during = (len(load.acked) - start_count) / seconds
        load.stop.set()
        load.thread.join(120)
        after = replicas_now(bootstrap, names)
        ours_changed = sum(1 for k, r in after.items() if r != before[k])
        ours_copied = sum(len(set(r) - set(before[k])) for k, r in after.items())
        kafka_changed = sum(1 for k, r in kafka_after.items() if r != before[k])
        kafka_copied = sum(len(set(r) - set(before[k])) for k, r in kafka_after.items())
        left = sum(1 for r in after.values() if DRAINED in r)
        read = asyncio.run(read_back(bootstrap, set(load.acked)))
        print(
            f"  drain --batch {args.batch}: {seconds:.1f} s (exit {code}, {drained['state']}), "
            f"{drained['bytes_to_move'] / 1e6:.1f} MB copied, {drained['leaders']['reordered']} "
            f"partitions reordered for leadership, {left} partitions left on broker {DRAINED}"
        )
        print(
            f"  producer acks=all: {rate_before:.0f} records/s before, {rate_during:.0f} during "
            f"({100 * rate_during / rate_before:.0f}%); {len(load.acked)} acknowledged, "
            f"{read} read back, {load.failed} sends failed"
        )
        print(
            f"  partitions changed: kafka-tui {ours_changed} (reorders included), "
            f"kafka-reassign-partitions --generate {kafka_changed}"
        )
        print(f"  replicas copied: kafka-tui {ours_copied}, --generate {kafka_copied}")
    finally:
        if not args.keep:
            cluster.down()


if __name__ == "__main__":
    main_bench()
