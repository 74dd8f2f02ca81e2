"""Start-up of `kafka-tui` commands as whole processes, side by side with the peers (issue 52).

In one run, in rounds (the order reversed every other round), each a fresh process:
  python -c pass                 Python's own start (the floor)
  kafka-tui --version            answered before argparse
  kafka-tui -v --version         the same through argparse (what the shortcut saves)
  kafka-tui --help               the top-level help: no command module loaded
  kafka-tui topics list --help   one command's module loaded (the admin layer, aiokafka)
  kafka-tui audit tail           a local command (reads the audit log: no aiokafka)
  kafka-tui topics describe T    against a real cluster; beside it `kcat -L -t T` and
                                 kafka-topics.sh --describe (TopicCommand, one JVM each,
                                 `--jvm-rounds` of them)
  kafka-tui topics create T      one topic, beside one raw CreateTopics process
                                 (bench/raw_admin.py: aiokafka's own admin client)
  confluent-kafka describe/create the same through confluent-kafka's AdminClient
                                 (bench/confluent_admin.py), where that package is installed
`--before SRC` also times another checkout (e.g. `git archive COMMIT | tar -x -C SRC`) for each
command that does not need the cluster. Then a `-X importtime` summary: the packages whose
imports cost the most in `--help`, `topics list --help` and `topics describe`.

Usage: python bench/startup.py [--bootstrap-server HOST:PORT] [--rounds 10] [--jvm-rounds 3]
       [--before SRC] [--skip-cluster]
Without --bootstrap-server a 1-broker KRaft dev cluster is started in a temporary folder and
stopped at the end. Prints min / median per command and ratios; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
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
STATE = Path(tempfile.mkdtemp(prefix="kafka-tui-startup-"))
CPU: dict[str, list[float]] = defaultdict(list)  # each process's CPU seconds, as `times`
# What the console script runs, from another checkout (PYTHONPATH and working directory).
BEFORE = [sys.executable, "-c", "import sys; from kafka_tui.cli import main; sys.exit(main())"]
# confluent-kafka's AdminClient (librdkafka) as a Python user's alternative, where installed.
CONFLUENT = importlib.util.find_spec("confluent_kafka") is not None


def _env(src: str | None = None) -> dict[str, str]:
    env = dict(
        os.environ,
        KAFKA_TUI_JOURNAL=str(STATE / "recent-changes.jsonl"),
        KAFKA_TUI_AUDIT_LOG=str(STATE / "audit.jsonl"),
        KAFKA_TUI_CONFIG=str(STATE / "no-config.toml"),
    )
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # compiled once, as an installed kafka-tui is
    if src:
        env["PYTHONPATH"] = src
    return env


def _kafka_tui() -> list[str]:
    """The console script, as a user runs it (no runpy), else `python -m kafka_tui.cli`."""
    script = Path(sys.executable).parent / "kafka-tui"
    return [str(script)] if script.exists() else [sys.executable, "-m", "kafka_tui.cli"]


# The CPU time (user + system) of the last process `timed` ran: unlike its wall time, it does
# not depend on how busy the machine and the broker were.
LAST_CPU = [0.0]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(cmd: list[str], env: dict[str, str] | None = None, cwd: str | None = None) -> float:
    cpu = _children_cpu()
    started = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, env=env, cwd=cwd, check=False)
    seconds = time.perf_counter() - started
    LAST_CPU[0] = _children_cpu() - cpu
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:6])} failed ({proc.returncode}): {proc.stderr[-800:]!r}")
    return seconds


def _delete(bootstrap: str, names: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        listed = Path(folder) / "names.txt"
        listed.write_text("\n".join(names))
        cmd = [sys.executable, str(HERE / "raw_admin.py"), "delete", bootstrap, str(listed)]
        subprocess.run(cmd, capture_output=True, check=True)


def _topic_command(bootstrap: str, topic: str) -> list[str]:
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
        "--describe",
        "--topic",
        topic,
    ]


async def _make_topic(bootstrap: str, topic: str) -> None:
    from kafka_tui.admin import ConnectionSettings, KafkaAdmin, TopicSpec

    async with KafkaAdmin(ConnectionSettings(bootstrap)) as admin:
        if topic not in await admin.topic_names():
            await admin.create_topics([TopicSpec(topic, 1, 1)])


def run(args: argparse.Namespace, bootstrap: str | None) -> dict[str, list[float]]:
    ours = _kafka_tui()
    env = _env()
    local: dict[str, Callable[[], float]] = {
        "python -c pass": lambda: timed([sys.executable, "-c", "pass"], env),
        "kafka-tui --version": lambda: timed([*ours, "--version"], env),
        "kafka-tui -v --version": lambda: timed([*ours, "-v", "--version"], env),
        "kafka-tui --help": lambda: timed([*ours, "--help"], env),
        "kafka-tui topics list --help": lambda: timed([*ours, "topics", "list", "--help"], env),
        "kafka-tui audit tail": lambda: timed([*ours, "audit", "tail"], env),
    }
    if args.before:
        for words in (["--version"], ["--help"], ["topics", "list", "--help"], ["audit", "tail"]):
            local[f"before: kafka-tui {' '.join(words)}"] = lambda w=words: timed(
                [*BEFORE, *w], _env(args.before), args.before
            )
    times: dict[str, list[float]] = defaultdict(list)
    remote: dict[str, Callable[[], float]] = {}
    jvm: dict[str, Callable[[], float]] = {}
    topic = "startup-bench-describe"
    if bootstrap:
        asyncio.run(_make_topic(bootstrap, topic))
        describe = [*ours, "--bootstrap-server", bootstrap, "topics", "describe", topic]
        remote["kafka-tui topics describe"] = lambda: timed(describe, env)
        if shutil.which("kcat"):
            kcat = ["kcat", "-L", "-b", bootstrap, "-t", topic]
            remote["kcat -L -t"] = lambda: timed(kcat, env)
        if CONFLUENT:
            ck = [sys.executable, str(HERE / "confluent_admin.py"), "describe", bootstrap, topic]
            remote["confluent-kafka describe"] = lambda: timed(ck, env)
        jvm["kafka-topics.sh --describe"] = lambda: timed(_topic_command(bootstrap, topic), env)
    for k in range(args.rounds):
        order = [*local.items(), *remote.items()]
        for name, measure in order if k % 2 == 0 else reversed(order):
            times[name].append(measure())
            CPU[name].append(LAST_CPU[0])
        if bootstrap:
            _create_pair(bootstrap, ours, env, k, times, args.before)
        if k < args.jvm_rounds:
            for name, measure in jvm.items():
                times[name].append(measure())
                CPU[name].append(LAST_CPU[0])
        print(f"  round {k + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    return times


def _create_pair(
    bootstrap: str,
    ours: list[str],
    env: dict[str, str],
    k: int,
    times: dict[str, list[float]],
    before: str | None,
) -> None:
    """One topic (1 partition, RF 1) by kafka-tui and by a raw CreateTopics process (and by
    the other checkout), in alternating order, each deleted (untimed) after the round."""
    flags = ["--partitions", "1", "--replication-factor", "1"]
    with tempfile.TemporaryDirectory() as folder:
        raw_names = Path(folder) / "names.txt"
        raw_names.write_text(f"startup-bench-raw-{k}")
        raw = [sys.executable, str(HERE / "raw_admin.py"), "create", bootstrap, str(raw_names)]
        commands = {
            "kafka-tui topics create": (
                [*ours, "--bootstrap-server", bootstrap, "topics", "create"],
                [f"startup-bench-ours-{k}", *flags],
                env,
                None,
            ),
            "raw CreateTopics": (raw, ["--partitions", "1", "--rf", "1"], env, None),
        }
        if CONFLUENT:
            commands["confluent-kafka create"] = (
                [sys.executable, str(HERE / "confluent_admin.py"), "create", bootstrap],
                [f"startup-bench-confluent-{k}"],
                env,
                None,
            )
        if before:
            commands["before: kafka-tui topics create"] = (
                [*BEFORE, "--bootstrap-server", bootstrap, "topics", "create"],
                [f"startup-bench-before-{k}", *flags],
                _env(before),
                before,
            )
        order = list(commands.items())
        for name, (cmd, rest, cmd_env, cwd) in order if k % 2 == 0 else reversed(order):
            times[name].append(timed([*cmd, *rest], cmd_env, cwd))
            CPU[name].append(LAST_CPU[0])
    whose = ["ours", "raw"] + (["before"] if before else []) + (["confluent"] if CONFLUENT else [])
    _delete(bootstrap, [f"startup-bench-{who}-{k}" for who in whose])


def report(times: dict[str, list[float]]) -> None:
    floor = min(times["python -c pass"])
    print(f"\n{'command':34} {'min':>8} {'median':>8} {'CPU med':>8} {'runs':>5}  min / Python")
    for name, values in times.items():
        low, mid, cpu = min(values), statistics.median(values), statistics.median(CPU[name])
        ms = f"{low * 1000:7.0f}ms {mid * 1000:7.0f}ms {cpu * 1000:7.0f}ms"
        print(f"{name:34} {ms} {len(values):5}  {low / floor:6.1f}x")
    goals = [
        ("kafka-tui --version", 0.080),
        ("kafka-tui --help", 0.150),
    ]
    print()
    for name, goal in goals:
        mid = statistics.median(times[name])
        print(f"{name}: median {mid * 1000:.0f} ms, goal {goal * 1000:.0f} ms")
    pairs = [
        ("kafka-tui --version", "kafka-tui -v --version", "the --version shortcut"),
        ("kafka-tui topics describe", "kcat -L -t", "describe / kcat"),
        ("kafka-tui topics describe", "kafka-topics.sh --describe", "describe / kafka-topics.sh"),
        ("kafka-tui topics describe", "confluent-kafka describe", "describe / confluent-kafka"),
        ("kafka-tui topics create", "confluent-kafka create", "create / confluent-kafka"),
        ("kafka-tui topics create", "raw CreateTopics", "create / raw (goal 1.3x)"),
        ("before: kafka-tui topics create", "raw CreateTopics", "before: create / raw"),
    ]
    for before_name in [n for n in times if n.startswith("before: ")]:
        pairs.append((before_name[len("before: ") :], before_name, "now / before"))
    for a, b, label in pairs:
        if a in times and b in times:
            ratio = statistics.median(times[a]) / statistics.median(times[b])
            cpu = statistics.median(CPU[a]) / statistics.median(CPU[b])
            print(f"{label}: {ratio:.2f}x wall, {cpu:.2f}x CPU ({a} / {b}, medians)")


def importtime(bootstrap: str | None, top: int = 12) -> None:
    """Which packages the imports of a command spend their time in (self time, summed)."""
    commands = [["--help"], ["topics", "list", "--help"]]
    if bootstrap:
        commands.append(
            ["--bootstrap-server", bootstrap, "topics", "describe", "startup-bench-describe"]
        )
    for words in commands:
        cmd = [sys.executable, "-X", "importtime", "-m", "kafka_tui.cli", *words]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=_env(), check=False)
        by_package: dict[str, int] = defaultdict(int)
        total = 0
        for line in proc.stderr.splitlines():
            if not line.startswith("import time:") or "self [us]" in line:
                continue
            _, self_us, _, name = (part.strip() for part in line.replace("|", ":").split(":"))
            parts = name.split(".")
            package = ".".join(parts[:2]) if parts[0] == "kafka_tui" else parts[0]
            by_package[package] += int(self_us)
            total += int(self_us)
        shown = ", ".join(
            f"{package} {us / 1000:.0f}"
            for package, us in sorted(by_package.items(), key=lambda kv: -kv[1])[:top]
        )
        label = " ".join(w for w in words if w != bootstrap)
        print(f"\nimports of `kafka-tui {label}`: {total / 1000:.0f} ms; by package (ms): {shown}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap-server", metavar="HOST:PORT")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--jvm-rounds", type=int, default=3, help="kafka-topics.sh runs")
    parser.add_argument("--before", metavar="SRC", help="another kafka-tui checkout to time too")
    parser.add_argument("--skip-cluster", action="store_true", help="no command that needs one")
    args = parser.parse_args()
    cluster = None
    bootstrap = args.bootstrap_server
    if not bootstrap and not args.skip_cluster:
        from kafka_tui.devcluster import DevCluster

        cluster = DevCluster(STATE / "cluster")
        bootstrap = cluster.bootstrap_servers(cluster.up("kraft", brokers=1))
    try:
        report(run(args, bootstrap))
        importtime(bootstrap)
    finally:
        if cluster is not None:
            cluster.down()
        shutil.rmtree(STATE, ignore_errors=True)


if __name__ == "__main__":
    main()
