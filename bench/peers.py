"""One create, one describe, one delete: kafka-tui beside its peers, each a whole process
(issue 52.1's peers table).

In one run, in rounds (the order of the tools reversed every other round), on the same
cluster, each tool on a topic of its own (1 partition, RF 1):
  kafka-tui          `topics create T --partitions 1 --replication-factor 1`,
                     `topics describe T`, `topics delete T --yes`
  raw aiokafka       bench/raw_admin.py: one CreateTopics / Metadata / DeleteTopics request
                     through aiokafka's own admin client (no kafka-tui code): the yardstick
  confluent-kafka    bench/confluent_admin.py: AdminClient (librdkafka), what a Python user
                     would write instead (where the package is installed)
  kafka-topics.sh    TopicCommand from the dev cluster's jars (one JVM each; `--jvm-rounds`)
  kcat               `kcat -L -t T` (Debian's kcat, C/librdkafka): describe only, as kcat
                     neither creates nor deletes topics
Each sample records wall time and the process's CPU time (user + system, from its rusage:
steadier than wall time on a busy machine). Prints per operation min and median wall time,
median CPU time and the ratios to the raw request (medians), as a table for bench/README,
with the load average before and after.

Usage: python bench/peers.py [--bootstrap-server HOST:PORT] [--rounds 7] [--jvm-rounds 3]
       [--skip-jvm]
Without --bootstrap-server a 1-broker KRaft dev cluster is started in a temporary folder and
stopped at the end. Asserts nothing.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
STATE = Path(tempfile.mkdtemp(prefix="kafka-tui-peers-"))
OPERATIONS = ("create", "describe", "delete")
RAW = "raw aiokafka"


def _env() -> dict[str, str]:
    env = dict(
        os.environ,
        KAFKA_TUI_JOURNAL=str(STATE / "recent-changes.jsonl"),
        KAFKA_TUI_AUDIT_LOG=str(STATE / "audit.jsonl"),
        KAFKA_TUI_CONFIG=str(STATE / "no-config.toml"),
    )
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # compiled once, as an installed kafka-tui is
    return env


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one process; a failure ends the bench."""
    cpu = _children_cpu()
    started = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, env=env, check=False)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:8])} failed ({proc.returncode}): {proc.stderr[-800:]!r}")
    return wall, _children_cpu() - cpu


def _kafka_tui() -> list[str]:
    script = Path(sys.executable).parent / "kafka-tui"
    return [str(script)] if script.exists() else [sys.executable, "-m", "kafka_tui.cli"]


def _topic_command(bootstrap: str) -> list[str]:
    from kafka_tui.devcluster import KRAFT_VERSION, ensure_kafka
    from kafka_tui.devcluster.node import java_bin

    jars = ensure_kafka(KRAFT_VERSION)
    return [
        java_bin(),
        "-Xmx256m",
        "-cp",
        jars.classpath,
        "-Dlog4j2.level=WARN",
        "org.apache.kafka.tools.TopicCommand",
        "--bootstrap-server",
        bootstrap,
    ]


def _names_file(topic: str) -> str:
    path = STATE / f"{topic}.txt"
    path.write_text(topic)
    return str(path)


Tool = dict[str, Callable[[str], list[str]]]  # operation -> the command for a topic


