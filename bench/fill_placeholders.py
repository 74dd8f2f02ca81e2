"""Time `kafka-tui placeholders fill` for 1,000 KIP-409 placeholders on a local KRaft cluster.

250 topics x 4 partitions with replication factor 4 on 3 brokers (`--under-replicated
enabled`) leave one placeholder per partition: 1,000. Then a 4th broker joins and one
`kafka-tui placeholders fill` process gives each placeholder that broker, waits until every
reassignment finished (the new replicas in sync) and clears the records. Prints figures;
asserts nothing. The cluster runs in its own folder and is removed at the end.

Usage: python bench/fill_placeholders.py [--topics 250] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kafka_tui.devcluster import DevCluster


def cli(bootstrap: str, *args: str) -> tuple[float, object]:
    cmd = [sys.executable, "-m", "kafka_tui.cli", "--bootstrap-server", bootstrap]
    started = time.perf_counter()
    proc = subprocess.run([*cmd, "--output", "json", *args], capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{args[:2]} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return elapsed, json.loads(proc.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=250)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("KAFKA_TUI_BROKER_HEAP_MB", "768")
    os.environ.setdefault("KAFKA_TUI_JOURNAL", str(Path(tempfile.mkdtemp()) / "journal.jsonl"))
    cluster = DevCluster(Path(tempfile.gettempdir()) / "kafka-tui-bench-fill")
    cluster.down()
    cluster.up("kraft", brokers=3)
    bootstrap = cluster.bootstrap_servers()
    try:
        names = [f"fill-{i:04d}" for i in range(args.topics)]
        seconds, created = cli(
            bootstrap,
            "topics",
            "create",
            *names,
            "--partitions",
            "4",
            "--replication-factor",
            "4",
            "--under-replicated",
            "enabled",
        )
        slots = sum(r["under_replicated_partitions"] for r in created)  # type: ignore[union-attr]
        print(f"created {len(names)} topics with {slots} placeholders in {seconds:.2f}s")
        started = time.perf_counter()
        cluster.add_broker()
        print(f"broker 4 joined in {time.perf_counter() - started:.1f}s")
        seconds, fills = cli(bootstrap, "placeholders", "fill")
        ok = sum(1 for f in fills if f["ok"])  # type: ignore[union-attr]
        print(
            f"\nfilled {ok} of {len(fills)} placeholders in {seconds:.2f}s "  # type: ignore[arg-type]
            f"({ok / seconds:.0f} per second), one process, waiting for every copy"
        )
        _, left = cli(bootstrap, "placeholders", "list")
        print(f"placeholders left: {len(left)}")  # type: ignore[arg-type]
    finally:
        if not args.keep:
            cluster.down()


if __name__ == "__main__":
    main()
