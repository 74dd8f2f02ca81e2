"""A topic's keys, counted: records, bytes and distinct keys per partition, null keys, hot
keys, and what growing the topic to N partitions does to them (`topics keys`, issue 51).

Pure (no I/O, no clock): the readers hand in Arrow batches of (partition, key, size,
timestamp); `KeyAggregator` folds them into a *tally*, an Arrow table with one row per
(partition, key) — null keys one row per partition — holding records, bytes and the first and
last timestamp. Tallies merge (`merge`: concatenate, group again), so executors tally their
offset ranges and the driver merges the small results; `report` turns the merged tally into
the numbers. Both engines end in the same `merge` and `report`, so they agree by construction.

Distinct keys are exact: a tally holds every distinct (partition, key), so memory grows with
the distinct keys (not the records); no sketch.

A compacted topic (cleanup.policy contains compact) is counted as compaction keeps it, whether
the cleaner has run or not: the aggregator made with `latest=True` also keeps, per (partition,
key), its latest record (highest offset: `latest_offset`, its size, timestamp, and whether it
is a tombstone); merges keep the row of the highest offset; `latest_only` turns such a tally
into one record per (partition, key) of its latest record, the keys whose latest record is a
tombstone (deleted) and the records without a key (the cleaner drops both) left out and
counted. A key written to two partitions keeps a record in each (compaction is per partition),
so it is one record in each and one distinct key. Without `latest` the latest columns stay
null and cost nothing.

Kafka's default partitioner (`Utils.toPositive(Utils.murmur2(key)) % n`; records without a
key go to a sticky partition, not by hash): `murmur2` is the same hash over a whole Arrow
binary array with numpy, one pass per 4-byte block over the keys still that long.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

# One row per (partition, key) of the records read; `key` null: the partition's null keys.
TALLY_SCHEMA = pa.schema(
    [
        ("partition", pa.int32()),
        ("key", pa.binary()),
        ("records", pa.int64()),
        ("bytes", pa.int64()),
        ("first_ms", pa.int64()),
        ("last_ms", pa.int64()),
        # The (partition, key)'s record of the highest offset (null unless counted `latest`):
        # its offset, size, timestamp, and whether its value is null (a tombstone).
        ("latest_offset", pa.int64()),
        ("latest_bytes", pa.int64()),
        ("latest_ms", pa.int64()),
        ("latest_tombstone", pa.bool_()),
    ]
)
LATEST = ("latest_offset", "latest_bytes", "latest_ms", "latest_tombstone")
_LATEST_LAST = (
    "latest_offset_last",
    "latest_bytes_last",
    "latest_ms_last",
    "latest_tombstone_last",
)
# What a reader hands in: one row per record; `size` = key + value bytes (headers aside);
# `offset` and `tombstone` (value null) only when the latest record per key is wanted.
RECORD_SCHEMA = pa.schema(
    [
        ("partition", pa.int32()),
        ("key", pa.binary()),
        ("size", pa.int64()),
        ("timestamp", pa.int64()),
        ("offset", pa.int64()),
        ("tombstone", pa.bool_()),
    ]
)
# Rows buffered before they are grouped: bounds a reader's memory by the distinct keys, not
# the records.
COMPACT_ROWS = 262_144

_SEED = np.uint32(0x9747B28C)
_M = np.uint32(0x5BD1E995)
_POSITIVE = np.uint32(0x7FFFFFFF)


def murmur2(keys: pa.Array) -> np.ndarray:
    """Kafka's murmur2 of each key (uint32; a null key hashes as b""), as
    `org.apache.kafka.common.utils.Utils.murmur2` and `aiokafka.partitioner.murmur2` compute it."""
    if isinstance(keys, pa.ChunkedArray):
        keys = keys.combine_chunks() if keys.num_chunks else pa.array([], pa.binary())
    if keys.type != pa.binary():
        keys = keys.cast(pa.binary())
    count = len(keys)
    if count == 0:
        return np.zeros(0, dtype=np.uint32)
    _, offsets_buffer, data_buffer = keys.buffers()
    assert offsets_buffer is not None
    offsets = np.frombuffer(offsets_buffer, dtype=np.int32)[keys.offset : keys.offset + count + 1]
    data = (
        np.frombuffer(data_buffer, dtype=np.uint8)
        if data_buffer is not None and data_buffer.size
        else np.zeros(1, dtype=np.uint8)
    )
    starts = offsets[:-1].astype(np.int64)
    lengths = (offsets[1:] - offsets[:-1]).astype(np.int64)
    h = _SEED ^ lengths.astype(np.uint32)
    blocks = lengths >> 2
    # Rows by block count: the rows with more than j blocks are a suffix of `order`.
    order = np.argsort(blocks, kind="stable")
    sorted_blocks = blocks[order]
    most = int(sorted_blocks[-1])
    for j in range(most):
        rows = order[np.searchsorted(sorted_blocks, j, side="right") :]
        at = starts[rows] + 4 * j
        k = (
            data[at].astype(np.uint32)
            | (data[at + 1].astype(np.uint32) << np.uint32(8))
            | (data[at + 2].astype(np.uint32) << np.uint32(16))
            | (data[at + 3].astype(np.uint32) << np.uint32(24))
        )
        k *= _M
        k ^= k >> np.uint32(24)
        k *= _M
        mixed = h[rows] * _M
        mixed ^= k
        h[rows] = mixed
    extra = lengths & 3
    tail = starts + (lengths & ~3)
    rows = np.nonzero(extra >= 3)[0]
    h[rows] ^= data[tail[rows] + 2].astype(np.uint32) << np.uint32(16)
    rows = np.nonzero(extra >= 2)[0]
    h[rows] ^= data[tail[rows] + 1].astype(np.uint32) << np.uint32(8)
    rows = np.nonzero(extra >= 1)[0]
    h[rows] ^= data[tail[rows]].astype(np.uint32)
    h[rows] *= _M
    h ^= h >> np.uint32(13)
    h *= _M
    h ^= h >> np.uint32(15)
    return h


def partition_for(keys: pa.Array, partitions: int) -> np.ndarray:
    """Where Kafka's default partitioner sends each key among `partitions` (int64)."""
    return ((murmur2(keys) & _POSITIVE) % np.uint32(partitions)).astype(np.int64)


