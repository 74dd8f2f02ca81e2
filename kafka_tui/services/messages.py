"""Reading and producing records: what `messages read` / `messages produce` and the records
screen share.

A read yields record objects (`RecordDocument`), the shape scripts rely on:
`{"topic", "partition", "offset", "timestamp", "timestamp_type", "key", "value", "headers",
"key_format", "value_format", "schema_id", "leader_epoch"}` and `"error"` when the key or
value could not be decoded as asked (then it is base64). A jq filter keeps the records for
which it yields a value other than false or null.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NotRequired, TypedDict, cast

from ..admin import AdminError
from ..admin.records import (
    Acks,
    Isolation,
    Landed,
    OutgoingRecord,
    Record,
    RecordReader,
    RecordWriter,
    Start,
    Stop,
    check_partitions,
    unknown_topic,
)
from ..fields import Field, FieldError
from .codecs import (
    FORMATS,
    SCHEMA_FORMATS,
    Decoded,
    Decoder,
    EncodeError,
    SchemaCodec,
    SchemaSource,
    decode,
    decoder,
    encode,
    header_value,
    json_text_decoder,
    read_json,
    sides,
    write_json,
)
from .parsing import UsageError
from .ports import AdminPort


class RecordDocument(TypedDict):
    topic: str
    partition: int
    offset: int
    timestamp: int
    timestamp_type: str
    key: Any
    value: Any
    headers: list[list[str | None]]
    key_format: str
    value_format: str
    schema_id: int | None
    leader_epoch: int | None
    error: NotRequired[str]


@dataclass(frozen=True)
class ReadRequest:
    topic: str
    partitions: Sequence[int] = ()
    start: Start = field(default_factory=Start)
    stop: Stop = field(default_factory=Stop)
    isolation: Isolation = "read_committed"
    key_format: str = "auto"
    value_format: str = "auto"
    filter: str | None = None
    group: str | None = None  # commit the offsets read to this group


Filter = Callable[[RecordDocument], bool]


def compile_filter(expression: str) -> Filter:
    """A jq expression over the record object, compiled once; malformed: UsageError with
    jq's message. A record is kept when the expression yields anything but false or null;
    an expression that fails on a record (e.g. indexes a string) does not keep it."""
    import jq

    try:
        program = jq.compile(expression)
    except ValueError as exc:
        # jq's message: "jq: error: <what>:", then the expression with a caret, then a count
        said = str(exc).splitlines()[0].removeprefix("jq: error: ").rstrip(":")
        raise FieldError(
            Field.RECORD_FILTER, f"is not a jq expression ({said}): {expression}"
        ) from None

    def keep(document: RecordDocument) -> bool:
        try:
            outputs = program.input_value(document).all()
        except ValueError:
            return False
        return any(o is not None and o is not False for o in outputs)

    return keep


def check_format(field: Field, fmt: str) -> None:
    if fmt not in FORMATS:
        raise FieldError(field, f"'{fmt}' is not a format ({', '.join(FORMATS)})")


def document(
    record: Record,
    key_format: str = "auto",
    value_format: str = "auto",
    key_schemas: SchemaCodec | None = None,
    value_schemas: SchemaCodec | None = None,
) -> RecordDocument:
    """The record object of `record`, its key and value decoded as asked."""
    key = decode(record.key, key_format, key_schemas)
    value = decode(record.value, value_format, value_schemas)
    return decoded_document(record, key, value)


def decoded_document(record: Record, key: Decoded, value: Decoded) -> RecordDocument:
    doc: RecordDocument = {
        "topic": record.topic,
        "partition": record.partition,
        "offset": record.offset,
        "timestamp": record.timestamp,
        "timestamp_type": record.timestamp_type,
        "key": key.value,
        "value": value.value,
        "headers": [[name, header_value(data)] for name, data in record.headers],
        "key_format": key.format,
        "value_format": value.format,
        "schema_id": value.schema_id if value.schema_id is not None else key.schema_id,
        "leader_epoch": record.leader_epoch,
    }
    if key.error or value.error:
        doc["error"] = _error(key, value)
    return doc


_quote = json.encoder.encode_basestring  # ensure_ascii=False's string quoting, in C
_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _json_text(d: Decoded) -> str:
    if d.text is not None:
        return d.text
    if d.value is None:
        return "null"
    if type(d.value) is str:
        return _quote(d.value)
    return _dumps(d.value)


def record_line(record: Record, key: Decoded, value: Decoded, topic_json: str) -> str:
    """The record object (`document`) as one line of compact JSON, written directly: a value
    that came as JSON text is printed as it came (bench/records.py: ~2x faster than building
    the dict and encoding it). `topic_json`: the topic's name as a JSON string."""
    schema_id = value.schema_id if value.schema_id is not None else key.schema_id
    line = _line(
        record,
        topic_json,
        key.text if key.text is not None else _json_text(key),
        value.text if value.text is not None else _json_text(value),
        key.format,
        value.format,
        "null" if schema_id is None else schema_id,
    )
    if key.error or value.error:
        return f'{line[:-1]},"error":{_quote(_error(key, value))}}}'
    return line


