"""The kept load of `--load-max-age` (services/recent_load.py), without a cluster: what makes
it serve, what drops it, and what creates and grows add to it."""

from __future__ import annotations

import json
import time
from pathlib import Path

from kafka_tui.admin import TopicResult
from kafka_tui.admin.journal import TTL_SECONDS, ChangeJournal, Expectation
from kafka_tui.planning.placement import Load
from kafka_tui.services.recent_load import LoadReuse

CLUSTER = "c1"


def _reuse(tmp_path: Path, max_age: float = 60.0) -> LoadReuse:
    # A fresh journal object per call: another process reading the same file.
    return LoadReuse(max_age, ChangeJournal(tmp_path / "journal.jsonl"), tmp_path / "load")


def _created(topic: str, assignment: list[list[int]]) -> TopicResult:
    return TopicResult(topic, True, partitions=len(assignment), assignment=assignment)


def test_a_kept_load_serves_within_its_age_with_what_was_placed_since(tmp_path: Path) -> None:
    reuse = _reuse(tmp_path)
    assert reuse.recent(CLUSTER) is None  # nothing kept yet: the cluster is read
    reuse.keep(CLUSTER, Load({1: 10, 2: 10, 3: 10}, {1: 4, 2: 3, 3: 3}), time.time())
    # The create that placed after the read: the admin journals it, then it is added.
    created = _created("t", [[1, 2], [2, 3], [3, -1]])
    reuse.journal.record(CLUSTER, [Expectation("t", True, 3)])
    reuse.placed(CLUSTER, [created, TopicResult("refused", False, "POLICY_VIOLATION")])

    recent = _reuse(tmp_path).recent(CLUSTER)
    assert recent is not None and recent.added == 1 and 0 <= recent.age_s < 5
    # Placeholders (negative ids) are not load; the first replica is the preferred leader.
    assert recent.load.replicas == {1: 11, 2: 12, 3: 12}
    assert recent.load.leaders == {1: 5, 2: 4, 3: 4}
    assert _reuse(tmp_path).recent("another-cluster") is None


def test_a_grow_adds_its_new_partitions_and_matches_the_journal(tmp_path: Path) -> None:
    reuse = _reuse(tmp_path)
    reuse.keep(CLUSTER, Load({1: 1, 2: 1}, {1: 1, 2: 1}), time.time())
    reuse.journal.record(CLUSTER, [Expectation("g", True, 4)])  # grown to 4 partitions
    grown = TopicResult("g", True, partitions=4, assignment=[[1], [2]])  # the 2 new ones
    reuse.placed(CLUSTER, [grown])
    recent = _reuse(tmp_path).recent(CLUSTER)
    assert recent is not None and recent.load.replicas == {1: 2, 2: 2}


def test_kafka_tuis_own_change_not_added_drops_it(tmp_path: Path) -> None:
    """A delete, a plan applied, a create made without reuse: the next command counts again."""
    reuse = _reuse(tmp_path)
    reuse.keep(CLUSTER, Load({1: 5}, {1: 5}), time.time() - 1)
    reuse.journal.record(CLUSTER, [Expectation("gone", False, topic_id="id-1")])
    assert _reuse(tmp_path).recent(CLUSTER) is None
    # A change to another cluster, or one from before the read, does not.
    time.sleep(0.01)
    reuse.keep(CLUSTER, Load({1: 5}, {1: 5}), time.time())
    reuse.journal.record("c2", [Expectation("other", True, 1)])
    assert _reuse(tmp_path).recent(CLUSTER) is not None
    # The same topic grown again without reuse: its count no longer matches what was added.
    reuse.journal.record(CLUSTER, [Expectation("t", True, 2)])
    reuse.placed(CLUSTER, [_created("t", [[1], [1]])])
    assert _reuse(tmp_path).recent(CLUSTER) is not None
    reuse.journal.record(CLUSTER, [Expectation("t", True, 5)])
    assert _reuse(tmp_path).recent(CLUSTER) is None


def test_an_old_or_unreadable_file_is_not_used(tmp_path: Path) -> None:
    reuse = _reuse(tmp_path, max_age=30)
    reuse.keep(CLUSTER, Load({1: 5}, {1: 5}), time.time() - 31)
    assert reuse.recent(CLUSTER) is None
    reuse.keep(CLUSTER, Load({1: 5}, {1: 5}), time.time() + 3600)  # a clock set back since
    assert reuse.recent(CLUSTER) is None
    path = tmp_path / "load" / f"{CLUSTER}.json"
    for text in ("", "[]", '{"read_at": 1}', json.dumps({"read_at": "x"})):
        path.write_text(text)
        assert reuse.recent(CLUSTER) is None
        reuse.placed(CLUSTER, [_created("t", [[1]])])  # nothing kept: nothing to add to
        assert path.read_text() == text


def test_never_older_than_the_journal_remembers_nor_named_by_a_strange_cluster_id(
    tmp_path: Path,
) -> None:
    reuse = _reuse(tmp_path, max_age=3600)
    reuse.keep(CLUSTER, Load({1: 5}, {1: 5}), time.time() - TTL_SECONDS - 1)
    assert reuse.recent(CLUSTER) is None  # a delete 11 minutes ago is no longer journaled
    reuse.keep(CLUSTER, Load({1: 5}, {1: 5}), time.time() - TTL_SECONDS + 60)
    assert reuse.recent(CLUSTER) is not None
    for strange in ("../../etc/x", "a/b", "", "x" * 65):
        reuse.keep(strange, Load({1: 5}, {1: 5}), time.time())
        assert reuse.recent(strange) is None
    assert sorted(p.name for p in (tmp_path / "load").iterdir()) == [
        f"{CLUSTER}.json",
        f"{CLUSTER}.lock",
    ]


def test_no_file_when_its_folder_cannot_be_made(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    reuse = LoadReuse(60, ChangeJournal(tmp_path / "journal.jsonl"), blocked / "load")
    reuse.keep(CLUSTER, Load({1: 5}, {1: 5}), time.time())
    assert reuse.recent(CLUSTER) is None