def tally_records(records: pa.RecordBatch | pa.Table, latest: bool = False) -> pa.Table:
    """Records (RECORD_SCHEMA) grouped into a tally (TALLY_SCHEMA); `latest`: with each
    (partition, key)'s record of the highest offset."""
    table = pa.Table.from_batches([records]) if isinstance(records, pa.RecordBatch) else records
    counts = [("size", "count"), ("size", "sum"), ("timestamp", "min"), ("timestamp", "max")]
    names = ("size_count", "size_sum", "timestamp_min", "timestamp_max")
    if not latest:
        grouped = table.group_by(["partition", "key"], use_threads=False).aggregate(counts)
        return _tally(grouped, names)
    # Ordered by offset, an ordered grouping's "last" is the record of the highest offset.
    table = table.take(pc.sort_indices(table["offset"]))
    grouped = table.group_by(["partition", "key"], use_threads=False).aggregate(
        [
            *counts,
            ("offset", "max"),
            ("size", "last"),
            ("timestamp", "last"),
            ("tombstone", "last"),
        ]
    )
    return _tally(grouped, names, ("offset_max", "size_last", "timestamp_last", "tombstone_last"))


def merge(tallies: Iterable[pa.Table]) -> pa.Table:
    """Tallies of any ranges (of one topic) as one tally; of a (partition, key)'s latest
    records, the one of the highest offset."""
    tables = [t for t in tallies if t.num_rows]
    if not tables:
        return TALLY_SCHEMA.empty_table()
    if len(tables) == 1:
        return tables[0]
    table = pa.concat_tables(tables)
    counts = [("records", "sum"), ("bytes", "sum"), ("first_ms", "min"), ("last_ms", "max")]
    names = ("records_sum", "bytes_sum", "first_ms_min", "last_ms_max")
    if table["latest_offset"].null_count == table.num_rows:
        grouped = table.group_by(["partition", "key"], use_threads=False).aggregate(counts)
        return _tally(grouped, names)
    table = table.take(pc.sort_indices(table["latest_offset"]))
    grouped = table.group_by(["partition", "key"], use_threads=False).aggregate(
        [*counts, *((name, "last") for name in LATEST)]
    )
    return _tally(grouped, names, _LATEST_LAST)


Names = tuple[str, str, str, str]


def _tally(grouped: pa.Table, names: Names, latest: Names | None = None) -> pa.Table:
    """A grouping's columns (`names`: records, bytes, first and last timestamp; `latest`:
    the latest record's four, else nulls) as a tally."""
    records, size, first, last = names
    rows = grouped.num_rows
    latest_columns = (
        [grouped[name].cast(field.type) for name, field in zip(latest, _LATEST_FIELDS, strict=True)]
        if latest
        else [pa.nulls(rows, field.type) for field in _LATEST_FIELDS]
    )
    return pa.table(
        [
            grouped["partition"].cast(pa.int32()),
            grouped["key"],
            grouped[records].cast(pa.int64()),
            grouped[size].cast(pa.int64()),
            grouped[first].cast(pa.int64()),
            grouped[last].cast(pa.int64()),
            *latest_columns,
        ],
        schema=TALLY_SCHEMA,
    )


