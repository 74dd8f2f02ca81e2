"""A file of record objects (`messages produce --file`) read on every core.

Reading a line is parsing its JSON and writing its value again: ~45% of a file's produce in
one process (bench/records.py), while Kafka's console producer sends each line's bytes and
runs on two cores. A large file is therefore cut at line ends into pieces that forked
processes read (services/messages.py's `_file_records`, the same code and the same refusals as
one process), and the records come back as columns of bytes (pickled ~1 us a record against
~4 us to read one). Every line is read before anything is sent, as in one process: a bad line
is refused with its file and line number and nothing is written. Records written through a
schema registry are read in this process (a registry client's connections are not shared
with a fork), as are small files and stdin.
"""

from __future__ import annotations

import io
import multiprocessing
import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..admin.records import OutgoingRecord
from .messages import (
    BadLine,
    _bulk_allocations,
    _file_records,
    records_from_file,
    warm_key_hashing,
)

# Below this many bytes (~25,000 records of ~200 B) a fork and its pickling gain nothing.
_FORK_FROM_BYTES = 5_000_000
_PIECE_BYTES = 4_000_000  # a piece per ~20,000 records: the first ones back early


@dataclass(frozen=True, slots=True)
class _Job:
    path: Path
    keep_partitions: bool
    keep_timestamps: bool
    subjects: tuple[str, str]


_job: _Job | None = None  # what the forked readers read: set before the fork


def read_record_file(
    path: Path,
    *,
    keep_partitions: bool = True,
    keep_timestamps: bool = True,
    schemas: Any = None,
    topic: str = "",
    key_subject: str | None = None,
    value_subject: str | None = None,
    processes: int | None = None,
) -> list[OutgoingRecord]:
    """Every record of the file at `path` (`messages.records_from_file`'s records and
    refusals), read by `processes` (default: one per core) forked processes when it is large
    and no schema registry is involved. OSError when it cannot be opened."""
    size = path.stat().st_size
    processes = processes or os.cpu_count() or 1
    subjects = (key_subject or f"{topic}-key", value_subject or f"{topic}-value")
    if schemas is not None or processes < 2 or size < _FORK_FROM_BYTES:
        with path.open(encoding="utf-8", errors="surrogateescape") as handle:
            return list(
                records_from_file(
                    path,
                    handle,
                    keep_partitions=keep_partitions,
                    keep_timestamps=keep_timestamps,
                    schemas=schemas,
                    topic=topic,
                    key_subject=key_subject,
                    value_subject=value_subject,
                )
            )
    global _job
    _job = _Job(path, keep_partitions, keep_timestamps, subjects)
    try:
        with multiprocessing.get_context("fork").Pool(processes) as pool:
            # forked: this process's idle time while they read goes to the imports the
            # keyed records' partitions will need (a thread started before a fork could hold
            # the import lock in the child)
            threading.Thread(target=warm_key_hashing, daemon=True).start()
            return _gathered(path, pool.imap(_read_piece, _pieces(path, size)))
    finally:
        _job = None


def _pieces(path: Path, size: int) -> list[tuple[int, int]]:
    """(start, end) byte ranges, each ending after a newline (or at the file's end)."""
    ends = []
    with path.open("rb") as f:
        at = 0
        while at < size:
            f.seek(min(at + _PIECE_BYTES, size))
            f.readline()  # to the end of the line the cut fell in
            end = min(f.tell(), size)
            ends.append((at, end))
            at = end
    return ends


Columns = tuple[list[Any], list[Any], list[Any], list[Any], list[Any]]


def _gathered(path: Path, pieces: Iterable[tuple[int, Columns | tuple[int, str]]]) -> list[Any]:
    """The pieces' records in the file's order; the first bad line (in the file's order)
    refused with its number in the whole file."""
    records: list[Any] = []
    lines_before = 0
    for lines, read in pieces:
        if len(read) == 2:  # (line in the piece, why)
            number, reason = read
            raise BadLine(path, lines_before + number, reason)
        with _bulk_allocations():
            records.extend(map(OutgoingRecord, *read))
        lines_before += lines
    return records


def _read_piece(span: tuple[int, int]) -> tuple[int, Columns | tuple[int, str]]:
    """In a forked process: the piece's line count and its records as columns, or the
    first bad line's number in the piece and why."""
    job = _job
    assert job is not None
    start, end = span
    with job.path.open("rb") as f:
        f.seek(start)
        data = f.read(end - start)
    text = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="surrogateescape")
    lines = text.readlines()
    keys: list[Any] = []
    values: list[Any] = []
    headers: list[Any] = []
    partitions: list[Any] = []
    timestamps: list[Any] = []
    try:
        with _bulk_allocations():
            for r in _file_records(
                job.path,
                lines,
                job.keep_partitions,
                job.keep_timestamps,
                None,
                None,
                job.subjects,
            ):
                keys.append(r.key)
                values.append(r.value)
                headers.append(r.headers)
                partitions.append(r.partition)
                timestamps.append(r.timestamp)
    except BadLine as bad:
        return len(lines), (bad.number, bad.reason)
    return len(lines), (keys, values, headers, partitions, timestamps)
