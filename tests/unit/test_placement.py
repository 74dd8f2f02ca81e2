"""The KIP-409 placer: properties over random clusters, then KIP-409's own scenarios.

Pure code: no Kafka cluster here. Hypothesis runs derandomized, so CI sees the same examples
on every run.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_tui.cli.words import remedy_text
from kafka_tui.fields import Field, Remedy
from kafka_tui.planning import balance
from kafka_tui.planning.placement import (
    INVALID_PARTITIONS,
    INVALID_REPLICATION_FACTOR,
    MAX_PLACED_REPLICAS,
    MODES,
    Broker,
    Load,
    Mode,
    Placement,
    Request,
    place,
)
from kafka_tui.tui.words import remedy_words

PROPERTIES = settings(max_examples=250, deadline=None, derandomize=True)


@dataclass(frozen=True)
class Case:
    brokers: tuple[Broker, ...]
    load: Load
    requests: tuple[Request, ...]
    mode: Mode


@st.composite
def clusters(draw: st.DrawFn, min_live: int = 0) -> tuple[Broker, ...]:
    size = draw(st.integers(1, 40))
    ids = draw(st.lists(st.integers(0, 500), min_size=size, max_size=size, unique=True))
    rack_names = [f"rack-{letter}" for letter in "abcde"[: draw(st.integers(0, 5))]]
    rack_choices: list[str | None] = [*rack_names] if rack_names else [None]
    brokers = []
    for position, broker in enumerate(ids):
        rack = draw(st.sampled_from(rack_choices))
        live = position < min_live or draw(st.booleans())
        brokers.append(Broker(broker, rack, live))
    return tuple(brokers)


@st.composite
def cases(draw: st.DrawFn) -> Case:
    brokers = draw(clusters())
    ids = [broker.id for broker in brokers]
    load = Load(
        replicas={broker: draw(st.integers(0, 50)) for broker in ids if draw(st.booleans())},
        leaders={broker: draw(st.integers(0, 20)) for broker in ids if draw(st.booleans())},
    )
    requests = []
    for number in range(draw(st.integers(1, 4))):
        factor = draw(st.integers(0, 7))
        existing = draw(
            st.lists(
                st.lists(st.sampled_from([*ids, -1]), min_size=1, max_size=3, unique=True),
                max_size=5,
            )
        )
        requests.append(
            Request(
                topic=f"topic-{number}",
                partitions=draw(st.integers(0, 25)),
                replication_factor=factor,
                min_live_replicas=draw(st.integers(0, 5)),
                existing=tuple(tuple(replicas) for replicas in existing),
            )
        )
    return Case(brokers, load, tuple(requests), draw(st.sampled_from(MODES)))


def expected_refusal(request: Request, brokers: Sequence[Broker], mode: Mode) -> str | None:
    live = sum(broker.live for broker in brokers)
    if request.partitions < 1:
        return INVALID_PARTITIONS
    if request.replication_factor < 1 or live == 0:
        return INVALID_REPLICATION_FACTOR
    if mode == "disabled":
        return INVALID_REPLICATION_FACTOR if request.replication_factor > live else None
    needed = max(1, request.min_live_replicas)
    if needed > request.replication_factor or live < needed:
        return INVALID_REPLICATION_FACTOR
    return None


def rack_of(brokers: Sequence[Broker]) -> dict[int, str | None]:
    return {broker.id: broker.rack for broker in brokers}


@PROPERTIES
@given(cases())
def test_every_placement_keeps_the_rules(case: Case) -> None:
    live = {broker.id for broker in case.brokers if broker.live}
    known = {broker.id for broker in case.brokers}
    results = place(case.brokers, case.load, case.requests, case.mode)
    assert [result.topic for result in results] == [request.topic for request in case.requests]
    for request, result in zip(case.requests, results, strict=True):
        refusal = expected_refusal(request, case.brokers, case.mode)
        assert result.error == refusal, result.message
        if refusal is not None:
            assert result.assignment == () and result.message
            continue
        factor = request.replication_factor
        assert len(result.assignment) == request.partitions
        assert len(result.placeholder_racks) == request.partitions
        under = []
        for position, replicas in enumerate(result.assignment):
            assert len(replicas) == factor
            assert len(set(replicas)) == factor, "a broker twice in one partition"
            assert replicas[0] in live, "the leader must be live"
            real = [broker for broker in replicas if broker >= 0]
            placeholders = [broker for broker in replicas if broker < 0]
            assert set(real) <= known
            assert list(replicas) == real + placeholders, "placeholders come last"
            assert placeholders == [-slot for slot in range(1, len(placeholders) + 1)]
            assert len(result.placeholder_racks[position]) == len(placeholders)
            live_replicas = sum(broker in live for broker in real)
            if live_replicas < factor:
                under.append(position)
            if case.mode == "disabled":
                assert live_replicas == factor, "disabled places on live brokers only"
            else:
                assert live_replicas >= request.min_live_replicas
                # Placeholders only when the observed brokers are too few.
                assert len(placeholders) == max(0, factor - len(known))
            if case.mode == "enabled":
                assert live_replicas == min(factor, len(live)), "enabled fills live first"
        assert result.under_replicated == tuple(under)
        assert bool(result.message) == bool(under)


@PROPERTIES
@given(cases())
def test_same_input_same_output_and_arguments_untouched(case: Case) -> None:
    brokers = list(case.brokers)
    load = copy.deepcopy(case.load)
    requests = list(case.requests)
    first = place(brokers, load, requests, case.mode)
    assert brokers == list(case.brokers)
    assert load == case.load
    assert requests == list(case.requests)
    assert place(brokers, load, requests, case.mode) == first
    shuffled = sorted(brokers, key=lambda broker: (broker.id * 7919) % 101)
    assert place(tuple(reversed(brokers)), load, requests, case.mode) == first
    assert place(shuffled, load, requests, case.mode) == first


@PROPERTIES
@given(clusters(min_live=1), st.integers(1, 6), st.integers(1, 30), st.sampled_from(MODES))
def test_racks_distinct_while_they_allow(
    brokers: tuple[Broker, ...], factor: int, partitions: int, mode: Mode
) -> None:
    racks = rack_of(brokers)
    live_racks = {broker.rack for broker in brokers if broker.live}
    all_racks = set(racks.values())
    live = {broker.id for broker in brokers if broker.live}
    [result] = place(brokers, Load(), [Request("t", partitions, factor)], mode)
    if result.error:
        return
    for replicas in result.assignment:
        real = [broker for broker in replicas if broker >= 0]
        on_live = [broker for broker in real if broker in live]
        distinct = {racks[broker] for broker in real}
        if mode == "disabled":
            assert len(distinct) == min(factor, len(live_racks))
        elif mode == "enabled":
            assert len({racks[broker] for broker in on_live}) == min(len(on_live), len(live_racks))
        else:
            assert len(distinct) == min(len(real), len(all_racks))


@st.composite
def even_clusters(draw: st.DrawFn) -> tuple[tuple[Broker, ...], int, int]:
    rack_total = draw(st.integers(0, 5))
    per_rack = draw(st.integers(1, 8))
    size = per_rack * max(rack_total, 1)
    racks = [None] if rack_total == 0 else [f"r{number}" for number in range(rack_total)]
    brokers = tuple(
        Broker(100 + number, racks[number % len(racks)], True) for number in range(size)
    )
    factor = draw(st.integers(1, min(size, len(racks) if rack_total else size)))
    # partitions * factor divisible by the broker count, so a perfect spread exists.
    unit = size // _gcd(size, factor)
    partitions = unit * draw(st.integers(1, max(1, 300 // unit)))
    return brokers, factor, partitions


def _gcd(first: int, second: int) -> int:
    while second:
        first, second = second, first % second
    return first


def spread(results: Sequence[Placement], brokers: Sequence[Broker]) -> tuple[int, int]:
    load = Load().plus(results)
    replicas = [load.replicas.get(broker.id, 0) for broker in brokers]
    leaders = [load.leaders.get(broker.id, 0) for broker in brokers]
    return max(replicas) - min(replicas), max(leaders) - min(leaders)


@PROPERTIES
@given(even_clusters())
def test_fresh_even_cluster_is_balanced_within_one(
    cluster: tuple[tuple[Broker, ...], int, int],
) -> None:
    brokers, factor, partitions = cluster
    [result] = place(brokers, Load(), [Request("t", partitions, factor)])
    replicas, leaders = spread([result], brokers)
    assert replicas <= 1 and leaders <= 1
    assert len({broker for replicas in result.assignment for broker in replicas}) == len(brokers)


@PROPERTIES
@given(even_clusters(), st.integers(2, 6))
def test_topics_of_one_call_balance_like_one_topic(
    cluster: tuple[tuple[Broker, ...], int, int], topics: int
) -> None:
    brokers, factor, partitions = cluster
    requests = [Request(f"t{n}", partitions, factor) for n in range(topics)]
    results = place(brokers, Load(), requests)
    replicas, leaders = spread(results, brokers)
    assert replicas <= 1
    # A later topic can move leaders only inside its own replica sets, which may all sit on
    # brokers that already lead one more (3 topics x 3 partitions on 9 brokers in 3 racks).
    assert leaders <= 2
    for result in results:
        assert len({broker for replicas in result.assignment for broker in replicas}) == len(
            brokers
        )


@st.composite
def repeated_shapes(draw: st.DrawFn) -> Case:
    """A bulk create: many topics of one or two shapes, mostly on 3-5 brokers (where states
    come back and placements are replayed), with or without a load, every mode."""
    brokers = draw(clusters())[: draw(st.sampled_from([3, 4, 5, 40]))]
    ids = [broker.id for broker in brokers]
    load = Load.from_assignments(
        draw(st.lists(st.lists(st.sampled_from(ids), min_size=1, max_size=3), max_size=6))
    )
    shapes = draw(
        st.lists(
            st.tuples(st.integers(1, 6), st.integers(1, 4), st.integers(0, 3)),
            min_size=1,
            max_size=2,
        )
    )
    picks = draw(st.lists(st.sampled_from(shapes), min_size=20, max_size=150))
    requests = tuple(Request(f"t{n}", *shape) for n, shape in enumerate(picks))
    return Case(brokers, load, requests, draw(st.sampled_from(MODES)))


def _without_memory(case: Case) -> list[Placement]:
    memo = balance.MEMO_BROKERS
    balance.MEMO_BROKERS = 0
    try:
        return place(case.brokers, case.load, case.requests, case.mode)
    finally:
        balance.MEMO_BROKERS = memo


@PROPERTIES
@given(repeated_shapes())
def test_a_remembered_placement_replays_exactly_what_placing_gives(case: Case) -> None:
    """Balancer remembers each topic's placement by the state it started from, up to a
    constant on every count; a later topic starting from the same state is replayed. The
    replay must be what placing it anew gives, topic by topic (same assignment, leaders,
    placeholders, messages), and leave the counts as placing would."""
    assert place(case.brokers, case.load, case.requests, case.mode) == _without_memory(case)


def test_a_bulk_create_on_three_brokers_is_placed_once_and_replayed() -> None:
    """2,000 like topics on 3 brokers: every later topic starts from the first one's state
    (counts even), so it is replayed; the result is the one placing each gives."""
    brokers = (Broker(1, "a", True), Broker(2, "b", True), Broker(3, "c", True))
    requests = tuple(Request(f"t{n:04d}", 3, 3) for n in range(2000))
    results = place(brokers, Load(), requests)
    assert results == _without_memory(Case(brokers, Load(), requests, "disabled"))
    assert spread(results, brokers) == (0, 0)
    balancer = balance.Balancer([1, 2, 3], [0, 1, 2], [True] * 3, [0] * 3, [0] * 3, 3, 9)
    first = balancer.place_topic(3, 3, "disabled", 1, ())
    # Placed, not replayed: its state is remembered from now on.
    assert balancer.last_key is not None and balancer.memo == {balancer.last_key: first}
    assert balancer.place_topic(3, 3, "disabled", 1, ()) is first  # replayed
    assert (balancer.replicas, balancer.leaders) == ([6, 6, 6], [2, 2, 2])
    # Near the fair share (9 replicas a broker) the key does not hold: placed, not replayed.
    assert balancer.place_topic(3, 3, "disabled", 1, ()) is not first
    assert balancer.last_key is None


# KIP-409's scenarios. Brokers 1, 2, 3 on racks a, b, c; broker 3 offline.
THREE = (Broker(1, "a", True), Broker(2, "b", True), Broker(3, "c", False))


def place_one(
    request: Request, mode: Mode, brokers: Sequence[Broker] = THREE, load: Load | None = None
) -> Placement:
    [result] = place(brokers, load or Load(), [request], mode)
    return result


def test_disabled_refuses_and_names_the_offline_broker_and_the_flags() -> None:
    result = place_one(Request("orders", 4, 3), "disabled")
    assert result.error == INVALID_REPLICATION_FACTOR
    assert result.assignment == ()
    assert result.message == (
        "Replication factor 3 needs 3 live brokers, but only 2 are live (broker 3 is offline)."
    )
    # The remedy names fields; each front end words them (a flag, a form field).
    assert result.remedies == (
        Remedy(
            ((Field.UNDER_REPLICATED_MODE, "enabled"), (Field.MIN_REQUIRED_RF, "2")),
            "to create it under-replicated",
        ),
    )
    assert remedy_text(result.remedies) == (
        "Pass --under-replicated enabled (or --min-required-replication-factor 2) to create "
        "it under-replicated."
    )
    assert remedy_words(result.remedies) == (
        "Choose mode 'enabled' (or min required RF 2) to create it under-replicated."
    )


def test_enabled_with_two_live_replicas_uses_the_offline_broker_last() -> None:
    result = place_one(Request("orders", 4, 3, min_live_replicas=2), "enabled")
    assert result.error is None
    for replicas in result.assignment:
        assert sorted(replicas[:2]) == [1, 2] and replicas[2] == 3
    assert [replicas[0] for replicas in result.assignment] == [1, 2, 1, 2]
    assert result.under_replicated == (0, 1, 2, 3)
    assert result.message == "All 4 partitions will be under-replicated: broker 3 is offline."


def test_enabled_refuses_when_the_live_minimum_cannot_be_met() -> None:
    result = place_one(Request("orders", 4, 3, min_live_replicas=3), "enabled")
    assert result.error == INVALID_REPLICATION_FACTOR
    assert result.message == (
        "Replication factor 3 needs at least 3 replicas on live brokers (the larger of the "
        "minimum required replication factor and min.insync.replicas), but only 2 brokers "
        "are live: 1, 2."
    )


def test_more_replicas_than_observed_brokers_get_placeholders_with_a_rack() -> None:
    result = place_one(Request("orders", 3, 4, min_live_replicas=2), "enabled")
    assert result.error is None
    assert [replicas[3] for replicas in result.assignment] == [-1, -1, -1]
    assert [set(replicas[:3]) for replicas in result.assignment] == [{1, 2, 3}] * 3
    # Every rack already holds one replica: the placeholders' racks take turns.
    assert result.placeholder_racks == (("a",), ("b",), ("c",))
    assert result.message == (
        "All 3 partitions will be under-replicated: broker 3 is offline; 1 replica per "
        "partition is a placeholder (-1), filled when a broker joins."
    )


def test_placeholder_prefers_the_rack_the_partition_lacks() -> None:
    brokers = (Broker(1, "a", True), Broker(2, "a", True), Broker(3, "b", True))
    result = place_one(Request("orders", 2, 4, min_live_replicas=1), "enabled", brokers)
    # Racks a, a, b are taken; the fourth replica would go to b before a third a.
    assert result.placeholder_racks == (("b",), ("b",))
    no_racks = tuple(Broker(broker.id, None, True) for broker in brokers)
    result = place_one(Request("orders", 1, 5, min_live_replicas=1), "enabled", no_racks)
    assert result.assignment[0][3:] == (-1, -2)
    assert result.placeholder_racks == ((None, None),)
    assert "2 replicas per partition are placeholders (-1, -2)" in result.message


FIVE = (
    Broker(1, "a", True),
    Broker(2, "b", True),
    Broker(3, "c", True),
    Broker(4, "a", True),
    Broker(5, "b", False),
)


def test_prefer_observed_uses_the_offline_broker_that_enabled_leaves_alone() -> None:
    request = Request("orders", 10, 3, min_live_replicas=2)
    enabled = place_one(request, "enabled", FIVE)
    preferred = place_one(request, "enabled_prefer_observed", FIVE)
    assert enabled.error is None and preferred.error is None
    assert all(5 not in replicas for replicas in enabled.assignment)
    assert enabled.under_replicated == ()
    on_five = [n for n, replicas in enumerate(preferred.assignment) if 5 in replicas]
    # Rack b is shared by 2 (live) and 5 (offline): 5 takes its share of rack b's replicas.
    assert len(on_five) == 5
    assert preferred.under_replicated == tuple(on_five)
    assert preferred.message == (
        "5 of 10 partitions will be under-replicated: broker 5 is offline."
    )
    for replicas in preferred.assignment:
        assert replicas[0] != 5
        assert len({rack_of(FIVE)[broker] for broker in replicas}) == 3


def test_prefer_observed_keeps_the_live_minimum() -> None:
    request = Request("orders", 20, 3, min_live_replicas=3)
    result = place_one(request, "enabled_prefer_observed", FIVE)
    assert all(5 not in replicas for replicas in result.assignment)


def test_no_live_broker_is_refused_in_every_mode() -> None:
    offline = tuple(Broker(broker.id, broker.rack, False) for broker in THREE)
    for mode in MODES:
        result = place_one(Request("orders", 1, 1), mode, offline)
        assert result.error == INVALID_REPLICATION_FACTOR
        assert result.message == (
            "No broker is live (brokers 1, 2 and 3 are offline): a partition's leader must be "
            "a live broker."
        )


def test_bad_counts_are_refused_with_kafkas_error_names() -> None:
    assert place_one(Request("t", 0, 1), "disabled").error == INVALID_PARTITIONS
    assert place_one(Request("t", 1, 0), "enabled").error == INVALID_REPLICATION_FACTOR
    # min.insync.replicas above the RF can never be met on live brokers.
    too_many = place_one(Request("t", 1, 2, min_live_replicas=3), "enabled")
    assert too_many.error == INVALID_REPLICATION_FACTOR


def test_counts_beyond_any_cluster_are_refused_before_placing() -> None:
    """A count typed by mistake is refused at once: the placer used to fill the memory
    until the process was killed (2,000,000,000 partitions, or 2**31 that the wire cannot
    even carry). Every mode; the bound is on partitions x replication factor."""
    for mode in MODES:
        for partitions, factor in (
            (2_000_000_000, 3),
            (2**31, 1),
            (MAX_PLACED_REPLICAS // 2 + 1, 2),
        ):
            result = place_one(Request("t", partitions, factor), mode)
            assert result.error == INVALID_PARTITIONS and result.assignment == ()
            assert f"{partitions * factor:,} replicas to place" in result.message
    largest = place_one(Request("t", MAX_PLACED_REPLICAS // 2, 2), "disabled")
    assert largest.error is None and len(largest.assignment) == MAX_PLACED_REPLICAS // 2


def test_a_grow_spreads_the_new_partitions_against_the_existing_ones() -> None:
    brokers = tuple(Broker(broker, None, True) for broker in range(1, 7))
    existing = ((1, 2), (2, 3), (3, 1))
    load = Load.from_assignments(existing)
    [grow] = place(brokers, load, [Request("orders", 3, 2, existing=existing)])
    # Brokers 4, 5, 6 hold nothing yet: the new partitions go there and even the cluster out.
    assert sorted(broker for replicas in grow.assignment for broker in replicas) == [
        4,
        4,
        5,
        5,
        6,
        6,
    ]
    assert {replicas[0] for replicas in grow.assignment} == {4, 5, 6}
    after = load.plus([grow])
    assert sorted(after.replicas.values()) == [2, 2, 2, 2, 2, 2]
    assert sorted(after.leaders.values()) == [1, 1, 1, 1, 1, 1]


def test_requests_of_one_call_balance_against_the_existing_load() -> None:
    brokers = tuple(Broker(broker, None, True) for broker in range(1, 5))
    skewed = Load(replicas={1: 6, 2: 6}, leaders={1: 3, 2: 3})
    results = place(brokers, skewed, [Request(f"t{n}", 1, 2) for n in range(6)])
    after = skewed.plus(results)
    assert [after.replicas[broker] for broker in (1, 2, 3, 4)] == [6, 6, 6, 6]
    assert [after.leaders[broker] for broker in (1, 2, 3, 4)] == [3, 3, 3, 3]


def test_a_topic_spreads_over_every_broker_that_has_room() -> None:
    brokers = tuple(Broker(broker, None, True) for broker in range(1, 9))
    uneven = Load(replicas={5: 1, 6: 1, 7: 1, 8: 1}, leaders={5: 1, 6: 1, 7: 1, 8: 1})
    [topic] = place(brokers, uneven, [Request("spread", 4, 2)])
    # Load alone would pick 1-4 twice each; the topic takes all eight brokers, still even.
    assert sorted(b for replicas in topic.assignment for b in replicas) == list(range(1, 9))
    after = uneven.plus([topic])
    assert [after.replicas[broker] for broker in range(1, 9)] == [1, 1, 1, 1, 2, 2, 2, 2]


def test_overloaded_brokers_get_no_new_replicas_for_the_sake_of_spread() -> None:
    brokers = tuple(Broker(broker, None, True) for broker in range(1, 7))
    skewed = Load(replicas={1: 50, 2: 50, 3: 50}, leaders={1: 20, 2: 20, 3: 20})
    [small] = place(brokers, skewed, [Request("small", 6, 1)])
    assert sorted(replicas[0] for replicas in small.assignment) == [4, 4, 5, 5, 6, 6]
    # A job placing one group of a bigger plan passes the plan's share instead.
    [grouped] = place(brokers, skewed, [Request("small", 6, 1)], fair_share=60)
    assert sorted(replicas[0] for replicas in grouped.assignment) == [1, 2, 3, 4, 5, 6]
    [big] = place(brokers, skewed, [Request("big", 156, 1)])
    # 150 + 156 replicas: 51 each once brokers 4, 5, 6 have caught up.
    after = skewed.plus([big])
    assert [after.replicas[broker] for broker in range(1, 7)] == [51] * 6


def test_a_refused_request_adds_no_load() -> None:
    brokers = tuple(Broker(broker, None, True) for broker in range(1, 4))
    both = place(brokers, Load(), [Request("bad", 2, 9), Request("good", 3, 1)])
    alone = place(brokers, Load(), [Request("good", 3, 1)])
    assert both[0].error == INVALID_REPLICATION_FACTOR
    assert both[1] == alone[0]


def test_many_partitions_share_replica_sets_with_many_brokers() -> None:
    brokers = tuple(Broker(broker, None, True) for broker in range(1, 31))
    [result] = place(brokers, Load(), [Request("wide", 3000, 3)])
    partners: dict[int, set[int]] = {broker.id: set() for broker in brokers}
    pairs: Counter[tuple[int, int]] = Counter()
    for replicas in result.assignment:
        for broker in replicas:
            partners[broker].update(other for other in replicas if other != broker)
        ordered = sorted(replicas)
        pairs.update([(ordered[0], ordered[1]), (ordered[0], ordered[2]), (ordered[1], ordered[2])])
    assert min(len(others) for others in partners.values()) == 29
    # 9,000 pairs over 435 broker pairs: about 21 each; no pair hoards them.
    assert max(pairs.values()) <= 2 * 9000 / 435


def test_load_from_assignments_ignores_placeholders() -> None:
    load = Load.from_assignments([(1, 2, -1), (2, 3), (3, -1, -2)])
    assert load.replicas == {1: 1, 2: 2, 3: 2}
    assert load.leaders == {1: 1, 2: 1, 3: 1}


def test_unknown_mode_and_duplicate_brokers_are_programming_errors() -> None:
    with pytest.raises(ValueError, match="unknown mode"):
        place(THREE, Load(), [], "sometimes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="listed twice"):
        place((*THREE, Broker(1, "z", True)), Load(), [])
