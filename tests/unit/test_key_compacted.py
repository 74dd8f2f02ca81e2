"""A compacted topic's keys counted as compaction keeps them (planning/key_stats.py, issue 51):
each (partition, key)'s latest record (highest offset) once, whatever order the records and
tallies arrive in; a key whose latest record is a tombstone left out and counted; records
without a key left out (the cleaner drops them); a key in two partitions once in each. The
weights of a kept count (key_weights, key_reports_saved) give the same numbers."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from kafka_tui.planning import key_stats
from kafka_tui.planning.key_weights import KeyWeights
from kafka_tui.services import key_reports_saved as saved

# (partition, key, size, timestamp, offset, tombstone), each partition in offset order.
ROWS = [
    (0, b"k1", 10, 100, 0, False),
    (0, b"k1", 30, 101, 1, False),  # k1 overwritten with another size: 30 counts
    (0, b"k2", 5, 102, 2, False),
    (0, b"k2", 2, 103, 3, True),  # k2 deleted here (but written again in partition 1)
    (0, b"k3", 7, 99, 4, False),
    (0, None, 4, 104, 5, False),  # no key: only from before the topic became compacted
    (0, b"k4", 2, 105, 6, True),
    (0, b"k4", 9, 106, 7, False),  # k4 deleted, then written again: 9 counts
    (1, b"k1", 11, 107, 0, False),  # k1 in a second partition: a record there too
    (1, b"k5", 2, 108, 1, True),  # k5's only record is a tombstone: deleted
    (1, b"k2", 6, 109, 2, False),
]


def _aggregate(rows: list[tuple[Any, ...]], latest: bool, chunk: int) -> pa.Table:
    aggregator = key_stats.KeyAggregator(latest)
    for at in range(0, len(rows), chunk):
        columns = [list(c) for c in zip(*rows[at : at + chunk], strict=True)]
        if latest:
            aggregator.add_rows(*columns)
        else:
            aggregator.add_rows(*columns[:4])
    return aggregator.tally()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_latest_record_per_key_in_any_order(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(key_stats, "COMPACT_ROWS", 3)  # merges inside the aggregator too
    shuffled = ROWS[:]
    random.Random(seed).shuffle(shuffled)
    whole = key_stats.report("t", _aggregate(ROWS, True, len(ROWS)), 2, [2, 3, 5], 5, True)
    tallies = [_aggregate(shuffled[at : at + 2], True, 2) for at in range(0, len(ROWS), 2)]
    random.Random(seed).shuffle(tallies)
    assert key_stats.report("t", key_stats.merge(tallies), 2, [5, 3, 2], 5, True) == whole
    assert key_stats.report("t", _aggregate(shuffled, True, 4), 2, [2, 3, 5], 5, True) == whole

    assert whole.compacted
    assert (whole.records, whole.bytes) == (5, 30 + 7 + 9 + 11 + 6)
    assert (whole.distinct_keys, whole.null_key_records, whole.keyed_records) == (4, 0, 5)
    assert whole.left_out == key_stats.LeftOut(1, {0: 1, 1: 1}, 1)
    p0, p1 = whole.partitions
    assert (p0.records, p0.bytes, p0.distinct_keys, p0.tombstoned_keys) == (3, 46, 3, 1)
    assert (p1.records, p1.bytes, p1.distinct_keys, p1.tombstoned_keys) == (2, 17, 2, 1)
    # The kept records' timestamps: k3's 99 (its only record) to k4's latest, 106.
    assert (p0.first_ms, p0.last_ms, p1.first_ms, p1.last_ms) == (99, 106, 107, 109)
    assert [(k.key, k.records, k.bytes, k.partition) for k in whole.hot_keys[:2]] == [
        (b"k1", 1, 30, 0),
        (b"k1", 1, 11, 1),
    ]
    document = key_stats.report_to_json(whole)
    assert document["compacted"] is True and document["counted"] == "latest record per key"
    assert (document["tombstoned_keys"], document["null_key_records_left_out"]) == (1, 1)
    assert [p["tombstoned_keys"] for p in document["partitions"]] == [1, 1]


def test_not_compacted_every_record_counts_as_before() -> None:
    every = key_stats.report("t", _aggregate(ROWS, False, 4), 2, [3], 5)
    also_latest = key_stats.report("t", _aggregate(ROWS, True, 4), 2, [3], 5)
    assert every == also_latest  # the latest columns change nothing unless compacted
    assert (every.records, every.bytes) == (len(ROWS), sum(r[2] for r in ROWS))
    assert (every.null_key_records, every.distinct_keys, every.left_out) == (1, 5, None)
    assert every.partitions[0].records == 8
    document = key_stats.report_to_json(every)
    assert (document["compacted"], document["counted"]) == (False, "every record")
    assert "tombstoned_keys" not in document and "tombstoned_keys" not in document["partitions"][0]
    counted = _aggregate(ROWS, False, 4)
    assert counted.num_rows == 8 and counted["latest_offset"].null_count == 8


def test_a_kept_compacted_count_weighs_its_latest_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KAFKA_TUI_KEY_REPORTS", str(tmp_path))
    tally = _aggregate(ROWS, True, 4)
    counts = [2, 3, 4, 7]
    expected = key_stats.report("t", tally, 2, counts, 0, True).grow
    assert [KeyWeights(tally, compacted=True).grow(n) for n in counts] == expected
    assert [KeyWeights(tally).grow(n) for n in counts] == key_stats.report(
        "t", tally, 2, counts, 0
    ).grow
    cluster = "AbCdEfGhIjKlMnOpQrStUv"
    saved.save(cluster, "orders", tally, 2, 1_000_000, None, compacted=True)
    found = saved.grow_keys(cluster, "orders", 2, 7, 1_060_000)
    assert found.recent is not None and found.recent.compacted
    assert found.recent.grow == expected[-1]
    assert sum(found.recent.grow.records_per_partition) == 5  # the latest records kept
    assert "(compacted: each key's latest record)" in saved.sentence(found.recent)
    entry = saved.grow_json(found)
    back = saved.from_json(entry).recent
    assert back is not None and back.compacted
    assert back.grow.records_per_partition == expected[-1].records_per_partition


def test_the_table_says_what_was_counted(capsys: pytest.CaptureFixture[str]) -> None:
    from kafka_tui.cli.topic_keys import print_report
    from kafka_tui.services.key_report import KeyReportResult

    tally = _aggregate(ROWS, True, 4)
    print_report(KeyReportResult(key_stats.report("t", tally, 2, [3], 2, True), True, "local", 2))
    out = capsys.readouterr().out
    assert out.startswith("Topic t: 5 records, 63 bytes (keys + values), 4 distinct keys, 0 ")
    assert (
        "Compacted: the latest record per key counted once (in each partition it was written "
        "to), as compaction keeps it; left out: 1 key deleted (its latest record a tombstone), "
        "1 record without a key (never kept).\n" in out
    )
    print_report(KeyReportResult(key_stats.report("t", tally, 2, [3], 2), False, "local", 2))
    assert "Compacted" not in capsys.readouterr().out
