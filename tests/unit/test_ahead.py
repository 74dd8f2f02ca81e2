"""Values worked out ahead (admin/ahead.py): used only for the very object, and only once."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
from pathlib import Path

import pytest

from kafka_tui.admin import ConnectionSettings, TopicResult, audit
from kafka_tui.admin.ahead import Ahead
from kafka_tui.cli import output


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


class _Admin:
    """What `audit.audited` reads of a connected client."""

    def __init__(self, password: str) -> None:
        self.settings = ConnectionSettings("localhost:9092", sasl_password=password)
        self.cluster_id = "c1"


def test_an_audit_line_is_the_same_prepared_or_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The audit's `result` field, rendered while the cluster works, goes into the line only
    for those very results, in order, and the line is the same either way (with the
    outcomes of results that differ worked out again); a secret in it is still scrubbed."""
    log = tmp_path / "audit.jsonl"
    monkeypatch.setenv("KAFKA_TUI_AUDIT_LOG", str(log))
    monkeypatch.setattr(audit, "_now", lambda: "2026-11-23T00:00:00.000Z")
    admin = _Admin("pa55word-\u00e9")

    def record(value: list[TopicResult]) -> str:
        async def change() -> list[TopicResult]:
            return value

        assert asyncio.run(audit.audited(admin, "topics create", ["a"], {}, change())) is value
        # The chain's fields differ from line to line by design (audit verify checks them).
        return re.sub(
            r'^\{"seq":\d+,"prev":(null|"[0-9a-f]+"),', "{", log.read_text().splitlines()[-1]
        )

    items = [
        TopicResult("a", True, message="Topic 'a' created."),
        TopicResult("b", False, error="REQUEST_TIMED_OUT", message="Timed  out\n \u00e9"),
        TopicResult("c", True, message="x" * 300),
    ]
    unprepared = record(items)
    assert json.loads(unprepared)["result"]["status"] == "partial"
    audit.prepare(items)
    with monkeypatch.context() as m:
        m.setattr(audit, "_outcome", lambda _: pytest.fail("worked out again"))
        m.setattr(audit, "_field", lambda _: pytest.fail("rendered again"))
        assert record(items) == unprepared
    copies = [dataclasses.replace(r) for r in items]
    audit.prepare(items)
    assert record(copies) == unprepared  # not the prepared objects: made again
    audit.prepare(items)
    assert record(items[::-1]) != unprepared  # another order, its own line
    assert record(items) == unprepared  # the prepared text served once only

    secret = [TopicResult("a", False, error="SASL", message="bad pa55word-\u00e9 given")]
    audit.prepare(secret)
    line = record(secret)
    assert "pa55word" not in line and "bad *** given" in line
