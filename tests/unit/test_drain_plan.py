"""planning/drain_moves.py: the drain's leadership reorders and moves, and replace."""

from __future__ import annotations

from kafka_tui.planning.drain_moves import (
    Partition,
    leadership_reorders,
    plan_drain,
    plan_replace,
    supports_cordon,
)
from kafka_tui.planning.placement import Broker, Load

RACKS = [Broker(1, "a", True), Broker(2, "b", True), Broker(3, "c", True), Broker(4, "a", True)]


def _load(partitions: list[Partition]) -> Load:
    return Load.from_assignments(p.replicas for p in partitions)


def test_leadership_goes_to_an_in_sync_live_replica_preferring_the_fewest() -> None:
    partitions = [
        Partition("t", 0, (3, 1, 2), 3, (3, 1, 2)),
        Partition("t", 1, (3, 1, 2), 3, (3, 1, 2)),
        Partition("t", 2, (3, 1), 3, (3,)),  # 1 is not in sync: no reorder
        Partition("t", 3, (1, 3), 1, (1, 3)),  # not preferred by 3
        Partition("t", 4, (3,), 3, (3,)),  # nothing else to lead
    ]
    reorders = leadership_reorders(partitions, {3}, {1, 2, 3}, Load({}, {1: 1, 2: 0, 3: 4}))
    # Broker 2 prefers the fewest, then 1 and 2 tie and 1 comes first in the list.
    assert [(r.partition, r.after) for r in reorders] == [(0, (2, 3, 1)), (1, (1, 3, 2))]


def test_a_drain_replaces_only_the_drained_broker_keeping_racks_and_balance() -> None:
    partitions = [
        Partition("t", p, replicas, replicas[0], replicas)
        for p, replicas in enumerate([(3, 1), (2, 3), (1, 2), (3, 2), (4, 3), (2, 4)])
    ]
    planned = plan_drain(RACKS, _load(partitions), partitions, [3])
    moves = {m.move.partition: m.move for m in planned.moves}
    assert sorted(moves) == [0, 1, 3, 4]
    for m in moves.values():
        assert 3 not in m.after and len(m.added) == 1 and m.removed == (3,)
        # The reorder came first: the drained broker was never the preferred leader here.
        assert m.before[0] != 3 and m.after[0] == m.before[0]
    # (1, a) and (4, a) lose 3: rack b is the one they lack, before any balance.
    assert moves[0].after == (1, 2) and moves[4].after == (4, 2)
    # (2, b) loses 3: racks a of 1 and 4 tie; the one holding fewer replicas takes each.
    assert {moves[1].after[1], moves[3].after[1]} == {1, 4}
    assert [(r.partition, r.after) for r in planned.reorders] == [(0, (1, 3)), (3, (2, 3))]
    assert planned.elect == (("t", 0), ("t", 3))
    before, after = planned.replicas_per_broker(_load(partitions))
    assert after[3] == 0 and sum(after.values()) == sum(before.values())
    assert after == {1: 3, 2: 6, 3: 0, 4: 3}


def test_a_partition_every_other_broker_holds_is_unmovable_and_the_rest_moves() -> None:
    brokers = RACKS[:3]
    partitions = [
        Partition("t", 0, (1, 2, 3), 1, (1, 2, 3)),
        Partition("t", 1, (3, 1), 3, (3, 1)),
    ]
    planned = plan_drain(brokers, _load(partitions), partitions, [3])
    assert [(u.partition, u.replicas) for u in planned.unmovable] == [(0, (1, 2, 3))]
    assert "replication factor 3" in planned.unmovable[0].reason
    assert [(m.move.partition, m.move.before, m.move.after) for m in planned.moves] == [
        (1, (1, 3), (1, 2))
    ]


def test_two_brokers_drain_together_and_never_take_each_others_replicas() -> None:
    partitions = [Partition("t", 0, (3, 4), 3, (3, 4)), Partition("t", 1, (1, 3), 1, (1, 3))]
    planned = plan_drain(RACKS, _load(partitions), partitions, [3, 4])
    assert [(m.move.partition, sorted(m.move.after)) for m in planned.moves] == [
        (0, [1, 2]),
        (1, [1, 2]),
    ]
    # No replica of 0 is in sync apart from the drained ones: its order stays.
    assert planned.reorders == ()


def test_offline_and_cordoned_brokers_take_nothing() -> None:
    brokers = [Broker(1, "a", True), Broker(2, "b", False), Broker(3, "c", True, cordoned=True)]
    brokers += [Broker(4, "a", True)]
    partitions = [Partition("t", 0, (1, 4), 1, (1, 4))]
    planned = plan_drain(brokers, _load(partitions), partitions, [4])
    assert planned.moves == () and len(planned.unmovable) == 1


def test_replace_takes_the_old_place_and_leaves_a_partition_holding_both() -> None:
    partitions = [
        Partition("t", 0, (3, 1), 3, (3, 1)),
        Partition("t", 1, (2, 3, 1), 2, (2, 3, 1)),
        Partition("t", 2, (3, 5), 3, (3, 5)),
        Partition("t", 3, (1, 2), 1, (1, 2)),
    ]
    planned = plan_replace(partitions, 3, 5, {1, 2, 3, 5})
    assert [(m.move.partition, m.move.after) for m in planned.moves] == [
        (0, (5, 1)),
        (1, (2, 5, 1)),
    ]
    assert [u.partition for u in planned.unmovable] == [2]


def test_a_partition_with_no_live_in_sync_replica_has_nothing_to_copy_from() -> None:
    """Its only replica on the stopped broker: a move would wait for ever, so it stays."""
    partitions = [Partition("t", 0, (3,), -1, (3,)), Partition("t", 1, (3, 1), 1, (1,))]
    planned = plan_replace(partitions, 3, 5, {1, 2, 5})
    assert [m.move.partition for m in planned.moves] == [1]
    assert [u.partition for u in planned.unmovable] == [0]
    assert "no broker can copy it" in planned.unmovable[0].reason
    brokers = [Broker(1, "a", True), Broker(2, "b", True), Broker(3, "c", False)]
    drained = plan_drain(brokers, _load(partitions), partitions, [3])
    assert [u.partition for u in drained.unmovable] == [0]
    assert [m.move.after for m in drained.moves] == [(1, 2)]


def test_the_cordon_needs_kafka_4_3() -> None:
    assert supports_cordon("4.3") and supports_cordon("4.4+")
    assert not supports_cordon("4.2") and not supports_cordon("3.9")
    assert not supports_cordon(None) and not supports_cordon("?")