def _line(
    record: Record,
    topic_json: str,
    key_text: str,
    value_text: str,
    key_format: str,
    value_format: str,
    schema_id: object = "null",
) -> str:
    """The record line of `record_line`, from its key's and value's JSON text."""
    epoch = record.leader_epoch
    headers = (
        _dumps([[name, header_value(data)] for name, data in record.headers])
        if record.headers
        else "[]"
    )
    return (
        f'{{"topic":{topic_json},"partition":{record.partition},"offset":{record.offset},'
        f'"timestamp":{record.timestamp},"timestamp_type":"{record.timestamp_type}",'
        f'"key":{key_text},"value":{value_text},"headers":{headers},'
        f'"key_format":"{key_format}","value_format":"{value_format}",'
        f'"schema_id":{schema_id},"leader_epoch":{"null" if epoch is None else epoch}}}'
    )


def _documents(batch: list[Record], key: Decoder, value: Decoder) -> list[RecordDocument]:
    return [decoded_document(r, key(r.key), value(r.value)) for r in batch]


def _undecided(data: bytes | None) -> None:
    return None


def _error(key: Decoded, value: Decoded) -> str:
    said = [f"key {key.error}"] if key.error else []
    return "; ".join(said + ([f"value {value.error}"] if value.error else []))


async def topic_partition_count(admin: AdminPort, topic: str) -> int:
    found, _ = await admin.describe_topics([topic], configs=False)
    if not found:
        raise unknown_topic(topic)
    return len(found[0].partitions)


class RecordRead:
    """A read in progress: `async with open_read(...) as read: async for documents in
    read.documents(): ...`. `read` and `shown` count the records read and kept,
    `undecodable` those kept with an error. With a group, the offsets read are committed
    when the read ends (also when it is cancelled)."""

    def __init__(
        self, reader: RecordReader, request: ReadRequest, schemas: SchemaSource | None
    ) -> None:
        self.reader = reader
        self.request = request
        self.schemas = schemas
        self.read = 0
        self.shown = 0
        self.undecodable = 0
        self._next: dict[int, int] = {}
        self._keep = compile_filter(request.filter) if request.filter else None
        self._key_schemas, self._value_schemas = sides(schemas)
        self._key = decoder(request.key_format, self._key_schemas)
        self._value = decoder(request.value_format, self._value_schemas)

    @property
    def starts(self) -> dict[int, int]:
        return self.reader.starts

    @property
    def ends(self) -> dict[int, int]:
        return self.reader.ends

    async def documents(self) -> AsyncIterator[list[RecordDocument]]:
        keep, key, value = self._keep, self._key, self._value
        # A registry may be asked for a schema the first time an id is met (blocking HTTP):
        # then each batch is decoded in a thread, never on the event loop (the TUI's).
        in_thread = self.schemas is not None
        async for batch in self.reader.batches():
            self.read += len(batch)
            self._next[batch[-1].partition] = batch[-1].offset + 1
            if in_thread:
                docs = await asyncio.to_thread(_documents, batch, key, value)
            else:
                docs = [decoded_document(r, key(r.key), value(r.value)) for r in batch]
            if keep is not None:
                docs = [d for d in docs if keep(d)]
            self.shown += len(docs)
            self.undecodable += sum(1 for d in docs if "error" in d)
            if docs:
                yield docs

    async def lines(self) -> AsyncIterator[list[str]]:
        """The record objects as JSON lines (`record_line`), without building them first
        unless a filter needs them."""
        if self._keep is not None:
            async for documents in self.documents():
                yield [_dumps(d) for d in documents]
            return
        key_of, value_of = self._key, self._value
        topic = _quote(self.request.topic)
        # The JSON text of the common formats without a Decoded each (bench/records.py);
        # where it cannot say, the Decoder and record_line.
        key_text = json_text_decoder(self.request.key_format, self._key_schemas)
        value_text = json_text_decoder(self.request.value_format, self._value_schemas)
        if key_text is None or value_text is None:
            key_text = value_text = _undecided
        async for batch in self.reader.batches():
            self.read += len(batch)
            self.shown += len(batch)
            self._next[batch[-1].partition] = batch[-1].offset + 1
            out = []
            for r in batch:
                k, v = key_text(r.key), value_text(r.value)
                if k is not None and v is not None and not r.headers:
                    # _line's, inline: a call less per record
                    epoch = r.leader_epoch
                    out.append(
                        f'{{"topic":{topic},"partition":{r.partition},"offset":{r.offset},'
                        f'"timestamp":{r.timestamp},"timestamp_type":"{r.timestamp_type}",'
                        f'"key":{k[0]},"value":{v[0]},"headers":[],'
                        f'"key_format":"{k[1]}","value_format":"{v[1]}","schema_id":null,'
                        f'"leader_epoch":{"null" if epoch is None else epoch}}}'
                    )
                    continue
                if k is not None and v is not None:
                    out.append(_line(r, topic, k[0], v[0], k[1], v[1]))
                    continue
                key, value = key_of(r.key), value_of(r.value)
                if key.error or value.error:
                    self.undecodable += 1
                out.append(record_line(r, key, value, topic))
            yield out

    async def __aenter__(self) -> RecordRead:
        await self.reader.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        try:
            if self.request.group and self._next:
                await self.reader.commit(self._next)
        finally:
            await self.reader.__aexit__(*exc)


