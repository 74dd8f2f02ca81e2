"""Values worked out ahead (admin/ahead.py): used only for the very object, and only once."""

from __future__ import annotations

import json

import pytest

from kafka_tui.admin import TopicResult
from kafka_tui.admin.ahead import Ahead
from kafka_tui.commands import output


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
    assert not ahead
    ahead.prepare([placed], make)
    assert ahead


def test_results_print_the_same_json_prepared_or_not(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`output.results` prints the text prepared for the very results it gets, in order,
    else one json.dumps of the list (a deletion prepares none): the text must be the same
    either way, as scripts parse it."""
    items = [
        TopicResult("a", True, message="Topic 'a' deleted.", topic_id="x1"),
        TopicResult("b", False, error="UNKNOWN_TOPIC_OR_PARTITION", message="Topic 'b' \u00e9"),
        TopicResult("c", True, message="created", partitions=3, assignment=[[1, 2], [2, 1]]),
    ]
    assert output.results(items, as_json=True) == 1
    unprepared = capsys.readouterr().out
    output.prepare(items[::2])  # some prepared, as after a create with a failure
    assert output.results(items, as_json=True) == 1
    assert capsys.readouterr().out == unprepared
    assert unprepared == json.dumps([r.to_json() for r in items]) + "\n"
    output.prepare(items)
    with monkeypatch.context() as m:
        m.setattr(output.json, "dumps", lambda *_: pytest.fail("rendered again"))
        assert output.results(items, as_json=True) == 1  # the prepared text, used once
    assert capsys.readouterr().out == unprepared
    assert output.results(items, as_json=True) == 1
    assert capsys.readouterr().out == unprepared
