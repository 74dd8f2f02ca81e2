"""The hand-written Metadata v12 decoder's typed records hold exactly what aiokafka's generic
Schema decoding gives: on real answers from both clusters, and on edge cases real clusters
rarely send. (A null array, which brokers never send in these answers, reads as an empty one.)
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from io import BytesIO
from typing import Any

import pytest
from aiokafka.protocol.types import UnsignedVarInt32

from kafka_tui.admin import KafkaAdmin, TopicSpec, protocol

GENERIC = protocol._response(3, 12, protocol.METADATA_RESPONSE_SCHEMA)


def as_object(record: Any) -> Any:
    """A decoded record as aiokafka's to_object() shapes it: NamedTuples as dicts, replica
    tuples as lists, without `partition_count` (checked against the partitions here)."""
    if isinstance(record, tuple) and hasattr(record, "_asdict"):
        fields = record._asdict()
        if "partition_count" in fields:
            assert fields.pop("partition_count") == len(fields["partitions"])
        return {k: as_object(v) for k, v in fields.items()}
    if isinstance(record, list | tuple):
        return [as_object(v) for v in record]
    return record


def nulls_as_empty(generic: Any) -> Any:
    """aiokafka's to_object() with null arrays as empty ones (how the typed records read them)."""
    if isinstance(generic, dict):
        return {
            k: ([] if v is None and k in _ARRAYS else nulls_as_empty(v)) for k, v in generic.items()
        }
    if isinstance(generic, list):
        return [nulls_as_empty(v) for v in generic]
    return generic


_ARRAYS = {"brokers", "topics", "partitions", "replica_nodes", "isr_nodes", "offline_replicas"}


def both_ways(body: bytes) -> tuple[dict[str, Any], dict[str, Any]]:
    data = BytesIO(b"header" + body)
    data.seek(6)
    fast = protocol.MetadataRequest.answer(protocol.MetadataResponse.decode(data))
    assert data.tell() == len(body) + 6, "the decoder must stop exactly at the end"
    return as_object(fast), nulls_as_empty(GENERIC.decode(BytesIO(body)).to_object())


async def raw_metadata(admin: KafkaAdmin, topics: list[str] | None, showing: set[str]) -> bytes:
    """The first answer that lists every topic in `showing` with all its partitions led
    (ZooKeeper-mode brokers learn of new topics one by one), polling until a deadline."""
    deadline = time.monotonic() + 30
    while True:
        # Through the admin's own send, which tries another broker if the link breaks: a
        # broker just stopped stays listed for a while (CI: NodeNotReadyError for it).
        body = protocol.MetadataBodyRequest.body(
            await admin._send(protocol.MetadataBodyRequest(topics))
        )
        # Listed with every partition led: a ZooKeeper-mode broker can list a new topic
        # before its partitions reach it (seen once in CI: the topic with no partitions).
        listed = {
            t["name"]
            for t in GENERIC.decode(BytesIO(body)).to_object()["topics"]
            if t["partitions"] and all(p["leader_id"] >= 0 for p in t["partitions"])
        }
        if showing <= listed or time.monotonic() > deadline:
            return body
        await asyncio.sleep(0.1)


async def test_real_answers_decode_as_aiokafka_decodes_them(
    admin: KafkaAdmin, topic_name: Callable[[str], str]
) -> None:
    spread, single = topic_name("spread"), topic_name("single")
    results = await admin.create_topics(
        [
            TopicSpec(spread, assignment={0: [1, 2, 3], 1: [3, 1, 2], 2: [2, 3, 1]}),
            TopicSpec(single, 1, 1),
        ]
    )
    assert all(r.ok for r in results), results
    everything = await raw_metadata(admin, None, {spread, single})
    fast, generic = both_ways(everything)
    assert fast == generic
    names = {t["name"] for t in fast["topics"]}
    assert {spread, single} <= names
    assert len(fast["brokers"]) == 3

    missing = topic_name("missing")
    some = await raw_metadata(admin, [spread, missing], {spread})
    fast, generic = both_ways(some)
    assert fast == generic
    by_name = {t["name"]: t for t in fast["topics"]}
    assert by_name[missing]["error_code"] == 3 and by_name[missing]["topic_id"] is None
    replicas = sorted(
        (p["partition_index"], p["replica_nodes"]) for p in by_name[spread]["partitions"]
    )
    assert replicas == [(0, [1, 2, 3]), (1, [3, 1, 2]), (2, [2, 3, 1])]


