"""KIP-1066: a broker whose every log directory is cordoned takes no new replica from any
of kafka-tui's choosers (the placer for creates, grows and plans; fills; reassignments), and
the result names it. Kafka 4.4 itself skips such a broker and refuses an assignment naming
it (tests/integration/test_cordon.py). Pure code."""

from __future__ import annotations

import pytest

from kafka_tui.planning.fill_choice import OpenSlot, choose_fills
from kafka_tui.planning.placement import (
    INVALID_REPLICATION_FACTOR,
    MODES,
    Broker,
    Load,
    Mode,
    Request,
    place,
)
from kafka_tui.planning.plan_prepared import broker_from, broker_json
from kafka_tui.planning.reassignment import (
    Current,
    change_replication_factor,
    given_targets,
    move_off_broker,
)

# Broker 2 is cordoned; broker 4 is offline (observed).
BROKERS = (
    Broker(1, "a", True),
    Broker(2, "b", True, cordoned=True),
    Broker(3, "c", True),
    Broker(4, "a", False),
    Broker(5, "b", True),
)
NAMED = "Broker 2 takes no new replica: every log directory of it is cordoned"


@pytest.mark.parametrize("mode", MODES)
def test_the_placer_never_puts_a_replica_on_a_cordoned_broker(mode: Mode) -> None:
    load = Load({2: 0, 1: 40, 3: 40, 5: 40})  # the cordoned broker is by far the lightest
    placed = place(BROKERS, load, [Request("t", 12, 3), Request("u", 5, 2)], mode)
    for p in placed:
        assert p.error is None, p.message
        assert all(2 not in replicas for replicas in p.assignment), p.assignment
        assert NAMED in p.warning


def test_a_grow_leaves_the_existing_replicas_on_a_cordoned_broker_alone() -> None:
    existing = ((2, 1, 3), (1, 2, 5))
    (p,) = place(BROKERS, Load(), [Request("t", 4, 3, existing=existing)])
    assert p.error is None
    assert all(2 not in replicas for replicas in p.assignment)


def test_without_enough_other_brokers_the_refusal_names_the_cordoned_one() -> None:
    (p,) = place(BROKERS, Load(), [Request("t", 1, 4)], "disabled")
    assert p.error == INVALID_REPLICATION_FACTOR
    assert "only 3 are live" in p.message and NAMED in p.message


def test_every_live_broker_cordoned_is_no_broker_to_lead() -> None:
    brokers = [Broker(1, None, True, cordoned=True), Broker(2, None, True, cordoned=True)]
    (p,) = place(brokers, Load(), [Request("t", 1, 1)])
    assert p.error == INVALID_REPLICATION_FACTOR
    assert "Brokers 1 and 2 take no new replica" in p.message


def test_no_cordoned_broker_no_warning() -> None:
    (p,) = place([Broker(1, None, True), Broker(2, None, True)], Load(), [Request("t", 2, 2)])
    assert p.warning == ""


def test_a_placeholder_is_never_filled_on_a_cordoned_broker() -> None:
    fills = choose_fills(
        [Broker(1, None, True), Broker(2, None, True, cordoned=True), Broker(3, None, True)],
        Load({3: 50}),
        {("t", 0): (1,)},
        [OpenSlot("t", 0, -1, None)],
    )
    assert [f.broker for f in fills] == [3]
    none_left = choose_fills(
        [Broker(1, None, True), Broker(2, None, True, cordoned=True)],
        Load(),
        {("t", 0): (1,)},
        [OpenSlot("t", 0, -1, None)],
    )
    assert [f.broker for f in none_left] == [None]


def test_reassignments_choose_no_cordoned_broker() -> None:
    partitions = [Current(0, (1, 3), 1), Current(1, (3, 5), 3)]
    (grown,) = change_replication_factor(BROKERS, Load(), [("t", partitions)], 3)
    assert grown.error is None
    assert all(2 not in m.after for m in grown.moves) and grown.moves
    (moved,) = move_off_broker(BROKERS, Load(), [("t", partitions)], 3)
    assert moved.error is None
    assert all(2 not in m.after for m in moved.moves) and moved.moves


def test_a_target_naming_a_cordoned_broker_is_refused_as_kafka_would() -> None:
    """Kafka 4.4 refuses it even where the broker already holds the replica (measured)."""
    partitions = [Current(0, (2, 1), 2)]
    plan = given_targets(BROKERS, "t", partitions, {0: [1, 2]})
    assert plan.error == "INVALID_REPLICA_ASSIGNMENT"
    assert "every log directory of broker(s) 2 is cordoned" in plan.message
    assert given_targets(BROKERS, "t", partitions, {0: [1, 3]}).error is None


def test_a_cordoned_broker_reaches_the_spark_job() -> None:
    for broker in BROKERS:
        assert broker_from(broker_json(broker)) == broker
    assert broker_json(BROKERS[0]) == [1, "a", True]  # as plans were written before
