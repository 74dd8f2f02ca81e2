"""The streamed plan inside Spark (`spark_job --stream PLAN --job JOB --output DIR`): the plan file
read by Spark, checked, prepared, grouped and placed on executors, written as a parts directory
(`plan_parts.py`); the driver holds only per-split counts, group boundaries, group sums and
tallies (a few per 20,000 partitions).

Reading: CSV (a header line) and JSON lines with `spark.read.text`, Parquet with
`spark.read.parquet` (each row as `to_json`). Line numbers are not a Spark notion: a first pass
counts each split's lines (splits keyed by `_metadata.file_block_start`; a split's lines come
in file order), the driver turns the counts into offsets, and the checking pass numbers each
line as its split's offset + its place in the split. Parquet rows are numbered from
`_metadata.row_index` and the part files' counts, in the order of their names. Each line is
checked on the executors by the plan readers' own rules (`csv_line`, `json_line`,
`plan_parquet.check_row`), so a bad field reads as the in-process reader words it. A CSV
record is one line here (a quoted field with a line break is reported, not read).

Preparing: twins (`first` over the metric name) and duplicates (`row_number` over the topic)
are window expressions over the whole plan; the cluster's topics join in by name;
`plan.prepare_row` runs per row in `mapInArrow`. Grouping scans (line, partitions) in plan
order in one task and returns only each group's first line. Placing: one group per range
partition, `plan.run_group` in `mapInArrow`, the frame cached so the entries are written and
the tallies read from one placement. mapInArrow against Python UDFs for the per-line check
(bench/spark_udf_kinds.py, 1,000,000 lines on local[2]): 1.00 / plain UDF 1.06 / Arrow UDF
1.02, the check itself being the cost; mapInArrow also gives each split's lines in order.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from functools import reduce
from pathlib import Path
from typing import Any, TextIO

from kafka_tui.planning import plan_csv, plan_json, plan_parquet
from kafka_tui.planning import streamed_parts as plan_parts
from kafka_tui.planning.bulk_plan import Tally, Units, group_loads
from kafka_tui.planning.plan_stats import balance_warnings, broker_rows, statistics

Progress = Callable[[str, int, int], None]

CHECKED = "line long, topic string, p int, rf int, mr int, configs string, errors string"
PREPARED = (
    "line long, row string, skipped string, p long, weight long, u0 long, u1 long, u2 long, "
    "u3 long, warnings string"
)


class PlanProblem(Exception):
    """The plan cannot be read as a whole (e.g. a CSV that is more than one file)."""


def kind_of(name: str) -> str:
    lowered = name.rstrip("/").lower()
    if plan_parquet.is_parquet(lowered):
        return "parquet"
    if lowered.endswith((".jsonl", ".ndjson")):
        return "jsonl"
    return "csv"


def _batches(columns: dict[str, list[Any]], schema: Any) -> Any:
    import pyarrow as pa

    return pa.RecordBatch.from_pydict(columns, schema=schema)


def _arrow_schema(ddl: str) -> Any:
    import pyarrow as pa

    types = {"long": pa.int64(), "int": pa.int32(), "string": pa.string()}
    return pa.schema([(n, types[t]) for n, t in (f.strip().split() for f in ddl.split(","))])


# -- reading and checking ------------------------------------------------------------------------


def _split_counts(kind: str) -> Callable[[Iterator[Any]], Iterator[Any]]:
    """Per split: its lines, and its first line that is not blank or a comment (the CSV's
    header candidate) with its place in the split."""
    schema = _arrow_schema("file string, block long, lines long, first long, text string")

    def count(batches: Iterator[Any]) -> Iterator[Any]:
        found: dict[tuple[str, int], list[Any]] = {}
        for batch in batches:
            values, files, blocks = (batch.column(i).to_pylist() for i in range(3))
            for value, key in zip(values, zip(files, blocks, strict=True), strict=True):
                entry = found.setdefault(key, [0, -1, None])
                if entry[1] < 0 and kind == "csv" and not plan_csv.csv_is_skipped(value):
                    entry[1], entry[2] = entry[0], value
                entry[0] += 1
        columns: dict[str, list[Any]] = {k: [] for k in schema.names}
        for (file, block), (lines, first, text) in found.items():
            for key, value in zip(schema.names, (file, block, lines, first, text), strict=True):
                columns[key].append(value)
        yield _batches(columns, schema)

    return count


def _check_lines(
    kind: str, name: str, offsets: dict[tuple[str, int], int], header: list[str], after: int
) -> Callable[[Iterator[Any]], Iterator[Any]]:
    schema = _arrow_schema(CHECKED)

    def check(batches: Iterator[Any]) -> Iterator[Any]:
        seen: dict[tuple[str, int], int] = {}
        for batch in batches:
            values, files, blocks = (batch.column(i).to_pylist() for i in range(3))
            rows: list[plan_parts.Checked] = []
            for value, key in zip(values, zip(files, blocks, strict=True), strict=True):
                place = seen.get(key, 0)
                seen[key] = place + 1
                line = offsets[key] + place + 1
                if line <= after:
                    continue
                if kind == "csv":
                    found = plan_csv.csv_line(name, header, line, value)
                else:
                    found = plan_json.json_line(name, line, value)
                if found is None:
                    continue
                if isinstance(found, list):
                    rows.append((line, None, [str(e) for e in found]))
                else:
                    rows.append((line, found, []))
            yield _batches(plan_parts.checked_columns(rows), schema)

    return check


def _check_parquet(
    name: str, columns: list[str], offsets: dict[str, int]
) -> Callable[[Iterator[Any]], Iterator[Any]]:
    schema = _arrow_schema(CHECKED)

    def check(batches: Iterator[Any]) -> Iterator[Any]:
        for batch in batches:
            values, files, indexes = (batch.column(i).to_pylist() for i in range(3))
            rows: list[plan_parts.Checked] = []
            for value, file, index in zip(values, files, indexes, strict=True):
                row = offsets[file] + index + 1
                data = json.loads(value)
                found = plan_parquet.check_row(name, columns, row, [data.get(c) for c in columns])
                if isinstance(found, list):
                    rows.append((row, None, [str(e) for e in found]))
                else:
                    rows.append((row, found, []))
            yield _batches(plan_parts.checked_columns(rows), schema)

    return check


def checked_rows(spark: Any, plan: str, name: str) -> tuple[Any, list[str]]:
    """The plan's rows checked: a frame of CHECKED, and the problems of the file as a whole
    (a CSV header, Parquet columns) — with those, the frame is None."""
    from pyspark.sql import functions as F

    kind = kind_of(plan)
    if kind == "parquet":
        frame = spark.read.parquet(plan)
        columns = list(frame.columns)
        schema_errors = plan_parquet.schema_errors(name, columns)
        if "topic" not in columns:
            return None, [str(e) for e in schema_errors]
        quoted = [F.col("`" + c.replace("`", "``") + "`").alias(c) for c in columns]
        data = frame.select(
            F.to_json(F.struct(*quoted)).alias("value"),
            F.col("_metadata.file_path").alias("file"),
            F.col("_metadata.row_index").alias("index"),
        )
        counts = sorted((r["file"], r["count"]) for r in data.groupBy("file").count().collect())
        starts: dict[str, int] = {}
        total = 0
        for file, count in counts:
            starts[file], total = total, total + count
        checked = data.mapInArrow(_check_parquet(name, columns, starts), CHECKED)
        return checked, [str(e) for e in schema_errors]
    reader = spark.read.option("lineSep", "\n") if kind == "jsonl" else spark.read
    data = reader.text(plan).select(
        "value",
        F.col("_metadata.file_path").alias("file"),
        F.col("_metadata.file_block_start").alias("block"),
    )
    splits = sorted(
        (r["file"], r["block"], r["lines"], r["first"], r["text"])
        for r in data.mapInArrow(
            _split_counts(kind), "file string, block long, lines long, first long, text string"
        ).collect()
    )
    if len({s[0] for s in splits}) > 1:
        raise PlanProblem(f"{name}: a CSV or JSON lines plan is one file, not a folder")
    offsets: dict[tuple[str, int], int] = {}
    total = 0
    header: list[str] = []
    after = 0
    header_errors: list[str] = []
    for file, block, lines, first, text in splits:
        offsets[(file, block)] = total
        if kind == "csv" and not header and first >= 0:
            after = total + first + 1
            header, errors = plan_csv.csv_header(name, after, text)
            header_errors = [str(e) for e in errors]
        total += lines
    if kind == "csv" and not header:
        after = total  # comments and blank lines only: no rows, as in process
    elif kind == "csv" and "topic" not in header:
        return None, header_errors or [f"{name}:1:1: the header needs a 'topic' column"]
    check = _check_lines(kind, name, offsets, header, after)
    return data.mapInArrow(check, CHECKED), header_errors


# -- preparing, grouping, placing ------------------------------------------------------------------


def _prepare(job: dict[str, Any]) -> Callable[[Iterator[Any]], Iterator[Any]]:
    schema = _arrow_schema(PREPARED)

    def prepare(batches: Iterator[Any]) -> Iterator[Any]:
        preparer = plan_parts.RowPreparer(job)
        for batch in batches:
            data = batch.to_pydict()
            rows = [
                (
                    line,
                    plan_parts.intent_of(topic, p, rf, mr, configs),
                    twin,
                    duplicate,
                    existing,
                )
                for line, topic, p, rf, mr, configs, twin, duplicate, existing in zip(
                    data["line"],
                    data["topic"],
                    data["p"],
                    data["rf"],
                    data["mr"],
                    data["configs"],
                    data["twin"],
                    data["duplicate"],
                    data["existing"],
                    strict=True,
                )
            ]
            yield _batches(preparer(rows), schema)

    return prepare


def _starts(size: int) -> Callable[[Iterator[Any]], Iterator[Any]]:
    schema = _arrow_schema("line long")

    def starts(batches: Iterator[Any]) -> Iterator[Any]:
        def rows() -> Iterator[tuple[int, int]]:
            for batch in batches:
                yield from zip(
                    batch.column(0).to_pylist(), batch.column(1).to_pylist(), strict=True
                )

        yield _batches({"line": list(plan_parts.group_starts(rows(), size))}, schema)

    return starts


def _with_group(starts: list[int]) -> Callable[[Iterator[Any]], Iterator[Any]]:
    schema = _arrow_schema("grp long, line long, row string")

    def add(batches: Iterator[Any]) -> Iterator[Any]:
        for batch in batches:
            lines = batch.column(0).to_pylist()
            groups = [plan_parts.group_of(starts, line) for line in lines]
            yield _batches(
                {"grp": groups, "line": lines, "row": batch.column(1).to_pylist()}, schema
            )

    return add


UNITS = ("weight", "u0", "u1", "u2", "u3")


def _group_sums(starts: list[int]) -> Callable[[Iterator[Any]], Iterator[Any]]:
    """Each batch's sums of a row's weight and units per group (summed again by Spark)."""
    schema = _arrow_schema("grp long, " + ", ".join(f"{c} long" for c in UNITS))

    def sums(batches: Iterator[Any]) -> Iterator[Any]:
        for batch in batches:
            found: dict[int, list[int]] = {}
            columns = [batch.column(i).to_pylist() for i in range(1 + len(UNITS))]
            for line, *values in zip(*columns, strict=True):
                total = found.setdefault(plan_parts.group_of(starts, line), [0] * len(UNITS))
                for i, value in enumerate(values):
                    total[i] += value
            made: dict[str, list[Any]] = {"grp": list(found)}
            for i, key in enumerate(UNITS):
                made[key] = [v[i] for v in found.values()]
            yield _batches(made, schema)

    return sums


def _place(job: dict[str, Any], loads: dict[int, Any]) -> Callable[[Iterator[Any]], Iterator[Any]]:
    schema = _arrow_schema("grp long, seq long, entry string, tally string")

    def place(batches: Iterator[Any]) -> Iterator[Any]:
        def rows() -> Iterator[tuple[int, str]]:
            for batch in batches:
                yield from zip(
                    batch.column(0).to_pylist(), batch.column(2).to_pylist(), strict=True
                )

        brokers = plan_parts.brokers_from(job)
        made: dict[str, list[Any]] = {k: [] for k in schema.names}
        for found in plan_parts.place_groups(brokers, loads, rows()):
            for key, value in zip(schema.names, found, strict=True):
                made[key].append(value)
            if len(made["grp"]) >= 10_000:
                yield _batches(made, schema)
                made = {k: [] for k in schema.names}
        yield _batches(made, schema)

    return place


def stream_plan(
    spark: Any, plan: str, job: dict[str, Any], out: Path, progress: Progress
) -> dict[str, Any]:
    """The parts directory `out` (its topics; the caller writes the summary returned)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    name = job["name"]
    head: dict[str, Any] = {
        "engine": "spark",
        "cluster": dict(zip(("id", "snapshot_time"), job["cluster"], strict=True)),
        "options": dict(
            zip(
                ("mode", "min_required_replication_factor", "group_partitions"),
                job["options"],
                strict=True,
            )
        ),
    }
    progress("read", 0, 1)
    rows, problems = checked_rows(spark, plan, name)
    if rows is None:
        return {**head, "errors": problems, "errors_total": len(problems)}
    rows = rows.persist()
    bad = rows.where(F.col("errors").isNotNull())
    first_bad = bad.orderBy("line").limit(plan_parts.MAX_ERRORS).select("errors").collect()
    if problems or first_bad:
        errors_total = bad.select(F.sum(F.size(F.from_json("errors", "array<string>")))).first()
        shown = problems + [e for r in first_bad for e in json.loads(r["errors"])]
        rows.unpersist()
        return {
            **head,
            "errors": shown[: plan_parts.MAX_ERRORS],
            "errors_total": len(problems) + int(errors_total[0] or 0),
        }
    progress("read", 1, 1)

    progress("prepare", 0, 1)
    # a row with nulls stands in for no rows: Spark infers nothing from an empty list
    none: list[tuple[str, str | None]] = [("", None)]
    known = [(t, e) for t, e in job["topics"]] or none
    existing = spark.createDataFrame(known, "topic string, existing string").where(
        F.col("existing").isNotNull()
    )
    twins = spark.createDataFrame(
        list(plan_parts.first_names(t for t, _ in job["topics"]).items()) or none,
        "norm string, known_twin string",
    ).where(F.col("known_twin").isNotNull())
    # The duplicates' window is clustered by (norm, topic), which the twins' partitioning by
    # norm satisfies: one shuffle for both. The cluster's topics are few: broadcast.
    framed = (
        rows.where(F.col("errors").isNull())
        .withColumn("norm", F.translate("topic", ".", "_"))
        .withColumn("first_twin", F.first("topic").over(Window.partitionBy("norm").orderBy("line")))
        .withColumn(
            "duplicate",
            F.row_number().over(Window.partitionBy("norm", "topic").orderBy("line")) > 1,
        )
        .join(F.broadcast(twins), "norm", "left")
        .withColumn("twin", F.coalesce("known_twin", "first_twin"))
        .join(F.broadcast(existing), "topic", "left")
        .select("line", "topic", "p", "rf", "mr", "configs", "twin", "duplicate", "existing")
    )
    prepared = framed.mapInArrow(_prepare(job), PREPARED).persist()
    sums = prepared.agg(
        F.count("skipped").alias("skipped"),
        F.count("row").alias("rows"),
        F.sum(F.size(F.from_json("warnings", "array<string>"))).alias("warnings"),
    ).first()
    rows.unpersist()
    placed_rows = prepared.where(F.col("row").isNotNull())
    size = max(1, job["options"][2])
    starts = sorted(
        r["line"]
        for r in placed_rows.select("line", "p")
        .repartition(1)
        .sortWithinPartitions("line")
        .mapInArrow(_starts(size), "line long")
        .collect()
    ) or [0]
    grouped = placed_rows.select("line", "row").mapInArrow(
        _with_group(starts), "grp long, line long, row string"
    )
    by_group = {
        r["grp"]: r
        for r in placed_rows.select("line", *UNITS)
        .mapInArrow(_group_sums(starts), "grp long, " + ", ".join(f"{c} long" for c in UNITS))
        .groupBy("grp")
        .agg(*[F.sum(c).alias(c) for c in UNITS])
        .collect()
    }
    indexes = range(len(starts))
    brokers, before = plan_parts.brokers_from(job), plan_parts.load_from(job)
    loads = group_loads(
        brokers,
        before,
        [int(by_group[i]["weight"]) if i in by_group else 0 for i in indexes],
        [_units(by_group.get(i)) for i in indexes],
    )
    progress("prepare", 1, 1)

    progress("place", 0, len(starts))
    placed = (
        grouped.repartitionByRange(len(starts), "grp")
        .sortWithinPartitions("grp", "line")
        .mapInArrow(
            _place(job, dict(enumerate(loads))), "grp long, seq long, entry string, tally string"
        )
        .persist()
    )
    placed.where(F.col("seq") >= 0).select("entry").write.text(str(out / plan_parts.TOPICS))
    tallies = sorted(
        (r["grp"], r["tally"])
        for r in placed.where(F.col("seq") < 0).select("grp", "tally").collect()
    )
    progress("place", len(starts), len(starts))
    total = reduce(
        lambda a, b: a.merged(b),
        (Tally.from_json(json.loads(t)) for _, t in tallies),
        Tally.empty(),
    )
    skipped = int(sums["skipped"])
    warnings = [
        r["skipped"]
        for r in prepared.where(F.col("skipped").isNotNull())
        .orderBy("line")
        .limit(plan_parts.MAX_WARNINGS)
        .collect()
    ]
    if len(warnings) < plan_parts.MAX_WARNINGS:
        for r in (
            prepared.where(F.col("warnings").isNotNull())
            .orderBy("line")
            .limit(plan_parts.MAX_WARNINGS - len(warnings))
            .collect()
        ):
            warnings.extend(json.loads(r["warnings"]))
    warnings = warnings[: plan_parts.MAX_WARNINGS]
    left_off = skipped + int(sums["warnings"] or 0) - len(warnings)
    stats = statistics(brokers, before, total, skipped)
    placed.unpersist()
    prepared.unpersist()
    return {
        **head,
        "parts": plan_parts.TOPICS,
        "topics_count": int(sums["rows"]),
        "brokers": broker_rows(brokers, before, total),
        "stats": stats,
        "warnings": [*warnings, *balance_warnings(stats)],
        "warnings_left_off": left_off,
    }


def _units(sums: Any) -> Units:
    if sums is None:
        return 0, 0, 0, 0
    return int(sums["u0"]), int(sums["u1"]), int(sums["u2"]), int(sums["u3"])


def write_summary(out: Path, summary: dict[str, Any]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    partial = out / (plan_parts.SUMMARY + ".partial")
    partial.write_text(json.dumps(summary, separators=(",", ":")) + "\n")
    partial.replace(out / plan_parts.SUMMARY)


def progress_to(stream: TextIO) -> Progress:
    def show(stage: str, done: int, total: int) -> None:
        stream.write(json.dumps({"stage": stage, "done": done, "total": total}) + "\n")
        stream.flush()

    return show