_LATEST_FIELDS = [TALLY_SCHEMA.field(name) for name in LATEST]


@dataclass(frozen=True)
class LeftOut:
    """What counting a compacted topic's latest records left out: keys whose latest record
    in every partition they were written to is a tombstone (`tombstoned_keys`, distinct;
    `tombstoned_by_partition`: per partition), and records without a key."""

    tombstoned_keys: int
    tombstoned_by_partition: dict[int, int]
    null_key_records: int


def latest_only(tally: pa.Table) -> tuple[pa.Table, LeftOut]:
    """A tally counted `latest` as a compacted topic keeps it: one record per (partition,
    key), its latest, with that record's size and timestamp; keys whose latest record is a
    tombstone, and records without a key (Kafka refuses them on a compacted topic; ones
    written before the topic became compacted the cleaner drops), left out and counted."""
    if not tally.num_rows:
        return tally, LeftOut(0, {}, 0)
    keyed = pc.is_valid(tally["key"])
    tombstone = pc.fill_null(tally["latest_tombstone"], False)
    live = pc.and_(keyed, pc.invert(tombstone))
    dead = tally.filter(pc.and_(keyed, tombstone))
    kept = tally.filter(live)
    dead_keys = pc.unique(dead["key"])
    gone = dead_keys.filter(pc.invert(pc.is_in(dead_keys, pc.unique(kept["key"]))))
    by_partition = {
        int(p): int(n)
        for p, n in zip(
            *np.unique(dead["partition"].to_numpy(zero_copy_only=False), return_counts=True),
            strict=True,
        )
    }
    null_records = int(pc.sum(tally.filter(pc.invert(keyed))["records"]).as_py() or 0)
    rows = kept.num_rows
    counted = pa.table(
        [
            kept["partition"],
            kept["key"],
            pa.array(np.ones(rows, dtype=np.int64)),
            kept["latest_bytes"],
            kept["latest_ms"],
            kept["latest_ms"],
            *(kept[name] for name in LATEST),
        ],
        schema=TALLY_SCHEMA,
    )
    return counted, LeftOut(len(gone), by_partition, null_records)


@dataclass
class KeyAggregator:
    """Folds record batches into one tally; buffered rows are grouped every COMPACT_ROWS.
    `latest`: the tally keeps each (partition, key)'s latest record too (a compacted topic;
    the records then carry their offset and whether they are tombstones)."""

    latest: bool = False
    _pending: list[pa.RecordBatch] = field(default_factory=list)
    _pending_rows: int = 0
    _tally: pa.Table = field(default_factory=TALLY_SCHEMA.empty_table)
    records: int = 0

    def add(self, records: pa.RecordBatch) -> None:
        if not records.num_rows:
            return
        self._pending.append(records)
        self._pending_rows += records.num_rows
        self.records += records.num_rows
        if self._pending_rows >= COMPACT_ROWS:
            self._compact()

    def add_rows(
        self,
        partitions: Sequence[int],
        keys: Sequence[bytes | None],
        sizes: Sequence[int],
        timestamps: Sequence[int],
        offsets: Sequence[int] | None = None,
        tombstones: Sequence[bool] | None = None,
    ) -> None:
        count = len(partitions)
        self.add(
            pa.record_batch(
                [
                    pa.array(partitions, pa.int32()),
                    pa.array(keys, pa.binary()),
                    pa.array(sizes, pa.int64()),
                    pa.array(timestamps, pa.int64()),
                    pa.nulls(count, pa.int64())
                    if offsets is None
                    else pa.array(offsets, pa.int64()),
                    pa.nulls(count, pa.bool_())
                    if tombstones is None
                    else pa.array(tombstones, pa.bool_()),
                ],
                schema=RECORD_SCHEMA,
            )
        )

    def _compact(self) -> None:
        if self._pending:
            table = pa.Table.from_batches(self._pending, RECORD_SCHEMA)
            fresh = tally_records(table, self.latest)
            self._tally = merge([self._tally, fresh])
            self._pending, self._pending_rows = [], 0

    def tally(self) -> pa.Table:
        self._compact()
        return self._tally


