"""A broker killed in the middle of a bulk change: is every topic reported, and truly?

For each kind of cluster (KRaft 4.1, ZooKeeper-mode 3.9), a fresh 3-broker cluster in a temp
folder; four scenarios in a row, each one `kafka-tui --output json ...` process with broker 2
SIGKILLed 1.5 s after the process starts (a real kill, not a freeze):
  create   `topics create` of N topics (3 partitions, RF 2)
  grow     `topics alter --partitions 6` of those topics
  delete   `topics delete --yes` of those topics
  plan     `plan apply --yes` of an N-topic plan file (3 partitions, RF 2; planned, then applied)
After each, broker 2 is started again and the cluster settles (every broker shows the same
thing twice in a row); then every topic's reported result is compared with the metadata:
reported ok / reported failed / timed out ("may still complete — check again") / done (the
change is in the cluster) / misreported (reported failed but done; reported ok but not done).

Usage: python bench/faults.py [--modes kraft,zk] [--topics 2000] [--kill-after 1.5] [--keep]
Prints a table; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kafka_tui.admin import ConnectionSettings, KafkaAdmin
from kafka_tui.devcluster import DevCluster

VICTIM = 2


@dataclass
class Outcome:
    mode: str
    scenario: str
    exit_code: int
    seconds: float
    reported: int
    ok: int
    failed: int
    timed_out: int
    done: int
    false_failures: int
    false_successes: int
    timed_out_done: int
    # Whether broker 2 died while the process still ran (a fast run can end before the kill).
    killed_mid_run: bool
    note: str = ""


def kafka_tui(bootstrap: str, zookeeper: str | None, *args: str) -> list[str]:
    cmd = [sys.executable, "-m", "kafka_tui.cli", "--bootstrap-server", bootstrap]
    cmd += ["--zookeeper", zookeeper] if zookeeper else []
    return [*cmd, "--output", "json", *args]


Run = tuple[int, float, str, str, bool]


def run_with_a_kill(cmd: list[str], dev: DevCluster, kill_after: float) -> Run:
    """Run `cmd`; SIGKILL broker 2 `kill_after` seconds after the process starts."""
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    killed: list[bool] = []

    def kill() -> None:
        killed.append(proc.poll() is None)
        dev.stop_broker(VICTIM, kill=True)

    timer = threading.Timer(kill_after, kill)
    timer.start()
    out, err = proc.communicate()
    seconds = time.perf_counter() - started
    timer.join()
    return proc.returncode, seconds, out, err, bool(killed and killed[0])


async def _views(bootstrap: str, names: list[str]) -> list[dict[str, int]]:
    """Each live broker's view: topic -> partition count, for the names it lists."""
    async with KafkaAdmin(ConnectionSettings(bootstrap, request_timeout_ms=120_000)) as admin:
        views = []
        for node in sorted(b.nodeId for b in admin.client.cluster.brokers()):
            metadata = await admin._metadata(names, node)
            views.append({t.name: len(t.partitions) for t in metadata.topics if not t.error_code})
        return views


def settled_view(bootstrap: str, names: list[str], timeout: float = 600) -> dict[str, int]:
    """Once every broker shows the same, twice 3 s apart: the cluster's state."""
    started = time.perf_counter()
    last: dict[str, int] | None = None
    while time.perf_counter() - started < timeout:
        views = asyncio.run(_views(bootstrap, names))
        if len(views) == 3 and all(v == views[0] for v in views):
            if views[0] == last:
                return last
            last = views[0]
        else:
            last = None
        time.sleep(3)
    raise SystemExit(f"the brokers did not settle within {timeout}s")


def restart_victim(dev: DevCluster) -> None:
    if not any(b["running"] for b in dev.status()["brokers"] if b["id"] == VICTIM):
        dev.start_broker(VICTIM)


def compare(
    mode: str,
    scenario: str,
    names: list[str],
    run: Run,
    done: set[str],
) -> Outcome:
    code, seconds, out, err, mid_run = run
    try:
        results: list[dict[str, Any]] = json.loads(out)
    except json.JSONDecodeError:
        results = []
    by_topic = {r["topic"]: r for r in results}
    ok = {t for t, r in by_topic.items() if r["ok"]}
    timed_out = {t for t, r in by_topic.items() if r.get("error") == "REQUEST_TIMED_OUT"}
    failed = set(by_topic) - ok - timed_out
    note = "" if results else f"no per-topic results: {err.strip()[-200:]}"
    missing = len(set(names) - set(by_topic))
    if missing and results:
        note = f"{missing} topic(s) not reported"
    return Outcome(
        mode,
        scenario,
        code,
        seconds,
        len(by_topic),
        len(ok),
        len(failed),
        len(timed_out),
        len(done & set(names)),
        len(failed & done),
        len(ok - done),
        len(timed_out & done),
        mid_run,
        note,
    )


