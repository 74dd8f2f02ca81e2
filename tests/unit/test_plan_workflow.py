"""The plan workflow's service (`services/plan_workflow.py`) on pure planning inputs: progress
reported group by group on the event loop, the in-process placer stopped by cancelling the
run (and stopped before the cancelled call returns), the Spark engine's progress, start and
failure through a stand-in job, and the plan read from a file or from marked topics. No
Kafka, no Spark: a ClusterView is given."""

from __future__ import annotations

import asyncio
import io
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from kafka_tui.planning.bulk_plan import (
    ClusterView,
    Intent,
    PlanOptions,
    PlanStopped,
    Prepared,
    plan_in_process,
    prepare,
)
from kafka_tui.planning.placement import Broker, Load
from kafka_tui.services import plan_workflow
from kafka_tui.services.plan_documents import PlanDocument
from kafka_tui.services.plan_workflow import (
    GrowTopics,
    PlanFile,
    PlanRequest,
    Progress,
    SparkSettings,
    Watch,
)
from kafka_tui.services.spark_runner import Show

VIEW = ClusterView(tuple(Broker(b, f"r{b % 2}", True) for b in range(1, 4)), Load(), {}, 1, 3, 1)
# 40 topics of 2 partitions in groups of about 10 partitions: several groups
INTENTS = [Intent(f"t{n:02d}", 2, 2) for n in range(40)]
OPTIONS = PlanOptions("disabled", None, 10)


def request(engine: plan_workflow.Engine = "local", **spark: Any) -> PlanRequest:
    return PlanRequest(PlanFile("plan.csv"), engine, SparkSettings(**spark), OPTIONS)


def in_process(prepared: Prepared, engine: str = "local") -> str:
    out = io.StringIO()
    plan_in_process(prepared, out, engine)
    return out.getvalue()


async def test_in_process_progress_comes_group_by_group_and_the_document_is_the_same() -> None:
    seen: list[Progress] = []
    loop_thread = threading.get_ident()
    threads: set[int] = set()

    def progress(p: Progress) -> None:
        seen.append(p)
        threads.add(threading.get_ident())

    document = await plan_workflow.place_plan(VIEW, INTENTS, request(), Watch(progress))
    groups = len(prepare(VIEW, INTENTS, OPTIONS).groups)
    assert groups > 3
    assert seen == [Progress("place", done, groups) for done in range(groups + 1)]
    assert threads == {loop_thread}  # brought to the event loop's thread
    assert document.text == in_process(prepare(VIEW, INTENTS, OPTIONS))  # byte for byte
    assert document.engine == "local" and document.sane and document.saved_path is None
    assert [t["topic"] for t in document.topics] == [i.topic for i in INTENTS]
    assert document["stats"] == document.stats and document.options == OPTIONS


def test_plan_in_process_stops_between_groups() -> None:
    prepared = prepare(VIEW, INTENTS, OPTIONS)
    done: list[int] = []
    with pytest.raises(PlanStopped):
        plan_in_process(
            prepared,
            io.StringIO(),
            progress=lambda n, total: done.append(n),
            stop=lambda: len(done) == 2,
        )
    assert done == [1, 2]