@dataclass(frozen=True)
class PartitionKeys:
    partition: int
    records: int
    bytes: int
    distinct_keys: int
    null_key_records: int
    first_ms: int | None
    last_ms: int | None
    tombstoned_keys: int = 0  # compacted: keys whose latest record here is a tombstone


@dataclass(frozen=True)
class HotKey:
    key: bytes
    records: int
    bytes: int
    partition: int


@dataclass(frozen=True)
class Grow:
    """The topic's records as if produced to `partitions` partitions: keyed records where the
    default partitioner sends them, records without a key where they are."""

    partitions: int
    keys_moving: float  # share of the distinct keys with records in another partition
    records_moving: float  # share of the keyed records in another partition
    records_per_partition: list[int]
    bytes_per_partition: list[int]

    @property
    def max_over_avg(self) -> float:
        return _skew(self.records_per_partition)

    @property
    def bytes_max_over_avg(self) -> float:
        return _skew(self.bytes_per_partition)


@dataclass(frozen=True)
class KeyReport:
    topic: str
    records: int
    bytes: int
    null_key_records: int
    distinct_keys: int
    keyed_records: int
    partitions: list[PartitionKeys]
    hot_keys: list[HotKey]  # by records, then bytes
    hot_keys_by_bytes: list[HotKey]
    grow: list[Grow]
    # Compacted: counted as compaction keeps it (`latest_only`), with what was left out.
    compacted: bool = False
    left_out: LeftOut | None = None


def _skew(counts: Sequence[int]) -> float:
    total = sum(counts)
    return round(max(counts) * len(counts) / total, 4) if total and counts else 0.0