def tools(bootstrap: str, jvm: bool) -> dict[str, Tool]:
    ours = [*_kafka_tui(), "--bootstrap-server", bootstrap, "topics"]
    raw = [sys.executable, str(HERE / "raw_admin.py")]
    found: dict[str, Tool] = {
        "kafka-tui": {
            "create": lambda t: [
                *ours,
                "create",
                t,
                "--partitions",
                "1",
                "--replication-factor",
                "1",
            ],
            "describe": lambda t: [*ours, "describe", t],
            "delete": lambda t: [*ours, "delete", t, "--yes"],
        },
        RAW: {
            "create": lambda t: [
                *raw,
                "create",
                bootstrap,
                _names_file(t),
                "--partitions",
                "1",
                "--rf",
                "1",
            ],
            "describe": lambda t: [*raw, "describe", bootstrap, _names_file(t)],
            "delete": lambda t: [*raw, "delete", bootstrap, _names_file(t)],
        },
    }
    if importlib.util.find_spec("confluent_kafka") is not None:
        ck = [sys.executable, str(HERE / "confluent_admin.py")]
        found["confluent-kafka"] = {
            op: (lambda t, op=op: [*ck, op, bootstrap, t]) for op in OPERATIONS
        }
    if shutil.which("kcat"):
        found["kcat -L"] = {"describe": lambda t: ["kcat", "-L", "-b", bootstrap, "-t", t]}
    if jvm:
        tc = _topic_command(bootstrap)
        found["kafka-topics.sh"] = {
            "create": lambda t: [
                *tc,
                "--create",
                "--topic",
                t,
                "--partitions",
                "1",
                "--replication-factor",
                "1",
            ],
            "describe": lambda t: [*tc, "--describe", "--topic", t],
            "delete": lambda t: [*tc, "--delete", "--topic", t],
        }
    return found


Samples = dict[tuple[str, str], list[tuple[float, float]]]  # (operation, tool) -> (wall, CPU)


def run(bootstrap: str, rounds: int, jvm_rounds: int, jvm: bool) -> Samples:
    env = _env()
    every = tools(bootstrap, jvm)
    samples: Samples = defaultdict(list)
    for k in range(rounds):
        names = [n for n in every if n != "kafka-topics.sh" or k < jvm_rounds]
        if k % 2:
            names.reverse()
        # kcat describes another tool's topic (it makes none): kafka-tui's.
        topic = {n: f"peers-{n.split()[0].replace('.', '-')}-{k}" for n in names}
        topic["kcat -L"] = topic["kafka-tui"]
        for op in OPERATIONS:
            for name in names:
                command = every[name].get(op)
                if command is not None:
                    samples[(op, name)].append(timed(command(topic[name]), env))
        print(f"  round {k + 1}/{rounds} done (load {_load()})", file=sys.stderr, flush=True)
    return samples


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def report(samples: Samples) -> None:
    columns = "wall min | wall median | CPU median | wall / raw | CPU / raw | runs"
    print(f"\n| operation | tool | {columns} |")
    print("|---|---|---|---|---|---|---|---|")
    for op in OPERATIONS:
        raw = samples.get((op, RAW))
        for (o, name), values in samples.items():
            if o != op:
                continue
            walls = [w for w, _ in values]
            cpus = [c for _, c in values]
            ratio = cpu_ratio = "-"
            if raw and name != RAW:
                ratio = f"{statistics.median(walls) / statistics.median(w for w, _ in raw):.2f}x"
                cpu_ratio = f"{statistics.median(cpus) / statistics.median(c for _, c in raw):.2f}x"
            wall, cpu = statistics.median(walls) * 1000, statistics.median(cpus) * 1000
            print(
                f"| {op} | {name} | {min(walls) * 1000:,.0f} ms | {wall:,.0f} ms | "
                f"{cpu:,.0f} ms | {ratio} | {cpu_ratio} | {len(values)} |"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap-server", metavar="HOST:PORT")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--jvm-rounds", type=int, default=3, help="kafka-topics.sh rounds")
    parser.add_argument("--skip-jvm", action="store_true", help="no kafka-topics.sh")
    args = parser.parse_args()
    cluster = None
    bootstrap = args.bootstrap_server
    if not bootstrap:
        from kafka_tui.devcluster import DevCluster

        cluster = DevCluster(STATE / "cluster")
        bootstrap = cluster.bootstrap_servers(cluster.up("kraft", brokers=1))
    try:
        print(f"load average before: {_load()}")
        samples = run(bootstrap, args.rounds, args.jvm_rounds, not args.skip_jvm)
        print(f"load average after: {_load()}")
        report(samples)
    finally:
        if cluster is not None:
            cluster.down(kill=True)
        shutil.rmtree(STATE, ignore_errors=True)


if __name__ == "__main__":
    main()
