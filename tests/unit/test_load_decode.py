"""The Metadata answer counted as load (protocol.decode_metadata_load) counts exactly what the
full decode lists: on answers of every shape the schema allows, built with aiokafka's
generic encoder (the same bytes real brokers send; tests/integration/test_load_read.py
checks real answers)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from kafka_tui.admin import protocol
from kafka_tui.planning.placement import Load
from tests.wire_schemas import METADATA_RESPONSE_SCHEMA
from tests.wire_schemas import tag as _tag


def expected(metadata: protocol.Metadata) -> tuple[dict[int, int], dict[int, int], int, int]:
    """What a snapshot made of every topic counted (services/snapshot.py, `list_topics`)."""
    listed = [t for t in metadata.topics if not t.error_code]
    load = Load.from_assignments(p.replica_nodes for t in listed for p in t.partitions)
    return load.replicas, load.leaders, len(listed), sum(len(t.partitions) for t in listed)


def counted(body: bytes) -> tuple[dict[int, int], dict[int, int], int, int]:
    load, end = protocol.decode_metadata_load(body)
    _, full_end = protocol.decode_metadata_response(body)
    assert end == full_end == len(body), "it must stop exactly at the end"
    return load.replicas, load.leaders, load.topics, load.partitions


def _replicas(rng: random.Random) -> list[int] | None:
    shape = rng.random()
    if shape < 0.03:
        return None
    if shape < 0.06:
        return []
    if shape < 0.1:
        return [rng.randrange(0, 100) for _ in range(rng.randrange(15, 70))]  # long: no run
    if shape < 0.15:
        return [rng.choice([-1, -2, 5]) for _ in range(rng.randrange(1, 4))]  # negative ids
    return rng.sample(range(1, 8), rng.randrange(1, 5))


def _random_answer(rng: random.Random) -> list[Any]:
    topics = []
    for t in range(rng.randrange(0, 40)):
        partitions: list[Any] | None = [
            (
                rng.choice([0, 0, 0, 9]),
                p,
                rng.choice([-1, 1, 2]),
                rng.randrange(0, 5),
                _replicas(rng),
                _replicas(rng),
                _replicas(rng),
                {1: _tag(b"x" * rng.randrange(0, 200))} if rng.random() < 0.1 else {},
            )
            for p in range(rng.choice([0, 1, 3, 130]))
        ]
        if rng.random() < 0.05:
            partitions = None
        name = f"t{t}-" + ("ü" * rng.randrange(0, 100) if rng.random() < 0.2 else "x")
        error = rng.choice([0] * 8 + [3, 5])  # UNKNOWN_TOPIC_OR_PARTITION, LEADER_NOT_AVAILABLE
        topic_id = None if rng.random() < 0.1 else "AQIDBAUGBwgJCgsMDQ4PEA"
        tags = {5: _tag(b"t")} if rng.random() < 0.1 else {}
        topics.append((error, name, topic_id, rng.random() < 0.1, partitions, 8, tags))
    brokers = [(b, "h" * rng.choice([1, 200]), 9092, rng.choice([None, "r"]), {}) for b in (1, 2)]
    return [0, brokers, rng.choice([None, "c"]), 1, topics, {}]


@pytest.mark.parametrize("seed", range(40))
def test_the_load_counted_is_the_load_of_the_full_decode(seed: int) -> None:
    body = METADATA_RESPONSE_SCHEMA.encode(_random_answer(random.Random(seed)))
    full, _ = protocol.decode_metadata_response(body)
    assert counted(body) == expected(full)
    # The count of an answer read by kio (every version but v12) is the same count.
    assert protocol.load_of(full)[4:] == protocol.decode_metadata_load(body)[0][4:]


def test_a_typical_answer_counts_replicas_and_first_replicas_not_leaders() -> None:
    """The placer balances preferred leaders (each partition's first replica), not the
    leaders of the moment: a partition led by its second replica counts for its first."""
    led_by_second = (0, 0, 2, 0, [1, 2], [2], [1], {})
    offline = (0, 1, -1, 0, [3], [], [3], {})
    topics = [
        (0, "a", None, False, [led_by_second, offline], 0, {}),
        (3, "gone", None, False, [(0, 0, 1, 0, [1], [1], [], {})], 0, {}),
        (0, "b", None, False, [(0, 0, 1, 0, [1, 3, 2], [1, 3, 2], [], {})], 0, {}),
    ]
    body = METADATA_RESPONSE_SCHEMA.encode([0, [], "c", 1, topics, {}])
    assert counted(body) == ({1: 2, 2: 2, 3: 2}, {1: 2, 3: 1}, 2, 3)
    load, _ = protocol.decode_metadata_load(body)
    assert (load.cluster_id, load.controller_id, load.brokers) == ("c", 1, [])


def test_a_truncated_answer_is_an_error_not_a_short_count() -> None:
    topics = [(0, "a-topic", None, False, [(0, 0, 1, 0, [1, 2], [1, 2], [], {})] * 3, 0, {})]
    body = METADATA_RESPONSE_SCHEMA.encode([0, [], "c", 1, topics, {}])
    for cut in range(1, len(body)):
        with pytest.raises(ValueError):
            protocol.decode_metadata_load(body[:cut])
    assert Counter(protocol.decode_metadata_load(body)[0].replicas) == Counter({1: 3, 2: 3})
