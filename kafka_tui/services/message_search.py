"""`messages search`: a jq filter over every record of a topic (issue 51 point 4), the same
expression and the same record object as `messages read --filter` (services/messages.py).

The offset ranges are taken once, at the start (admin/range_reader.py): each partition from
its log start (or `from_ms`) to its end then (read_committed: the last stable offset; cut at
the first record newer than `until_ms`), so records produced while searching are not seen and
both engines scan exactly the same records.

Engines: "local" reads every partition at once in this process (one consumer; Kafka fetches
the partitions in parallel) and runs jq here; "spark" runs services/search_job.py as a
subprocess on a Spark master (local[N], a standalone cluster, Spark Connect `sc://`, as
`topics keys` runs), whose executors each read their own ranges with the same reader, decode
and filter there, and send back only the matches. Both yield the same matches (`limit`
aside: which N of more matches come first differs; Spark's are the first by partition and
offset). Progress: offsets scanned of the total, the rate and the time left
(`SearchProgress`).

Where the time goes (bench/messages_search.py): jq itself. libjq takes ~32 us of CPU per
record object (parsing it and evaluating the filter; ~84% of a record's cost here, decoding and
building the object ~6 us; batching many objects into one jq call saves nothing), so a core
filters ~25,000 records/s in process or in an executor alike. The Spark engine therefore gains
only where its executors have more free cores than this one process and the topic pays for its
start; on this 2-core machine shared with other work it did not (100,000 records at load ~30:
in process 38.7 s, Spark local[2] 232.4 s, of which 92.7 s starting and 63.6 s scanning). Spark
SQL's own expressions would run in the JVM, but are another language than `messages read
--filter`'s: not offered.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import pickle
import shutil
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..admin.key_reader import OffsetRange, split_ranges
from ..admin.model import ConnectionSettings
from ..admin.range_reader import read_ranges, search_ranges
from ..admin.records import Isolation, Record, check_partitions
from ..fields import Field, FieldError
from .codecs import SchemaSource, decoder, sides
from .messages import (
    Filter,
    RecordDocument,
    check_format,
    compile_filter,
    decoded_document,
    topic_partition_count,
)
from .ports import AdminPort
from .spark_runner import run_module_job

Engine = Literal["local", "spark"]
# Offsets per Spark task: a partition above this is scanned as several ranges in parallel.
RANGE_RECORDS = 250_000
# The record object as one line of compact JSON: `messages read --filter`'s encoder.
document_line = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


@dataclass(frozen=True)
class SearchRequest:
    topic: str
    filter: str
    partitions: Sequence[int] = ()
    from_ms: int | None = None
    until_ms: int | None = None
    limit: int | None = None  # matches
    isolation: Isolation = "read_committed"
    key_format: str = "auto"
    value_format: str = "auto"
    engine: Engine = "local"
    spark_master: str = "local[*]"
    spark_conf: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class SearchProgress:
    """`scanned` of `total` offsets (records, and the transaction markers and aborted records
    read_committed passes over), after `elapsed_s`; `stage` "session" while Spark starts."""

    scanned: int
    total: int
    matches: int
    elapsed_s: float
    stage: str = "read"

    @property
    def rate(self) -> float:
        return self.scanned / self.elapsed_s if self.elapsed_s > 0 else 0.0

    @property
    def seconds_left(self) -> float | None:
        if self.scanned <= 0 or self.rate <= 0:
            return None
        return max(0, self.total - self.scanned) / self.rate

    def words(self) -> str:
        """'1,200 of 5,000 records scanned · 3,100/s · 0:02 left · 4 matches'."""
        if self.stage == "session":
            return f"starting Spark · {self.total:,} records to scan"
        parts = [f"{self.scanned:,} of {self.total:,} records scanned"]
        if self.elapsed_s > 0 and self.scanned:
            parts.append(f"{self.rate:,.0f}/s")
        left = self.seconds_left
        if left is not None and self.scanned < self.total:
            parts.append(f"{int(left) // 60}:{int(left) % 60:02d} left")
        parts.append(f"{self.matches:,} match" + ("" if self.matches == 1 else "es"))
        return " · ".join(parts)


Show = Callable[[SearchProgress], None]


@dataclass
class SearchOutcome:
    """What a search did, once it ends (also when stopped): `limited` when `limit` matches
    stopped it."""

    engine: Engine
    total: int
    ranges: int
    scanned: int = 0
    matches: int = 0
    undecodable: int = 0
    limited: bool = False


def matching(records: Iterable[Record], keep: Filter, key: Any, value: Any) -> list[RecordDocument]:
    """The record objects of `records` the filter keeps: the one step both engines run."""
    docs = (decoded_document(r, key(r.key), value(r.value)) for r in records)
    return [d for d in docs if keep(d)]


@dataclass(frozen=True)
class SchemaRecipe:
    """What rebuilds a read's schemas inside a Spark executor (RecordSchemas holds a client
    and locks, which do not travel): the registry's settings and the schema files' texts."""

    registry: Any = None  # RegistrySettings
    files: tuple[tuple[str, str, str | None] | None, ...] = (None, None)  # name, text, message
    validate_json: bool = False

    @classmethod
    def of(cls, schemas: SchemaSource | None) -> SchemaRecipe | None:
        if schemas is None:
            return None
        files: list[tuple[str, str, str | None] | None] = []
        for which in ("key", "value"):
            local = getattr(schemas.side(which), "local", None)
            files.append(None if local is None else (local.path.name, local.text, local.message))
        client = getattr(schemas, "client", None)
        shared = getattr(schemas, "_shared", None)
        return cls(
            client.settings if client is not None else None,
            tuple(files),
            bool(getattr(shared, "validate_json", False)),
        )

    def build(self, folder: Path) -> SchemaSource:
        """The schemas again, the files written into `folder` under their names."""
        from ..registry.client import RegistryClient
        from ..registry.codec import LocalSchema, RecordSchemas

        loaded: list[LocalSchema | None] = []
        for entry in self.files:
            if entry is None:
                loaded.append(None)
                continue
            name, text, message = entry
            path = folder / name
            path.write_text(text, encoding="utf-8")
            loaded.append(LocalSchema.load(path, message))
        client = RegistryClient(self.registry) if self.registry is not None else None
        return RecordSchemas(
            client, key_schema=loaded[0], value_schema=loaded[1], validate_json=self.validate_json
        )


class Search:
    """A search checked and its ranges taken (`open_search`); `matches(show)` runs it. It
    needs only the connection settings from here on, so it may run on another thread's loop
    (the TUI runs it off the UI thread)."""

    def __init__(
        self,
        settings: ConnectionSettings,
        request: SearchRequest,
        ranges: list[OffsetRange],
        schemas: SchemaSource | None,
    ) -> None:
        self.settings = settings
        self.request = request
        self.ranges = ranges
        self.schemas = schemas
        self.total = sum(r.records for r in ranges)
        self.outcome = SearchOutcome(
            request.engine, self.total, len([r for r in ranges if r.records])
        )

    def matches(self, show: Show = lambda _: None) -> AsyncIterator[list[RecordDocument]]:
        """The matching record objects, batch by batch, until every range is scanned or
        `limit` matches are found; `show` gets the progress after each fetch (Spark: as its
        tasks end). AdminError when the records cannot be read; RuntimeError(why) when the
        Spark job fails."""
        if self.request.engine == "spark":
            return self._on_spark(show)
        return self._local(show)

    async def _local(self, show: Show) -> AsyncIterator[list[RecordDocument]]:
        request, outcome = self.request, self.outcome
        keep = compile_filter(request.filter)
        key_schemas, value_schemas = sides(self.schemas)
        key = decoder(request.key_format, key_schemas)
        value = decoder(request.value_format, value_schemas)
        started = time.monotonic()
        left = request.limit
        # read_ranges hands each fetch to `take`; its matches leave here between fetches.
        queue: asyncio.Queue[list[RecordDocument] | None] = asyncio.Queue()

        def take(records: list[Record], passed: int) -> bool:
            nonlocal left
            outcome.scanned += passed
            docs = matching(records, keep, key, value)
            if left is not None and len(docs) >= left:
                del docs[left:]
                outcome.limited = True
            if left is not None:
                left -= len(docs)
            if docs:
                outcome.matches += len(docs)
                outcome.undecodable += sum(1 for d in docs if "error" in d)
                queue.put_nowait(docs)
            show(self._progress(started))
            return not outcome.limited

        async def scan() -> None:
            try:
                await read_ranges(
                    self.settings, request.topic, self.ranges, take, request.isolation
                )
            finally:
                queue.put_nowait(None)

        show(self._progress(started))
        if request.limit == 0:
            outcome.limited = True
            return
        task = asyncio.ensure_future(scan())
        try:
            while (batch := await queue.get()) is not None:
                yield batch
            await task  # its failure, if any
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    def _progress(self, started: float, stage: str = "read") -> SearchProgress:
        o = self.outcome
        return SearchProgress(o.scanned, self.total, o.matches, time.monotonic() - started, stage)

    async def _on_spark(self, show: Show) -> AsyncIterator[list[RecordDocument]]:
        import pyarrow as pa

        request, outcome = self.request, self.outcome
        ranges = split_ranges(self.ranges, RANGE_RECORDS)
        outcome.ranges = len(ranges)
        started = time.monotonic()
        folder = Path(await asyncio.to_thread(tempfile.mkdtemp, prefix="kafka-tui-search-"))
        try:
            job = folder / "job.pickle"  # the settings carry secrets: this user's eyes only
            payload = pickle.dumps(
                {
                    "topic": request.topic,
                    "ranges": ranges,
                    "settings": self.settings,
                    "filter": request.filter,
                    "isolation": request.isolation,
                    "key_format": request.key_format,
                    "value_format": request.value_format,
                    "limit": request.limit,
                    "schemas": SchemaRecipe.of(self.schemas),
                }
            )
            await asyncio.to_thread(_write_private, job, payload)
            result = folder / "matches.arrow"

            def progress(stage: str, done: int, total: int) -> None:
                if stage == "session":
                    show(SearchProgress(0, self.total, 0, time.monotonic() - started, "session"))
                elif stage == "read":
                    outcome.scanned = done
                    show(self._progress(started))

            conf = [f"{k}={v}" for k, v in request.spark_conf.items()]
            failure = await run_module_job(
                "kafka_tui.services.search_job",
                [str(job), str(result), request.spark_master, *conf],
                progress,
            )
            if failure is not None:
                raise RuntimeError(failure)

            def read() -> pa.Table:
                with pa.memory_map(str(result)) as source:
                    return pa.ipc.open_file(source).read_all()

            table = await asyncio.to_thread(read)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        outcome.scanned = self.total
        rows = sorted(
            zip(
                table.column("partition").to_pylist(),
                table.column("offset").to_pylist(),
                table.column("line").to_pylist(),
                strict=True,
            )
        )
        if request.limit is not None and len(rows) >= request.limit:
            del rows[request.limit :]
            outcome.limited = True
        for at in range(0, len(rows), 1000):
            docs: list[RecordDocument] = [json.loads(line) for _, _, line in rows[at : at + 1000]]
            outcome.matches += len(docs)
            outcome.undecodable += sum(1 for d in docs if "error" in d)
            yield docs
        show(self._progress(started))


def _write_private(path: Path, payload: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(payload)


async def open_search(
    admin: AdminPort, request: SearchRequest, schemas: SchemaSource | None = None
) -> Search:
    """Checks the request (filter, formats, limit, topic, partitions) and takes the ranges,
    before anything is scanned: FieldError on a bad field, AdminError (UNKNOWN_TOPIC_OR_
    PARTITION, ...) on a topic or partition that does not exist."""
    if not request.filter.strip():
        raise FieldError(Field.RECORD_FILTER, "is empty: give a jq expression, e.g. .value.n > 1")
    compile_filter(request.filter)
    check_format(Field.KEY_FORMAT, request.key_format)
    check_format(Field.VALUE_FORMAT, request.value_format)
    count = await topic_partition_count(admin, request.topic)
    partitions = check_partitions(request.topic, count, request.partitions)
    ranges = await search_ranges(
        admin.settings,
        request.topic,
        partitions,
        request.isolation,
        request.from_ms,
        request.until_ms,
    )
    return Search(admin.settings, request, ranges, schemas)