async def open_read(
    admin: AdminPort, request: ReadRequest, schemas: SchemaSource | None = None
) -> RecordRead:
    """Checks the request (formats, filter, topic, partitions) before anything is read."""
    check_format(Field.KEY_FORMAT, request.key_format)
    check_format(Field.VALUE_FORMAT, request.value_format)
    count = await topic_partition_count(admin, request.topic)
    partitions = check_partitions(request.topic, count, request.partitions)
    reader = RecordReader(
        admin.settings,
        request.topic,
        partitions,
        request.start,
        request.stop,
        isolation=request.isolation,
        group=request.group,
    )
    return RecordRead(reader, request, schemas)


# -- producing ---------------------------------------------------------------------------


@dataclass(slots=True)  # not frozen: one per record written (see Record)
class Produced:
    """One record's outcome: where it landed, or Kafka's refusal (`error` its name)."""

    index: int  # 0-based, in the order given
    topic: str
    partition: int | None
    offset: int | None
    timestamp: int | None
    error: str | None = None
    message: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "topic": self.topic,
            "partition": self.partition,
            "offset": self.offset,
            "timestamp": self.timestamp,
            "error": self.error,
            "message": self.message,
        }


def record_headers(texts: Sequence[str]) -> list[tuple[str, bytes | None]]:
    """`NAME=VALUE` texts as headers (the value as UTF-8)."""
    headers: list[tuple[str, bytes | None]] = []
    for text in texts:
        name, sep, value = text.partition("=")
        if not sep or not name:
            raise FieldError(Field.HEADER, f"'{text}' is not NAME=VALUE")
        headers.append((name, value.encode()))
    return headers


def record_from_values(
    key: str | None,
    value: str | None,
    *,
    headers: Sequence[str] = (),
    partition: int | None = None,
    timestamp: int | None = None,
    key_format: str = "auto",
    value_format: str = "auto",
    schemas: SchemaSource | None = None,
    topic: str = "",
    key_subject: str | None = None,
    value_subject: str | None = None,
    key_schema_id: int | None = None,
    value_schema_id: int | None = None,
) -> OutgoingRecord:
    """One record from command-line text (`value` None: a tombstone). avro, protobuf and
    jsonschema sides are written with the schema of their id, else of their subject (None:
    the topic's, `<topic>-key` / `<topic>-value`). Asks the registry: blocking."""
    check_format(Field.KEY_FORMAT, key_format)
    check_format(Field.VALUE_FORMAT, value_format)
    ks, vs = sides(schemas)
    try:
        k = encode(
            key, key_format, ks, key_subject or f"{topic}-key", text=True, schema_id=key_schema_id
        )
    except EncodeError as exc:
        raise FieldError(Field.KEY, str(exc)) from None
    try:
        v = encode(
            value,
            value_format,
            vs,
            value_subject or f"{topic}-value",
            text=True,
            schema_id=value_schema_id,
        )
    except EncodeError as exc:
        raise FieldError(Field.VALUE, str(exc)) from None
    return OutgoingRecord(k, v, tuple(record_headers(headers)), partition, timestamp)


