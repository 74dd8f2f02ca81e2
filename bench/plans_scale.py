"""Bulk plans at scale (issue 29): a CSV plan file through each engine end to end, with the
peak resident memory of the process that runs kafka-tui (the "parent", its own RUSAGE_SELF)
measured apart from Spark's (the job process and its JVM are children: RUSAGE_CHILDREN, the
largest one's peak, shown for information).

Cluster: 30 brokers in racks of 12/8/6/4, brokers 5, 15, 25 offline, skewed load (as
bench/plans.py). Plan: `--partitions` new partitions as topics of `--per-topic` partitions,
RF 3, mode `enabled` (minimum 2 live replicas), written as a CSV file. Each case runs in a fresh
process (`--case`), so each peak is its own:

- in-process: the file read (`plan_io.parse_plan`), prepared, placed, the document written
  to a file, as `plan preview --engine local --save` does (skipped above --in-process-max rows);
- spark-udf: the pre-issue-29 Spark path: the parent reads and prepares the plan, the job
  places one group per task with a plain Python UDF and sends the document back (the
  per-group path; skipped above --udf-max rows);
- streamed: the parent counts the file's lines and reads the summary only; Spark reads,
  checks, prepares, places (`mapInArrow`) and writes the parts directory.

Spark cases run on `local[2]` and on a standalone cluster of 2 workers from the wheel's jars
(`kafka-tui dev-cluster spark`, started once, in a temp folder). The streamed placement is
checked against the in-process one when both ran (topic entries and stats).

Usage: python bench/plans_scale.py [--partitions 100000] [--per-topic 5]
[--cases in-process,spark-udf,streamed] [--masters local[2],standalone]
[--executor-memory 1g] [--keep DIR]. The issue's goal: --partitions 10000000 (2,000,000 rows)
streamed on the standalone cluster within 10 minutes, the parent under 1 GB.
Nothing here asserts anything.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from placement import skewed_load, uneven_cluster

from kafka_tui.devcluster.spark import SparkDevCluster
from kafka_tui.planning import plan_io, plan_rows
from kafka_tui.planning import streamed_parts as plan_parts
from kafka_tui.planning.bulk_plan import ClusterView, PlanOptions, plan_in_process, prepare

OPTIONS = PlanOptions("enabled", 2)


def view() -> ClusterView:
    brokers = tuple(uneven_cluster())
    return ClusterView(brokers, skewed_load(brokers), {}, 1, 3, 2)


def write_plan(path: Path, rows: int, per_topic: int) -> None:
    with path.open("w", encoding="utf-8") as out:
        out.write(",".join(plan_rows.COLUMNS) + "\n")
        for start in range(0, rows, 100_000):
            numbers = range(start, min(rows, start + 100_000))
            out.write("".join(f"t{n:08d},{per_topic},3,,\n" for n in numbers))


def _peak_mb(who: int) -> float:
    return resource.getrusage(who).ru_maxrss / 1024  # kB on Linux


def case_in_process(plan: Path, out: Path) -> dict[str, Any]:
    intents = plan_io.parse_plan(str(plan), plan.read_text(encoding="utf-8"))
    prepared = prepare(view(), intents, OPTIONS)
    del intents
    with out.open("w") as file:
        plan_in_process(prepared, file)
    return {}


def case_spark_udf(plan: Path, out: Path, master: str, conf: dict[str, str]) -> dict[str, Any]:
    from kafka_tui.services.spark_runner import run_spark_job

    intents = plan_io.parse_plan(str(plan), plan.read_text(encoding="utf-8"))
    prepared = prepare(view(), intents, OPTIONS)
    del intents
    text, failure = asyncio.run(run_spark_job(prepared, master, lambda *_: None, conf=conf))
    if text is None:
        raise SystemExit(f"spark-udf failed: {failure}")
    out.write_text(text)
    return {}


def case_streamed(plan: Path, out: Path, master: str, conf: dict[str, str]) -> dict[str, Any]:
    from kafka_tui.services import plan_parts as parts
    from kafka_tui.services.spark_runner import run_streamed_job

    rows = parts.count_rows(plan)
    job = plan_parts.job_to_json(view(), OPTIONS, None, None, plan.name)
    summary, failure = asyncio.run(
        run_streamed_job(str(plan), job, out, master, lambda *_: None, conf=conf)
    )
    if summary is None:
        raise SystemExit(f"streamed failed: {failure}")
    return {"rows_counted": rows, "parts": len(list((out / "topics").glob("part-*")))}


def _cpu_seconds(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def run_case(args: argparse.Namespace) -> None:
    """One case in this process: prints {seconds, parent_mb, children_mb, ...} as JSON."""
    conf = {"spark.executor.memory": args.executor_memory, **_conf(args)}
    plan, out = Path(args.plan), Path(args.out)
    start = time.perf_counter()
    if args.case == "in-process":
        extra = case_in_process(plan, out)
    elif args.case == "spark-udf":
        extra = case_spark_udf(plan, out, args.master, conf)
    else:
        extra = case_streamed(plan, out, args.master, conf)
    seconds = time.perf_counter() - start
    print(
        json.dumps(
            {
                "seconds": round(seconds, 1),
                "parent_mb": round(_peak_mb(resource.RUSAGE_SELF)),
                "children_mb": round(_peak_mb(resource.RUSAGE_CHILDREN)),
                "cpu_s": round(_cpu_seconds(resource.RUSAGE_SELF), 1),
                **extra,
            }
        )
    )


@contextlib.contextmanager
def standalone(wanted: bool, folder: Path, cores: int | None) -> Iterator[str | None]:
    if not wanted:
        yield None
        return
    cluster = SparkDevCluster(folder / "spark-cluster")
    start = time.perf_counter()
    state = cluster.up(2, worker_memory="3g", cores=cores)
    print(
        f"standalone cluster (master + 2 workers of {state.cores_per_worker} cores) up in "
        f"{time.perf_counter() - start:.1f}s"
    )
    _CLUSTER_PIDS[:] = [n.pid for n in (state.master, *state.workers) if n.pid]
    try:
        yield cluster.master_url(state)
    finally:
        cluster.down()


def spawn(
    args: argparse.Namespace, case: str, plan: Path, out: Path, master: str
) -> dict[str, Any]:
    command = [sys.executable, __file__, "--case", case, "--plan", str(plan), "--out", str(out),
               "--master", master, "--executor-memory", args.executor_memory]  # fmt: skip
    for item in args.conf:
        command += ["--conf", item]
    if args.event_log:
        command += ["--event-log", str(args.event_log)]
    sampler = CpuSampler()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    roots = [process.pid, *(_CLUSTER_PIDS if master.startswith("spark://") else [])]
    with sampler.running(roots):
        stdout, stderr = process.communicate()
    if process.returncode != 0:
        return {"failed": (stderr or stdout).strip().splitlines()[-1:]}
    result: dict[str, Any] = json.loads(stdout.strip().splitlines()[-1])
    result.update(sampler.totals())
    return result


_CLUSTER_PIDS: list[int] = []


class CpuSampler:
    """CPU seconds of a process tree (the case's process and its descendants: the Spark job,
    its JVM, the Python workers; with a standalone master also the cluster's master, workers,
    executors and their Python), read from /proc every 0.2 s: each process's own user+system
    time as last seen (a process living under 0.2 s is missed; the cluster's idle daemons are
    counted from the case's start, not their own)."""

    def __init__(self) -> None:
        self.seen: dict[int, tuple[str, float, float]] = {}  # pid: kind, first, last

    @contextlib.contextmanager
    def running(self, roots: list[int]) -> Iterator[None]:
        import threading

        stop = threading.Event()
        thread = threading.Thread(target=self._loop, args=(roots, stop), daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()

    def _loop(self, roots: list[int], stop: Any) -> None:
        tick = os.sysconf("SC_CLK_TCK")
        while True:
            parents: dict[int, list[int]] = {}
            stats: dict[int, tuple[str, float]] = {}
            for entry in Path("/proc").glob("[0-9]*/stat"):
                with contextlib.suppress(OSError, IndexError, ValueError):
                    text = entry.read_text()
                    name = text[text.index("(") + 1 : text.rindex(")")]
                    fields = text.rsplit(")", 1)[1].split()
                    pid = int(entry.parent.name)
                    parents.setdefault(int(fields[1]), []).append(pid)
                    stats[pid] = (name, (int(fields[11]) + int(fields[12])) / tick)
            todo, tree = list(roots), set()
            while todo:
                pid = todo.pop()
                if pid not in tree:
                    tree.add(pid)
                    todo.extend(parents.get(pid, []))
            for pid in tree & stats.keys():
                name, cpu = stats[pid]
                kind = "java" if "java" in name else "python" if "python" in name else "other"
                if pid in self.seen:
                    first = self.seen[pid][1]
                else:  # the cluster's daemons ran before: from now; any other: all of it
                    first = cpu if pid in _CLUSTER_PIDS else 0.0
                self.seen[pid] = (kind, first, cpu)
            if stop.wait(0.2):
                return

    def totals(self) -> dict[str, float]:
        found: dict[str, float] = {}
        for kind, first, last in self.seen.values():
            found[f"{kind}_cpu_s"] = found.get(f"{kind}_cpu_s", 0.0) + last - first
        return {k: round(v, 1) for k, v in found.items()}


def _conf(args: argparse.Namespace) -> dict[str, str]:
    conf = dict(item.split("=", 1) for item in args.conf)
    if args.event_log:
        args.event_log.mkdir(parents=True, exist_ok=True)
        conf["spark.eventLog.enabled"] = "true"
        conf["spark.eventLog.dir"] = str(args.event_log)
    return conf


def same_placement(document: Path, parts_dir: Path) -> bool:
    text = document.read_text()
    inner = text.split('"topics": [\n', 1)[1].split('\n],\n"brokers"', 1)[0]
    files = sorted((parts_dir / "topics").glob("part-*"))
    summary = json.loads((parts_dir / plan_parts.SUMMARY).read_text())
    entries = [line for p in files for line in p.read_text().splitlines()]
    return entries == inner.split(",\n") and summary["stats"] == json.loads(text)["stats"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--partitions", type=int, default=100_000)
    parser.add_argument("--per-topic", type=int, default=5)
    parser.add_argument("--cases", default="in-process,spark-udf,streamed")
    parser.add_argument("--masters", default="local[2],standalone")
    parser.add_argument("--in-process-max", type=int, default=1_000_000, help="rows")
    parser.add_argument("--udf-max", type=int, default=1_000_000, help="rows")
    parser.add_argument("--executor-memory", default="1g")
    parser.add_argument("--keep", type=Path, help="a folder to write the plan and outputs to")
    parser.add_argument(
        "--conf", action="append", default=[], metavar="KEY=VALUE", help="a Spark setting"
    )
    parser.add_argument("--event-log", type=Path, help="Spark's event logs to this folder")
    parser.add_argument(
        "--worker-cores", type=int, help="cores each standalone worker offers (default: all)"
    )
    # one case, in a process of its own (what main() spawns)
    parser.add_argument("--case", help=argparse.SUPPRESS)
    parser.add_argument("--plan", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--master", default="local[2]", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        run_case(args)
        return
    rows = args.partitions // args.per_topic
    cases = args.cases.split(",")
    masters = args.masters.split(",")
    with contextlib.ExitStack() as stack:
        folder = args.keep or Path(
            stack.enter_context(tempfile.TemporaryDirectory(prefix="kafka-tui-scale-"))
        )
        folder.mkdir(parents=True, exist_ok=True)
        plan = folder / "plan.csv"
        start = time.perf_counter()
        write_plan(plan, rows, args.per_topic)
        size = plan.stat().st_size / 1e6
        print(
            f"plan: {rows:,} rows x {args.per_topic} partitions = {rows * args.per_topic:,} new "
            f"partitions, RF 3, {size:.0f} MB CSV (written in {time.perf_counter() - start:.1f}s)"
        )
        print("30 brokers in racks 12/8/6/4, 3 offline, skewed load, mode enabled (min 2 live)")
        line("case", "engine", {"seconds": "seconds", "parent_mb": "parent MB",
                                "children_mb": "children MB", "cpu_s": "CPU-s"},
             "notes (load: the 1-minute load average at the end)")  # fmt: skip
        spark_cases = any(c != "in-process" for c in cases)
        url = stack.enter_context(
            standalone("standalone" in masters and spark_cases, folder, args.worker_cores)
        )
        engines = {"local[2]": "local[2]", "standalone": url}
        document = folder / "in-process.json"
        for case in cases:
            if case == "in-process":
                if rows > args.in_process_max:
                    line(case, "-", {}, "skipped (more than --in-process-max rows)")
                    continue
                found = spawn(args, case, plan, document, "")
                line(case, "-", found, str(found.get("failed", "")))
                continue
            if case == "spark-udf" and rows > args.udf_max:
                line(case, "-", {}, "skipped (more than --udf-max rows)")
                continue
            for name in masters:
                master = engines.get(name) or name
                out = folder / f"{case}-{name.replace('[', '').replace(']', '')}"
                found = spawn(args, case, plan, out, master)
                notes = str(found.get("failed") or "")
                if not notes and document.exists():
                    if case == "streamed":
                        notes = f"same placement as in process: {same_placement(document, out)}"
                    else:
                        ours, theirs = out.read_text(), document.read_text()
                        same = ours.split("\n", 2)[2] == theirs.split("\n", 2)[2]
                        notes = f"same document as in process: {same}"
                line(case, name, found, notes)


def line(case: str, engine: str, found: dict[str, Any], notes: str) -> None:
    seconds, parent, children = (found.get(k, "-") for k in ("seconds", "parent_mb", "children_mb"))
    kinds = [k for k in ("java_cpu_s", "python_cpu_s", "other_cpu_s") if k in found]
    cpu = round(sum(found[k] for k in kinds), 1) if kinds else found.get("cpu_s", "-")
    split = " + ".join(f"{k.split('_')[0]} {found[k]}" for k in kinds)
    load = os.getloadavg()[0]
    print(f"{case:<12} {engine:<12} {seconds:>8} {parent:>10} {children:>12} {cpu:>8} "
          f"{load:>5.1f}  {notes} {f'(CPU-s: {split})' if split else ''}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
