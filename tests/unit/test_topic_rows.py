"""The topics table's rows and filters: kafka-tui's own record topic (KIP-409 placeholders)
is shown like an internal topic and kept out of the user's health counts and toggle
filters, though it is under-replicated while a broker is down (issue 28, point 9)."""

from __future__ import annotations

import pytest

from kafka_tui.admin.model import PartitionInfo, TopicDescription
from kafka_tui.tui.screens.metadata import Filters, NameMatches
from kafka_tui.tui.widgets.topic_table import TopicRow

# As Metadata answers with broker 3 stopped: replica 3 offline and out of the ISR.
DEGRADED = [PartitionInfo(0, 1, [1, 2, 3], [1, 2], [3])]


def rows() -> list[TopicRow]:
    live = {1, 2}
    return [
        TopicRow.of(TopicDescription("orders", "id1", False, DEGRADED), live, None),
        TopicRow.of(
            TopicDescription("__kafka_tui_placeholders", "id2", False, DEGRADED),
            live,
            None,
            own=True,
        ),
    ]


def test_the_record_topic_is_shown_as_kafka_tui_s_and_kept_out_of_the_filters() -> None:
    orders, own = rows()
    assert orders.under_replicated == own.under_replicated == 1
    assert (orders.marker, own.marker) == ("~ ", "  ")
    names = NameMatches(sorted(rows(), key=lambda r: r.name))
    shown, longest = Filters("", {"under_replicated"}).apply(names)
    assert ([r.name for r in shown], longest) == (["orders"], len("orders"))
    # Asked for by name, it is there.
    shown, longest = Filters("kafka_tui", set()).apply(names)
    assert ([r.name for r in shown], longest) == ([own.name], len(own.name))


def test_the_fill_offer_says_what_goes_where() -> None:
    from kafka_tui.services.placeholder_view import PlaceholderState

    state = PlaceholderState(5, frozenset({"a", "b"}), 5, ("a-0 -> 4", "a-1 -> 4", "b-0 -> 4"))
    assert state.where() == "a-0 -> 4, a-1 -> 4, b-0 -> 4 and 2 more"
    assert state.line("f") == (
        "5 open placeholder(s) in 2 topic(s); 5 can be filled now (a-0 -> 4, a-1 -> 4, b-0 -> 4 "
        "and 2 more): press f."
    )


def test_name_matches_as_keys_are_typed_and_taken_back() -> None:
    """A key that extends the text searches the last matches; a backspace, or a text that
    leaves the way typed, gives what a search of every row gives."""
    names = ["Orders", "orders-dlq", "payments", "audit-orders", "Pay-outs", "logs"]
    live = {1, 2}
    rows = sorted(
        (TopicRow.of(TopicDescription(n, None, False, DEGRADED), live, None) for n in names),
        key=lambda r: r.name,
    )
    matches = NameMatches(rows)

    def everywhere(text: str) -> tuple[list[str], int]:
        found = [r.name for r in rows if text in r.name.lower()]
        return found, max(map(len, found), default=0)

    for text in ["o", "or", "ord", "orde", "ord", "or", "o", "", "p", "pa", "pay-", "pa", "s"]:
        shown, longest = matches(text)
        assert ([r.name for r in shown], longest) == everywhere(text), text
    # Where the matches are many, their longest name is found among every name, longest
    # first: the same answers.
    matches = NameMatches(rows)
    matches.FEW = 0
    for text in ["o", "or", "ord", "or", "", "a", "au", "s", "-", "-d", "", "y"]:
        shown, longest = matches(text)
        assert ([r.name for r in shown], longest) == everywhere(text), text


def test_rows_are_counted_when_drawn_and_a_name_search_counts_none() -> None:
    """TopicRows counts a topic's row the first time it is asked for (the first frame draws
    40 of 200,000: issue 52), the name search reads names only, and `fill` counts the rest:
    the rows TopicRow.of counts."""
    from kafka_tui.tui.widgets.topic_table import TopicRows

    leaderless = [PartitionInfo(0, -1, (3,), (), (3,))]
    topics = [
        TopicDescription(n, None, False, DEGRADED if i % 2 else leaderless)
        for i, n in enumerate(["a-1", "a-2", "b-1", "b-2", "c-1"])
    ]
    rows = TopicRows(topics, {1, 2}, {"b-2": 2}, "c-1")
    shown, longest = NameMatches(rows, rows.names)("b")
    assert (len(shown), longest) == (2, 3)
    assert rows._rows == [None] * 5
    assert shown[1] == TopicRow.of(topics[3], {1, 2}, 2)
    assert [r is not None for r in rows._rows] == [False, False, False, True, False]
    assert rows.fill() == [
        TopicRow.of(t, {1, 2}, 2 if t.name == "b-2" else None, own=t.name == "c-1") for t in topics
    ]
    assert [r.name for r in shown] == ["b-1", "b-2"] and shown[:1] == [rows[2]]
    # The next read shown, this one is let go of off the UI thread, a slice at a time:
    # everything emptied, the topics handed over too.
    names = NameMatches(rows, rows.names)
    names("b")
    names.release()
    rows.release()
    assert (len(rows), rows.names, rows.topics, topics, names._lowered) == (0, [], (), [], [])