def records_from_file(
    path: Path,
    lines: Iterable[str],
    *,
    keep_partitions: bool = True,
    keep_timestamps: bool = True,
    schemas: SchemaSource | None = None,
    topic: str = "",
    key_subject: str | None = None,
    value_subject: str | None = None,
) -> Iterator[OutgoingRecord]:
    """Record objects, one per line (`messages read --output jsonl`); a bad line is a
    UsageError naming the file and line. Each object's `key_format` / `value_format`
    (default auto) says how its key and value are written back."""
    ks, vs = sides(schemas)
    subjects = (key_subject or f"{topic}-key", value_subject or f"{topic}-value")
    with _bulk_allocations():
        yield from _file_records(path, lines, keep_partitions, keep_timestamps, ks, vs, subjects)


def _file_records(
    path: Path,
    lines: Iterable[str],
    keep_partitions: bool,
    keep_timestamps: bool,
    ks: SchemaCodec | None,
    vs: SchemaCodec | None,
    subjects: tuple[str, str],
) -> Iterator[OutgoingRecord]:
    for number, line in enumerate(lines, 1):
        try:
            obj, exact = read_json(line)
            if not isinstance(obj, dict):
                raise UsageError('expected a record object ({"value": ...})')
            row = _from_object(obj, keep_partitions, keep_timestamps, ks, vs, subjects, exact)
        except (UsageError, EncodeError, TypeError) as exc:
            raise BadLine(path, number, str(exc)) from None
        except UnicodeError:  # a byte that is not UTF-8 (read with surrogateescape)
            raise BadLine(path, number, "not UTF-8 text") from None
        except ValueError as exc:  # json's
            if not line.strip():
                continue
            raise BadLine(path, number, f"not JSON: {exc}") from None
        yield OutgoingRecord(*row)


class BadLine(UsageError):
    """A line of a file of record objects that cannot be sent: the file, the line, why."""

    def __init__(self, path: Path, number: int, reason: str) -> None:
        super().__init__(f"{path}, line {number}: {reason}")
        self.path = path
        self.number = number
        self.reason = reason


# An OutgoingRecord's fields in order (key, value, headers, partition, timestamp): a file's
# forked readers hand back columns of them, without a record object each.
Row = tuple[
    bytes | None, bytes | None, tuple[tuple[str, bytes | None], ...], int | None, int | None
]

_KNOWN_FORMATS = frozenset(FORMATS)
_AS_JSON = frozenset(("auto", "json"))
_AS_TEXT = frozenset(("auto", "string"))


def _from_object(
    obj: dict[str, Any],
    keep_partitions: bool,
    keep_timestamps: bool,
    key_schemas: SchemaCodec | None,
    value_schemas: SchemaCodec | None,
    subjects: tuple[str, str],
    exact: bool = False,
) -> Row:
    """The record of `obj` as a `Row`. `exact`: `obj` was read by orjson
    (codecs.read_json), its JSON values written by it."""
    get = obj.get
    kf = get("key_format") or "auto"
    vf = get("value_format") or "auto"
    if kf not in _KNOWN_FORMATS or vf not in _KNOWN_FORMATS:
        raise UsageError(f"unknown format (formats: {', '.join(FORMATS)})")
    headers = get("headers")
    if headers:
        headers = [
            (str(name), None if value is None else str(value).encode()) for name, value in headers
        ]
    partition = get("partition") if keep_partitions else None
    timestamp = get("timestamp") if keep_timestamps else None
    if partition is not None and (type(partition) is not int or partition < 0):
        raise UsageError(f'"partition" must be a whole number >= 0, not {partition!r}')
    if timestamp is not None and (type(timestamp) is not int or timestamp < 0):
        raise UsageError(f'"timestamp" must be a whole number >= 0, not {timestamp!r}')
    key, value = get("key"), get("value")
    k: bytes | None
    v: bytes | None
    if type(key) is str and kf in _AS_TEXT:  # encode's own first step, without its call
        k = key.encode()
    elif exact and kf in _AS_JSON and key is not None and (kf == "json" or type(key) is not str):
        k = write_json(key)
    else:
        k = encode(key, kf, key_schemas, subjects[0])
    if exact and vf in _AS_JSON and value is not None and (vf == "json" or type(value) is not str):
        v = write_json(value)
    else:
        # the record's schema id is its value's (see `document`)
        schema_id = get("schema_id") if vf in SCHEMA_FORMATS else None
        v = encode(value, vf, value_schemas, subjects[1], schema_id=schema_id)
    return k, v, tuple(headers) if headers else (), partition, timestamp


