"""The stall rule of services/stalls.py (no Kafka: it is told the time, the bytes and the
live brokers): a quiet move whose broker has been gone `stall_s` is stalled; the live
brokers are read only while some move is quiet, and at most every quarter of `stall_s`."""

from __future__ import annotations

import pytest

from kafka_tui.planning.drain_moves import TopicMove
from kafka_tui.planning.reassignment import Move
from kafka_tui.services.draining import DrainProgress, Stalled
from kafka_tui.services.stalls import STALL_S, StallWatch
from kafka_tui.tui.screens.drain import progress_words

A, B = ("orders", 3), ("orders", 4)


def test_a_progressing_move_never_asks_for_the_live_brokers() -> None:
    w = StallWatch(8.0)
    w.start(A, [4], 0.0)
    for t in range(1, 60):
        w.held(A, t * 1000, float(t))  # a byte more every second
        assert not w.wants_live(float(t)) and not w.quiet(float(t))
    assert w.bytes_held() == 59_000


def test_a_quiet_move_asks_every_quarter_and_stalls_once_its_broker_was_gone_stall_s() -> None:
    w = StallWatch(8.0)
    w.start(A, [4], 0.0)
    w.start(B, [1], 0.0)
    w.held(A, 500, 1.0)
    w.held(B, 500, 1.0)
    w.held(B, 400, 2.5)  # fewer bytes (a broker that did not answer) is no progress
    assert not w.wants_live(2.9)
    assert w.quiet(3.0) == [A, B] and w.wants_live(3.0)
    w.saw_live([1, 2, 3], 3.0)  # broker 4 missing: its absence starts now
    assert w.gone == {4} and not w.wants_live(4.9) and w.wants_live(5.0)
    w.held(B, 900, 6.0)  # B copies again: not quiet
    assert w.quiet(6.0) == [A]
    assert w.cancel_in_s(6.0) == pytest.approx(5.0)
    assert w.stalled(10.9) == []
    assert w.stalled(11.0) == [(A, (4,))]  # gone 8 s, copied nothing since
    assert w.longest_quiet_s(11.0) == pytest.approx(10.0)


def test_a_broker_listed_again_ends_its_absence() -> None:
    w = StallWatch(4.0)
    w.start(A, [4, 5], 0.0)
    w.saw_live([1, 2, 3], 1.0)
    assert w.gone == {4, 5}
    w.saw_live([1, 2, 3, 4], 3.0)  # 4 is back, 5 still missing (since 1.0)
    assert w.gone == {5}
    assert w.stalled(4.9) == []
    assert w.stalled(5.0) == [(A, (5,))]
    w.saw_live([1, 2, 3, 4, 5], 6.5)
    assert w.gone == frozenset() and w.stalled(20.0) == [] and w.cancel_in_s(20.0) is None


def test_a_finished_move_is_forgotten_and_the_default_is_one_constant() -> None:
    w = StallWatch()
    assert w.stall_s == STALL_S and w.quiet_s == STALL_S / 4
    w.start(A, [4], 0.0)
    w.drop(A)
    assert w.quiet(100.0) == [] and not w.wants_live(100.0)
    with pytest.raises(ValueError):
        StallWatch(0)


def test_the_words_of_a_stall() -> None:
    moving = DrainProgress(3, 10, 100, 1000, 2, 5.0, 180.0, "moving")
    assert moving.stall_words() == ""
    waiting = DrainProgress(3, 10, 100, 1000, 2, 5.0, None, "moving", 1, 12.4, (4,), 21.6)
    assert waiting.stall_words() == (
        "1 move(s) without progress for 12 s (broker 4 gone: cancelled in 22 s)"
    )
    # The brokers screen's line says the same; without a stall it is as before.
    assert "left. 1 move(s) without progress for 12 s (broker 4 gone: cancelled in 22 s). esc" in (
        progress_words([3], waiting)
    )
    assert "180 s left. esc stops" in progress_words([3], moving)
    kraft = Stalled(TopicMove("orders", Move(3, (1, 2), (1, 4), 1)), (4,), "drain")
    assert kraft.message == (
        "orders-3: its new replica's broker 4 left the cluster mid-copy; the move was "
        "cancelled (the partition keeps its replicas). Start broker 4 or drain again to plan "
        "afresh."
    )
    zookeeper = Stalled(TopicMove("orders", Move(3, (2, 3), (2, 1), 2)), (2,), "replace")
    assert "broker 2 of its new replica list left" in zookeeper.message
    assert zookeeper.message.endswith("Start broker 2 or run the replace again to plan afresh.")
    assert kraft.to_json() == {
        "topic": "orders",
        "partition": 3,
        "before": [1, 2],
        "after": [1, 4],
        "brokers_gone": [4],
        "message": kraft.message,
    }
