"""planning/key_stats.py: the vectorised murmur2 against aiokafka's (Kafka's Java port), tallies
that merge to the same numbers in any split, and a report counted by hand."""

from __future__ import annotations

import random

import pyarrow as pa
from aiokafka.partitioner import murmur2 as aiokafka_murmur2
from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_tui.planning import key_stats


def test_murmur2_matches_aiokafka_on_every_tail_length_and_slices() -> None:
    rnd = random.Random(51)
    keys = [bytes(rnd.randrange(256) for _ in range(rnd.randrange(0, 70))) for _ in range(3000)]
    keys += [b"", b"a", b"ab", b"abc", b"abcd", b"abcde", b"\xff" * 9, "ключ".encode()]
    array = pa.array(keys, pa.binary())
    assert key_stats.murmur2(array).tolist() == [aiokafka_murmur2(k) for k in keys]
    sliced = array.slice(11, 200)  # an Arrow slice: offsets start mid-buffer
    assert key_stats.murmur2(sliced).tolist() == [aiokafka_murmur2(k) for k in keys[11:211]]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=40), max_size=30), st.integers(min_value=1, max_value=500))
def test_partition_for_is_kafkas_default_partitioner(keys: list[bytes], n: int) -> None:
    expected = [(aiokafka_murmur2(k) & 0x7FFFFFFF) % n for k in keys]
    assert key_stats.partition_for(pa.array(keys, pa.binary()), n).tolist() == expected


def _rows(count: int, seed: int) -> list[tuple[int, bytes | None, int, int]]:
    rnd = random.Random(seed)
    return [
        (
            rnd.randrange(3),
            None if rnd.random() < 0.1 else f"k{rnd.randrange(40)}".encode(),
            rnd.randrange(1, 100),
            1_000 + i,
        )
        for i in range(count)
    ]


def _tally(rows: list[tuple[int, bytes | None, int, int]]) -> pa.Table:
    aggregator = key_stats.KeyAggregator()
    for start in range(0, len(rows), 97):
        chunk = rows[start : start + 97]
        aggregator.add_rows(*(list(column) for column in zip(*chunk, strict=True)))
    return aggregator.tally()


def test_tallies_of_any_split_merge_to_the_same_report() -> None:
    rows = _rows(2_000, 1)
    whole = key_stats.report("t", _tally(rows), 3, [3, 4, 7], 5)
    parts = [_tally(rows[:300]), _tally(rows[300:1_234]), _tally(rows[1_234:])]
    merged = key_stats.report("t", key_stats.merge(parts), 3, [7, 4, 3], 5)
    assert merged == whole
    assert key_stats.report("t", key_stats.merge(reversed(parts)), 3, [3, 4, 7], 5) == whole


def test_report_against_a_hand_count() -> None:
    # Keys placed as the default partitioner places them on 2 partitions, plus one key that a
    # custom partitioner put elsewhere and null keys.
    def home(key: bytes, n: int) -> int:
        return (aiokafka_murmur2(key) & 0x7FFFFFFF) % n

    keys = [f"user-{i}".encode() for i in range(8)]
    rows: list[tuple[int, bytes | None, int, int]] = []
    for i, key in enumerate(keys):
        rows += [(home(key, 2), key, 10, 5 + i)] * (i + 1)  # user-i: i + 1 records
    stray = keys[0]
    rows.append((1 - home(stray, 2), stray, 10, 50))
    rows += [(0, None, 4, 60), (1, None, 4, 61), (1, None, 4, 62)]
    report = key_stats.report("t", _tally(rows), 2, [2, 3], 3)

    keyed = sum(range(1, 9)) + 1
    assert (report.records, report.null_key_records, report.keyed_records) == (keyed + 3, 3, keyed)
    assert report.bytes == keyed * 10 + 12
    assert report.distinct_keys == 8
    by_partition = {p.partition: p for p in report.partitions}
    for p in (0, 1):
        here = [r for r in rows if r[0] == p]
        assert by_partition[p].records == len(here)
        assert by_partition[p].distinct_keys == len({r[1] for r in here if r[1] is not None})
        assert by_partition[p].null_key_records == sum(1 for r in here if r[1] is None)
    assert [(k.key, k.records) for k in report.hot_keys] == [
        (keys[7], 8),
        (keys[6], 7),
        (keys[5], 6),
    ]

    same, grown = report.grow
    assert same.partitions == 2
    assert same.keys_moving == round(1 / 8, 6)  # only the stray key has records elsewhere
    assert same.records_moving == round(1 / keyed, 6)
    moving_keys = {k for k in keys if home(k, 3) != home(k, 2)} | (
        {stray} if home(stray, 3) != 1 - home(stray, 2) else set()
    )
    assert grown.keys_moving == round(len(moving_keys) / 8, 6)
    moved = sum(1 for p, k, _, _ in rows if k is not None and home(k, 3) != p)
    assert grown.records_moving == round(moved / keyed, 6)
    expected = [0, 0, 0]
    for p, k, _, _ in rows:
        expected[home(k, 3) if k is not None else p] += 1
    assert grown.records_per_partition == expected
    assert grown.max_over_avg == round(max(expected) * 3 / sum(expected), 4)


def test_an_empty_topic_reports_zeros() -> None:
    report = key_stats.report("t", key_stats.merge([]), 2, [4], 3)
    assert report.records == report.distinct_keys == 0
    assert [p.records for p in report.partitions] == [0, 0]
    assert report.grow[0].records_per_partition == [0, 0, 0, 0]
    assert report.grow[0].max_over_avg == 0.0
    assert key_stats.report_to_json(report)["hot_keys"] == []