def _tag(value: bytes) -> bytes:
    # aiokafka's TaggedFields.encode writes no size before a value, so the size goes in it.
    return UnsignedVarInt32.encode(len(value)) + value


def test_rare_shapes_decode_as_aiokafka_decodes_them() -> None:
    """Long replica lists, null replica lists and strings, tagged fields, multi-byte lengths.
    (Null arrays of structs are left out: aiokafka's to_object cannot convert them.) A
    null host reads as "": none is left out here, to compare the rest."""
    partition = (0, 7, 2, 5, list(range(40)), [], None, {1: _tag(b"x"), 3: _tag(b"yz")})
    plain = (3, 1, -1, 0, [1], None, [1], {})
    topics = [
        (0, "t" * 200, "AAAAAAAAAAAAAAAAAAAAAQ", True, [partition, plain], -2147483648, {}),
        (3, "ünïcode", None, False, [], 0, {5: _tag(b"")}),
        (0, "many", "AQIDBAUGBwgJCgsMDQ4PEA", False, [plain] * 300, 8, {}),
    ]
    brokers = [(1, "h" * 130, 9092, None, {}), (2, "b", 1, "rack", {2: _tag(b"q")})]
    body = protocol.METADATA_RESPONSE_SCHEMA.encode([12, brokers, None, -1, topics, {}])
    fast, generic = both_ways(body)
    assert fast == generic
    assert fast["topics"][0]["partitions"][0]["replica_nodes"] == list(range(40))
    assert fast["topics"][0]["partitions"][0]["isr_nodes"] == []  # null
    empty = protocol.METADATA_RESPONSE_SCHEMA.encode([0, [], "c", 1, [], {}])
    assert both_ways(empty)[0] == both_ways(empty)[1]


def test_names_only_decoding_counts_the_partitions_it_skips() -> None:
    """A deletion's check reads names, ids and partition counts only (protocol.py): the
    same answer, with the partitions counted, not decoded, ending at the same byte."""
    partition = (0, 7, 2, 5, list(range(200)), None, [], {1: _tag(b"x" * 300)})
    topics = [
        (0, "a", "AAAAAAAAAAAAAAAAAAAAAQ", False, [partition] * 3, 0, {}),
        (3, "gone", None, False, None, 0, {}),
        (0, "b" * 140, "AQIDBAUGBwgJCgsMDQ4PEA", True, [partition] * 200, 8, {2: _tag(b"t")}),
    ]
    body = protocol.METADATA_RESPONSE_SCHEMA.encode([1, [], "c", 1, topics, {}])
    full, end = protocol.decode_metadata_response(body)
    light, light_end = protocol.decode_metadata_response(body, partitions=False)
    assert end == light_end == len(body)
    for whole, names_only in zip(full.topics, light.topics, strict=True):
        assert whole._replace(partitions=[]) == names_only
        assert whole.partition_count == len(whole.partitions)
        assert names_only.partitions == []
    assert [t.partition_count for t in light.topics] == [3, 0, 200]


def test_a_truncated_answer_is_an_error_not_a_short_result() -> None:
    topics = [(0, "a-topic", None, False, [(0, 0, 1, 0, [1, 2], [1, 2], [], {})], 0, {})]
    body = protocol.METADATA_RESPONSE_SCHEMA.encode([0, [], "c", 1, topics, {}])
    for cut in (1, 5, 12, len(body) - 20, len(body) - 1):
        with pytest.raises(ValueError):
            protocol.MetadataResponse.decode(BytesIO(body[:cut]))


CREATE_GENERIC = protocol._response(19, 7, protocol.CREATE_TOPICS_RESPONSE_SCHEMA)