def test_topics_are_put_in_name_order_a_bucket_at_a_time_as_one_sort_puts_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """reading.in_name_order (a sample sort whose every C call is short: the screens read
    while it runs) orders as sorted() does: shuffled, sorted, reversed, repeated names."""
    from kafka_tui.admin import reading

    monkeypatch.setattr(reading, "SORT_BUCKET", 32)  # buckets at 128 topics and more
    count = 600
    names = [f"t{(i * 7919) % count:04d}.{'x' * (i % 5)}" for i in range(count)]
    topics = [TopicDescription(n, None, False, []) for n in names + names[:100]]
    for given in [topics, sorted(topics, key=lambda t: t.name), topics[::-1], topics[:100]]:
        assert reading.in_name_order(list(given)) == sorted(given, key=lambda t: t.name)


def test_a_big_read_is_frozen_out_of_the_collector_and_everything_collected_at_times() -> None:
    """_CollectionPause.settle: under FREEZE_AT_PARTITIONS a full collection; from there a
    freeze (a full collection over 2,000,000 partitions held keys ~1 s: issue 52), and a full
    collection over everything once FULL_COLLECTION_EVERY has passed: a cycle frozen, then
    garbage, is collected then; one made after the freeze as the next refresh begins."""
    import gc
    import weakref

    from kafka_tui.tui.screens.metadata import (
        FREEZE_AT_PARTITIONS,
        FULL_COLLECTION_EVERY,
        _CollectionPause,
    )

    class Cycle:
        def __init__(self) -> None:
            self.me = self

    pause = _CollectionPause()
    start = pause._collected
    try:
        cycle = Cycle()
        gone = weakref.ref(cycle)
        pause.settle(FREEZE_AT_PARTITIONS, now=start + 1)
        assert gc.get_freeze_count() > 0
        del cycle  # garbage in a cycle, out of the collector's view
        gc.collect()
        assert gone() is not None
        pause.settle(FREEZE_AT_PARTITIONS, now=start + FULL_COLLECTION_EVERY)
        assert gone() is None
        assert gc.get_freeze_count() > 0
        # Garbage made between two refreshes: collected as the next one begins.
        gc.disable()  # (no collection of the collector's own)
        cycle = Cycle()
        gone = weakref.ref(cycle)
        del cycle
        with pause:
            assert gone() is None
        gc.enable()
        cycle = Cycle()
        gone = weakref.ref(cycle)
        pause.settle(FREEZE_AT_PARTITIONS - 1)  # a small read: a full collection, no freeze
        assert gc.get_freeze_count() == 0
        del cycle
        gc.collect()
        assert gone() is None
    finally:
        gc.enable()
        gc.unfreeze()


def test_a_row_counted_by_columns_is_the_row_counted_one_partition_at_a_time() -> None:
    import random

    chance = random.Random(52)
    for _ in range(300):
        partitions = []
        for index in range(chance.randint(1, 12)):
            replicas = tuple(chance.sample(range(1, 6), chance.randint(1, 4)))
            isr = tuple(b for b in replicas if chance.random() < 0.8)
            offline = tuple(b for b in replicas if b not in isr and chance.random() < 0.5)
            leader = chance.choice([*isr, -1] if chance.random() < 0.1 else isr or (-1,))
            partitions.append(PartitionInfo(index, leader, replicas, isr, offline))
        topic = TopicDescription("t", None, False, partitions)
        for live, min_isr in [({1, 2, 3}, 2), (None, None), ({1, 2, 3, 4, 5}, 1)]:
            assert TopicRow.of(topic, live, min_isr) == TopicRow.of_each(topic, live, min_isr)


def test_the_load_counted_by_distinct_replica_list_is_the_load_counted_list_by_list() -> None:
    from kafka_tui.planning.placement import Load
    from kafka_tui.services.placeholder_view import load_of

    lists = [(2, 1, 3), (1, 2), (2, 1, 3), (3, -1), (4,), (1, 2)]
    topics = [
        TopicDescription(f"t{i}", None, False, [PartitionInfo(0, r[0], r, r, ()), *extra])
        for i, (r, extra) in enumerate(
            [
                (r, [PartitionInfo(1, 1, (1, 4), (1,), ())] if i % 2 else [])
                for i, r in enumerate(lists)
            ]
        )
    ]
    expected = Load.from_assignments(p.replicas for t in topics for p in t.partitions)
    found = load_of(topics)
    assert found == expected
    assert list(found.replicas) == list(expected.replicas)  # the brokers in the same order
    assert list(found.leaders) == list(expected.leaders)
