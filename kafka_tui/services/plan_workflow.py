"""The bulk-plan workflow, once for `plan preview|apply` and the TUI's plan screen: read the
plan (a file, or "grow these topics to N"), snapshot the cluster, prepare, place in process or
with the Spark job, and return the plan document.

Progress goes to `Watch.progress`, always on the event loop's thread. Cancelling the task
that awaits a run is the one way to stop it: the Spark job is terminated (`spark_runner`),
and the in-process placer stops between two groups before the cancelled call returns.
Plans too big for one process (the CLI's streamed path, `cli/plan_stream.py`) are not this.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import io
import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from ..admin.placeholders import PlaceholderStore
from ..planning import plan_io, plan_parquet, plan_saved
from ..planning.bulk_plan import (
    ClusterView,
    Intent,
    PlanOptions,
    Prepared,
    plan_in_process,
    prepare,
)
from .plan_documents import PlanDocument, cluster_view
from .plan_keys import with_key_moves
from .ports import AdminPort
from .snapshot import Snapshot, take_snapshot
from .spark_runner import Show, read_parquet_plan, run_spark_job, spark_log_path

# Above this many new partitions the `auto` engine runs Spark: where Spark catches up with
# the in-process placer on 2 cores (bench/README.md, "Figures behind constants").
AUTO_SPARK_PARTITIONS = 1_000_000

Engine = Literal["auto", "local", "spark"]
Process = asyncio.subprocess.Process
# run_spark_job's shape: (prepared, master, show, started, conf) -> (text, None) | (None, why)
SparkJob = Callable[
    [Prepared, str, Show, Callable[[Process], None], Mapping[str, str] | None],
    Awaitable[tuple[str | None, str | None]],
]


@dataclass(frozen=True)
class PlanFile:
    """A plan file: CSV, JSON, JSON lines, Parquet, or a document `plan preview` saved."""

    path: str


@dataclass(frozen=True)
class GrowTopics:
    """Grow each of `topics` to `partitions` partitions."""

    topics: tuple[str, ...]
    partitions: int


PlanSource = PlanFile | GrowTopics


@dataclass(frozen=True)
class SparkSettings:
    """Where the Spark job runs (`master`), its settings, and the runner (the one
    `spark_runner.run_spark_job` unless a caller gives its own)."""

    master: str = "local[*]"
    conf: Mapping[str, str] = field(default_factory=dict)
    job: SparkJob = run_spark_job


@dataclass(frozen=True)
class PlanRequest:
    """A plan to make: its rows, who places them (`auto`: Spark above AUTO_SPARK_PARTITIONS
    new partitions), and the placement options (KIP-409 mode and minimum, group size)."""

    source: PlanSource
    engine: Engine = "local"
    spark: SparkSettings = field(default_factory=SparkSettings)
    options: PlanOptions = field(default_factory=PlanOptions)


Phase = Literal["read", "snapshot", "place", "spark_start", "spark"]


@dataclass(frozen=True)
class Progress:
    """`read`: a Parquet file read (`stage` "read", or the Spark job's stages); `snapshot`:
    the cluster read; `place`: groups placed in process; `spark_start`: the Spark job about to
    start; `spark`: the job's own stages as it reports them."""

    phase: Phase
    done: int
    total: int
    stage: str = ""


@dataclass(frozen=True)
class Watch:
    """Where a run reports: its progress, and the Spark job's subprocess once started."""

    progress: Callable[[Progress], None] = lambda _: None
    spark_started: Callable[[Process], None] = lambda _: None


@dataclass(frozen=True)
class PlanRun:
    document: PlanDocument
    snapshot: Snapshot  # the cluster as the plan was made (or checked, for a saved one)


class PlanUnreadable(Exception):
    """The plan file cannot be read: `reason` is the system's words, None when the file is not
    UTF-8 text."""

    def __init__(self, path: str, reason: str | None) -> None:
        super().__init__(f"{path}: {reason or 'not UTF-8 text'}")
        self.path = path
        self.reason = reason


class SparkJobFailed(Exception):
    """The Spark job failed (`reading`: while reading a Parquet plan); its log is `log`."""

    def __init__(self, failure: str, log: Path, reading: bool = False) -> None:
        super().__init__(failure)
        self.failure = failure
        self.log = log
        self.reading = reading


PlanInput = list[Intent] | PlanDocument  # rows to place, or a saved document


async def run(
    admin: AdminPort,
    request: PlanRequest,
    watch: Watch,
    *,
    zookeeper: str | None,
    store: PlaceholderStore | None,
    read: PlanInput | None = None,
) -> PlanRun:
    """The whole workflow: the plan read (unless `read` gives it), the cluster read, and the
    rows placed (a saved document is returned as it is, with the cluster to check it by).
    Raises plan_rows.PlanFileErrors, PlanUnreadable, SparkJobFailed, AdminError."""
    found = read if read is not None else await read_plan(request.source, request.spark, watch)
    watch.progress(Progress("snapshot", 0, 1))
    snapshot = await take_snapshot(admin, zookeeper=zookeeper, store=store)
    watch.progress(Progress("snapshot", 1, 1))
    if isinstance(found, PlanDocument):
        return PlanRun(found, snapshot)
    return PlanRun(await plan_intents(admin, snapshot, found, request, watch), snapshot)


async def read_plan(source: PlanSource, spark: SparkSettings, watch: Watch) -> PlanInput:
    """The plan's rows, or a saved document. A Parquet file is read in process when it is on
    this machine (pyarrow), else by Spark on `spark.master`."""
    if isinstance(source, GrowTopics):
        return [Intent(t, source.partitions) for t in source.topics]
    name = source.path
    path = Path(name)
    if plan_parquet.is_parquet(name):
        return await _read_parquet(path, spark, watch)
    try:
        text = await asyncio.to_thread(path.read_text, encoding="utf-8")
    except OSError as exc:
        raise PlanUnreadable(name, exc.strerror) from None
    except UnicodeDecodeError:
        raise PlanUnreadable(name, None) from None
    if plan_saved.is_saved_plan(text):
        data = await asyncio.to_thread(plan_saved.saved_plan, name, text)
        return PlanDocument(text, data, saved_path=name)
    return await asyncio.to_thread(plan_io.parse_plan, name, text)


async def _read_parquet(path: Path, spark: SparkSettings, watch: Watch) -> list[Intent]:
    if spark.master.startswith("local") and not await asyncio.to_thread(path.exists):
        raise PlanUnreadable(str(path), "No such file or directory")

    def show(stage: str, done: int, total: int) -> None:
        watch.progress(Progress("read", done, total, stage))

    intents, failure = await read_parquet_plan(
        path, spark.master, show, watch.spark_started, spark.conf
    )
    if intents is None:
        raise SparkJobFailed(failure or "no rows", spark_log_path(), reading=True)
    return intents


async def plan_intents(
    admin: AdminPort,
    snapshot: Snapshot,
    intents: Sequence[Intent],
    request: PlanRequest,
    watch: Watch,
) -> PlanDocument:
    """`intents` placed against the cluster as `snapshot` (and the plan's topics' configs)
    show it; the document names the cluster and when it was read, and, when it grows topics,
    what each grow moves by the topic's kept key count (`key_moves`, plan_keys.py)."""
    view = await cluster_view(admin, snapshot, [i.topic for i in intents])
    taken = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    document = await place_plan(
        view, intents, request, watch, cluster_id=admin.cluster_id, snapshot_time=taken
    )
    return await with_key_moves(document, snapshot, admin.cluster_id)


async def place_plan(
    view: ClusterView,
    intents: Sequence[Intent],
    request: PlanRequest,
    watch: Watch,
    *,
    cluster_id: str | None = None,
    snapshot_time: str | None = None,
) -> PlanDocument:
    """Pure planning inputs placed by the request's engine: the document."""
    prepared = await asyncio.to_thread(prepare, view, intents, request.options)
    prepared = replace(prepared, cluster_id=cluster_id, snapshot_time=snapshot_time)
    if engine_for(prepared, request.engine) == "spark":
        text = await _in_spark(prepared, request.spark, watch)
    else:
        text = await _in_process(prepared, watch)
    # Off the event loop: a 1,000,000-partition document is ~50 MB of JSON (3 s).
    return await asyncio.to_thread(PlanDocument.parse, text)


def engine_for(prepared: Prepared, engine: Engine) -> Literal["local", "spark"]:
    if engine != "auto":
        return engine
    size = sum(r.request.partitions for g in prepared.groups for r in g.rows if r.error is None)
    return "spark" if size > AUTO_SPARK_PARTITIONS else "local"


async def _in_process(prepared: Prepared, watch: Watch) -> str:
    """`plan_in_process` in a thread, its progress brought to the event loop; cancelled, it
    stops at the next group and is waited for."""
    loop = asyncio.get_running_loop()
    stop = threading.Event()

    def report(done: int, total: int) -> None:
        loop.call_soon_threadsafe(watch.progress, Progress("place", done, total))

    def place() -> str:
        out = io.StringIO()
        plan_in_process(prepared, out, progress=report, stop=stop.is_set)
        return out.getvalue()

    watch.progress(Progress("place", 0, len(prepared.groups)))
    placing = asyncio.ensure_future(asyncio.to_thread(place))
    try:
        return await asyncio.shield(placing)
    except asyncio.CancelledError:
        stop.set()
        # PlanStopped (or a failure on its way out): cancelled all the same
        with contextlib.suppress(Exception):
            await placing
        raise


async def _in_spark(prepared: Prepared, spark: SparkSettings, watch: Watch) -> str:
    watch.progress(Progress("spark_start", 0, 1))

    def show(stage: str, done: int, total: int) -> None:
        watch.progress(Progress("spark", done, total, stage))

    text, failure = await spark.job(
        prepared, spark.master, show, watch.spark_started, dict(spark.conf)
    )
    if text is None:
        raise SparkJobFailed(failure or "no document", spark_log_path())
    return text
