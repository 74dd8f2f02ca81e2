"""The hand-written CreateTopics v4 encoder writes exactly the bytes of kio's generated
encoder (Kafka's own schema), for any topics, assignments and configs; ElectLeaders v2 on
the generated wire lays out its bytes as Kafka's schema does. Real clusters answering these
requests is covered by every create and election test."""

from __future__ import annotations

from io import BytesIO

from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_tui.admin import protocol, protocol_cluster, wire

_INT32 = st.integers(-(2**31), 2**31 - 1)
_NAME = st.text(max_size=40)
_TOPIC = st.builds(
    protocol.CreatableTopic,
    _NAME,
    _INT32,
    st.integers(-(2**15), 2**15 - 1),
    st.dictionaries(_INT32, st.lists(_INT32, max_size=6), max_size=5),
    st.dictionaries(_NAME, _NAME, max_size=4),
)


# 100: 300 took 22 s at CI's load (the nested strategies' generation, not the encoders).
@settings(max_examples=100, deadline=None)
@given(topics=st.lists(_TOPIC, max_size=8), timeout_ms=_INT32, validate_only=st.booleans())
def test_create_topics_v4_bytes_match_the_generated_encoder(
    topics: list[protocol.CreatableTopic], timeout_ms: int, validate_only: bool
) -> None:
    request = protocol.CreateTopicsRequest(topics, timeout_ms, validate_only, details=False)
    frame = request.prepare({19: (2, 7)})
    assert frame.API_VERSION == 4
    assert frame.encode() == wire.encode(request.message(4))


def test_versions_follow_the_broker() -> None:
    """The highest version both sides know; none shared is refused in a sentence that
    names the Kafka release that has the request."""
    request = protocol.CreateTopicsRequest([], 1000, False)
    assert request.prepare({19: (0, 3)}).API_VERSION == 3  # Kafka 2.1
    assert request.prepare({19: (2, 9)}).API_VERSION == 7  # newer than kafka-tui knows
    reassign = protocol_cluster.AlterPartitionReassignmentsRequest([], 1000)
    try:
        reassign.prepare({19: (0, 3)})
    except wire.UnsupportedByBroker as refused:
        assert refused.name == "UNSUPPORTED_VERSION"
        assert str(refused) == (
            "AlterPartitionReassignments needs Kafka 2.4 or newer; "
            "this broker does not know this request."
        )
    else:
        raise AssertionError("sent to a broker without the request")


def test_elect_leaders_v2_bytes_and_answer() -> None:
    """ElectLeaders (43) v2, flexible: the request's bytes as Kafka's schema lays them out,
    and an answer decoded into per-partition results (ELECTION_NOT_NEEDED is no failure)."""
    from kafka_tui.admin.elections import ElectionType, election_result
    from kafka_tui.admin.protocol_cluster import ElectLeadersRequest

    request = ElectLeadersRequest(1, [("orders", [0, 2])], 30_000).prepare({43: (0, 2)})
    assert request.API_VERSION == 2
    assert request.encode() == (
        b"\x01"  # election type: unclean
        + b"\x02"  # one topic (compact array: length + 1)
        + b"\x07orders"  # compact string
        + b"\x03\x00\x00\x00\x00\x00\x00\x00\x02"  # partitions [0, 2]
        + b"\x00"  # the topic's tagged fields
        + b"\x00\x00\x75\x30"  # timeout 30000 ms
        + b"\x00"  # tagged fields
    )
    answer = (
        b"\x00\x00\x00\x00"  # throttle time
        + b"\x00\x00"  # top-level error: none
        + b"\x02\x07orders"
        + b"\x03"  # two partitions
        + b"\x00\x00\x00\x00\x00\x00\x00\x00"  # 0: no error, no message (null)
        + b"\x00\x00\x00\x02\x00\x54\x00\x00"  # 2: ELECTION_NOT_NEEDED (84)
        + b"\x00\x00"
    )
    decoded = ElectLeadersRequest.answer(request.RESPONSE_TYPE.decode(BytesIO(answer)))
    assert decoded.error_code == 0
    results = [
        election_result(p.topic, p.partition, p.error_code, p.error_message, ElectionType.UNCLEAN)
        for p in decoded.partitions
    ]
    assert [(r.partition, r.ok, r.error) for r in results] == [
        (0, True, None),
        (2, True, "ELECTION_NOT_NEEDED"),
    ]
    assert results[1].message == (
        "Partition 'orders'-2 already has the leader this election would give it; nothing to do."
    )
