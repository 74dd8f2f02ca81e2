"""Bulk plans: in-process vs Spark, against Kafka's StripedReplicaPlacer; prints figures.

Cluster: 30 brokers in racks of 12/8/6/4 (bench/placement.py), brokers 5, 15, 25 offline,
skewed existing load. Work: 10,000 topics x 10 partitions, RF 3, mode `enabled` with a minimum
of 2 live replicas: the in-process preview (prepare + place + statistics + document), the same
plan through the Spark job on local[2] (a subprocess, end to end, start-up included; its document
compared byte for byte) and on a standalone cluster of 2 workers from the wheel's jars
(`kafka-tui dev-cluster spark`, started once for the bench, in a folder of its own), Kafka's
striped placer on the same input (5 seeds). Then 1,000,000 partitions through Spark local[2]
and the standalone cluster, and Spark's bare start-up on a 1-group plan on both.

Usage: python bench/plans.py [--skip-million] [--skip-standalone]. Nothing here asserts anything.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from placement import kafka, line, skewed_load, uneven_cluster

from kafka_tui.devcluster.spark import SparkDevCluster
from kafka_tui.planning import plan_prepared
from kafka_tui.planning.bulk_plan import ClusterView, Intent, PlanOptions, plan_in_process, prepare


def prepared_for(topics: int, partitions: int) -> tuple[object, float]:
    brokers = tuple(uneven_cluster())
    view = ClusterView(brokers, skewed_load(brokers), {}, 1, 3, 2)
    intents = [Intent(f"t{n:06d}", partitions, 3) for n in range(topics)]
    start = time.perf_counter()
    prepared = prepare(view, intents, PlanOptions("enabled", 2))
    return prepared, time.perf_counter() - start


def spark(prepared: object, master: str) -> tuple[float, str]:
    with tempfile.TemporaryDirectory() as folder:
        job_input, result = Path(folder) / "in.json", Path(folder) / "out.json"
        job_input.write_text(json.dumps(plan_prepared.prepared_to_json(prepared)))  # type: ignore[arg-type]
        start = time.perf_counter()
        with (Path(folder) / "log").open("w") as log:
            subprocess.run(
                [sys.executable, "-m", "kafka_tui.planning.spark_job", "--input", str(job_input),
                 "--output", str(result), "--master", master],
                stdout=subprocess.DEVNULL, stderr=log, check=True,
            )  # fmt: skip
        return time.perf_counter() - start, result.read_text()


@contextlib.contextmanager
def standalone(skip: bool) -> Iterator[str | None]:
    """A 2-worker standalone cluster's master URL for the bench's duration (None: skipped)."""
    if skip:
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="kafka-tui-bench-spark-") as folder:
        cluster = SparkDevCluster(Path(folder))
        start = time.perf_counter()
        state = cluster.up(2)
        print(f"standalone cluster (master + 2 workers) up in {time.perf_counter() - start:.1f}s")
        try:
            yield cluster.master_url(state)
        finally:
            cluster.down()


def stats_line(name: str, seconds: float, document: dict) -> str:  # type: ignore[type-arg]
    s = document["stats"]
    return (
        f"  {name:<26} {seconds:7.2f}s  replicas max/avg {s['replicas_after']['max_avg']}"
        f" min-max {s['replicas_after']['min']}-{s['replicas_after']['max']}"
        f"  leaders max/avg {s['leaders_after']['max_avg']}"
        f" min-max {s['leaders_after']['min']}-{s['leaders_after']['max']}"
        f"  same-rack {s['same_rack_partitions']}  on-offline {s['replicas_on_offline_brokers']}"
        f"  min degree {s['degree']['min']}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--skip-million", action="store_true")
    parser.add_argument("--skip-standalone", action="store_true")
    args = parser.parse_args()
    with standalone(args.skip_standalone) as master:
        run(args, master)


def run(args: argparse.Namespace, master: str | None) -> None:
    engines = [("local[2]", "local[2]")] + ([("standalone", master)] if master else [])
    print("Spark start-up (a 1-topic plan, end to end):")
    tiny, _ = prepared_for(1, 1)
    for name, url in engines:
        seconds, _ = spark(tiny, url)
        print(f"  {name:<14} {seconds:.1f}s")

    print("100,000 partitions (10,000 topics x 10, RF 3), 30 brokers 12/8/6/4, 3 offline, skewed:")
    prepared, prepare_seconds = prepared_for(10_000, 10)
    out = io.StringIO()
    start = time.perf_counter()
    plan_in_process(prepared, out)  # type: ignore[arg-type]
    local_seconds = prepare_seconds + time.perf_counter() - start
    document = json.loads(out.getvalue())
    print(stats_line("kafka-tui in process", local_seconds, document))
    for name, url in engines:
        seconds, text = spark(prepared, url)
        same = text.split("\n", 2)[2] == out.getvalue().split("\n", 2)[2]
        print(stats_line(f"kafka-tui Spark {name}", seconds, json.loads(text)))
        print(f"  Spark document identical to the in-process one (engine line aside): {same}")
    brokers = uneven_cluster()
    for seed in range(5):
        figures = kafka(brokers, skewed_load(brokers), 10_000, 10, seed, live_only=False)
        print(line(f"Kafka striped, seed {seed}", figures))

    if not args.skip_million:
        print("1,000,000 partitions (100,000 topics x 10), same cluster:")
        prepared, prepare_seconds = prepared_for(100_000, 10)
        start = time.perf_counter()
        out = io.StringIO()
        plan_in_process(prepared, out)  # type: ignore[arg-type]
        print(stats_line("kafka-tui in process", prepare_seconds + time.perf_counter() - start,
                         json.loads(out.getvalue())))  # fmt: skip
        for name, url in engines:
            seconds, text = spark(prepared, url)
            print(
                stats_line(f"kafka-tui Spark {name}", seconds + prepare_seconds, json.loads(text))
            )


if __name__ == "__main__":
    main()
