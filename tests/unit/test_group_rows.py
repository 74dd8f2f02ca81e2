"""A group's partition rows without a committed offset say why in the group's own terms: a
share partition has no state until the group's first fetch from it (Kafka 4.4 answers start
offset and lag -1 until then: pinned in tests/integration/test_groups_kinds.py), a consumer
group's has nothing committed."""

from __future__ import annotations

from kafka_tui.admin.group_detail import GroupDetail, GroupMember
from kafka_tui.admin.group_work import ListedGroupInfo
from kafka_tui.services.groups import NO_SHARE_STATE, _view


def _rows(kind: str) -> dict[tuple[str, int], str | None]:
    member = GroupMember("m-1", "c", "/127.0.0.1", (("t", 0), ("t", 1)))
    detail = GroupDetail("g", kind, "Stable", "", (member,))
    view = _view(
        ListedGroupInfo("g", kind, "Stable", 1),
        detail,
        committed={("t", 0): 5},
        known_lags={},
        starts={("t", 0): 0, ("t", 1): 0},
        ends={("t", 0): 5, ("t", 1): 7},
        records={},
        now=0.0,
        looks=None,
    )
    return {(r.topic, r.partition): r.note for r in view.offsets}


def test_a_share_partition_without_state_says_so_and_a_consumers_says_nothing_committed() -> None:
    assert _rows("share") == {("t", 0): None, ("t", 1): NO_SHARE_STATE}
    assert _rows("consumer") == {("t", 0): None, ("t", 1): "nothing committed"}
    assert _rows("classic")[("t", 1)] == "nothing committed"
