"""The Spark planning job as a subprocess: the one runner `plan preview --engine spark` and
the TUI's plan screen share, also the reader of Parquet plan files (`read_parquet_plan`) and
the streamed path for plans above `plan_parts.STREAM_ROWS` rows (`run_streamed_job`). Its
JSON progress lines go to `show`; cancelling the caller ends the job (SIGTERM — it stops its
Spark session and exits 130 — then SIGKILL if slow). `conf` is Spark settings (a profile's
`[spark]` table, `--spark-conf KEY=VALUE`) for the job's session."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from ..paths import user_path
from ..planning import plan_parquet, plan_parquet_arrow, plan_prepared
from ..planning import streamed_parts as plan_parts
from ..planning.bulk_plan import Intent, Prepared

TERMINATE_SECONDS = 10.0  # then the job is killed

Show = Callable[[str, int, int], None]  # stage, done, total


def spark_log_path() -> Path:
    return user_path("KAFKA_TUI_SPARK_LOG", "XDG_STATE_HOME", ".local/state", "spark-job.log")


async def run_spark_job(
    prepared: Prepared,
    master: str,
    show: Show,
    started: Callable[[asyncio.subprocess.Process], None] = lambda _: None,
    conf: Mapping[str, str] | None = None,
) -> tuple[str | None, str | None]:
    """(the plan document's text, None), or (None, why the job failed). Spark's own output
    goes to `spark_log_path()`; files are written and read off the event loop."""
    folder = Path(await asyncio.to_thread(tempfile.mkdtemp, prefix="kafka-tui-plan-"))
    try:
        job_input = folder / "input.json"
        payload = json.dumps(plan_prepared.prepared_to_json(prepared))
        await asyncio.to_thread(job_input.write_text, payload)
        job = ["--input", str(job_input), *_conf_args(conf)]
        return await _run_job(job, folder, master, show, started)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def read_parquet_plan(
    path: Path,
    master: str,
    show: Show,
    started: Callable[[asyncio.subprocess.Process], None] = lambda _: None,
    conf: Mapping[str, str] | None = None,
) -> tuple[list[Intent] | None, str | None]:
    """A Parquet plan file's intents; (None, why) if the Spark job failed. A bad row raises
    plan_rows.PlanFileErrors. A file or folder on this machine is read in process with pyarrow
    (a Spark start-up saved: 10-20 s on 2 cores); another (hdfs://, s3a://, ...), or without
    pyarrow, by a Spark job on `master`."""
    if plan_parquet_arrow.available() and await asyncio.to_thread(path.exists):
        show("read", 0, 1)

        def read() -> list[Intent]:
            columns, rows = plan_parquet_arrow.read_values(path)
            return plan_parquet.parse_values(str(path), columns, rows)

        intents = await asyncio.to_thread(read)
        show("read", 1, 1)
        return intents, None
    folder = Path(await asyncio.to_thread(tempfile.mkdtemp, prefix="kafka-tui-plan-"))
    try:
        job = ["--read-parquet", str(path), *_conf_args(conf)]
        text, failure = await _run_job(job, folder, master, show, started)
        if text is None:
            return None, failure
        return await asyncio.to_thread(plan_parquet.parse_rows, str(path), text), None
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def run_streamed_job(
    plan: str,
    job: dict[str, Any],
    output: Path,
    master: str,
    show: Show,
    started: Callable[[asyncio.subprocess.Process], None] = lambda _: None,
    conf: Mapping[str, str] | None = None,
) -> tuple[dict[str, Any] | None, str | None]:
    """A plan file read, placed and written by Spark as the parts directory `output` (which
    must not exist; `plan_parts.py`): (its summary, None), or (None, why the job failed). The
    plan's rows never come here: only the summary is read."""
    folder = Path(await asyncio.to_thread(tempfile.mkdtemp, prefix="kafka-tui-plan-"))
    try:
        job_file = folder / "job.json"
        await asyncio.to_thread(job_file.write_text, json.dumps(job))
        args = ["--stream", _absolute(plan), "--job", str(job_file), *_conf_args(conf)]
        where = Path(_absolute(str(output)))
        _, failure = await _run_job(args, folder, master, show, started, where)
        if failure is not None:
            return None, failure
        text = await asyncio.to_thread((output / plan_parts.SUMMARY).read_text)
        return json.loads(text), None
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _absolute(path: str) -> str:
    """A local path made absolute (the job runs elsewhere); a URI (hdfs://, s3a://) as is."""
    return path if "://" in path else os.path.abspath(path)


def spark_settings(items: Iterable[str], base: Iterable[tuple[str, str]] = ()) -> dict[str, str]:
    """`base` (a profile's [spark] table), then each KEY=VALUE item over it: the one reading
    of `--spark-conf` and of the plan screen's Spark settings. ValueError on a bad item."""
    conf = dict(base)
    for item in items:
        key, equals, value = item.partition("=")
        if not equals or not key.strip():
            raise ValueError(f"expected KEY=VALUE, got {item!r}")
        conf[key.strip()] = value
    return conf


def _conf_args(conf: Mapping[str, str] | None) -> list[str]:
    return [arg for key, value in (conf or {}).items() for arg in ("--conf", f"{key}={value}")]


async def _run_job(
    job_args: list[str],
    folder: Path,
    master: str,
    show: Show,
    started: Callable[[asyncio.subprocess.Process], None],
    output: Path | None = None,
) -> tuple[str | None, str | None]:
    """(the job's output file's text, or "" when it wrote `output`, a folder; None) or
    (None, why it failed)."""
    log = spark_log_path()
    result = output or folder / "result"
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as stderr:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "kafka_tui.planning.spark_job",
            *job_args,
            "--output",
            str(result),
            "--master",
            master,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
        )
        started(process)
        try:
            failure = await follow(process, show)
        except BaseException:
            await stop(process)
            raise
    if process.returncode != 0 or failure:
        return None, failure or f"exit {process.returncode}"
    if output is not None:
        return "", None
    return await asyncio.to_thread(result.read_text), None


async def run_module_job(module: str, args: list[str], show: Show) -> str | None:
    """`python -m module args...` (a job taking its job file, output, master and settings:
    the key and search jobs), its progress lines to `show`; None, or why it failed. Spark's
    own output goes to the plan job's log file (spark_log_path())."""
    log = spark_log_path()
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as stderr:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            module,
            *args,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
        )
        try:
            failure = await follow(process, show)
        except BaseException:
            await stop(process)
            raise
    if process.returncode != 0 or failure:
        return failure or f"the Spark job exited with {process.returncode} (see {log})"
    return None


async def follow(process: asyncio.subprocess.Process, show: Show) -> str | None:
    """A Spark job's JSON progress lines to `show` until it ends; its error line's message, or
    None (the plan job and `topics keys`' job speak the same lines)."""
    assert process.stdout is not None
    failure = None
    async for raw in process.stdout:
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        if line.get("stage") == "error":
            failure = str(line.get("message"))
        elif "done" in line:
            show(str(line["stage"]), int(line["done"]), int(line["total"]))
    await process.wait()
    return failure


async def stop(process: asyncio.subprocess.Process) -> None:
    """SIGTERM, then SIGKILL after TERMINATE_SECONDS."""
    if process.returncode is None:
        process.terminate()
    try:
        await asyncio.wait_for(process.wait(), TERMINATE_SECONDS)
    except TimeoutError:
        process.kill()
        await process.wait()
