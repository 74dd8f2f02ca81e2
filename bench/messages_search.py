"""`kafka-tui messages search`: the local engine vs Spark local[2] vs `kcat | jq`, side by side
on the same topic, with ratios.

On a fresh KRaft cluster (3 brokers, in a temp folder): one topic of --partitions partitions
(RF 1) filled by `kafka-tui messages produce --file` with --records keyed JSON records
(`{"n", "user", "amount", "note"}`, ~120 bytes), then per round:
  (L) `kafka-tui --output jsonl messages search T --filter '.value.amount > 490'`, a whole
      process (in-process engine: every partition at once, jq in this process);
  (S) the same with `--engine spark --spark-master local[2]` (a Spark start included); and
      the same search through the service in this process, to split Spark's start from its
      scan: the scan's records/s is jq per record in the executors;
  (K) `kcat -C -t T -o beginning -e -q -f '%s\\n' | jq -c 'select(.amount > 490)'` (librdkafka
      and jq, both C; values only, no record object), when kcat and jq are installed.
Prints each side's seconds and records/s, the ratios, the machine's load average, and checks
that L and S found the same records and K as many. Asserts nothing about time.

Usage: python bench/messages_search.py [--records 300000] [--partitions 4] [--rounds 1]
[--keep]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from kafka_tui.devcluster import DevCluster

FILTER = ".value.amount > 490"
KCAT_JQ = "select(.amount > 490)"


def load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def children_cpu() -> float:
    """CPU seconds (user + system) of the finished child processes so far (a Spark job's JVM
    and Python workers included: each is waited for by its parent)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


CPU: dict[str, list[float]] = {}


def timed(command: list[str], **kwargs: Any) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, **kwargs)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{command[:8]} failed: {done.stderr[-2000:]}")
    return seconds, done.stdout


def cli(bootstrap: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "kafka_tui.cli", "--bootstrap-server", bootstrap, *args]


def fill(bootstrap: str, topic: str, records: int, folder: Path) -> float:
    lines = folder / "records.jsonl"
    with lines.open("w") as out:
        for i in range(records):
            value = {"n": i, "user": f"u{i % 1000}", "amount": i % 500, "note": "x" * 60}
            out.write(json.dumps({"key": f"u{i % 1000}", "value": value}) + "\n")
    seconds, _ = timed(
        cli(bootstrap, "--output", "jsonl", "messages", "produce", topic, "--file", str(lines)),
        timeout=1800,
    )
    lines.unlink()
    return seconds


def kcat_jq(kcat: str, jq: str, bootstrap: str, topic: str) -> tuple[float, int]:
    start = time.perf_counter()
    reader = subprocess.Popen(
        [kcat, "-C", "-b", bootstrap, "-t", topic, "-o", "beginning", "-e", "-q", "-f", "%s\n"],
        stdout=subprocess.PIPE,
    )
    filtered = subprocess.run(
        [jq, "-c", KCAT_JQ], stdin=reader.stdout, capture_output=True, text=True, check=True
    )
    assert reader.stdout is not None
    reader.stdout.close()
    reader.wait()
    return time.perf_counter() - start, len(filtered.stdout.splitlines())