def test_create_topics_answers_decode_as_aiokafka_decodes_them_but_the_configs() -> None:
    """The CreateTopics v7 decoder skips each topic's configs and tagged fields (kafka-tui
    never reads them); each topic's answer holds what aiokafka's generic decoding gives, with
    long and null strings, tagged fields and many configs."""
    configs = [
        ("k" * 150, "v" * 300, False, 5, False, {}),
        ("x", None, True, 1, True, {1: _tag(b"t")}),
    ]
    topics = [
        ("orders", "AQIDBAUGBwgJCgsMDQ4PEA", 0, None, 3, 2, configs * 40, {}),
        (
            "taken",
            None,
            36,
            "Topic 'taken' already exists." * 10,
            -1,
            -1,
            [],  # aiokafka's to_object cannot convert a null array of structs
            {1: _tag(b"\0\x05")},
        ),
        ("ünï", "AAAAAAAAAAAAAAAAAAAAAQ", 0, None, 1, 1, [], {}),
    ]
    body = protocol.CREATE_TOPICS_RESPONSE_SCHEMA.encode([7, topics, {}])
    data = BytesIO(b"hdr" + body)
    data.seek(3)
    fast = protocol.CreateTopicsRequest.topic_answers(protocol.CreateTopicsResponse.decode(data))
    assert data.tell() == len(body) + 3
    generic = CREATE_GENERIC.decode(BytesIO(body)).to_object()
    assert [len(t["configs"]) for t in generic["topics"]] == [80, 0, 0]
    assert fast == [
        protocol.TopicAnswer(
            t["name"],
            t["error_code"],
            t["error_message"],
            t["topic_id"],
            t["num_partitions"],
            t["replication_factor"],
        )
        for t in generic["topics"]
    ]
    for cut in (1, 9, len(body) // 2, len(body) - 1):
        with pytest.raises(ValueError):
            protocol.CreateTopicsResponse.decode(BytesIO(body[:cut]))


DELETE_GENERIC = protocol._response(20, 6, protocol.DELETE_TOPICS_RESPONSE_SCHEMA)


def test_delete_topics_answers_decode_as_aiokafka_decodes_them() -> None:
    """The DeleteTopics v6 decoder equals aiokafka's generic decoding: ids and none, null
    and long messages, non-ASCII names, tagged fields; a cut answer is an error."""
    responses = [
        ("orders", "AQIDBAUGBwgJCgsMDQ4PEA", 0, None, {}),
        ("gone", None, 3, "This server does not host this topic-partition." * 5, {}),
        ("ünï" * 60, "AAAAAAAAAAAAAAAAAAAAAQ", 41, "", {1: _tag(b"\0\x05"), 3: _tag(b"")}),
    ]
    for topics in (responses, responses * 700, []):
        body = protocol.DELETE_TOPICS_RESPONSE_SCHEMA.encode([7, topics, {2: _tag(b"x")}])
        data = BytesIO(b"hdr" + body)
        data.seek(3)
        fast = protocol.DeleteTopicsRequest.topic_answers(
            protocol.DeleteTopicsResponse.decode(data)
        )
        assert data.tell() == len(body) + 3
        generic = DELETE_GENERIC.decode(BytesIO(body)).to_object()
        assert fast == [
            protocol.TopicAnswer(t["name"], t["error_code"], t["error_message"], t["topic_id"])
            for t in generic["responses"] or []
        ]
        assert len(fast) == len(topics)
    body = protocol.DELETE_TOPICS_RESPONSE_SCHEMA.encode([7, responses, {2: _tag(b"x")}])
    for cut in (1, 9, len(body) // 2, len(body) - 1):
        with pytest.raises(ValueError):
            protocol.DeleteTopicsResponse.decode(BytesIO(body[:cut]))


def test_create_topics_v4_answers_decode_as_aiokafka_decodes_them() -> None:
    """The CreateTopics v4 decoder gives what aiokafka's generic decoding of the same
    schema gives, with null and long messages and non-ASCII names."""
    topics = [
        ("orders", 0, None),
        ("taken", 36, "Topic 'taken' already exists." * 20),
        ("ünï" * 60, 37, ""),
    ] * 3
    body = protocol.CreateTopicsResponseV4.SCHEMA.encode([5, topics])
    generic = protocol._response(19, 4, protocol.CreateTopicsResponseV4.SCHEMA)
    decoded = generic.decode(BytesIO(body))
    data = BytesIO(b"hdr" + body)
    data.seek(3)
    fast = protocol.CreateTopicsRequest.topic_answers(protocol.CreateTopicsResponseV4.decode(data))
    assert data.tell() == len(body) + 3
    assert fast == [protocol.TopicAnswer(n, c, m) for n, c, m in decoded.topics]
    for cut in (1, 7, len(body) // 2, len(body) - 1):
        with pytest.raises(ValueError):
            protocol.CreateTopicsResponseV4.decode(BytesIO(body[:cut]))
