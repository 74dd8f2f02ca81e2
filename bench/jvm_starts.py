"""CPU of a dev cluster's start with and without the JVMs' class-data-sharing archives, or
(`--compare format`) with the KRaft storage formatted in one JVM or in a JVM per node.

    .venv/bin/python bench/jvm_starts.py [--mode kraft|zk] [--rounds 3] [--brokers 3]
        [--compare archives|format]

Starts a cluster in a fresh folder, alternating `KAFKA_TUI_CDS=off` (or
`KAFKA_TUI_FORMAT_ONE_JVM=off`) and on, and prints the CPU
seconds its JVMs used until `up` returned (the nodes' own user+system time from /proc, plus
the storage tool's for KRaft) and the wall time of `up`, then the medians and their ratio.
The archives must exist (`kafka-tui dev-cluster fetch`). CPU, not wall time, is the figure:
it does not change with what else the machine is doing as much as wall time does.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import tempfile
import time
from pathlib import Path

from kafka_tui.devcluster import DevCluster

_TICK = os.sysconf("SC_CLK_TCK")


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICK


def one(mode: str, brokers: int, cds: bool, switch: str) -> tuple[float, float]:
    os.environ[switch] = "on" if cds else "off"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory(prefix="bench-jvm-") as folder:
        dev = DevCluster(Path(folder))
        started = time.monotonic()
        try:
            dev.up(mode, brokers=brokers)  # type: ignore[arg-type]
            wall = time.monotonic() - started
            status = dev.status()
            pids = [b["pid"] for b in status["brokers"] if b.get("pid")]
            quorum = status.get("controller") or {}
            if quorum.get("pid"):
                pids.append(quorum["pid"])
            nodes = sum(_cpu(p) for p in pids)
            # The storage tool's JVMs (KRaft) ran to completion inside `up`: waited children.
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
        finally:
            dev.down()
    tools = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return nodes + tools, wall


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="kraft", choices=["kraft", "zk"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--brokers", type=int, default=3)
    parser.add_argument("--compare", default="archives", choices=["archives", "format"])
    args = parser.parse_args()
    switch = "KAFKA_TUI_CDS" if args.compare == "archives" else "KAFKA_TUI_FORMAT_ONE_JVM"
    names = (
        ("no archives", "archives") if args.compare == "archives" else ("jvm per node", "one jvm")
    )
    runs: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
    for i in range(args.rounds):
        for cds in (False, True) if i % 2 == 0 else (True, False):
            cpu, wall = one(args.mode, args.brokers, cds, switch)
            runs[cds].append((cpu, wall))
            print(f"{names[cds]:12} cpu {cpu:5.1f} s  wall {wall:5.1f} s")
    off = statistics.median(c for c, _ in runs[False])
    on = statistics.median(c for c, _ in runs[True])
    off_wall = statistics.median(w for _, w in runs[False])
    on_wall = statistics.median(w for _, w in runs[True])
    print(
        f"{args.mode}, {args.brokers} brokers, {names[0]} -> {names[1]}, median of "
        f"{args.rounds}: node CPU {off:.1f} s -> "
        f"{on:.1f} s ({on / off:.2f}x); up wall {off_wall:.1f} s -> {on_wall:.1f} s "
        f"({on_wall / off_wall:.2f}x)"
    )


if __name__ == "__main__":
    main()
