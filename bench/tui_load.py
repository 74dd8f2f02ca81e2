"""The TUI on a cluster with 10,000 topics / 30,000 partitions, and kaskade beside it.

Prints:
  (a) launch to a populated topics table, in-process (Textual's headless driver): the first
      launch, the median of five, and the process's CPU time (other work on a shared machine
      stretches wall time, not CPU time);
  (b) per filter keystroke: our own work (filtering every row, handing the result to the
      table, drawing the visible lines), for every prefix typed; and the whole keystroke
      through Pilot, wall and CPU time, beside a cursor keystroke (Textual's own cost);
  (c) launch to the first topic name on a real terminal (tmux), for kafka-tui and for
      kaskade (pip package `kaskade`, a Textual Kafka TUI), against the same cluster.

The seeding and the launches keep kafka-tui's journal of recent changes in the bench's own
folder, apart: the launches model opening the TUI on a large cluster, not the first read
after creating 10,000 topics (that read checks each of them against the journal).

Usage: python bench/tui_load.py [--topics 10000] [--keep]
Needs tmux for (c) (apt-get install tmux). kaskade is installed into its own virtual
environment under ~/.cache/kafka-tui/bench-kaskade (its Textual pin differs from ours).
Nothing here asserts a time; it prints figures.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from kafka_tui.admin import ConnectionSettings, KafkaAdmin, TopicSpec
from kafka_tui.config import Profile, Settings
from kafka_tui.devcluster import DevCluster
from kafka_tui.devcluster.jars import cache_root
from kafka_tui.tui.app import KafkaTuiApp, make_app
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


@dataclass
class Launch:
    wall: float
    cpu: float


@dataclass
class Keystrokes:
    own: list[float] = field(default_factory=list)
    own_cpu: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    cursor_wall: list[float] = field(default_factory=list)
    cursor_cpu: list[float] = field(default_factory=list)


def app_for(bootstrap: str) -> KafkaTuiApp:
    profile = Profile("bench", ConnectionSettings(bootstrap, request_timeout_ms=120_000))
    return make_app(Settings(profiles={"bench": profile}), profile, refresh_seconds=0)


async def launch(bootstrap: str, count: int) -> Launch:
    started, cpu = time.perf_counter(), time.process_time()
    app = app_for(bootstrap)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, MetadataScreen)
        await screen.loaded.wait()
        await pilot.pause()
        result = Launch(time.perf_counter() - started, time.process_time() - cpu)
        assert len(screen.query_one(TopicTable).rows) >= count
    return result


def own_work(screen: MetadataScreen, table: TopicTable, text: str) -> tuple[float, float]:
    """Filtering every row, handing the result to the table, drawing its visible lines:
    wall and CPU time."""
    started, cpu = time.perf_counter(), time.process_time()
    screen.filters.text = text
    screen.apply_filters()
    for y in range(table.size.height):
        table.render_line(y)
    return time.perf_counter() - started, time.process_time() - cpu


async def keystrokes(bootstrap: str, typed: str, rounds: int = 3) -> Keystrokes:
    found = Keystrokes()
    app = app_for(bootstrap)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, MetadataScreen)
        await screen.loaded.wait()
        await pilot.pause()
        table = screen.query_one(TopicTable)
        for _ in range(rounds):
            for n in range(1, len(typed) + 1):
                wall, cpu = own_work(screen, table, typed[:n])
                found.own.append(wall)
                found.own_cpu.append(cpu)
        await pilot.press("slash")
        for _ in range(rounds):
            for char in typed:
                before, cpu = time.perf_counter(), time.process_time()
                await pilot.press(char)
                await pilot.pause()
                found.wall.append(time.perf_counter() - before)
                found.cpu.append(time.process_time() - cpu)
            assert [r.name for r in table.rows] == [f"{typed}{i}" for i in range(10)]
            await pilot.press("escape")
            await pilot.pause()
            await pilot.press("slash")
        await pilot.press("escape")
        await pilot.pause()
        for _ in range(10 * rounds):
            before, cpu = time.perf_counter(), time.process_time()
            await pilot.press("down")
            await pilot.pause()
            found.cursor_wall.append(time.perf_counter() - before)
            found.cursor_cpu.append(time.process_time() - cpu)
    return found


async def in_process(bootstrap: str, count: int) -> tuple[list[Launch], Keystrokes]:
    launches = []
    for _ in range(5):
        # A finished app is cyclic garbage holding a whole cluster's rows: collect it now,
        # or the next measurement pays for it.
        gc.collect()
        launches.append(await launch(bootstrap, count))
    gc.collect()
    return launches, await keystrokes(bootstrap, "bench-0999")


def kaskade_bin() -> Path:
    venv = cache_root() / "bench-kaskade"
    binary = venv / "bin" / "kaskade"
    if not binary.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", KASKADE], check=True)
    return binary


def in_tmux(command: str, needle: str, timeout: float = 120.0) -> float:
    """Seconds from starting `command` in a 120x40 tmux window until `needle` is on screen.

    Each run has its own tmux server (socket), so neither another tmux user nor the previous
    server shutting down gets in the way."""
    tmux = ["tmux", "-L", f"kafka-tui-bench-{os.getpid()}-{time.monotonic_ns()}"]
    started = time.perf_counter()
    subprocess.run([*tmux, "new-session", "-d", "-x", "120", "-y", "40", command], check=True)
    try:
        while time.perf_counter() - started < timeout:
            screen = subprocess.run(
                [*tmux, "capture-pane", "-p"], capture_output=True, text=True
            ).stdout
            if needle in screen:
                return time.perf_counter() - started
            time.sleep(0.05)
        raise SystemExit(f"'{needle}' never appeared for: {command}\n{screen}")
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--keep", action="store_true", help="leave the cluster running")
    args = parser.parse_args()

    os.environ.setdefault("KAFKA_TUI_BROKER_HEAP_MB", "1536")
    folder = Path(tempfile.gettempdir()) / "kafka-tui-bench-tui"
    cluster = DevCluster(folder)
    cluster.up("kraft", brokers=3)
    bootstrap = cluster.bootstrap_servers()
    try:
        os.environ["KAFKA_TUI_JOURNAL"] = str(folder / "seeding-journal.jsonl")
        seeded = asyncio.run(seed(bootstrap, args.topics))
        print(f"{args.topics} topics x 3 partitions (RF 1) on KRaft; created in {seeded:.1f}s")
        launch_journal = folder / "launch-journal.jsonl"
        launch_journal.unlink(missing_ok=True)
        os.environ["KAFKA_TUI_JOURNAL"] = str(launch_journal)
        launches, keys = asyncio.run(in_process(bootstrap, args.topics))
        walls = [x.wall for x in launches]
        print(
            f"(a) kafka-tui, launch to populated table (in-process): first {walls[0]:.2f}s, "
            f"median of {len(walls)} {statistics.median(walls):.2f}s; "
            f"CPU time median {statistics.median(x.cpu for x in launches):.2f}s"
        )

        def ms(values: list[float]) -> str:
            return (
                f"median {statistics.median(values) * 1000:.1f} ms, max {max(values) * 1000:.1f} ms"
            )

        print(
            f"(b) our own work per filter keystroke ({len(keys.own)} keystrokes): wall "
            f"{ms(keys.own)}; CPU {ms(keys.own_cpu)}"
        )
        print(f"    a filter keystroke through Pilot: wall {ms(keys.wall)}; CPU {ms(keys.cpu)}")
        print(
            f"    a cursor keystroke through Pilot (Textual's own cost): wall "
            f"{ms(keys.cursor_wall)}; CPU {ms(keys.cursor_cpu)}"
        )
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