def report(
    topic: str,
    tally: pa.Table,
    current: int,
    candidates: Sequence[int],
    top: int,
    compacted: bool = False,
) -> KeyReport:
    """The numbers of a merged tally of `topic`, whose partition count is `current`;
    `compacted`: the tally counted `latest`, each (partition, key)'s latest record once."""
    left_out = None
    if compacted:
        tally, left_out = latest_only(tally)
    partition = tally["partition"].to_numpy(zero_copy_only=False).astype(np.int64)
    keys = tally["key"].combine_chunks() if tally.num_rows else pa.array([], pa.binary())
    records = tally["records"].to_numpy(zero_copy_only=False).astype(np.int64)
    sizes = tally["bytes"].to_numpy(zero_copy_only=False).astype(np.int64)
    keyed = ~np.asarray(keys.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    width = max([current, *[p + 1 for p in partition.tolist()]]) if len(partition) else current
    if left_out and left_out.tombstoned_by_partition:
        width = max(width, max(left_out.tombstoned_by_partition) + 1)
    return KeyReport(
        topic=topic,
        records=int(records.sum()),
        bytes=int(sizes.sum()),
        null_key_records=int(records[~keyed].sum()),
        distinct_keys=len(pc.unique(keys.filter(pa.array(keyed)))),
        keyed_records=int(records[keyed].sum()),
        partitions=_partitions(tally, partition, records, sizes, keyed, width, left_out),
        hot_keys=_hot(keys, partition, records, sizes, keyed, top, by_bytes=False),
        hot_keys_by_bytes=_hot(keys, partition, records, sizes, keyed, top, by_bytes=True),
        grow=[_grow(keys, partition, records, sizes, keyed, n) for n in sorted(set(candidates))],
        compacted=compacted,
        left_out=left_out,
    )


def _partitions(
    tally: pa.Table,
    partition: np.ndarray,
    records: np.ndarray,
    sizes: np.ndarray,
    keyed: np.ndarray,
    width: int,
    left_out: LeftOut | None,
) -> list[PartitionKeys]:
    per_records = np.bincount(partition, weights=records, minlength=width)
    per_bytes = np.bincount(partition, weights=sizes, minlength=width)
    per_keys = np.bincount(partition[keyed], minlength=width)
    per_null = np.bincount(partition[~keyed], weights=records[~keyed], minlength=width)
    first = tally["first_ms"].to_numpy(zero_copy_only=False)
    last = tally["last_ms"].to_numpy(zero_copy_only=False)
    out = []
    for p in range(width):
        here = partition == p
        out.append(
            PartitionKeys(
                partition=p,
                records=int(per_records[p]),
                bytes=int(per_bytes[p]),
                distinct_keys=int(per_keys[p]),
                null_key_records=int(per_null[p]),
                first_ms=int(first[here].min()) if here.any() else None,
                last_ms=int(last[here].max()) if here.any() else None,
                tombstoned_keys=left_out.tombstoned_by_partition.get(p, 0) if left_out else 0,
            )
        )
    return out


def _hot(
    keys: pa.Array,
    partition: np.ndarray,
    records: np.ndarray,
    sizes: np.ndarray,
    keyed: np.ndarray,
    top: int,
    by_bytes: bool,
) -> list[HotKey]:
    """The `top` (partition, key) rows, by records then bytes (or bytes then records), ties
    by partition and key so both engines list the same."""
    if top <= 0:
        return []
    rows = np.nonzero(keyed)[0]
    first, second = (sizes, records) if by_bytes else (records, sizes)
    # np.lexsort's last key is the primary one; a bounded pre-selection keeps it cheap.
    if len(rows) > top * 4:
        cut = np.partition(first[rows], len(rows) - top)[len(rows) - top]
        rows = rows[first[rows] >= cut]
    values = keys.take(pa.array(rows)).to_pylist()
    ordered = sorted(
        range(len(rows)),
        key=lambda i: (-first[rows[i]], -second[rows[i]], partition[rows[i]], values[i]),
    )[:top]
    return [
        HotKey(values[i], int(records[rows[i]]), int(sizes[rows[i]]), int(partition[rows[i]]))
        for i in ordered
    ]


def _grow(
    keys: pa.Array,
    partition: np.ndarray,
    records: np.ndarray,
    sizes: np.ndarray,
    keyed: np.ndarray,
    n: int,
) -> Grow:
    target = np.where(keyed, partition_for(keys, n), partition)
    moving = keyed & (target != partition)
    keyed_records = int(records[keyed].sum())
    moved_keys = pc.unique(keys.filter(pa.array(moving)))
    distinct = len(pc.unique(keys.filter(pa.array(keyed))))
    width = max(n, int(target.max()) + 1 if len(target) else n)
    return Grow(
        partitions=n,
        keys_moving=round(len(moved_keys) / distinct, 6) if distinct else 0.0,
        records_moving=round(int(records[moving].sum()) / keyed_records, 6)
        if keyed_records
        else 0.0,
        records_per_partition=[
            int(v) for v in np.bincount(target, weights=records, minlength=width)
        ],
        bytes_per_partition=[int(v) for v in np.bincount(target, weights=sizes, minlength=width)],
    )


# What `records` and `bytes` count, by whether the topic is compacted (the JSON's "counted").
COUNTED = {False: "every record", True: "latest record per key"}


def key_text(key: bytes) -> str:
    """A key as text: UTF-8 where it decodes, other bytes as \\xNN escapes."""
    return key.decode("utf-8", "backslashreplace")


def report_to_json(report: KeyReport) -> dict[str, Any]:
    """The `topics keys --output json` document (issue 51's names, then additions)."""

    def hot(keys: list[HotKey]) -> list[dict[str, Any]]:
        return [
            {
                "key": key_text(k.key),
                "records": k.records,
                "bytes": k.bytes,
                "partition": k.partition,
            }
            for k in keys
        ]

    left = report.left_out
    compacted: dict[str, Any] = {
        "compacted": report.compacted,
        "counted": COUNTED[report.compacted],
    }
    if left is not None:
        compacted |= {
            "tombstoned_keys": left.tombstoned_keys,
            "null_key_records_left_out": left.null_key_records,
        }

    def partition(p: PartitionKeys) -> dict[str, Any]:
        row = {
            "partition": p.partition,
            "records": p.records,
            "bytes": p.bytes,
            "distinct_keys": p.distinct_keys,
            "null_key_records": p.null_key_records,
            "first_timestamp_ms": p.first_ms,
            "last_timestamp_ms": p.last_ms,
        }
        return row | {"tombstoned_keys": p.tombstoned_keys} if left is not None else row

    return {
        "topic": report.topic,
        "records": report.records,
        "bytes": report.bytes,
        "null_key_records": report.null_key_records,
        "distinct_keys": report.distinct_keys,
        **compacted,
        "partitions": [partition(p) for p in report.partitions],
        "hot_keys": hot(report.hot_keys),
        "hot_keys_by_bytes": hot(report.hot_keys_by_bytes),
        "grow": [
            {
                "partitions": g.partitions,
                "keys_moving": g.keys_moving,
                "records_moving": g.records_moving,
                "records_per_partition": g.records_per_partition,
                "max_over_avg": g.max_over_avg,
                "bytes_per_partition": g.bytes_per_partition,
                "bytes_max_over_avg": g.bytes_max_over_avg,
            }
            for g in report.grow
        ],
    }
