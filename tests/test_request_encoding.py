"""The hand-written CreateTopics v4 encoder writes exactly the bytes of aiokafka's generic
Schema encoder (which the SCHEMA still describes), for any topics, assignments and configs.
Real clusters answering these requests is covered by every create test."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_tui.admin import protocol

_INT32 = st.integers(-(2**31), 2**31 - 1)
_NAME = st.text(max_size=40)
_TOPIC = st.tuples(
    _NAME,
    _INT32,
    st.integers(-(2**15), 2**15 - 1),
    st.lists(st.tuples(_INT32, st.lists(_INT32, max_size=6)), max_size=5),
    st.lists(st.tuples(_NAME, st.none() | _NAME), max_size=4),
)


@settings(max_examples=300, deadline=None)
@given(topics=st.lists(_TOPIC, max_size=8), timeout_ms=_INT32, validate_only=st.booleans())
def test_create_topics_v4_bytes_match_the_generic_encoder(
    topics: list[tuple[object, ...]], timeout_ms: int, validate_only: bool
) -> None:
    request = protocol._CREATE_TOPICS_V4(topics, timeout_ms, validate_only)
    schema = request.SCHEMA
    generic = schema.encode([request.__dict__[name] for name in schema.names])
    assert request.encode() == generic
