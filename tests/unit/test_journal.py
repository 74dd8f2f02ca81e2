"""The journal of recent changes: what a later read must see (pure logic and the file)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from kafka_tui.admin.journal import TTL_SECONDS, ChangeJournal, Expectation
from kafka_tui.admin.protocol import MetadataTopic


def listed(partitions: int, topic_id: str = "id-1", error_code: int = 0) -> MetadataTopic:
    """A Metadata entry read without its partitions (they are counted)."""
    return MetadataTopic(error_code, "t", topic_id, False, [], partitions, 0, {})


def test_an_expectation_is_met_only_by_a_view_at_least_as_new() -> None:
    created = Expectation("t", True, 3, "id-1")
    assert not created.met_by(None)
    assert not created.met_by(listed(3, error_code=3))
    assert not created.met_by(listed(2))  # a broker that has not seen the grow yet
    assert created.met_by(listed(3)) and created.met_by(listed(4))
    assert created.met_by(listed(1, "id-2"))  # re-created since: newer than expected
    deleted = Expectation("t", False, topic_id="id-1")
    assert deleted.met_by(None) and deleted.met_by(listed(3, error_code=3))
    assert not deleted.met_by(listed(3, "id-1"))
    assert deleted.met_by(listed(3, "id-2"))
    assert not Expectation("t", False).met_by(listed(1))


def test_expectations_reach_another_process_through_the_file(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    first = ChangeJournal(path)
    first.record("c1", [Expectation("a", True, 2, "x"), Expectation("b", False)])
    first.record("c2", [Expectation("a", False)])
    second = ChangeJournal(path)
    assert [
        (e.topic, e.exists, e.partitions, e.topic_id) for e in second.expectations("c1", None)
    ] == [
        ("a", True, 2, "x"),
        ("b", False, 0, None),
    ]
    assert [e.topic for e in second.expectations("c1", ["b", "zzz"])] == ["b"]
    assert second.expectations(None, None) == []
    second.forget("c1", ["a"])
    assert [e.topic for e in ChangeJournal(path).expectations("c1", None)] == ["b"]


def test_old_and_broken_lines_are_ignored(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    old = time.time() - TTL_SECONDS - 1
    path.write_text(
        json.dumps({"c": "c1", "t": "old", "x": True, "at": old})
        + '\nnot json\n{"c": "c1"}\n'
        + json.dumps({"c": "c1", "t": "new", "x": True, "p": 4, "at": time.time()})
        + "\n"
    )
    assert [(e.topic, e.partitions) for e in ChangeJournal(path).expectations("c1", None)] == [
        ("new", 4)
    ]


def test_an_unwritable_journal_costs_only_the_hint(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    journal = ChangeJournal(blocker / "sub" / "j.jsonl")
    journal.record("c1", [Expectation("a", True, 1)])
    assert [e.topic for e in journal.expectations("c1", None)] == ["a"]


def test_a_large_journal_is_compacted_on_reading(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    old = time.time() - TTL_SECONDS - 1
    stale = "".join(
        json.dumps({"c": "c1", "t": f"old-{i}", "x": True, "at": old}) + "\n" for i in range(20_000)
    )
    path.write_text(
        stale + json.dumps({"c": "c1", "t": "new", "x": True, "at": time.time()}) + "\n"
    )
    assert [e.topic for e in ChangeJournal(path).expectations("c1", None)] == ["new"]
    assert len(path.read_text().splitlines()) == 1
    assert [e.topic for e in ChangeJournal(path).expectations("c1", None)] == ["new"]


def test_a_bulk_change_is_one_line_and_a_file_in_force_is_not_rewritten(tmp_path: Path) -> None:
    """Read by every kafka-tui start: 2,000 topics' expectations are one line, and a large
    file whose changes are still in force is read, not rewritten, on every start."""
    path = tmp_path / "j.jsonl"
    journal = ChangeJournal(path)
    for batch in range(10):
        names = [f"topic-{batch}-{i:05d}-of-a-bulk-change" for i in range(2000)]
        journal.record("c1", [Expectation(name, True, 3) for name in names])
    assert len(path.read_text().splitlines()) == 10
    assert path.stat().st_size > 2**19  # past the size where mostly expired files compact
    before = path.stat().st_mtime_ns
    again = ChangeJournal(path)
    assert len(again.expectations("c1", None)) == 20_000
    assert path.stat().st_mtime_ns == before


def test_a_journal_of_superseded_changes_is_compacted(tmp_path: Path) -> None:
    """Bulk creates each followed by the deletion of the same topics: the later line
    supersedes the earlier one, so the file is rewritten with what is still in force (one
    line per kept change), and reads the same before and after."""
    path = tmp_path / "j.jsonl"
    journal = ChangeJournal(path)
    names = [f"bulk-{i:05d}-of-a-repeated-change" for i in range(2000)]
    for _ in range(4):
        journal.record("c1", [Expectation(n, True, 3, f"id-{n}") for n in names])
        journal.record("c1", [Expectation(n, False, 0, f"id-{n}") for n in names])
    assert len(path.read_text().splitlines()) == 8
    before = {e.topic: e.exists for e in ChangeJournal(path).expectations("c1", None)}
    assert len(path.read_text().splitlines()) == 1
    after = ChangeJournal(path).expectations("c1", None)
    assert {e.topic: e.exists for e in after} == before == dict.fromkeys(names, False)
    assert {e.topic_id for e in after} == {f"id-{n}" for n in names}


def test_a_record_prepared_then_committed_writes_the_line_json_would(tmp_path: Path) -> None:
    """A record's rows rendered (`prepare`) and stamped (`commit`, as `record` does): the
    line is the one json.dumps writes, stamped at commit."""
    path = tmp_path / "j.jsonl"
    journal = ChangeJournal(path)
    expectations = [
        Expectation('quo"ted\\é', True, 3, None),
        Expectation("b", True, 1, "id-b"),
        Expectation("gone", False, 0, "id-g"),
    ]
    pending = journal.prepare('cluster "1"', expectations)
    before = time.time()
    journal.commit(pending)
    lines = path.read_text().splitlines()
    assert len(lines) == 2  # one line per kind
    rows = [json.loads(line) for line in lines]
    for line, row in zip(lines, rows, strict=True):
        assert line == json.dumps(row, separators=(",", ":"))
        assert list(row) == ["c", "at", "x", "e"] and row["c"] == 'cluster "1"'
        assert before - 0.01 <= row["at"] <= time.time() + 0.01
    assert [(r["x"], r["e"]) for r in rows] == [
        (True, [['quo"ted\\é', 3, None], ["b", 1, "id-b"]]),
        (False, [["gone", 0, "id-g"]]),
    ]
    held = ChangeJournal(path).expectations('cluster "1"', None)
    assert sorted((e.topic, e.exists, e.at) for e in held) == sorted(
        (e.topic, e.exists, rows[0]["at"]) for e in expectations
    )
    assert journal.prepare(None, expectations) is None


def test_a_broken_entry_is_skipped_and_the_rest_of_its_line_is_read(tmp_path: Path) -> None:
    """Entries become Expectations only when a read asks about their topic: a bad one in a
    bulk line hides that topic alone."""
    path = tmp_path / "j.jsonl"
    row = {"c": "c1", "at": time.time(), "x": True, "e": [["a", "x", None], ["b", 2, "id-b"]]}
    path.write_text(json.dumps(row) + "\n")
    held = ChangeJournal(path).expectations("c1", ["a", "b"])
    assert [(e.topic, e.partitions, e.topic_id) for e in held] == [("b", 2, "id-b")]
