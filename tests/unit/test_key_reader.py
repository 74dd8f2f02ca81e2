"""admin/key_reader.py's batch walk over record batches as a broker stores them, built with
aiokafka's own batch builders (no broker: the 2.1+ formats the dev clusters no longer write,
v0/v1 message sets, are covered here): every codec, read_committed's skips (an aborted
transaction's batches up to its marker, control batches), ranges that cut batches, and the
equal split of a partition into ranges."""

from __future__ import annotations

import struct
from typing import NamedTuple

import pytest
from aiokafka.record.default_records import DefaultRecordBatchBuilder
from aiokafka.record.legacy_records import LegacyRecordBatchBuilder

from kafka_tui.admin.key_reader import OffsetRange, _Columns, _Reading, _walk, split_ranges

GZIP, SNAPPY, LZ4, ZSTD = 1, 2, 3, 4
_CONTROL = 0x20


class Aborted(NamedTuple):
    producer_id: int
    first_offset: int


def _v2(
    base: int,
    records: list[tuple[bytes | None, bytes | None]],
    codec: int = 0,
    producer: int = -1,
    transactional: bool = False,
    control: bool = False,
) -> bytes:
    builder = DefaultRecordBatchBuilder(2, codec, int(transactional), producer, 0, 0, 1 << 20)
    for i, (key, value) in enumerate(records):
        builder.append(i, 1000 + base + i, key, value, [])
    data = bytearray(builder.build())
    data[0:8] = struct.pack(">q", base)  # the broker's offset; the CRC does not cover it
    if control:
        data[22] |= _CONTROL  # attributes (int16) at 21-22; the walk does not check CRCs
    return bytes(data)


def _marker(base: int, producer: int, abort: bool) -> bytes:
    key = struct.pack(">hh", 0, 0 if abort else 1)
    return _v2(base, [(key, b"\x00\x00\x00\x00\x00\x00")], 0, producer, True, control=True)


def _legacy(magic: int, base: int, keys: list[bytes | None], codec: int) -> bytes:
    builder = LegacyRecordBatchBuilder(magic, codec, 1 << 20)
    for i, key in enumerate(keys):
        # v1 compressed: the inner records' relative offsets; else absolute ones.
        builder.append(i if codec and magic else base + i, 1000 + base + i, key, b"v" * 10)
    data = bytearray(builder.build())
    if codec:  # a stored wrapper carries its last inner record's offset
        data[0:8] = struct.pack(">q", base + len(keys) - 1)
    return bytes(data)


def _read(data: bytes, start: int, end: int, aborted: list[Aborted] = []) -> tuple:  # noqa: B006
    reading = _Reading([], start, end)
    columns = _Columns()
    assert _walk(3, reading, data, aborted, columns)
    assert set(columns.partitions) <= {3}
    return columns.keys, columns.sizes, columns.stamps, reading.position


@pytest.mark.parametrize("codec", [0, GZIP, SNAPPY, LZ4, ZSTD])
def test_v2_batches_with_transactions_every_codec(codec: int) -> None:
    log = b"".join(
        [
            _v2(0, [(b"a", b"12345"), (None, b"xy"), (b"b", None)], codec),
            _v2(3, [(b"no", b"1"), (b"no", b"2")], codec, producer=7, transactional=True),
            _marker(5, 7, abort=True),
            _v2(6, [(b"yes", b"123")], codec, producer=8, transactional=True),
            _marker(7, 8, abort=False),
            _v2(8, [(b"c", b"1"), (b"d", b"22"), (b"e", b"333")], codec),
        ]
    )
    keys, sizes, stamps, position = _read(log, 0, 11, [Aborted(7, 3)])
    assert keys == [b"a", None, b"b", b"yes", b"c", b"d", b"e"]
    assert sizes == [6, 2, 1, 6, 2, 3, 4]  # key + value, a null one 0
    assert stamps == [1000, 1001, 1002, 1006, 1008, 1009, 1010]
    assert position == 11
    # Without the aborted transaction listed (read_uncommitted's view), its records count.
    assert _read(log, 0, 11)[0] == [b"a", None, b"b", b"no", b"no", b"yes", b"c", b"d", b"e"]
    # A range starting and ending inside batches takes only its offsets.
    keys, _, _, position = _read(log, 1, 9, [Aborted(7, 3)])
    assert (keys, position) == ([None, b"b", b"yes", b"c"], 11)


def test_an_abort_marker_first_in_an_answer_ends_its_transaction_there() -> None:
    """An answer that starts after the aborted transaction's data (a fetch from its marker
    on): the aborted list still names it, and the marker ends it; the producer's next,
    committed transaction counts. (Taken only at data batches, the pending abort was taken at
    the next one, and that committed transaction skipped.)"""
    log = b"".join(
        [
            _marker(5, 7, abort=True),
            _v2(6, [(b"kept", b"1")], 0, producer=7, transactional=True),
            _marker(7, 7, abort=False),
        ]
    )
    keys, _, _, position = _read(log, 5, 8, [Aborted(7, 3)])
    assert (keys, position) == ([b"kept"], 8)


@pytest.mark.parametrize(("magic", "codec"), [(0, 0), (0, GZIP), (1, 0), (1, SNAPPY), (1, LZ4)])
def test_legacy_message_sets(magic: int, codec: int) -> None:
    log = _legacy(magic, 10, [b"k0", None, b"k2"], codec) + _legacy(magic, 13, [b"k3"], codec)
    keys, sizes, stamps, position = _read(log, 11, 14)
    assert (keys, sizes, position) == ([None, b"k2", b"k3"], [10, 12, 12], 14)
    assert stamps == ([-1] * 3 if magic == 0 else [1011, 1012, 1013])


def test_a_cut_batch_is_no_whole_batch() -> None:
    data = _v2(0, [(b"a", b"1")])
    assert not _walk(0, _Reading([], 0, 1), data[:-3], [], _Columns())


def test_split_ranges_cuts_equal_pieces() -> None:
    ranges = [OffsetRange(0, 0, 250_100), OffsetRange(1, 5, 5), OffsetRange(2, 7, 9)]
    assert split_ranges(ranges, 250_000) == [
        OffsetRange(0, 0, 125_050),
        OffsetRange(0, 125_050, 250_100),
        OffsetRange(2, 7, 9),
    ]
    pieces = split_ranges([OffsetRange(4, 3, 44)], 10)
    assert [r.records for r in pieces] == [8, 8, 8, 8, 9]
    assert (pieces[0].start, pieces[-1].end) == (3, 44)
