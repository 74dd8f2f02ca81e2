"""services/key_reports_saved.py: a kept count serves a grow while fresh and while the topic
keeps the partition count it was read with."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from kafka_tui.planning import key_stats
from kafka_tui.services import key_reports_saved as saved

CLUSTER = "AbCdEfGhIjKlMnOpQrStUv"


def test_a_kept_count_serves_while_fresh_and_the_count_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KAFKA_TUI_KEY_REPORTS", str(tmp_path))
    aggregator = key_stats.KeyAggregator()
    keys = [f"k{i}".encode() for i in range(50)]
    aggregator.add_rows(
        [int(key_stats.partition_for(pa.array([k]), 2)[0]) for k in keys],
        keys,
        [10] * 50,
        [1] * 50,
    )
    tally = aggregator.tally()
    saved.save(CLUSTER, "orders", tally, 2, 1_000_000, None)
    expected = key_stats.report("orders", tally, 2, [6], 0).grow[0]

    recent = saved.recent_grow(CLUSTER, "orders", 2, 6, 1_000_000 + 120_000)
    assert recent is not None and recent.grow == expected and recent.age_s == 120
    assert "counted 2 min ago: growing to 6 partitions" in saved.sentence(recent)
    late = 1_000_000 + int(saved.FRESH_S * 1000) + 1
    assert saved.recent_grow(CLUSTER, "orders", 2, 6, late) is None
    assert saved.recent_grow(CLUSTER, "orders", 3, 6, 1_000_001) is None  # grown since
    assert saved.recent_grow(CLUSTER, "other", 2, 6, 1_000_001) is None
    assert saved.recent_grow("../x", "orders", 2, 6, 1_000_001) is None  # not a cluster id
