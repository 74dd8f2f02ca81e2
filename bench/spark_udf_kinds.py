"""mapInArrow against Python UDFs for the Spark job's per-row work (issue 29, point 3).

The streamed Spark path (planning/spark_parts.py) checks every line of a plan with
`plan_csv.csv_line` in `mapInArrow`. This bench runs that same per-row check three ways on
one CSV plan of N rows, on `local[2]` (one session, each way in turn, twice, the first round
warming the Python workers), and prints each one's seconds:

  map-in-arrow  `DataFrame.mapInArrow`: batches of rows as Arrow record batches (the product)
  udf           a plain Python UDF (`F.udf`): rows pickled to and from the Python workers
  arrow-udf     an Arrow-optimized Python UDF (`F.udf(..., useArrow=True)`, Spark 3.5+)

Each way reads the same file, numbers lines the same way (`monotonically_increasing_id`, the
same for all three: what the product computes from split counts is not what is compared) and
counts the rows the check accepts, so the three do the same work but for how rows cross
between the JVM and Python.

Usage: python bench/spark_udf_kinds.py [--rows 1000000] [--master local[2]]
Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from kafka_tui.planning import plan_csv  # noqa: E402

NAME = "plan.csv"
HEADER = ["topic", "partitions", "replication_factor", "min_required_replication_factor"]


def checked(line: int, raw: str) -> str | None:
    """A line's topic when the check accepts it (None: a problem, blank or a comment)."""
    found = plan_csv.csv_line(NAME, HEADER, line, raw)
    return None if found is None or isinstance(found, list) else found.topic


def check_batches(batches: Iterator[Any]) -> Iterator[Any]:
    import pyarrow as pa

    schema = pa.schema([("topic", pa.string())])
    for batch in batches:
        lines, values = batch.column(0).to_pylist(), batch.column(1).to_pylist()
        topics = [checked(n, v) for n, v in zip(lines, values, strict=True)]
        yield pa.RecordBatch.from_pydict({"topic": topics}, schema=schema)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()

    # The Python workers run this interpreter (its pyarrow, and kafka_tui on sys.path).
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])
    )
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    with tempfile.TemporaryDirectory() as folder:
        plan = Path(folder) / NAME
        body = "\n".join(f"t-{n:08d},5,3," for n in range(args.rows))
        plan.write_text(",".join(HEADER) + "\n" + body + "\n")
        spark = (
            SparkSession.builder.master(args.master)
            .appName("kafka-tui bench udf kinds")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.execution.pythonUDF.arrow.enabled", "false")
            .getOrCreate()
        )
        spark.sparkContext.setLogLevel("ERROR")
        try:
            text = spark.read.text(str(plan)).where(~F.col("value").startswith("topic,"))
            rows = text.select(F.monotonically_increasing_id().alias("line"), "value")
            plain = F.udf(checked, "string")
            arrow = F.udf(checked, "string", useArrow=True)
            ways = {
                "map-in-arrow": lambda: rows.mapInArrow(check_batches, "topic string"),
                "udf": lambda: rows.select(plain("line", "value").alias("topic")),
                "arrow-udf": lambda: rows.select(arrow("line", "value").alias("topic")),
            }
            print(f"{args.rows:,} CSV rows on {args.master}, the product's per-line check:")
            results: dict[str, list[float]] = {way: [] for way in ways}
            counts: dict[str, int] = {}
            for _ in range(args.rounds):
                for way, frame in ways.items():
                    started = time.perf_counter()
                    counts[way] = frame().where(F.col("topic").isNotNull()).count()
                    results[way].append(time.perf_counter() - started)
            base = min(results["map-in-arrow"])
            for way, seconds in results.items():
                best = min(seconds)
                print(
                    f"  {way:<13} {best:7.2f} s (rounds: {', '.join(f'{s:.2f}' for s in seconds)})"
                    f"  {best / base:5.2f}x map-in-arrow   rows accepted {counts[way]:,}"
                )
        finally:
            spark.stop()


if __name__ == "__main__":
    main()
