"""Plans too big for one process (issue 29), on the services' side: whether a plan file takes
the streamed path (its rows counted without holding them), the parts directory the Spark job
writes (`planning/streamed_parts.py`: a summary, then topic entries one a line), and `plan apply` of
such a directory a chunk at a time through `plan_apply.apply_document`, so memory stays flat
whatever the plan's size."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..admin import TopicResult
from ..admin.model import DEFAULT_TIMEOUT_MS
from ..admin.placeholders import PlaceholderStore
from ..planning import plan_parquet
from ..planning import streamed_parts as plan_parts
from .plan_apply import ApplyInterrupted, apply_document
from .ports import AdminPort
from .snapshot import Snapshot

STREAM_ROWS_VARIABLE = "KAFKA_TUI_PLAN_STREAM_ROWS"
CHUNK_BATCHES = 10  # topic entries read per apply_document call, in batches
MAX_FAILURES = 1_000  # failed topics kept for the report (then counted only)


def stream_rows(environ: dict[str, str] | None = None) -> int:
    """The rows above which a plan is streamed: plan_parts.STREAM_ROWS, or
    $KAFKA_TUI_PLAN_STREAM_ROWS (tests and benchmarks lower it)."""
    value = (os.environ if environ is None else environ).get(STREAM_ROWS_VARIABLE, "")
    return int(value) if value.strip().isdigit() else plan_parts.STREAM_ROWS


def streamable(name: str) -> bool:
    """CSV (any name but .json), JSON lines or Parquet: a JSON document is not read in parts."""
    return not name.rstrip("/").lower().endswith(".json")


def count_rows(path: Path, chunk: int = 1 << 20) -> int:
    """A plan file's rows, at most (lines, header and comments included; Parquet: its
    footers' row counts), read a chunk at a time. OSError if it cannot be read."""
    if plan_parquet.is_parquet(path.name):
        files = sorted(
            p
            for p in (path.rglob("*") if path.is_dir() else [path])
            if p.is_file() and not p.name.startswith(("_", "."))
        )
        return sum(_parquet_rows(p) for p in files)
    lines = 0
    last = b"\n"
    with path.open("rb") as file:
        while block := file.read(chunk):
            lines += block.count(b"\n")
            last = block[-1:]
    return lines + (last != b"\n")


def _parquet_rows(path: Path) -> int:
    with path.open("rb") as file:
        file.seek(-8, os.SEEK_END)
        tail = file.read(8)
        if tail[4:] != b"PAR1":
            return 0  # not Parquet: Spark's reader will say so
        size = int.from_bytes(tail[:4], "little")
        file.seek(-8 - size, os.SEEK_END)
        return plan_parts.parquet_footer_rows(file.read(size))


def is_parts(path: Path) -> bool:
    return path.is_dir() and (path / plan_parts.SUMMARY).is_file()


def read_summary(folder: Path) -> dict[str, Any]:
    summary: dict[str, Any] = json.loads((folder / plan_parts.SUMMARY).read_text())
    return summary


def entries(folder: Path, summary: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The topic entries of a parts directory, in plan order, one line read at a time."""
    parts = folder / summary["parts"]
    for part in sorted(p for p in parts.iterdir() if p.name.startswith("part-")):
        with part.open(encoding="utf-8") as lines:
            for line in lines:
                if line.strip():
                    yield json.loads(line)


@dataclass
class PartsApplied:
    """What `apply_parts` did: topics settled ok, and the failed ones (the first
    MAX_FAILURES kept, all counted)."""

    ok: int = 0
    failed: list[TopicResult] = field(default_factory=list)
    failed_total: int = 0

    def add(self, results: list[TopicResult]) -> None:
        for result in results:
            if result.ok:
                self.ok += 1
                continue
            self.failed_total += 1
            if len(self.failed) < MAX_FAILURES:
                self.failed.append(result)


class PartsInterrupted(Exception):
    """The cluster went out of reach: what was settled before, and why."""

    def __init__(self, applied: PartsApplied, cause: ApplyInterrupted) -> None:
        super().__init__(cause.cause.message)
        applied.add(cause.done)
        self.applied = applied
        self.cause = cause


async def apply_parts(
    admin: AdminPort,
    snapshot: Snapshot,
    store: PlaceholderStore,
    zookeeper: str | None,
    folder: Path,
    summary: dict[str, Any],
    batch_size: int = 500,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    advance: Callable[[int], object] = lambda done: None,
) -> PartsApplied:
    """Send a parts directory's assignments, CHUNK_BATCHES batches of entries at a time, each
    chunk as `apply_document` sends a document (resumable the same way: a topic already as
    planned is reported ok). Raises PartsInterrupted if the cluster goes away."""
    applied = PartsApplied()
    chunk: list[dict[str, Any]] = []
    size = max(1, batch_size) * CHUNK_BATCHES
    lines = entries(folder, summary)
    while True:
        entry = next(lines, None)
        if entry is not None:
            chunk.append(entry)
        if chunk and (entry is None or len(chunk) >= size):
            document = {"topics": chunk, "brokers": summary["brokers"]}
            try:
                results = await apply_document(
                    admin, snapshot, store, zookeeper, document, batch_size, timeout_ms, advance
                )
            except ApplyInterrupted as stop:
                raise PartsInterrupted(applied, stop) from None
            applied.add(results)
            chunk = []
        if entry is None:
            return applied
