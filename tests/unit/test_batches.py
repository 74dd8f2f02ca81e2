"""Splitting reads into batches and reporting a failed batch (admin/batches.py)."""

from __future__ import annotations

from kafka_tui.admin.batches import batch_report, batched, from_code


def test_batches_keep_the_order_and_the_last_is_smaller() -> None:
    assert batched(list(range(7)), 3) == [[0, 1, 2], [3, 4, 5], [6]]
    assert batched([], 3) == []


def test_a_whole_batch_failing_for_one_reason_is_one_line() -> None:
    batch = [f"big-{i}" for i in range(500)]
    errors = [from_code(t, -1, None) for t in batch]
    [line] = batch_report(batch, errors)
    assert line.error == "UNKNOWN_SERVER_ERROR"
    assert line.message.startswith("500 topics (big-0 ... big-499): the broker failed")


def test_errors_about_each_topic_stay_one_line_per_topic_in_order() -> None:
    batch = ["b", "a"]
    errors = [from_code(t, 3, None) for t in ("a", "b")]  # UNKNOWN_TOPIC_OR_PARTITION
    assert [e.topic for e in batch_report(batch, errors)] == ["b", "a"]
    mixed = [from_code("a", -1, None)]
    assert batch_report(batch, mixed) == mixed  # not the whole batch: per topic
