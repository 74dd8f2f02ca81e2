"""One topic created on a cluster of growing size: kafka-tui vs one raw CreateTopics (issue 30).

A create reads the cluster's load first so the placer can balance against it. That read must
not grow with the cluster: the goal is one create within 1.5x one raw request at 30,000
partitions and the same ratio at 3x that.

For each size (topics x partitions, RF 1 topics: the cheapest to hold), on one KRaft cluster
seeded up to that size (seeding is reused across sizes and, with --keep, across runs), in
rounds (the order alternating), each process timed whole on a quiet cluster:
  (A)  `kafka-tui topics create NAME --partitions 3 --replication-factor 1` (kafka-tui places);
  (B)  one raw CreateTopics for the same through aiokafka's own admin client (raw_admin.py);
  (A0) with --before SRC, (A) from another checkout (e.g. `git archive HEAD`, before issue 30);
  (AK) (A) with `--load-max-age 3600`, after one such create (untimed) that kept the load: a
       script's loop of creates. Its own journal (another user's, as it were), so (A)'s and
       (B)'s topics, which it does not see, do not make it count again.
Prints, per size: medians, per-round ratios A/B (and A0/B), the processes' CPU time, and
in-process the reads a create's snapshot makes: the snapshot of the touched topic (load
counted, services/snapshot.py) and the one of every topic, beside one Metadata round trip.

Usage: python bench/create_scaling.py [--sizes 10000,30000] [--partitions 3] [--rounds 5]
       [--brokers 3] [--dir FOLDER] [--before SRC] [--keep]
(90,000 partitions, 3x 30,000, need `--brokers 5` here: a broker holds ~19,800 replicas under
this machine's open-file limit, see big_cluster.py.)
The machine's other work stretches wall times: compare ratios within a run; CPU times are
steadier. Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from kafka_tui.admin import ConnectionSettings, KafkaAdmin, TopicSpec, protocol
from kafka_tui.devcluster import DevCluster

HERE = Path(__file__).resolve().parent
IDLE_SHARE = 0.35  # of one core per JVM over a second; a 90,000-partition broker idles ~15%


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(cmd: list[str], env: dict[str, str], cwd: str | None = None) -> tuple[float, float, Any]:
    """(wall seconds, CPU seconds, the JSON it printed)."""
    cpu = _children_cpu()
    started = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env, cwd=cwd)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[:8]} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return wall, _children_cpu() - cpu, json.loads(proc.stdout)


def ours(
    bootstrap: str, name: str, partitions: int, state: Path, src: str | None, *extra: str
) -> Any:
    cmd = [sys.executable, "-m", "kafka_tui.cli", "--bootstrap-server", bootstrap]
    cmd += ["--output", "json", "topics", "create", name, "--partitions", str(partitions)]
    cmd += ["--replication-factor", "1", *extra]
    env = dict(
        os.environ,
        KAFKA_TUI_JOURNAL=str(state / "recent-changes.jsonl"),
        KAFKA_TUI_AUDIT_LOG=str(state / "audit.jsonl"),
        KAFKA_TUI_LOAD_CACHE=str(state / "load"),
    )
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if src:
        env["PYTHONPATH"] = src
    wall, cpu, out = run(cmd, env, cwd=src)
    assert out[0]["ok"], out
    return wall, cpu


def raw(bootstrap: str, name: str, partitions: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as folder:
        names = Path(folder) / "names.txt"
        names.write_text(name)
        cmd = [sys.executable, str(HERE / "raw_admin.py"), "create", bootstrap, str(names)]
        cmd += ["--partitions", str(partitions), "--rf", "1"]
        wall, cpu, out = run(cmd, dict(os.environ))
    assert out["ok"] == 1, out
    return wall, cpu


def _cpu_ticks(pid: int) -> int:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])


def idle(pids: list[int], timeout: float = 120) -> float:
    """Until every JVM of the cluster used under IDLE_SHARE of a core for a second."""
    started = time.perf_counter()
    hz = os.sysconf("SC_CLK_TCK")
    while time.perf_counter() - started < timeout:
        before = [_cpu_ticks(p) for p in pids]
        time.sleep(1.0)
        after = [_cpu_ticks(p) for p in pids]
        if all((b - a) / hz < IDLE_SHARE for a, b in zip(before, after, strict=True)):
            break
    return time.perf_counter() - started


def _seeded(name: str) -> bool:
    """Topics the cluster holds as its size (any but the probes and Kafka's own)."""
    return not name.startswith(("probe-", "__"))


async def seed(bootstrap: str, topics: int, partitions: int) -> float:
    """Create `seed-NNNNNN` topics until there are `topics` (other topics already there
    count); wait until every broker lists them all. Returns the seconds it took."""
    settings = ConnectionSettings(bootstrap, request_timeout_ms=600_000)
    started = time.perf_counter()
    async with KafkaAdmin(settings) as admin:
        existing = {n for n in await admin.topic_names() if _seeded(n)}
        missing = (f"seed-{i:06d}" for i in range(10 * topics) if f"seed-{i:06d}" not in existing)
        specs = [
            TopicSpec(name, partitions, 1)
            for name, _ in zip(missing, range(topics - len(existing)), strict=False)
        ]
        for i in range(0, len(specs), 2000):
            results = await admin.create_topics(
                specs[i : i + 2000], timeout_ms=600_000, topic_ids=False
            )
            failed = [r for r in results if not r.ok]
            if failed:
                raise SystemExit(f"seeding: {len(failed)} failed: {failed[0].message}")
        while True:
            counts = []
            for node in sorted(b.nodeId for b in admin.client.cluster.brokers()):
                metadata = await admin._metadata_from(None, node, partitions=False)
                counts.append(sum(_seeded(t.name) for t in metadata.topics))
            if min(counts) >= topics:
                break
            await asyncio.sleep(1)
    return time.perf_counter() - started


async def reads(bootstrap: str, runs: int = 5) -> dict[str, float]:
    """In process, best of `runs`: a create's snapshot (the touched topic described, every
    topic's load counted), the snapshot of every topic (issue 30's before), one Metadata
    request for every topic (round trip and decode)."""
    from kafka_tui.services.snapshot import take_snapshot

    found: dict[str, list[float]] = {"snapshot (create)": [], "snapshot (every topic)": []}
    found["Metadata all topics, full decode"] = []
    found["Metadata all topics, load decode"] = []
    async with KafkaAdmin(ConnectionSettings(bootstrap, request_timeout_ms=120_000)) as admin:
        for _ in range(runs):
            started = time.perf_counter()
            await take_snapshot(admin, current=["no-such-topic"], defaults=False)
            found["snapshot (create)"].append(time.perf_counter() - started)
            started = time.perf_counter()
            await take_snapshot(admin, defaults=False)
            found["snapshot (every topic)"].append(time.perf_counter() - started)
            node = admin._reader()
            for key, request in (
                ("Metadata all topics, full decode", protocol.MetadataRequest(None)),
                ("Metadata all topics, load decode", protocol.MetadataLoadRequest()),
            ):
                started = time.perf_counter()
                await admin._send(request, node)
                found[key].append(time.perf_counter() - started)
    return {key: min(values) for key, values in found.items()}


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def report(size: int, partitions: int, samples: dict[str, list[tuple[float, float]]]) -> None:
    print(f"\n== {size} topics x {partitions} partitions = {size * partitions} partitions ==")
    for who, values in samples.items():
        walls = [w for w, _ in values]
        cpus = [c for _, c in values]
        print(
            f"  {who:4s} median {_median(walls):6.3f} s  (min {min(walls):.3f}, "
            f"max {max(walls):.3f})  CPU {_median(cpus):.3f} s"
        )
    for who in [w for w in samples if w != "B"]:
        ratios = [a[0] / b[0] for a, b in zip(samples[who], samples["B"], strict=True)]
        cpu = [a[1] - b[1] for a, b in zip(samples[who], samples["B"], strict=True)]
        print(
            f"  {who}/B per round: {' '.join(f'{r:.2f}' for r in ratios)}  median "
            f"{_median(ratios):.2f}x; medians' ratio "
            f"{_median([w for w, _ in samples[who]]) / _median([w for w, _ in samples['B']]):.2f}x;"
            f" CPU beyond B {_median(cpu) * 1000:.0f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,30000", help="topics, comma-separated")
    parser.add_argument("--partitions", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dir", type=Path, help="cluster folder (default: a temp folder)")
    parser.add_argument("--before", help="another checkout's folder, timed as A0")
    parser.add_argument("--keep", action="store_true", help="leave the cluster running")
    parser.add_argument("--brokers", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("KAFKA_TUI_BROKER_HEAP_MB", "2048")
    root = args.dir or Path(tempfile.mkdtemp(prefix="kafka-tui-bench-scaling-"))
    state = root / "state"
    for who in ("now", "before", "kept"):
        (state / who).mkdir(parents=True, exist_ok=True)
    cluster = DevCluster(root / "cluster")
    cluster.up("kraft", brokers=args.brokers)
    status = cluster.status()
    bootstrap = status["bootstrap_servers"]
    pids = [n["pid"] for n in [*status["brokers"], status["controller"]] if n["pid"]]
    stamp = time.strftime("%H%M%S")
    try:
        for size in sorted(int(s) for s in args.sizes.split(",")):
            took = asyncio.run(seed(bootstrap, size, args.partitions))
            print(f"seeded to {size} topics in {took:.1f} s; idle after {idle(pids):.0f} s")
            for key, seconds in asyncio.run(reads(bootstrap)).items():
                print(f"  in process, best of 5: {key:34s} {seconds * 1000:7.1f} ms")
            samples: dict[str, list[tuple[float, float]]] = {"A": [], "AK": [], "B": []}
            if args.before:
                samples["A0"] = []
            kept = ("--load-max-age", "3600")
            ours(
                bootstrap,
                f"probe-{stamp}-{size}-keeps",
                args.partitions,
                state / "kept",
                None,
                *kept,
            )
            for r in range(args.rounds):
                order = list(samples) if r % 2 == 0 else list(reversed(samples))
                for who in order:
                    idle(pids, timeout=60)
                    name = f"probe-{stamp}-{size}-{r}-{who.lower()}"
                    if who == "B":
                        samples[who].append(raw(bootstrap, name, args.partitions))
                    elif who == "AK":
                        folder = state / "kept"
                        samples[who].append(
                            ours(bootstrap, name, args.partitions, folder, None, *kept)
                        )
                    else:
                        src = args.before if who == "A0" else None
                        folder = state / ("before" if src else "now")
                        samples[who].append(ours(bootstrap, name, args.partitions, folder, src))
                    print(f"  round {r} {who}: {samples[who][-1][0]:.3f} s", flush=True)
            report(size, args.partitions, samples)
    finally:
        if not args.keep:
            cluster.down()


if __name__ == "__main__":
    main()
