"""Values worked out ahead (admin/ahead.py): used only for the very object, and only once."""

from __future__ import annotations

from kafka_tui.admin import TopicResult
from kafka_tui.admin.ahead import Ahead


def test_a_prepared_value_serves_only_its_own_object_and_only_once() -> None:
    made: list[str] = []

    def make(r: TopicResult) -> str:
        made.append(r.topic)
        return f"{r.topic}:{r.message}"

    ahead: Ahead[TopicResult, str] = Ahead()
    placed = TopicResult("a", True, message="created")
    ahead.prepare([placed], make)
    assert made == ["a"]
    equal_but_new = TopicResult("a", True, message="created")
    assert ahead.take(equal_but_new, make) == "a:created"
    assert made == ["a", "a"]  # made again: not the object it was prepared for
    assert ahead.take(placed, make) == "a:created"
    assert made == ["a", "a"]  # the prepared value
    assert ahead.take(placed, make) == "a:created"
    assert made == ["a", "a", "a"]  # taken once only

    ahead.prepare([placed], make)
    ahead.prepare([], make)  # a new preparation replaces the old
    ahead.take(placed, make)
    assert made == ["a", "a", "a", "a", "a"]
    ahead.prepare([placed], make)
    ahead.clear()
    ahead.take(placed, make)
    assert made == ["a"] * 7
