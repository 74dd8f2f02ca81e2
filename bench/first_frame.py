"""The TUI's first frame on the demo cluster, from the process's start (issue 52.1's goal:
<= 0.5 s).

Starts a 3-broker KRaft dev cluster in its own folder and seeds it as `kafka-tui demo` does
(the demo topics and groups, broker 3 stopped: offline replicas show; no traffic). Then, in
rounds, `kafka-tui --bootstrap-server B` in a fresh 120x40 tmux window (its own tmux server):
the time from the window's start to the topics screen showing the demo topics (a topic name
on screen, polled every 10 ms), and the process's CPU time at that moment (/proc, 10 ms
ticks). Beside it, the floor of the method: a Python process printing a line in the same
kind of window (tmux's start, Python's start, the polling). With `--against REF` (repeatable),
also the same command with kafka_tui as at git revision REF (exported to a temporary folder),
or from a folder REF holding a kafka_tui tree (put first on PYTHONPATH), in the same rounds: a
change's before and after side by side. Prints min and median, the ratios, and the load
average. Asserts nothing.

Usage: python bench/first_frame.py [--rounds 10] [--keep] [--dir DIR] [--against REF ...]
Needs tmux (apt-get install tmux).
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

NEEDLE = "customer-profiles"  # a demo topic: on screen once the topics table is drawn
TICK = os.sysconf("SC_CLK_TCK")


def _cpu_of(pid: int) -> float:
    """CPU seconds (user + system) of a running process and its waited-for children."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / TICK


def in_tmux(command: str, needle: str, timeout: float = 60.0) -> tuple[float, float]:
    """(seconds from starting `command` in a 120x40 tmux window until `needle` is on screen,
    the command's CPU seconds then). The command is exec'd, so the pane's process is it."""
    tmux = ["tmux", "-L", f"kafka-tui-frame-{os.getpid()}-{time.monotonic_ns()}"]
    started = time.perf_counter()
    subprocess.run(
        [*tmux, "new-session", "-d", "-x", "120", "-y", "40", f"exec {command}"], check=True
    )
    screen = ""
    try:
        pid = int(
            subprocess.run(
                [*tmux, "list-panes", "-F", "#{pane_pid}"], capture_output=True, text=True
            ).stdout.split()[0]
        )
        while time.perf_counter() - started < timeout:
            screen = subprocess.run(
                [*tmux, "capture-pane", "-p"], capture_output=True, text=True
            ).stdout
            if needle in screen:
                return time.perf_counter() - started, _cpu_of(pid)
            time.sleep(0.01)
        raise SystemExit(f"'{needle}' never appeared for: {command}\n{screen}")
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)


def _tree(ref: str) -> Path:
    """The folder holding kafka_tui as at git revision `ref` (exported to a temporary folder)
    or in folder `ref`, compiled (as an installed one is)."""
    if (Path(ref) / "kafka_tui").is_dir():
        subprocess.run([sys.executable, "-m", "compileall", "-q", ref], check=True)
        return Path(ref).resolve()
    folder = Path(tempfile.mkdtemp(prefix="kafka-tui-at-"))
    repo = Path(__file__).resolve().parent.parent
    archive = subprocess.run(
        ["git", "-C", str(repo), "archive", ref, "kafka_tui"], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(folder)], check=True)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--keep", action="store_true", help="leave the cluster running")
    parser.add_argument(
        "--dir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "kafka-tui-bench-first-frame",
        help="the cluster's folder (a cluster already up there is reused)",
    )
    parser.add_argument(
        "--against",
        metavar="REF",
        action="append",
        default=[],
        help="also time kafka_tui at git REF, or in folder REF (repeatable)",
    )
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        raise SystemExit("needs tmux (apt-get install tmux)")
    others = {ref: _tree(ref) for ref in args.against}

    from kafka_tui.devcluster import DevCluster
    from kafka_tui.devcluster.seed import (
        DEMO_STOPPED_BROKER,
        seed_demo_groups,
        seed_demo_topics,
    )

    folder = args.dir
    cluster = DevCluster(folder)
    state = cluster.up("kraft", brokers=3)
    bootstrap = cluster.bootstrap_servers(state)
    env = {
        "KAFKA_TUI_JOURNAL": str(folder / "journal.jsonl"),
        "KAFKA_TUI_AUDIT_LOG": str(folder / "audit.jsonl"),
        "KAFKA_TUI_CONFIG": str(folder / "no-config.toml"),
    }
    os.environ.update(env)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # compiled once, as an installed one is
    try:
        seed_demo_topics(bootstrap)
        seed_demo_groups(bootstrap)
        if cluster.status()["brokers"][DEMO_STOPPED_BROKER - 1]["running"]:
            cluster.stop_broker(DEMO_STOPPED_BROKER)
        script = Path(sys.executable).parent / "kafka-tui"
        ours = f"{shlex.quote(str(script))} --bootstrap-server {bootstrap}"
        floor = f"{shlex.quote(sys.executable)} -c \"print('ready'); import time; time.sleep(30)\""
        frames: list[tuple[float, float]] = []
        floors: list[tuple[float, float]] = []
        befores: dict[str, list[tuple[float, float]]] = {ref: [] for ref in others}
        kinds = [(frames, ours, NEEDLE), (floors, floor, "ready")]
        for ref, tree in others.items():
            kinds.append((befores[ref], f"env PYTHONPATH={shlex.quote(str(tree))} {ours}", NEEDLE))
        print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        for k in range(args.rounds):
            for into, command, needle in kinds if k % 2 == 0 else reversed(kinds):
                into.append(in_tmux(command, needle))
            print(f"  round {k + 1}/{args.rounds}: {frames[-1][0]:.3f} s", file=sys.stderr)
        print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        labelled = [("kafka-tui first frame", frames), ("python prints a line", floors)]
        labelled += [(f"at {ref}", values) for ref, values in befores.items()]
        for label, values in labelled:
            walls = [w for w, _ in values]
            cpus = [c for _, c in values]
            print(
                f"{label:24} wall min {min(walls):.3f} s, median {statistics.median(walls):.3f} s; "
                f"CPU median {statistics.median(cpus):.2f} s ({len(values)} runs)"
            )
        beyond = statistics.median(w for w, _ in frames) - statistics.median(w for w, _ in floors)
        print(f"first frame minus the floor (medians): {beyond:.3f} s")
        for ref, values in befores.items():
            for what, pick in (("wall", 0), ("CPU", 1)):
                now = statistics.median(v[pick] for v in frames)
                then = statistics.median(v[pick] for v in values)
                print(f"{what} median: this tree / {ref} = {now / then:.2f}")
    finally:
        if not args.keep:
            cluster.down(kill=True)


if __name__ == "__main__":
    main()
