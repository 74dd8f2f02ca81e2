"""What each speed trick of the CLI buys, measured (STYLE 16: a trick stays only where it buys
at least 5% of a figure a user sees).

Usage: python bench/tricks.py [--runs 20] [--bootstrap HOST:PORT]

For each trick, a copy of the `kafka_tui` package with that one trick taken out (a text patch
of the lines that apply it; the bench stops when a patch no longer matches the source) is run
against the package as it is, alternating A B A B, as whole processes: `topics list`,
`topics describe`, `topics create` of one topic (3 partitions, RF 2) and a validate-only create of
2,000 topics (the client's work of a bulk create without the controller's) on a KRaft dev cluster
(started in a temp folder unless --bootstrap names one). Prints each command's median wall and
CPU time (user + system, from the child's rusage) and the pairwise ratio without / with.

Tricks measured:
- lean aiokafka: aiokafka's package __init__ (consumer, producer: ~35 modules) deferred until
  used (admin/lean_aiokafka.py);
- lean process: gc.freeze + a higher collection threshold, and os._exit instead of Python's
  teardown (cli/main.py `_lean_process`, `_exit_now`).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "kafka_tui"

# trick -> (file inside the package, text as it is, text without the trick)
TRICKS: dict[str, tuple[str, str, str]] = {
    "lean aiokafka": (
        "admin/__init__.py",
        "_install_lean_aiokafka()  # before aiokafka is first imported",
        "pass",
    ),
    "lean process": (
        "cli/main.py",
        "            _lean_process()\n"
        "            _exit_now(asyncio.run(_run_admin(args, profile)))",
        "            return asyncio.run(_run_admin(args, profile))",
    ),
}


def variant(where: Path, trick: str | None) -> Path:
    """A copy of the package (without its compiled placer build, in both A and B) with `trick`
    taken out; returns the folder to put on PYTHONPATH."""
    root = where / (trick or "as-is").replace(" ", "-")
    shutil.copytree(PACKAGE, root / "kafka_tui", ignore=shutil.ignore_patterns("__pycache__"))
    if trick is not None:
        name, before, after = TRICKS[trick]
        path = root / "kafka_tui" / name
        text = path.read_text()
        if before not in text:
            raise SystemExit(f"bench/tricks.py: {name} no longer has the '{trick}' lines: update")
        path.write_text(text.replace(before, after, 1))
    return root


def timed(path: Path, argv: list[str]) -> tuple[float, float]:
    """(wall, cpu) seconds of one whole process."""
    env = dict(os.environ, PYTHONPATH=str(path), KAFKA_TUI_PURE_PYTHON="1")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "kafka_tui.cli", *argv],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def commands(bootstrap: str) -> dict[str, object]:
    base = ["--bootstrap-server", bootstrap, "--output", "json", "topics"]
    return {
        "topics list": lambda: [*base, "list"],
        "topics describe": lambda: [*base, "describe"],
        "topics create (one)": lambda: [
            *base,
            "create",
            f"tricks-{uuid.uuid4().hex[:8]}",
            "--partitions",
            "3",
            "--replication-factor",
            "2",
        ],
        # The client's own work of a bulk create (placement, 2,000 results, JSON output)
        # without the controller's, whose noise would hide it.
        "topics create 2,000 (validate only)": lambda: [
            *base,
            "create",
            *(f"tricks-bulk-{n}" for n in range(2_000)),
            "--partitions",
            "3",
            "--replication-factor",
            "3",
            "--validate-only",
        ],
    }


def run(bootstrap: str, runs: int, where: Path) -> None:
    as_is = variant(where, None)
    print(
        f"{'trick':15} {'command':36} {'wall with':>10} {'without':>8} {'ratio':>6}"
        f" {'cpu with':>9} {'without':>8} {'ratio':>6}"
    )
    for trick in TRICKS:
        without = variant(where, trick)
        for label, argv in commands(bootstrap).items():
            a: list[tuple[float, float]] = []
            b: list[tuple[float, float]] = []
            timed(as_is, argv())  # warm-up: page cache, the broker's first answer
            for _ in range(runs):
                b.append(timed(without, argv()))
                a.append(timed(as_is, argv()))
            wall = statistics.median(x[0] / y[0] for x, y in zip(b, a, strict=True))
            cpu = statistics.median(x[1] / y[1] for x, y in zip(b, a, strict=True))
            a_wall, b_wall = (statistics.median(x[0] for x in s) for s in (a, b))
            a_cpu, b_cpu = (statistics.median(x[1] for x in s) for s in (a, b))
            print(
                f"{trick:15} {label:36} {a_wall:10.3f} {b_wall:8.3f} {wall:6.2f}"
                f" {a_cpu:9.3f} {b_cpu:8.3f} {cpu:6.2f}",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument(
        "--bootstrap", help="a running cluster (default: start a KRaft dev cluster)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kafka-tui-tricks-") as tmp:
        where = Path(tmp)
        if args.bootstrap:
            run(args.bootstrap, args.runs, where)
            return
        sys.path.insert(0, str(ROOT))
        from kafka_tui.devcluster import DevCluster

        dev = DevCluster(where / "cluster")
        try:
            dev.up("kraft", brokers=3)
            run(dev.status()["bootstrap_servers"], args.runs, where)
        finally:
            dev.down()


if __name__ == "__main__":
    main()
