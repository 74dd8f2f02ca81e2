"""Create and delete 2,000 topics (3 partitions, RF 3): kafka-tui vs one raw request, side by side.

For each kind of cluster (KRaft 4.1, ZooKeeper-mode 3.9), in one run, in rounds (odd rounds in
reverse order: A A' B B', then B' B A' A), after an untimed warm-up round:
  (A) one `kafka-tui topics create` (or `topics delete --yes`) process for all the topics;
  (B) one process sending one raw CreateTopics (DeleteTopics) request through aiokafka's own
      admin client (bench/raw_admin.py): the broker's cost plus Python's, the yardstick.
  (A') the same with `--placement broker` (Kafka places; what kafka-tui's own placer costs);
  (B') the raw request carrying the replica lists kafka-tui's placer picks (the broker's
      cost of an explicit assignment, which (A) sends and (B) does not);
Both are timed as whole processes (start-up included); before each timed command the
cluster is quiet (every broker shows the previous change, and its JVMs are idle). Then the
busy test: 10 creates of 2,000 topics, each followed at once by their deletion, while the
brokers still apply the previous ones; afterwards every reported result is checked against
the cluster (a topic reported failed that existed is a false failure). Optional: (C)
kafka-topics.sh's TopicCommand, one JVM per topic, on a sample; `--before SRC` times another
kafka-tui checkout's create and delete (e.g. an older commit) as (A0).

Usage: python bench/bulk_create.py [--modes kraft,zk] [--topics 2000] [--rounds 3]
       [--who "A,A',B,B'"] [--warmup 1] [--busy-runs 10] [--topic-command-sample 0]
       [--before SRC] [--keep]
Prints figures and ratios (per-round pairs: their median, range, and how many rounds were
within the goal: create 1.2x, delete 1.5x); asserts nothing. `--who A,B --rounds 10` settles
the goals soonest.
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

from kafka_tui.admin import ConnectionSettings, KafkaAdmin
from kafka_tui.devcluster import KRAFT_VERSION, ZK_VERSION, DevCluster, ensure_kafka
from kafka_tui.devcluster.node import java_bin
from kafka_tui.planning import NATIVE

HERE = Path(__file__).resolve().parent


# The CPU time (user + system) of the last process run_process ran: unlike its wall time, it
# does not depend on how busy the brokers were, so the difference between kafka-tui's and the
# raw request's is kafka-tui's own work, measured without the controller's noise.
LAST_CPU = [0.0]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_process(
    cmd: list[str], env: dict[str, str] | None = None, cwd: str | None = None
) -> tuple[float, str]:
    cpu = _children_cpu()
    started = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env, cwd=cwd)
    elapsed = time.perf_counter() - started
    LAST_CPU[0] = _children_cpu() - cpu
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{cmd[:6]} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return elapsed, proc.stdout


STATE = tempfile.mkdtemp(prefix="kafka-tui-bench-state-")


def ours(
    bootstrap: str,
    action: str,
    names: list[str],
    src: str | None = None,
    broker: bool = False,
    validate_only: bool = False,
) -> tuple[float, Any]:
    cmd = [sys.executable, "-m", "kafka_tui.cli", "--bootstrap-server", bootstrap]
    cmd += ["--output", "json", "topics", action, *names]
    if action == "create":
        cmd += ["--partitions", "3", "--replication-factor", "3", "--timeout-ms", "300000"]
        cmd += ["--placement", "broker"] if broker else []
        cmd += ["--validate-only"] if validate_only else []
    else:
        cmd += ["--yes", "--timeout-ms", "300000"]
    # The other checkout comes first on sys.path: as the working directory and PYTHONPATH.
    # Each checkout keeps its own journal and audit log in the bench's folder: an older
    # checkout's journal format must not weigh on the current one's start, nor the bench's
    # 100,000 expectations on the user's own files.
    state = Path(STATE) / ("before" if src else "now")
    env = dict(
        os.environ,
        KAFKA_TUI_JOURNAL=str(state / "recent-changes.jsonl"),
        KAFKA_TUI_AUDIT_LOG=str(state / "audit.jsonl"),
    )
    # A module edited while the bench runs is compiled once and cached, as an installed
    # kafka-tui's would be, not again at every start (that once added ~30-50 ms of CPU to
    # every later sample of A).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if src:
        env["PYTHONPATH"] = src
    seconds, out = run_process(cmd, env, cwd=src)
    return seconds, json.loads(out)


def raw(
    bootstrap: str, action: str, names: list[str], same_assignment: bool = False
) -> tuple[float, Any]:
    """`same_assignment`: the request carries the replica lists kafka-tui's placer picks for
    these names (worked out by a `--validate-only` run beforehand, not timed)."""
    with tempfile.TemporaryDirectory() as folder:
        names_file = Path(folder) / "names.txt"
        names_file.write_text("\n".join(names))
        cmd = [sys.executable, str(HERE / "raw_admin.py"), action, bootstrap, str(names_file)]
        if same_assignment and action == "create":
            _, planned = ours(bootstrap, "create", names, validate_only=True)
            chosen = {t["topic"]: t["assignment"] for t in planned}
            (Path(folder) / "assignments.json").write_text(json.dumps(chosen))
            cmd += ["--assignments", str(Path(folder) / "assignments.json")]
        seconds, out = run_process(cmd)
    return seconds, json.loads(out)


async def _views(bootstrap: str, names: list[str]) -> list[set[str]]:
    """The names each live broker lists right now."""
    async with KafkaAdmin(ConnectionSettings(bootstrap, request_timeout_ms=300_000)) as admin:
        nodes = sorted(b.nodeId for b in admin.client.cluster.brokers())
        views = []
        for node in nodes:
            # Names only: decoding 6,000 partitions from each broker twice a second took CPU
            # the brokers applying the change needed on a 2-core machine.
            metadata = await admin._metadata(names, node, partitions=False)
            views.append({t.name for t in metadata.topics if not t.error_code})
        return views


# The JVMs of the cluster under test (brokers, controller or ZooKeeper), for `idle`.
NODE_PIDS: list[int] = []
# Of one core, per JVM, over a second. A KRaft 4.1 broker holding 6,000 partitions and doing
# nothing else uses ~12% of a core (replica fetchers, checkpoints; measured): a share of 10%
# was never reached after a create, so every create sample waited out idle()'s timeout.
IDLE_SHARE = 0.25
# The brokers' log dirs, for `removed_from_disk`.
DATA_DIRS: list[Path] = []


def _cpu_ticks(pid: int) -> int:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])  # utime + stime


def idle(timeout: float = 300) -> float:
    """Wait until every JVM of the cluster used under IDLE_SHARE of a core for a second:
    a broker that lists a change may still be working on it (a 2,000-topic deletion renames
    and removes 6,000 partitions' files and logs 7 MB for 30 s afterwards), and on a 2-core
    machine that work lands in the next timed command. Returns the seconds waited."""
    started = time.perf_counter()
    hz = os.sysconf("SC_CLK_TCK")
    while time.perf_counter() - started < timeout:
        before = [_cpu_ticks(p) for p in NODE_PIDS]
        time.sleep(1.0)
        after = [_cpu_ticks(p) for p in NODE_PIDS]
        if all((b - a) / hz < IDLE_SHARE for a, b in zip(before, after, strict=True)):
            break
    return time.perf_counter() - started


def removed_from_disk(timeout: float = 300) -> None:
    """Wait until no broker holds a deleted partition's directory. A broker renames a deleted
    partition's directory to `<topic>-<partition>.<id>-delete` and removes it
    file.delete.delay.ms (60 s) later, idle in between: only the directories tell that this
    work, 6,000 directories after a 2,000-topic delete, is still to come."""
    started = time.perf_counter()
    while time.perf_counter() - started < timeout:
        if not any(next(d.glob("*-delete"), None) for d in DATA_DIRS):
            return
        time.sleep(1.0)


def settle(bootstrap: str, names: list[str], exist: bool, timeout: float = 600) -> float:
    """Wait until every broker lists all of `names` (or none); returns the seconds waited.
    Then (not counted) until the brokers have removed deleted partitions from disk and the
    cluster's JVMs are idle, so the next command starts on a quiet cluster."""
    started = time.perf_counter()
    while time.perf_counter() - started < timeout:
        views = asyncio.run(_views(bootstrap, names))
        if all((v == set(names)) if exist else not v for v in views):
            waited = time.perf_counter() - started
            if not exist:
                removed_from_disk()
            idle()
            return waited
        time.sleep(0.5)
    raise SystemExit(f"the brokers did not settle within {timeout}s")


def side_by_side(
    bootstrap: str,
    n: int,
    rounds: int,
    mode: str,
    who_runs: list[str],
    warmup: int,
    before: str | None,
) -> dict[str, list[float]]:
    """Each round runs every contender once, create then delete; odd rounds run them in
    reverse order, so no contender always follows the same one. The `warmup` rounds first
    (untimed) let the cluster's JVMs compile their create and delete paths: the first
    2,000-topic create after a start ran up to twice as long as the later ones."""
    times: dict[str, list[float]] = {f"{w} {a}": [] for w in who_runs for a in ("create", "delete")}
    times |= {f"{w} {a} CPU": [] for w in who_runs for a in ("create", "delete")}
    lag: list[float] = []
    for r in range(-warmup, rounds):
        timed = r >= 0
        order = who_runs if r % 2 == 0 else who_runs[::-1]
        for who in order:
            tag = who.lower().replace("'", "p")
            names = [f"bench-{tag}-{mode}-{r + warmup}-{i:05d}" for i in range(n)]
            for action in ("create", "delete"):
                if who.startswith("B"):
                    seconds, report = raw(bootstrap, action, names, who == "B'")
                    bad = report["failed"]
                else:
                    src = before if who == "A0" else None
                    seconds, report = ours(bootstrap, action, names, src, broker=who == "A'")
                    bad = sum(1 for t in report if not t["ok"])
                waited = settle(bootstrap, names, exist=action == "create")
                if timed:
                    times[f"{who} {action}"].append(seconds)
                    times[f"{who} {action} CPU"].append(LAST_CPU[0])
                    if action == "create":
                        lag.append(waited)
                flag = f"  ({bad} FAILED)" if bad else ""
                label = f"round {r + 1}" if timed else "warm-up"
                print(
                    f"  {label:8} {who:2} {action}: {seconds:7.2f}s (CPU {LAST_CPU[0]:.3f}s), "
                    f"brokers caught up {waited:5.1f}s later{flag}",
                    flush=True,
                )
    times["brokers' lag after a create"] = lag
    return times


def busy(bootstrap: str, n: int, runs: int, mode: str) -> dict[str, int]:
    """Creates and deletions back to back while the brokers still apply the previous ones."""
    counts = dict(
        created_ok=0,
        create_failed=0,
        create_false_failure=0,
        deleted_ok=0,
        delete_failed=0,
        misreported=0,
        timeouts=0,
    )
    final: dict[str, bool] = {}
    for k in range(runs):
        names = [f"busy-{mode}-{k}-{i:05d}" for i in range(n)]
        _, created = ours(bootstrap, "create", names)
        _, deleted = ours(bootstrap, "delete", names)
        create_ok = {t["topic"]: t["ok"] for t in created}
        for t in created + deleted:
            counts["timeouts"] += t.get("error") == "REQUEST_TIMED_OUT"
        for t in deleted:
            c_ok = create_ok[t["topic"]]
            counts["created_ok" if c_ok else "create_failed"] += 1
            if not c_ok and t["ok"]:
                counts["create_false_failure"] += 1  # reported failed, yet it existed
            counts["deleted_ok" if t["ok"] else "delete_failed"] += 1
            final[t["topic"]] = t["ok"]
        print(
            f"  busy run {k + 1}: {sum(create_ok.values())}/{n} created, "
            f"{sum(t['ok'] for t in deleted)}/{n} deleted",
            flush=True,
        )
    names = sorted(final)
    settle(bootstrap, [t for t in names if final[t]], exist=False)
    still = set().union(*asyncio.run(_views(bootstrap, names)))
    counts["misreported"] = sum(1 for t in names if final[t] == (t in still))
    return counts


def topic_command(bootstrap: str, version: str, names: list[str]) -> list[float]:
    jars = ensure_kafka(version)
    times = []
    for name in names:
        cmd = [
            java_bin(),
            "-Xmx256m",
            "-cp",
            jars.classpath,
            "-Dlog4j2.level=WARN",
            "org.apache.kafka.tools.TopicCommand",
            "--bootstrap-server",
            bootstrap,
            "--create",
            "--topic",
            name,
            "--partitions",
            "3",
            "--replication-factor",
            "3",
        ]
        seconds, _ = run_process(cmd)
        times.append(seconds)
    return times


def _pairs(times: dict[str, list[float]], a: str, b: str, goal: float) -> str:
    """Per-round ratios a/b, summarised by their median (a round's two runs shared the
    cluster's state; the median of the ratios is steadier than the ratio of the medians)."""
    ratios = [x / y for x, y in zip(times[a], times[b], strict=True)]
    return (
        f"{statistics.median(ratios):.2f}x (pairwise median of {len(ratios)}; "
        f"{min(ratios):.2f}-{max(ratios):.2f}; rounds within the goal of {goal}x: "
        f"{sum(r <= goal for r in ratios)}/{len(ratios)})"
    )


def _beyond(times: dict[str, list[float]], a: str, b: str) -> str:
    """Per-round differences a - b in CPU time and in wall time, in ms: what `a`'s process
    does beyond `b`'s, first without the brokers' noise, then as timed."""
    cpu = [1000 * (x - y) for x, y in zip(times[f"{a} CPU"], times[f"{b} CPU"], strict=True)]
    wall = [1000 * (x - y) for x, y in zip(times[a], times[b], strict=True)]
    return (
        f"{statistics.median(cpu):.0f} ms ({min(cpu):.0f} to {max(cpu):.0f}); "
        f"wall time {statistics.median(wall):.0f} ms ({min(wall):.0f} to {max(wall):.0f})"
    )


# Issue 9's goals: kafka-tui / one raw request.
GOALS = {"create": 1.5, "delete": 2.0}  # issue 52.1


def report(mode: str, n: int, times: dict[str, list[float]], counts: dict[str, int]) -> None:
    med = {k: statistics.median(v) for k, v in times.items() if v}
    rounds = max(len(v) for k, v in times.items() if not k.startswith("brokers'"))
    print(
        f"\n== {mode}: {n} topics x 3 partitions x RF 3, median of {rounds} "
        "(min-max), whole processes =="
    )
    for k, v in times.items():
        if v:
            places = 3 if k.endswith(" CPU") else 2
            print(f"  {k:32} {med[k]:7.{places}f}s  ({min(v):.{places}f}-{max(v):.{places}f})")
    ran = {k for k, v in times.items() if v}
    for action in ("create", "delete"):
        for who in ("A", "A'", "A0"):
            if {f"{who} {action} CPU", f"B {action} CPU"} <= ran:
                print(
                    f"  {action}: {who}'s process CPU beyond the raw request's (B) = "
                    + _beyond(times, f"{who} {action}", f"B {action}")
                )
    if {"A create", "B' create"} <= ran:
        print(
            "  create: kafka-tui / raw request with the same assignment = "
            + _pairs(times, "A create", "B' create", GOALS["create"])
        )
    for action in ("create", "delete"):
        for who, what in (
            ("A", "kafka-tui"),
            ("A'", "kafka-tui --placement broker"),
            ("A0", "before"),
        ):
            if {f"{who} {action}", f"B {action}"} <= ran:
                print(
                    f"  {action}: {what} / raw request = "
                    + _pairs(times, f"{who} {action}", f"B {action}", GOALS[action])
                )
        if {f"A0 {action}", f"A {action}"} <= ran:
            print(
                f"  {action}: before / now = " + _pairs(times, f"A0 {action}", f"A {action}", 1.0)
            )
    if counts:
        print(
            f"  busy ({counts['created_ok'] + counts['create_failed']} creates and deletions "
            f"back to back): {json.dumps(counts)}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modes", default="kraft,zk")
    parser.add_argument("--topics", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--busy-runs", type=int, default=10)
    parser.add_argument("--topic-command-sample", type=int, default=0)
    parser.add_argument("--before", metavar="SRC", help="another kafka-tui checkout to time too")
    parser.add_argument(
        "--who",
        default="A,A',B,B'",
        help="the contenders to time (A0 is added when --before is given)",
    )
    parser.add_argument("--warmup", type=int, default=1, help="untimed rounds first")
    parser.add_argument("--keep", action="store_true", help="leave the clusters running")
    args = parser.parse_args()

    # A0 is the --before checkout: named in --who too, it still runs once per round.
    who_runs = list(dict.fromkeys((["A0"] if args.before else []) + args.who.split(",")))
    if unknown := set(who_runs) - {"A0", "A", "A'", "B", "B'"}:
        parser.error(f"unknown contenders: {', '.join(sorted(unknown))}")
    os.environ.setdefault("KAFKA_TUI_BROKER_HEAP_MB", "1024")
    # Both checkouts start from byte-compiled modules, as an installed kafka-tui and aiokafka
    # (site-packages) do; otherwise PYTHONDONTWRITEBYTECODE makes every start compile them.
    for src in [str(HERE.parent), *([args.before] if args.before else [])]:
        subprocess.run([sys.executable, "-m", "compileall", "-q", f"{src}/kafka_tui"], check=True)
    print(
        "placer: "
        + ("compiled by mypyc (build/native)" if NATIVE else "Python (no current native build)")
    )
    for mode in args.modes.split(","):
        root = Path(tempfile.gettempdir()) / f"kafka-tui-bench-{mode}"
        cluster = DevCluster(root)
        cluster.down()
        started = time.perf_counter()
        cluster.up(mode, brokers=3)  # type: ignore[arg-type]
        version = KRAFT_VERSION if mode == "kraft" else ZK_VERSION
        print(
            f"{mode} {version}, 3 brokers, up in {time.perf_counter() - started:.1f}s", flush=True
        )
        bootstrap = cluster.bootstrap_servers()
        status = cluster.status()
        NODE_PIDS[:] = [n["pid"] for n in [*status["brokers"], status["controller"]] if n["pid"]]
        DATA_DIRS[:] = sorted(root.glob("broker-*/data"))
        idle()
        try:
            times = side_by_side(
                bootstrap, args.topics, args.rounds, mode, who_runs, args.warmup, args.before
            )
            counts = busy(bootstrap, args.topics, args.busy_runs, mode) if args.busy_runs else {}
            if args.topic_command_sample:
                names = [f"bench-tc-{i:05d}" for i in range(args.topic_command_sample)]
                sample = topic_command(bootstrap, version, names)
                times["C TopicCommand per topic x N"] = [s * args.topics for s in sample]
        finally:
            if not args.keep:
                cluster.down()
        report(mode, args.topics, times, counts)


if __name__ == "__main__":
    main()
