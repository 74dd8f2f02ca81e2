"""planning/key_weights.py weighs a kept tally as key_stats.report does, for every count; and
services/key_reports_saved.grow_keys gives the numbers, or says why there are none."""

from __future__ import annotations

import random
from pathlib import Path

import pyarrow as pa
import pytest

from kafka_tui.planning import key_stats
from kafka_tui.planning.key_weights import KeyWeights
from kafka_tui.services import key_reports_saved as saved

CLUSTER = "AbCdEfGhIjKlMnOpQrStUv"


def _tally(keys: int, partitions: int, seed: int) -> pa.Table:
    """Keys where the default partitioner put them, a few placed elsewhere (another
    partitioner, an earlier count), null keys in two partitions, uneven records."""
    chance = random.Random(seed)
    aggregator = key_stats.KeyAggregator()
    names = [f"key-{i}".encode() for i in range(keys)] + [b"", "ключ".encode(), b"\xff\x00"]
    homes = key_stats.partition_for(pa.array(names), partitions)
    rows: tuple[list[int], list[bytes | None], list[int], list[int]] = ([], [], [], [])
    for name, home in zip(names, homes.tolist(), strict=True):
        places = [home] if chance.random() < 0.9 else [home, (home + 1) % partitions]
        for p in places:
            for _ in range(chance.randint(1, 4)):
                for column, value in zip(rows, (p, name, chance.randint(1, 90), 5), strict=True):
                    column.append(value)  # type: ignore[arg-type]
    for p in (0, partitions - 1):
        for column, value in zip(rows, (p, None, 7, 5), strict=True):
            column.append(value)  # type: ignore[arg-type]
    aggregator.add_rows(*rows)
    return aggregator.tally()


@pytest.mark.parametrize("seed", [1, 2])
def test_weights_give_the_reports_numbers_for_every_count(seed: int) -> None:
    tally = _tally(300, 3, seed)
    weights = KeyWeights(tally)
    counts = [3, 4, 5, 6, 7, 12, 64]
    assert [weights.grow(n) for n in counts] == key_stats.report("t", tally, 3, counts, 0).grow
    empty = key_stats.TALLY_SCHEMA.empty_table()
    assert KeyWeights(empty).grow(4) == key_stats.report("t", empty, 2, [4], 0).grow[0]


def test_grow_keys_gives_numbers_or_says_why_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KAFKA_TUI_KEY_REPORTS", str(tmp_path))
    tally = _tally(40, 2, 3)
    assert saved.grow_keys(CLUSTER, "orders", 2, 6, 1).missing == (
        "no key report of it has been kept"
    )
    saved.save(CLUSTER, "orders", tally, 2, 1_000_000, None)
    found = saved.grow_keys(CLUSTER, "orders", 2, 6, 1_000_000 + 120_000)
    assert found.recent is not None and found.missing is None
    assert found.recent.grow == key_stats.report("orders", tally, 2, [6], 0).grow[0]
    first, second = saved.lines(found)
    assert first == saved.sentence(found.recent)
    after = found.recent.grow.records_per_partition
    assert second.startswith(f"Records per partition after: {after[0]:,}, {after[1]:,}, ")
    skew = found.recent.grow.max_over_avg
    assert f"(max {max(after):,}, avg {sum(after) / 6:,.1f}, max/avg {skew:.2f})." in second
    entry = saved.grow_json(found)
    g = found.recent.grow
    assert entry["key_report"] == {
        "age_s": 120.0,
        "since_ms": None,
        "keys_moving": found.recent.grow.keys_moving,
        "records_moving": found.recent.grow.records_moving,
        "records_per_partition": after,
        "max_over_avg": found.recent.grow.max_over_avg,
        "compacted": False,
    }
    back = saved.from_json(entry).recent
    assert back is not None and (back.grow.keys_moving, back.compacted) == (g.keys_moving, False)

    grown = saved.grow_keys(CLUSTER, "orders", 3, 6, 1_000_001)
    assert grown.recent is None
    assert grown.missing == "its last key report counted 2 partitions; it has 3 now"
    old = saved.grow_keys(CLUSTER, "orders", 2, 6, 1_000_000 + 30 * 3600 * 1000)
    assert old.missing == "its last key report is 30.0 h old (fresh: 24.0 h)"
    assert saved.lines(old) == [f"No fresh key report of 'orders': {old.missing}."]
    assert saved.grow_json(old) == {
        "topic": "orders",
        "partitions_before": 2,
        "partitions": 6,
        "key_report": None,
        "missing": old.missing,
    }
    # One load weighs many counts (the form's way).
    count = saved.load(CLUSTER, "orders")
    assert count is not None and count.rows == tally.num_rows
    again = saved.weighed(count, "orders", 2, 6, 1_000_000 + 120_000)
    assert again == found


def test_a_plan_gets_key_moves_at_the_end_of_its_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio
    import json
    import time
    from types import SimpleNamespace

    from kafka_tui.services.plan_documents import PlanDocument
    from kafka_tui.services.plan_keys import moves_of, with_key_moves

    monkeypatch.setenv("KAFKA_TUI_KEY_REPORTS", str(tmp_path))
    now_ms = int(time.time() * 1000)
    saved.save(CLUSTER, "orders", _tally(40, 2, 4), 2, now_ms, None)
    head = '{\n"engine": "local",\n"topics": [\n'
    rows = [
        {"topic": "orders", "action": "grow", "partitions": 5, "error": None},
        {"topic": "fresh", "action": "create", "partitions": 3, "error": None},
        {"topic": "users", "action": "grow", "partitions": 4, "error": None},
    ]
    text = head + ",\n".join(json.dumps(r) for r in rows) + '\n],\n"warnings": []\n}\n'
    partitions = {"orders": 2, "users": 2}
    snapshot = SimpleNamespace(
        topics={t: SimpleNamespace(partitions=[0] * n) for t, n in partitions.items()}
    )
    document = asyncio.run(with_key_moves(PlanDocument.parse(text), snapshot, CLUSTER))  # type: ignore[arg-type]
    assert document.text.startswith(text[: text.rindex("\n}")])  # the engine's bytes kept
    assert json.loads(document.text) == document.data
    orders, users = document.data["key_moves"]
    assert (orders["topic"], orders["partitions"], users["key_report"]) == ("orders", 5, None)
    weighed = saved.weighed(saved.load(CLUSTER, "orders"), "orders", 2, 5, now_ms).recent
    assert weighed is not None
    assert orders["key_report"]["records_per_partition"] == weighed.grow.records_per_partition
    read = moves_of(document)
    assert saved.lines(read["users"]) == [
        "No fresh key report of 'users': no key report of it has been kept."
    ]
    assert read["orders"].recent is not None
    assert read["orders"].recent.grow.records_moving == orders["key_report"]["records_moving"]
    no_grows = PlanDocument.parse(head + json.dumps(rows[1]) + '\n],\n"warnings": []\n}\n')
    assert asyncio.run(with_key_moves(no_grows, snapshot, CLUSTER)) is no_grows  # type: ignore[arg-type]