# A file's records as columns (keys, values, headers, partitions, timestamps): what forked
# readers hand back (services/record_file.py) and what is packed, without a record object each.
Columns = tuple[
    list[bytes | None],
    list[bytes | None],
    list[tuple[tuple[str, bytes | None], ...]],
    list[int | None],
    list[int | None],
]


def columns_of(records: Iterable[OutgoingRecord]) -> Columns:
    rows = list(records)
    return (
        [r.key for r in rows],
        [r.value for r in rows],
        [r.headers for r in rows],
        [r.partition for r in rows],
        [r.timestamp for r in rows],
    )


@dataclass(slots=True)
class Overrides:
    """What the command line sets on every record of a file: a partition, a timestamp,
    headers added after each record's own."""

    partition: int | None = None
    timestamp: int | None = None
    headers: tuple[tuple[str, bytes | None], ...] = ()

    def apply(self, columns: Columns) -> Columns:
        keys, values, headers, partitions, timestamps = columns
        n = len(keys)
        if self.partition is not None:
            partitions = [self.partition] * n
        if self.timestamp is not None:
            timestamps = [self.timestamp] * n
        if self.headers:
            extra = self.headers
            headers = [h + extra for h in headers]
        return keys, values, headers, partitions, timestamps


@dataclass(slots=True)
class ProducedRun:
    """The outcomes of consecutive records, the first one's index `start`: where each
    landed, `(partition, offset, timestamp)`, or Kafka's refusal (an AdminError). Iterated:
    a `Produced` each. `failed`: how many were refused."""

    topic: str
    start: int
    outcomes: list[Landed | AdminError]
    failed: int = field(init=False)

    def __post_init__(self) -> None:
        self.failed = sum(1 for o in self.outcomes if type(o) is not tuple)

    def __len__(self) -> int:
        return len(self.outcomes)

    def __iter__(self) -> Iterator[Produced]:
        topic = self.topic
        for index, outcome in enumerate(self.outcomes, self.start):
            yield _produced(index, topic, outcome)

    def json_lines(self) -> list[str]:
        """Each outcome's `Produced.to_json()` as a line of JSON, written directly for the
        landed ones (a file of a million)."""
        heads = _LineHeads(_quote(self.topic))
        if not self.failed:
            landed = cast(list[Landed], self.outcomes)
            return [
                f'{heads[p]}{o},"timestamp":{t},"error":null,"message":null}}\n'
                for p, o, t in landed
            ]
        return [
            f'{heads[o[0]]}{o[1]},"timestamp":{o[2]},"error":null,"message":null}}\n'
            if type(o) is tuple
            else json.dumps(_produced(i, self.topic, o).to_json()) + "\n"
            for i, o in enumerate(self.outcomes, self.start)
        ]


class _LineHeads(dict[int, str]):
    """A partition's result lines begin alike: written once per partition, not per line."""

    def __init__(self, topic_json: str) -> None:
        super().__init__()
        self.topic_json = topic_json

    def __missing__(self, partition: int) -> str:
        head = self[partition] = f'{{"topic":{self.topic_json},"partition":{partition},"offset":'
        return head


def _produced(index: int, topic: str, outcome: Landed | AdminError) -> Produced:
    if isinstance(outcome, AdminError):
        return Produced(index, topic, None, None, None, outcome.name, outcome.message)
    partition, offset, timestamp = outcome
    return Produced(index, topic, partition, offset, timestamp)


async def produce(
    admin: AdminPort,
    topic: str,
    records: Sequence[OutgoingRecord],
    *,
    acks: Acks = "all",
    compression: str | None = None,
) -> AsyncIterator[Produced]:
    """Send `records` in order, yielding each one's outcome in order. The topic and each
    record's partition are checked first: nothing is sent when one is wrong."""
    chunks = [columns_of(records)]
    async for run in produce_chunks(admin, topic, chunks, acks=acks, compression=compression):
        for outcome in run:
            yield outcome