def scenarios(dev: DevCluster, mode: str, n: int, kill_after: float) -> list[Outcome]:
    status = dev.status()
    bootstrap, zookeeper = status["bootstrap_servers"], status["zookeeper"]
    names = [f"fault-{mode}-{i:05d}" for i in range(n)]
    outcomes = []

    def scenario(name: str, args: list[str], topics: list[str], check: Any) -> None:
        run = run_with_a_kill(kafka_tui(bootstrap, zookeeper, *args), dev, kill_after)
        restart_victim(dev)
        view = settled_view(bootstrap, topics)
        outcome = compare(mode, name, topics, run, {t for t in topics if check(view.get(t))})
        outcomes.append(outcome)
        print(f"  {name}: {outcome}", flush=True)

    create = ["topics", "create", *names, "--partitions", "3", "--replication-factor", "2"]
    scenario("create", create, names, lambda p: p is not None)
    scenario(
        "grow",
        ["topics", "alter", *names, "--partitions", "6"],
        names,
        lambda p: p is not None and p >= 6,
    )
    scenario("delete", ["topics", "delete", *names, "--yes"], names, lambda p: p is None)

    planned = [f"fault-plan-{mode}-{i:05d}" for i in range(n)]
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
        f.write("topic,partitions,replication_factor,min_required_replication_factor,configs\n")
        f.writelines(f"{t},3,2,,\n" for t in planned)
    try:
        scenario("plan apply", ["plan", "apply", f.name, "--yes"], planned, lambda p: p is not None)
    finally:
        os.unlink(f.name)
    return outcomes


HEADER = (
    f"{'mode':6} {'scenario':11} {'exit':>4} {'seconds':>7} {'reported':>8} {'ok':>6} "
    f"{'failed':>6} {'timed out':>9} {'done':>6} {'false fail':>10} {'false ok':>8} "
    f"{'t/o done':>8} {'killed mid-run':>14}"
)
ROW = (
    "{o.mode:6} {o.scenario:11} {o.exit_code:>4} {o.seconds:>7.1f} {o.reported:>8} {o.ok:>6} "
    "{o.failed:>6} {o.timed_out:>9} {o.done:>6} {o.false_failures:>10} {o.false_successes:>8} "
    "{o.timed_out_done:>8} {o.killed_mid_run!s:>14}"
)


def table(outcomes: list[Outcome]) -> str:
    lines = [HEADER]
    for o in outcomes:
        lines.append(ROW.format(o=o))
        if o.note:
            lines.append(f"    note: {o.note}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modes", default="kraft,zk")
    parser.add_argument("--topics", type=int, default=2000)
    parser.add_argument("--kill-after", type=float, default=1.5, metavar="SECONDS")
    parser.add_argument("--keep", action="store_true", help="leave the clusters running")
    args = parser.parse_args()

    os.environ.setdefault("KAFKA_TUI_BROKER_HEAP_MB", "1024")
    # The runs' journal of recent changes is their own, not the user's.
    state = Path(tempfile.mkdtemp(prefix="kafka-tui-bench-faults-"))
    os.environ["KAFKA_TUI_JOURNAL"] = str(state / "recent-changes.jsonl")
    os.environ["KAFKA_TUI_AUDIT_LOG"] = str(state / "audit.jsonl")
    outcomes: list[Outcome] = []
    for mode in args.modes.split(","):
        dev = DevCluster(Path(tempfile.gettempdir()) / f"kafka-tui-bench-faults-{mode}")
        dev.down()
        started = time.perf_counter()
        dev.up(mode, brokers=3)
        print(f"{mode}: 3 brokers up in {time.perf_counter() - started:.1f}s", flush=True)
        try:
            outcomes += scenarios(dev, mode, args.topics, args.kill_after)
        finally:
            if not args.keep:
                dev.down()
    print(
        f"\n{args.topics} topics, broker {VICTIM} SIGKILLed {args.kill_after}s after the "
        "process started; done = the change is in the cluster once it settled; "
        "false failures = reported failed but done; false successes = reported ok, not done"
    )
    print(table(outcomes))


if __name__ == "__main__":
    main()
