"""Where a Spark application's time went, from its event log (`spark.eventLog.enabled`; the
bench scripts' `--event-log DIR`): the application's start to its first job, then per job and
per stage the wall time, tasks, and the tasks' summed run, CPU, GC, deserialisation, result
serialisation, shuffle read/write (bytes, fetch wait, write time) and the scheduler's delay
(launch to start of run), and the Python workers' time when Spark records it.

Usage: python bench/spark_events.py EVENT_LOG_DIR_OR_FILE... (zstd, lz4 or plain files;
zstd through cramjam). Nothing here asserts anything.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def events(path: Path) -> Iterator[dict[str, Any]]:
    files = sorted(path.rglob("events_*")) if path.is_dir() else [path]
    for file in files:
        data = file.read_bytes()
        if file.name.endswith(".zstd"):
            import cramjam

            data = bytes(cramjam.zstd.decompress(data))
        for line in data.decode().splitlines():
            if line.strip():
                yield json.loads(line)


def _metric(task: dict[str, Any], *names: str) -> float:
    value: Any = task.get("Task Metrics") or {}
    for name in names:
        value = value.get(name, {}) if isinstance(value, dict) else {}
    return float(value) if isinstance(value, int | float) else 0.0


def summary(path: Path) -> None:
    start = end = 0
    executors: list[tuple[int, str, str]] = []
    jobs: dict[int, dict[str, Any]] = {}
    stage_job: dict[int, int] = {}
    stages: dict[int, dict[str, Any]] = {}
    tasks: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for event in events(path):
        kind = event["Event"]
        if kind == "SparkListenerApplicationStart":
            start = event["Timestamp"]
            print(f"application {event.get('App Name')} ({event.get('App ID')})")
        elif kind == "SparkListenerApplicationEnd":
            end = event["Timestamp"]
        elif kind == "SparkListenerExecutorAdded":
            info = event["Executor Info"]
            executors.append((event["Timestamp"], event["Executor ID"], info.get("Total Cores")))
        elif kind == "SparkListenerJobStart":
            jobs[event["Job ID"]] = {"start": event["Submission Time"], "stages": []}
            for stage in event["Stage Infos"]:
                stage_job[stage["Stage ID"]] = event["Job ID"]
        elif kind == "SparkListenerJobEnd":
            jobs[event["Job ID"]]["end"] = event["Completion Time"]
        elif kind == "SparkListenerStageCompleted":
            info = event["Stage Info"]
            stages[info["Stage ID"]] = info
        elif kind == "SparkListenerTaskEnd":
            task = event["Task Info"]
            task["Task Metrics"] = event.get("Task Metrics") or {}
            tasks[event["Stage ID"]].append(task)
    for at, executor, cores in executors:
        print(f"  executor {executor} ({cores} cores) added at +{(at - start) / 1000:.1f}s")
    first = min((j["start"] for j in jobs.values()), default=start)
    print(
        f"  start to first job: {(first - start) / 1000:.1f}s; whole: {(end - start) / 1000:.1f}s"
    )
    head = (
        f"  {'stage':>5} {'job':>3} {'tasks':>5} {'wall':>7} {'run':>7} {'cpu':>7} {'gc':>6} "
        f"{'deser':>6} {'sched':>6} {'shW MB':>7} {'shR MB':>7} {'fetchW':>6} {'rem MB':>6}  name"
    )
    print(head)
    totals: dict[str, float] = defaultdict(float)
    for stage_id in sorted(stages):
        info = stages[stage_id]
        ran = tasks.get(stage_id, [])
        if not ran:
            continue
        wall = (info.get("Completion Time", 0) - info.get("Submission Time", 0)) / 1000
        run = sum(_metric(t, "Executor Run Time") for t in ran) / 1000
        cpu = sum(_metric(t, "Executor CPU Time") for t in ran) / 1e9
        gc = sum(_metric(t, "JVM GC Time") for t in ran) / 1000
        deser = sum(_metric(t, "Executor Deserialize Time") for t in ran) / 1000
        sched = 0.0
        for t in ran:
            duration = t["Finish Time"] - t["Launch Time"]
            metrics = t["Task Metrics"]
            sched += (
                duration
                - metrics.get("Executor Run Time", 0)
                - metrics.get("Executor Deserialize Time", 0)
                - metrics.get("Result Serialization Time", 0)
            ) / 1000
        written = sum(_metric(t, "Shuffle Write Metrics", "Shuffle Bytes Written") for t in ran)
        read_local = sum(_metric(t, "Shuffle Read Metrics", "Local Bytes Read") for t in ran)
        read_remote = sum(_metric(t, "Shuffle Read Metrics", "Remote Bytes Read") for t in ran)
        fetch = sum(_metric(t, "Shuffle Read Metrics", "Fetch Wait Time") for t in ran) / 1000
        for key, value in (("wall", wall), ("run", run), ("cpu", cpu), ("gc", gc),
                           ("deser", deser), ("sched", sched), ("fetch", fetch)):  # fmt: skip
            totals[key] += value
        name = info.get("Stage Name", "")[:48]
        print(
            f"  {stage_id:>5} {stage_job.get(stage_id, -1):>3} {len(ran):>5} {wall:>7.1f} "
            f"{run:>7.1f} {cpu:>7.1f} {gc:>6.1f} {deser:>6.1f} {sched:>6.1f} "
            f"{written / 1e6:>7.1f} {(read_local + read_remote) / 1e6:>7.1f} {fetch:>6.1f} "
            f"{read_remote / 1e6:>6.1f}  {name}"
        )
    print(
        "  total: "
        + ", ".join(f"{k} {v:.1f}s" for k, v in totals.items())
        + f"; jobs {len(jobs)}, stages run {len([s for s in stages if tasks.get(s)])}"
    )
    gaps = 0.0
    last = first
    for job in sorted(jobs.values(), key=lambda j: j["start"]):
        gaps += max(0, job["start"] - last) / 1000
        last = max(last, job.get("end", job["start"]))
    print(
        f"  driver time between jobs: {gaps:.1f}s; after the last job: {(end - last) / 1000:.1f}s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("paths", nargs="+", type=Path)
    args = parser.parse_args()
    for path in args.paths:
        summary(path)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
