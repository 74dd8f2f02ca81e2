"""`kafka-tui plan apply` of 2,000 topics x 3 partitions x RF 3 vs one raw CreateTopics request.

On a fresh KRaft cluster (3 brokers, in a temp folder), alternating per round:
  (P) `kafka-tui plan preview PLAN.csv --save SAVED --output json`: the preview alone (snapshot,
      placement, statistics, the document), a whole process;
  (A) `kafka-tui plan apply SAVED --yes --output json` (default batch size): the re-check, the
      batches of explicit assignments, the final metadata check, a whole process;
  (B) one process sending one raw CreateTopics request through aiokafka (bench/raw_admin.py).
Before each timed command the cluster is quiet (every broker lists the previous change); the
topics are deleted (raw request) between rounds. Prints medians, min-max and the ratios, also
"until listed": the process time plus the wait until every broker lists all the topics (apply
ends with a metadata check, so it waits for the brokers; the raw request returns once the
controller has committed, and the brokers apply 2,000 topics seconds later).

Usage: python bench/plan_apply.py [--topics 2000] [--rounds 3] [--keep]. Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bulk_create import raw, run_process, settle

from kafka_tui.devcluster import KRAFT_VERSION, DevCluster


def kafka_tui(bootstrap: str, *args: str) -> tuple[float, str]:
    cmd = [sys.executable, "-m", "kafka_tui.cli", "--bootstrap-server", bootstrap]
    return run_process([*cmd, "--output", "json", *args])


def plan_file(folder: Path, names: list[str]) -> Path:
    path = folder / "plan.csv"
    header = "topic,partitions,replication_factor,min_required_replication_factor,configs"
    path.write_text("\n".join([header, *(f"{n},3,3,," for n in names)]) + "\n")
    return path


def side_by_side(bootstrap: str, n: int, rounds: int, folder: Path) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {
        "P preview": [],
        "A apply": [],
        "B raw create": [],
        "A until listed": [],
        "B until listed": [],
    }
    for r in range(rounds):
        names = [f"bench-plan-{r}-{i:05d}" for i in range(n)]
        saved = folder / "saved.json"
        seconds, out = kafka_tui(
            bootstrap, "plan", "preview", str(plan_file(folder, names)), "--save", str(saved)
        )
        times["P preview"].append(seconds)
        seconds, out = kafka_tui(bootstrap, "plan", "apply", str(saved), "--yes")
        bad = sum(1 for t in json.loads(out) if not t["ok"])
        times["A apply"].append(seconds)
        waited = settle(bootstrap, names, exist=True)
        times["A until listed"].append(seconds + waited)
        print(
            f"  round {r + 1} P preview {times['P preview'][-1]:6.2f}s, A apply {seconds:6.2f}s"
            f"{f' ({bad} FAILED)' if bad else ''}, brokers caught up {waited:4.1f}s later",
            flush=True,
        )
        raw(bootstrap, "delete", names)
        settle(bootstrap, names, exist=False)

        names = [f"bench-raw-{r}-{i:05d}" for i in range(n)]
        seconds, report = raw(bootstrap, "create", names)
        times["B raw create"].append(seconds)
        waited = settle(bootstrap, names, exist=True)
        times["B until listed"].append(seconds + waited)
        failed = f" ({report['failed']} FAILED)" if report["failed"] else ""
        print(
            f"  round {r + 1} B raw create {seconds:6.2f}s{failed}, "
            f"brokers caught up {waited:4.1f}s later",
            flush=True,
        )
        raw(bootstrap, "delete", names)
        settle(bootstrap, names, exist=False)
    return times


def report(n: int, times: dict[str, list[float]]) -> None:
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"\n== KRaft {KRAFT_VERSION}: {n} topics x 3 partitions x RF 3, median of "
          f"{len(times['A apply'])} (min-max), whole processes ==")  # fmt: skip
    for k, v in times.items():
        print(f"  {k:16} {med[k]:7.2f}s  ({min(v):.2f}-{max(v):.2f})")
    t = times
    ratio("plan apply / raw request", t["A apply"], t["B raw create"])
    ratio("until listed: apply / raw", t["A until listed"], t["B until listed"])
    both = [p + a for p, a in zip(t["P preview"], t["A apply"], strict=True)]
    ratio("(preview + apply) / raw request", both, t["B raw create"])


def ratio(what: str, ours: list[float], raw: list[float]) -> None:
    pairs = [a / b for a, b in zip(ours, raw, strict=True)]
    print(
        f"  {what} = {statistics.median(pairs):.2f}x "
        f"(pairwise median; {min(pairs):.2f}-{max(pairs):.2f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keep", action="store_true", help="leave the cluster running")
    args = parser.parse_args()

    os.environ.setdefault("KAFKA_TUI_BROKER_HEAP_MB", "1024")
    cluster = DevCluster(Path(tempfile.gettempdir()) / "kafka-tui-bench-plan-apply")
    cluster.down()
    started = time.perf_counter()
    cluster.up("kraft", brokers=3)
    print(f"kraft {KRAFT_VERSION}, 3 brokers, up in {time.perf_counter() - started:.1f}s")
    try:
        with tempfile.TemporaryDirectory(prefix="kafka-tui-bench-") as folder:
            times = side_by_side(
                cluster.bootstrap_servers(), args.topics, args.rounds, Path(folder)
            )
    finally:
        if not args.keep:
            cluster.down()
    report(args.topics, times)


if __name__ == "__main__":
    main()
