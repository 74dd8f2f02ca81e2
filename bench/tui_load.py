"""The TUI on a cluster with 10,000 topics / 30,000 partitions, and kaskade beside it.

Prints:
  (a) launch to a populated topics table, in-process (Textual's headless driver);
  (b) the time from a filter keystroke to the redrawn table, per keystroke;
  (c) launch to the first topic name on a real terminal (tmux), for kafka-tui and for
      kaskade (pip package `kaskade`, a Textual Kafka TUI), against the same cluster.

Usage: python bench/tui_load.py [--topics 10000] [--keep]
Needs tmux for (c) (apt-get install tmux). kaskade is installed into its own virtual
environment under ~/.cache/kafka-tui/bench-kaskade (its Textual pin differs from ours).
Nothing here asserts a time; it prints figures.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kafka_tui.admin import ConnectionSettings, KafkaAdmin, TopicSpec
from kafka_tui.config import Profile, Settings
from kafka_tui.devcluster import DevCluster
from kafka_tui.devcluster.jars import cache_root
from kafka_tui.tui.app import make_app
from kafka_tui.tui.screens.metadata import MetadataScreen
from kafka_tui.tui.widgets.topic_table import TopicTable

KASKADE = "kaskade==5.1.0"


async def seed(bootstrap: str, count: int) -> float:
    specs = [TopicSpec(f"bench-{i:05d}", 3, 1) for i in range(count)]
    async with KafkaAdmin(ConnectionSettings(bootstrap, request_timeout_ms=600_000)) as admin:
        existing = {t.name for t in await admin.list_topics()}
        missing = [s for s in specs if s.name not in existing]
        started = time.perf_counter()
        results = await admin.create_topics(missing, timeout_ms=600_000) if missing else []
    failed = [r for r in results if not r.ok]
    if failed:
        raise SystemExit(f"seeding failed for {len(failed)} topics: {failed[0].message}")
    return time.perf_counter() - started


async def in_process(
    bootstrap: str, count: int
) -> tuple[float, list[float], list[float], list[float]]:
    profile = Profile("bench", ConnectionSettings(bootstrap, request_timeout_ms=120_000))
    started = time.perf_counter()
    app = make_app(Settings(profiles={"bench": profile}), profile, refresh_seconds=0)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, MetadataScreen)
        await screen.loaded.wait()
        await pilot.pause()
        table = screen.query_one(TopicTable)
        populated = time.perf_counter() - started
        assert len(table.rows) >= count
        await pilot.press("slash")
        keystrokes = []
        for char in "bench-0999":
            before = time.perf_counter()
            await pilot.press(char)
            await pilot.pause()
            keystrokes.append(time.perf_counter() - before)
        assert [r.name for r in table.rows] == [f"bench-0999{i}" for i in range(10)]
        # Our own work per keystroke: filtering every row and handing the result to the table.
        filtering = []
        for _ in range(10):
            before = time.perf_counter()
            screen.apply_filters()
            filtering.append(time.perf_counter() - before)
        # What any keystroke costs through Pilot (Textual's idle wait and one frame).
        await pilot.press("escape")
        await pilot.pause()
        baseline = []
        for _ in range(10):
            before = time.perf_counter()
            await pilot.press("down")
            await pilot.pause()
            baseline.append(time.perf_counter() - before)
    return populated, keystrokes, filtering, baseline


def kaskade_bin() -> Path:
    venv = cache_root() / "bench-kaskade"
    binary = venv / "bin" / "kaskade"
    if not binary.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", KASKADE], check=True)
    return binary


def in_tmux(command: str, needle: str, timeout: float = 120.0) -> float:
    """Seconds from starting `command` in a 120x40 tmux window until `needle` is on screen."""
    session = f"bench-{os.getpid()}-{int(time.time() * 1000) % 100000}"
    started = time.perf_counter()
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", session, "-x", "120", "-y", "40", command], check=True
    )
    try:
        while time.perf_counter() - started < timeout:
            screen = subprocess.run(
                ["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True
            ).stdout
            if needle in screen:
                return time.perf_counter() - started
            time.sleep(0.05)
        raise SystemExit(f"'{needle}' never appeared for: {command}\n{screen}")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--keep", action="store_true", help="leave the cluster running")
    args = parser.parse_args()

    os.environ.setdefault("KAFKA_TUI_BROKER_HEAP_MB", "1536")
    cluster = DevCluster(Path(tempfile.gettempdir()) / "kafka-tui-bench-tui")
    cluster.up("kraft", brokers=3)
    bootstrap = cluster.bootstrap_servers()
    try:
        seeded = asyncio.run(seed(bootstrap, args.topics))
        print(f"{args.topics} topics x 3 partitions (RF 1) on KRaft; created in {seeded:.1f}s")
        populated, keys, filtering, baseline = asyncio.run(in_process(bootstrap, args.topics))
        print(f"(a) kafka-tui, launch to populated table (in-process): {populated:.2f}s")

        def ms(values: list[float]) -> str:
            return (
                f"median {statistics.median(values) * 1000:.0f} ms, max {max(values) * 1000:.0f} ms"
            )

        print(f"(b) filter keystroke to redrawn table, through Pilot: {ms(keys)}")
        print(f"    a cursor keystroke through Pilot (Textual's own cost): {ms(baseline)}")
        print(f"    filtering {args.topics} rows and updating the table alone: {ms(filtering)}")
        if shutil.which("tmux") is None:
            print("(c) skipped: tmux is not installed")
            return
        ours = in_tmux(
            f"{sys.executable} -m kafka_tui.cli --bootstrap-server {bootstrap}", "bench-0"
        )
        theirs = in_tmux(f"{kaskade_bin()} admin -b {bootstrap}", "bench-0")
        print(
            f"(c) launch to first topic on a terminal: kafka-tui {ours:.2f}s, "
            f"kaskade {theirs:.2f}s (kaskade / kafka-tui = {theirs / ours:.1f}x)"
        )
    finally:
        if not args.keep:
            cluster.down()


if __name__ == "__main__":
    main()
