"""A file of record objects (`messages produce --file`) read on every core.

Reading a line is parsing its JSON and writing its value again: ~45% of a file's produce in
one process (bench/records.py), while Kafka's console producer sends each line's bytes and
runs on two cores. A large file is therefore cut at line ends into pieces that forked
processes read (each line's bytes to orjson, else services/messages.py's `_file_records`: the
same records and the same refusals as one process), and the records come back as columns
(pickled ~0.3 us a record against ~3.6 us to read one), chunk by chunk in the file's order,
which the main process packs into record batches while the rest is read
(`messages.produce_chunks`). Nothing is sent before every line is read: a bad line is refused
with its file and line number and nothing is written. Records written through a schema
registry are read in this process (a registry client's connections are not shared with a
fork), as are small files and stdin.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import weakref
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from ..admin.records import OutgoingRecord
from .messages import (
    BadLine,
    Columns,
    Row,
    _bulk_allocations,
    _file_records,
    _from_object,
    columns_of,
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


def record_chunks(
    path: Path,
    *,
    keep_partitions: bool = True,
    keep_timestamps: bool = True,
    schemas: Any = None,
    topic: str = "",
    key_subject: str | None = None,
    value_subject: str | None = None,
    processes: int | None = None,
) -> Iterator[Columns]:
    """The records of the file at `path` (`messages.records_from_file`'s records and
    refusals) as columns, in chunks in the file's order, read by `processes` (default: one
    per core) forked processes when it is large and no schema registry is involved; a bad
    line raises BadLine when its chunk is reached (the chunks before it already given).
    OSError when it cannot be opened."""
    size = path.stat().st_size
    processes = processes or os.cpu_count() or 1
    if schemas is not None or processes < 2 or size < _FORK_FROM_BYTES:
        handle = path.open(encoding="utf-8", errors="surrogateescape")
        return _one_chunk(
            handle,
            records_from_file(
                path,
                handle,
                keep_partitions=keep_partitions,
                keep_timestamps=keep_timestamps,
                schemas=schemas,
                topic=topic,
                key_subject=key_subject,
                value_subject=value_subject,
            ),
        )
    subjects = (key_subject or f"{topic}-key", value_subject or f"{topic}-value")
    return _forked(_Job(path, keep_partitions, keep_timestamps, subjects), size, processes)


def _one_chunk(handle: IO[str], records: Iterable[OutgoingRecord]) -> Iterator[Columns]:
    with handle:
        yield columns_of(records)


def _forked(job: _Job, size: int, processes: int) -> Iterator[Columns]:
    """The readers start now (a caller's own work, e.g. connecting, overlaps them)."""
    global _job
    _job = job
    try:
        pool = multiprocessing.get_context("fork").Pool(processes)
    finally:
        _job = None  # the readers have their copy
    read = pool.imap(_read_piece, _pieces(job.path, size))
    # forked: this process's idle time while they read goes to the imports the keyed
    # records' partitions will need (a thread started before a fork could hold the import
    # lock in the child)
    threading.Thread(target=warm_key_hashing, daemon=True).start()
    chunks = _gathered(job.path, read, pool)
    weakref.finalize(chunks, pool.terminate)  # also when it is dropped before its first chunk
    return chunks


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


@dataclass(frozen=True, slots=True)
class _Refusal:
    """A piece's first bad line: its number in the piece, and why."""

    number: int
    reason: str


def _gathered(
    path: Path, pieces: Iterable[tuple[int, Columns | _Refusal]], pool: Any
) -> Iterator[Columns]:
    """The pieces' records in the file's order; the first bad line (in the file's order)
    refused with its number in the whole file. The pool ends with the last piece, or when
    the caller stops early."""
    with pool:
        lines_before = 0
        for lines, read in pieces:
            if isinstance(read, _Refusal):
                raise BadLine(path, lines_before + read.number, read.reason)
            yield read
            lines_before += lines


# A run of 19 digits may be an integer beyond 64 bits (codecs.read_json)
_DIGITS = bytes(48 if 48 <= i <= 57 else 32 for i in range(256))
_LONG_NUMBER = b"0" * 19


def _read_piece(span: tuple[int, int]) -> tuple[int, Columns | _Refusal]:
    """In a forked process: the piece's line count and its records as columns, or the
    first bad line's number in the piece and why.

    Each line's bytes go to orjson as they are: what `records_from_file` does after decoding
    the text and encoding it again (a line that is not UTF-8, not a record object, or
    refused in any way is read again by `records_from_file` itself, which says why)."""
    job = _job
    assert job is not None
    start, end = span
    with job.path.open("rb") as f:
        f.seek(start)
        data = f.read(end - start)
    # the lines of a text file's universal newlines (\n, \r\n, \r), as a text handle reads
    lines = data.splitlines(keepends=True)
    # a piece without a run of 19 digits (the usual) needs no look at each line for one
    long_numbers = _LONG_NUMBER in data.translate(_DIGITS)
    rows: list[Row] = []
    keep_p, keep_t, subjects = job.keep_partitions, job.keep_timestamps, job.subjects
    loads = orjson.loads
    with _bulk_allocations():
        for number, line in enumerate(lines, 1):
            try:
                if long_numbers and _LONG_NUMBER in line.translate(_DIGITS):
                    raise ValueError("a long number: Python's json reads it")
                obj = loads(line)
                if type(obj) is not dict:
                    raise ValueError("not a record object")
                rows.append(_from_object(obj, keep_p, keep_t, None, None, subjects, True))
            except Exception:  # read again as one process reads it, to say why
                text = line.decode("utf-8", "surrogateescape")
                if text.endswith("\r\n"):
                    text = text[:-2] + "\n"
                elif text.endswith("\r"):
                    text = text[:-1] + "\n"
                try:
                    rows += (
                        (r.key, r.value, r.headers, r.partition, r.timestamp)
                        for r in _file_records(
                            job.path, [text], keep_p, keep_t, None, None, subjects
                        )
                    )
                except BadLine as bad:
                    return len(lines), _Refusal(number, bad.reason)
    if not rows:
        return len(lines), ([], [], [], [], [])
    keys, values, headers, partitions, timestamps = map(list, zip(*rows, strict=True))
    return len(lines), (keys, values, headers, partitions, timestamps)