async def produce_chunks(
    admin: AdminPort,
    topic: str,
    chunks: Iterable[Columns],
    *,
    acks: Acks = "all",
    compression: str | None = None,
    overrides: Overrides | None = None,
) -> AsyncIterator[ProducedRun]:
    """Records given as chunks of columns (e.g. a file's, read by forked processes), packed
    into record batches as each chunk comes and sent once the last one came: nothing is
    sent when a chunk fails (a bad line: the iterator's error), the topic is unknown or a
    record names a partition the topic lacks (refused after every chunk came, as when
    the whole file is read first)."""
    try:
        count = await topic_partition_count(admin, topic)
    except AdminError:
        for _ in chunks:  # a bad line in the file is said first
            pass
        raise
    with _bulk_allocations():
        async with RecordWriter(admin.settings, topic, acks=acks, compression=compression) as w:
            packing = w.packing(count)
            wrong: AdminError | None = None
            for columns in chunks:
                if overrides is not None:
                    columns = overrides.apply(columns)
                if wrong is None:
                    # each partition the file names, in the order it names them
                    asked = list(dict.fromkeys(p for p in columns[3] if p is not None))
                    try:
                        check_partitions(topic, count, asked)
                    except AdminError as exc:
                        wrong = exc
                if wrong is None:
                    packing.add(*columns, _keyed_partitions(columns, count))
            if wrong is not None:
                raise wrong
            index = 0
            async for outcomes in w.send(packing):
                yield ProducedRun(topic, index, outcomes)
                index += len(outcomes)


class _Bulk:
    under_way = 0  # bulk reads or writes (the TUI may run two at once)
    thresholds: tuple[int, int, int] = (700, 10, 10)


@contextlib.contextmanager
def _bulk_allocations() -> Iterator[None]:
    """Python's young-generation collection every 700 allocations, made rare while records
    are read from a file or sent: each record allocates a few objects kept until the end (a
    file's records) or freed a batch later, which it scans for nothing (bench/records.py: a
    third of a 300,000-record file's parsing). As `messages read` does (cli/messages.py)."""
    if _Bulk.under_way == 0:
        _Bulk.thresholds = gc.get_threshold()
        gc.set_threshold(100_000, 50, 100)
    _Bulk.under_way += 1
    try:
        yield
    finally:
        _Bulk.under_way -= 1
        if _Bulk.under_way == 0:
            gc.set_threshold(*_Bulk.thresholds)


# From this many keyed records, Kafka's murmur2 runs over all keys at once (numpy, in
# planning/key_stats.py; ~0.25 s to import) rather than per record in aiokafka's pure Python
# (~5 us a key); from any number once `warm_key_hashing` started importing it.
_HASH_ALL_AT_ONCE_FROM = 50_000
_HASH_ALL_AT_ONCE_FROM_WARM = 1_000
_warmed = False


def warm_key_hashing() -> None:
    """Import what `_keyed_partitions` uses (~0.25 s), e.g. in a thread while a large file's
    lines are read in other processes (services/record_file.py)."""
    global _warmed
    _warmed = True  # an import under way in this thread is waited for, not repeated
    with contextlib.suppress(ImportError):
        import numpy  # noqa: F401
        import pyarrow  # noqa: F401

        from ..planning import key_stats  # noqa: F401


def _keyed_partitions(columns: Columns, count: int) -> list[int] | None:
    """The partitions of the records with a key and no partition, in order (None: few)."""
    keys_column, _, _, partitions, _ = columns
    keys = [k for k, p in zip(keys_column, partitions, strict=True) if p is None and k is not None]
    if len(keys) < (_HASH_ALL_AT_ONCE_FROM_WARM if _warmed else _HASH_ALL_AT_ONCE_FROM):
        return None
    try:
        import numpy as np
        import pyarrow as pa

        from ..planning.key_stats import partition_for
    except ImportError:  # installed without the spark extra (numpy, pyarrow): one key at a time
        return None
    data = b"".join(keys)
    if len(data) >= 2**31:  # beyond a binary array's offsets
        return None
    offsets = np.zeros(len(keys) + 1, np.int32)
    np.cumsum(np.fromiter(map(len, keys), np.int32, len(keys)), out=offsets[1:])
    # from its buffers: pa.array(keys) imports pandas (~0.3 s) to look at them first
    array = pa.Array.from_buffers(
        pa.binary(), len(keys), [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    )
    keyed: list[int] = partition_for(array, count).tolist()
    return keyed
