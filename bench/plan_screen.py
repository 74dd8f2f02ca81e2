"""The TUI's plan screen on big plans (issue 29): does it stay responsive at 1,000,000 new
partitions?

For each size, in a process of its own: the app on the replay of tests/data/kraft-big.json.gz
(recorded from a real 3-broker KRaft cluster: 1,008 topics, 10,033 partitions; nothing is sent
anywhere), the plan screen (`P`) opening a CSV plan of N new partitions (topics of 5, RF 3),
`ctrl+r` placing it with the local engine, then the cursor moved through the plan's topics.
Prints: reading the file, placing (the worker), filling the screen (chart, statistics, the
topics table: `PlanScreen._show`), a cursor key (`down`, `pagedown`, `end`,
`home`; through Pilot, wall and the process's CPU, which includes the drill-down of the
highlighted topic and the frame drawn), and resident memory (after the replay is loaded, and
the peak).

Usage: python bench/plan_screen.py [--sizes 10000,100000,1000000] [--keys 20]
Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT)]

from textual.widgets import Static  # noqa: E402

from kafka_tui.services.plan_documents import PlanDocument  # noqa: E402
from kafka_tui.tui.screens.metadata import MetadataScreen  # noqa: E402
from kafka_tui.tui.screens.plan import PlanScreen  # noqa: E402
from kafka_tui.tui.widgets.plan_topics import PlanTopics  # noqa: E402
from tests.tui.replay import Recording, load_recording, replay_app  # noqa: E402

SOURCE = "kraft-big"
PARTITIONS_PER_TOPIC = 5


def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def write_plan(folder: Path, partitions: int) -> Path:
    path = folder / f"plan-{partitions}.csv"
    rows = ["topic,partitions,replication_factor"]
    rows += [f"bench-{n:07d},{PARTITIONS_PER_TOPIC},3" for n in range(partitions // 5)]
    path.write_text("\n".join(rows) + "\n")
    return path


async def until(predicate: Any, pilot: Any, limit: float = 900.0) -> None:
    started = time.perf_counter()
    while not predicate():
        if time.perf_counter() - started > limit:
            raise SystemExit("the plan screen did not finish in time")
        await pilot.pause(0.05)


async def session(plan: Path, partitions: int, keys: int) -> dict[str, Any]:
    recording = Recording.of(SOURCE, load_recording(SOURCE))
    rss_replay = _status_kb("VmRSS")
    app = replay_app(recording)
    found: dict[str, Any] = {"rss_replay_mb": rss_replay / 1024}
    shown: list[tuple[float, float]] = []
    show = PlanScreen._show

    def timed_show(screen: PlanScreen, document: PlanDocument) -> None:
        started, cpu = time.perf_counter(), time.process_time()
        show(screen, document)
        shown.append((time.perf_counter() - started, time.process_time() - cpu))

    PlanScreen._show = timed_show  # type: ignore[method-assign]
    try:
        async with app.run_test(size=(120, 48)) as pilot:
            metadata = app.screen
            assert isinstance(metadata, MetadataScreen)
            await metadata.loaded.wait()
            await app.workers.wait_for_complete()
            await pilot.press("P")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, PlanScreen)
            await pilot.press(*str(plan))
            started = time.perf_counter()
            await pilot.press("ctrl+o")  # read only (enter reads and places)
            await until(lambda: screen.intents is not None, pilot)
            found["read_s"] = time.perf_counter() - started
            started = time.perf_counter()
            await pilot.press("ctrl+r")
            await until(lambda: bool(shown), pilot)
            await pilot.pause()
            found["place_and_show_s"] = time.perf_counter() - started
            found["show_s"], found["show_cpu_s"] = shown[0]
            table = screen.query_one(PlanTopics)
            found["rows"] = table.row_count
            table.focus()
            await pilot.pause()
            for key in ("down", "pagedown", "end", "home"):
                walls, cpus = [], []
                for _ in range(keys if key == "down" else 3):
                    before, cpu = time.perf_counter(), time.process_time()
                    await pilot.press(key)
                    await pilot.pause()
                    walls.append(time.perf_counter() - before)
                    cpus.append(time.process_time() - cpu)
                found[key] = walls
                found[key + "_cpu"] = cpus
                if key == "end":  # the drill-down follows the cursor to the last topic
                    detail = str(screen.query_one("#plan-topic-detail", Static).render())
                    last = f"bench-{partitions // PARTITIONS_PER_TOPIC - 1:07d}:"
                    assert detail.startswith(last), detail[:80]
    finally:
        PlanScreen._show = show  # type: ignore[method-assign]
    found["rss_peak_mb"] = _status_kb("VmHWM") / 1024
    found["maxrss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return found


def child(partitions: int, keys: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        plan = write_plan(Path(folder), partitions)
        found = asyncio.run(session(plan, partitions, keys))
    print(json.dumps({"partitions": partitions, **found}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--keys", type=int, default=20)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.keys)
        return
    print(
        f"The plan screen on the replay of {SOURCE} (3 brokers), a CSV plan of topics of "
        f"{PARTITIONS_PER_TOPIC} partitions, RF 3, local engine, 120x48; keys through Pilot "
        "(median, max), CPU of the process:"
    )
    for size in (int(s) for s in args.sizes.split(",")):
        proc = subprocess.run(
            [sys.executable, __file__, "--child", str(size), "--keys", str(args.keys)],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode:
            raise SystemExit(f"{size} partitions failed:\n{proc.stderr[-3000:]}")
        r = json.loads(proc.stdout.strip().splitlines()[-1])

        def ms(values: list[float]) -> str:
            return f"{statistics.median(values) * 1000:.0f} ms (max {max(values) * 1000:.0f})"

        print(
            f"  {size:>9,} partitions ({r['rows']:,} topics): read {r['read_s']:.2f} s; placed "
            f"and shown {r['place_and_show_s']:.2f} s, of which the screen filled in "
            f"{r['show_s']:.2f} s (CPU {r['show_cpu_s']:.2f} s)"
        )
        print(
            "      keys: "
            + "; ".join(f"{k} {ms(r[k])}, CPU {ms(r[k + '_cpu'])}" for k in ("down", "end"))
            + f"; RSS replay {r['rss_replay_mb']:.0f} MB, peak {r['rss_peak_mb']:.0f} MB"
        )
        print(
            "      "
            + "; ".join(f"{k} {ms(r[k])}, CPU {ms(r[k + '_cpu'])}" for k in ("pagedown", "home"))
        )


if __name__ == "__main__":
    main()