async def spark_phases(bootstrap: str, topic: str) -> tuple[float, float, int]:
    """The Spark search through the service: (seconds to the session, seconds of the scan
    after it, matches)."""
    from kafka_tui.admin import KafkaAdmin
    from kafka_tui.admin.model import ConnectionSettings
    from kafka_tui.services.message_search import SearchProgress, SearchRequest, open_search

    async with KafkaAdmin(ConnectionSettings(bootstrap)) as admin:
        request = SearchRequest(topic, FILTER, engine="spark", spark_master="local[2]")
        search = await open_search(admin, request)
    began = time.perf_counter()
    scanning: list[float] = []

    def show(p: SearchProgress) -> None:
        if p.stage == "read" and not scanning:
            scanning.append(time.perf_counter())

    matches = 0
    async for documents in search.matches(show):
        matches += len(documents)
    ended = time.perf_counter()
    session_end = scanning[0] if scanning else began
    return session_end - began, ended - session_end, matches


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=300_000)
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="leave the cluster running")
    args = parser.parse_args()

    cluster = DevCluster(Path(tempfile.gettempdir()) / "kafka-tui-bench-messages-search")
    cluster.down()
    cluster.up("kraft", brokers=3)
    try:
        bootstrap = cluster.status()["bootstrap_servers"]
        topic = "bench-search"
        subprocess.run(
            cli(bootstrap, "topics", "create", topic, "--partitions", str(args.partitions),
                "--replication-factor", "1"),
            check=True, capture_output=True,
        )  # fmt: skip
        with tempfile.TemporaryDirectory() as folder:
            seconds = fill(bootstrap, topic, args.records, Path(folder))
        print(f"filled {args.records:,} records in {seconds:.1f} s (load {load()})")
        kcat, jq = shutil.which("kcat"), shutil.which("jq")
        times: dict[str, list[float]] = {"L local": [], "S spark local[2]": []}
        if kcat and jq:
            times["K kcat | jq"] = []
        starts: list[float] = []
        scans: list[float] = []
        expected = args.records * 9 // 500  # amount 491..499 of 0..499
        for r in range(args.rounds):
            search = ("--output", "jsonl", "messages", "search", topic, "--filter", FILTER)
            cpu = children_cpu()
            local_s, local = timed(cli(bootstrap, *search), timeout=3600)
            CPU.setdefault("L local", []).append(children_cpu() - cpu)
            cpu = children_cpu()
            spark_s, spark = timed(
                cli(bootstrap, *search, "--engine", "spark", "--spark-master", "local[2]"),
                timeout=3600,
            )
            CPU.setdefault("S spark local[2]", []).append(children_cpu() - cpu)
            times["L local"].append(local_s)
            times["S spark local[2]"].append(spark_s)
            same = sorted(local.splitlines()) == sorted(spark.splitlines())
            found = len(local.splitlines())
            line = (
                f"  round {r + 1}: L {local_s:6.1f} s, S {spark_s:6.1f} s "
                f"({found:,} matches, {'the same' if same else 'NOT THE SAME'})"
            )
            if kcat and jq:
                cpu = children_cpu()
                k_s, k_found = kcat_jq(kcat, jq, bootstrap, topic)
                CPU.setdefault("K kcat | jq", []).append(children_cpu() - cpu)
                times["K kcat | jq"].append(k_s)
                line += f", K {k_s:6.1f} s ({k_found:,} matches)"
            start_s, scan_s, _ = asyncio.run(spark_phases(bootstrap, topic))
            starts.append(start_s)
            scans.append(scan_s)
            print(f"{line}; load {load()}", flush=True)
            assert found == expected, (found, expected)
        print(
            f"\n{args.records:,} records, {args.partitions} partitions, {os.cpu_count()} cores, "
            f"load average {load()} (other work on the machine stretches every figure)"
        )
        medians = {name: statistics.median(values) for name, values in times.items()}
        for name, median in medians.items():
            cpu_m = statistics.median(CPU[name])
            cpu_text = (
                "CPU not counted (Spark's JVM and Python workers are no waited-for children)"
                if name.startswith("S")
                else f"{cpu_m:6.1f} CPU-s ({1e6 * cpu_m / args.records:5.1f} us a record)"
            )
            rate = args.records / median
            print(f"  {name:18} {median:7.1f} s  {rate:>10,.0f} records/s, {cpu_text}")
        start_m, scan_m = statistics.median(starts), statistics.median(scans)
        print(
            f"  S's parts: Spark start {start_m:.1f} s, scan {scan_m:.1f} s "
            f"({args.records / scan_m:,.0f} records/s with jq in 2 executors)"
        )
        local_m, spark_m = medians["L local"], medians["S spark local[2]"]
        print(f"  S / L = {spark_m / local_m:.2f}, S scan / L = {scan_m / local_m:.2f}")
        cpu_l = statistics.median(CPU["L local"])
        if kcat and jq:
            k_m, cpu_k = medians["K kcat | jq"], statistics.median(CPU["K kcat | jq"])
            print(f"  L / K = {local_m / k_m:.2f}, S / K = {spark_m / k_m:.2f}")
            print(f"  CPU: L / K = {cpu_l / cpu_k:.2f}")
    finally:
        if not args.keep:
            cluster.down()


if __name__ == "__main__":
    main()