async def test_cancelling_the_run_stops_the_placer_before_the_call_returns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The placer is held after its first group until it is told to stop (so the test does
    not race it); the cancelled call returns only once the placer has stopped."""
    ended: list[str] = []

    def held(
        prepared: Prepared,
        out: io.StringIO,
        engine: str = "local",
        *,
        progress: Callable[[int, int], None],
        stop: Callable[[], bool],
    ) -> Any:
        def gate(done: int, total: int) -> None:
            progress(done, total)
            deadline = time.monotonic() + 30
            while not stop():  # polled: the cancellation sets it
                assert time.monotonic() < deadline, "never told to stop"
                time.sleep(0.001)

        try:
            return plan_in_process(prepared, out, engine, progress=gate, stop=stop)
        except PlanStopped:
            ended.append("stopped")
            raise

    monkeypatch.setattr(plan_workflow, "plan_in_process", held)
    seen: list[Progress] = []

    def progress(p: Progress) -> None:
        seen.append(p)
        if p.done == 1:
            running.cancel()

    running = asyncio.create_task(
        plan_workflow.place_plan(VIEW, INTENTS, request(), Watch(progress))
    )
    with pytest.raises(asyncio.CancelledError):
        await running
    assert ended == ["stopped"]  # the thread had stopped when the cancelled call returned
    groups = len(prepare(VIEW, INTENTS, OPTIONS).groups)
    assert [p.done for p in seen] == [0, 1] and seen[-1].total == groups


async def test_the_spark_engine_reports_its_stages_and_its_process() -> None:
    seen: list[Progress] = []
    started: list[object] = []
    received: list[tuple[str, dict[str, str]]] = []
    process = object()

    async def job(
        prepared: Prepared,
        master: str,
        show: Show,
        began: Callable[[Any], None],
        conf: Mapping[str, str] | None,
    ) -> tuple[str | None, str | None]:
        received.append((master, dict(conf or {})))
        show("session", 0, 1)
        began(process)
        show("place", 3, 3)
        return in_process(prepared, "spark"), None

    spark = {"master": "local[1]", "conf": {"spark.ui.enabled": "false"}, "job": job}
    document = await plan_workflow.place_plan(
        VIEW, INTENTS, request("spark", **spark), Watch(seen.append, started.append)
    )
    assert seen == [
        Progress("spark_start", 0, 1),
        Progress("spark", 0, 1, "session"),
        Progress("spark", 3, 3, "place"),
    ]
    assert started == [process] and received == [("local[1]", {"spark.ui.enabled": "false"})]
    assert document.engine == "spark"
    assert document.text == in_process(prepare(VIEW, INTENTS, OPTIONS), "spark")


async def test_a_failed_or_cancelled_spark_job() -> None:
    async def failing(*_: Any) -> tuple[str | None, str | None]:
        return None, "exit 1"

    with pytest.raises(plan_workflow.SparkJobFailed) as failed:
        await plan_workflow.place_plan(VIEW, INTENTS, request("spark", job=failing), Watch())
    assert failed.value.failure == "exit 1" and not failed.value.reading

    waiting = asyncio.Event()
    ended: list[str] = []

    async def endless(*_: Any) -> tuple[str | None, str | None]:
        waiting.set()
        try:
            await asyncio.Event().wait()
        finally:
            ended.append("ended")  # where spark_runner terminates the subprocess
        return None, None

    running = asyncio.create_task(
        plan_workflow.place_plan(VIEW, INTENTS, request("spark", job=endless), Watch())
    )
    await waiting.wait()
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    assert ended == ["ended"]


def test_auto_runs_spark_only_above_the_threshold() -> None:
    prepared = prepare(VIEW, INTENTS, OPTIONS)
    assert plan_workflow.engine_for(prepared, "auto") == "local"
    assert plan_workflow.engine_for(prepared, "spark") == "spark"


async def test_the_plan_is_read_from_a_file_a_saved_document_or_the_marked_topics(
    tmp_path: Path,
) -> None:
    grow = await plan_workflow.read_plan(GrowTopics(("a", "b"), 6), SparkSettings(), Watch())
    assert grow == [Intent("a", 6), Intent("b", 6)]

    plan = tmp_path / "plan.csv"
    plan.write_text("topic,partitions,replication_factor\nx,3,2\n")
    assert await plan_workflow.read_plan(PlanFile(str(plan)), SparkSettings(), Watch()) == [
        Intent("x", 3, 2)
    ]

    made = await plan_workflow.place_plan(VIEW, INTENTS[:2], request(), Watch())
    saved = tmp_path / "saved.json"
    saved.write_text(made.text)
    found = await plan_workflow.read_plan(PlanFile(str(saved)), SparkSettings(), Watch())
    assert isinstance(found, PlanDocument)
    assert found.text == made.text and found.saved_path == str(saved)
    assert found.intents() == [Intent(i.topic, 2, 2, None, ()) for i in INTENTS[:2]]

    with pytest.raises(plan_workflow.PlanUnreadable) as missing:
        await plan_workflow.read_plan(PlanFile(str(tmp_path / "no.csv")), SparkSettings(), Watch())
    assert missing.value.reason == "No such file or directory"
    (tmp_path / "latin.csv").write_bytes(b"topic\n\xe9\n")
    with pytest.raises(plan_workflow.PlanUnreadable) as latin:
        await plan_workflow.read_plan(
            PlanFile(str(tmp_path / "latin.csv")), SparkSettings(), Watch()
        )
    assert latin.value.reason is None
