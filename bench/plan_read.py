"""Reading plan files (issue 29): kafka-tui's reader against Python's own, 10k to 1M rows.

Writes plans of 10,000, 100,000 and 1,000,000 rows (topic, partitions 1-12, RF 3, a minimum of
2 on every third row, two configs on every tenth) to a temp folder as CSV, JSON
({"version": 1, "topics": [...]}, indented) and JSON lines, and times, best of --rounds:
- Python's own reader of the same file: `list(csv.reader(file))`, `json.load(file)`, and
  `json.loads` of each line;
- kafka-tui's, as `plan preview` reads a plan: the file's text, then `plan_io.parse_plan`
  (every row checked, file:line:column kept for every bad field).
Prints seconds, microseconds per row, and kafka-tui's time over Python's. Before issue 29 a CSV
reader's places cost a count from the file's start for every field: 10,000 rows 2.2 s,
20,000 rows 7.0 s.

Parquet (`--formats parquet`, written by pyarrow): pyarrow's own `read_table(...).to_pylist()`
against kafka-tui's read of a Parquet plan on this machine (in process, pyarrow), and with
`--spark` also the Spark job's reader on `local[1]` (what a Parquet plan cost before pyarrow
was used, and still costs for a file elsewhere), JVM start-up included, once.

Usage: python bench/plan_read.py [--rounds 3] [--rows 10000,100000,1000000]
[--formats csv,json,jsonl,parquet] [--spark]. Nothing here asserts anything.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from kafka_tui.planning import plan_io, plan_rows
from kafka_tui.services.spark_runner import read_parquet_plan


def rows(count: int) -> list[dict[str, object]]:
    made: list[dict[str, object]] = []
    for n in range(count):
        row: dict[str, object] = {
            "topic": f"orders.events-{n:07d}",
            "partitions": 1 + n % 12,
            "replication_factor": 3,
        }
        if n % 3 == 0:
            row["min_required_replication_factor"] = 2
        if n % 10 == 0:
            row["configs"] = {"retention.ms": "86400000", "cleanup.policy": "delete"}
        made.append(row)
    return made


def write(folder: Path, kind: str, count: int) -> Path:
    path = folder / f"plan-{count}.{kind}"
    made = rows(count)
    if kind == "csv":
        with path.open("w", newline="", encoding="utf-8") as out:
            writer = csv.writer(out, lineterminator="\n")
            writer.writerow(plan_rows.COLUMNS)
            for row in made:
                configs = row.get("configs", {})
                assert isinstance(configs, dict)
                writer.writerow(
                    [
                        row["topic"],
                        row["partitions"],
                        row["replication_factor"],
                        row.get("min_required_replication_factor", ""),
                        ";".join(f"{k}={v}" for k, v in configs.items()),
                    ]
                )
    elif kind == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        columns: dict[str, list[object]] = {c: [] for c in plan_rows.COLUMNS}
        for row in made:
            configs = row.get("configs", {})
            assert isinstance(configs, dict)
            columns["topic"].append(row["topic"])
            columns["partitions"].append(row["partitions"])
            columns["replication_factor"].append(row["replication_factor"])
            columns["min_required_replication_factor"].append(
                row.get("min_required_replication_factor")
            )
            columns["configs"].append(";".join(f"{k}={v}" for k, v in configs.items()) or None)
        pq.write_table(pa.table(columns), path)
    elif kind == "json":
        path.write_text(json.dumps({"version": 1, "topics": made}, indent=1), encoding="utf-8")
    else:
        path.write_text("".join(json.dumps(row) + "\n" for row in made), encoding="utf-8")
    return path


def python_reads(kind: str) -> Callable[[Path], object]:
    def read_csv(path: Path) -> object:
        with path.open(newline="", encoding="utf-8") as file:
            return list(csv.reader(file))

    def read_json(path: Path) -> object:
        with path.open(encoding="utf-8") as file:
            return json.load(file)

    def read_lines(path: Path) -> object:
        with path.open(encoding="utf-8") as file:
            return [json.loads(line) for line in file if line.strip()]

    def read_parquet(path: Path) -> object:
        import pyarrow.parquet as pq

        return pq.read_table(path).to_pylist()

    return {"csv": read_csv, "json": read_json, "jsonl": read_lines, "parquet": read_parquet}[kind]


def kafka_tui_reads(path: Path) -> object:
    if path.suffix == ".parquet":
        return _parquet(path)
    text = path.read_text(encoding="utf-8")  # as cli/plans.py reads a plan file
    return plan_io.parse_plan(str(path), text)


def _parquet(path: Path) -> object:
    intents, failure = asyncio.run(read_parquet_plan(path, "local[1]", lambda *_: None))
    assert intents is not None, failure
    return intents


def spark_reads(path: Path) -> object:
    """The Spark job's reader: a `file:` URI is not a path on this machine to kafka-tui, so
    it goes to Spark, which reads it."""
    return _parquet(Path(f"file:{path}"))


def best(read: Callable[[Path], object], path: Path, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        result = read(path)
        times.append(time.perf_counter() - start)
        del result
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rows", default="10000,100000,1000000")
    parser.add_argument("--formats", default="csv,json,jsonl")
    parser.add_argument("--spark", action="store_true", help="Parquet: also the Spark reader")
    args = parser.parse_args()
    counts = [int(n) for n in args.rows.split(",")]
    with tempfile.TemporaryDirectory(prefix="kafka-tui-plan-read-") as folder:
        print(f"{'format':<6} {'rows':>9}  {'Python':>8} {'kafka-tui':>10}  {'us/row':>7}  ratio")
        for kind in args.formats.split(","):
            for count in counts:
                path = write(Path(folder), kind, count)
                python = best(python_reads(kind), path, args.rounds)
                ours = best(kafka_tui_reads, path, args.rounds)
                print(
                    f"{kind:<6} {count:>9,}  {python:7.3f}s {ours:9.3f}s"
                    f"  {ours / count * 1e6:7.2f}  {ours / python:5.2f}x"
                )
                if kind == "parquet" and args.spark:
                    spark = best(spark_reads, path, 1)
                    print(
                        f"{'':<6} {'':>9}  the Spark job's reader (local[1], once): {spark:.3f}s,"
                        f" {spark / ours:.1f}x kafka-tui's in process"
                    )
                path.unlink()


if __name__ == "__main__":
    main()
