"""The hand-written Metadata v12 decoder's typed records hold exactly what Kafka's generated
messages (kio, the product's wire for every other version) read, and what aiokafka's generic
Schema decoding gives: on real answers from both clusters, and on edge cases real clusters
rarely send. (A null array, which brokers never send in these answers, reads as an empty one.)
The CreateTopics and DeleteTopics answers, read by kio, become the same records as before.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from io import BytesIO
from typing import Any

import pytest

from kafka_tui.admin import KafkaAdmin, TopicSpec, protocol
from tests import wire_schemas
from tests.wire_schemas import tag as _tag

GENERIC = wire_schemas._response(3, 12, wire_schemas.METADATA_RESPONSE_SCHEMA)
METADATA_RESPONSE_SCHEMA = wire_schemas.METADATA_RESPONSE_SCHEMA


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


def _untagged(record: Any) -> Any:
    """kio's readers keep no unknown tagged fields; the hand decoder does (and nothing reads
    them)."""
    if isinstance(record, dict):
        return {k: _untagged(v) for k, v in record.items() if k != "tags"}
    if isinstance(record, list):
        return [_untagged(v) for v in record]
    return record


def both_ways(body: bytes, *, unknown_tags: bool = False) -> tuple[dict[str, Any], dict[str, Any]]:
    """The hand decoder's records, and aiokafka's generic decoding; without `unknown_tags`
    (which kio refuses: see test_kio_refuses_unknown_tagged_fields) the hand decoder is first
    held to kio's reading of the same bytes."""
    fast, end = protocol.decode_metadata_response(b"header" + body, 6)
    assert end == len(body) + 6, "the decoder must stop exactly at the end"
    if not unknown_tags:
        kio_twelve = protocol.metadata_answer(_kio_v12(body))
        assert _untagged(as_object(kio_twelve)) == _untagged(as_object(fast))
    return as_object(fast), nulls_as_empty(GENERIC.decode(BytesIO(body)).to_object())


def _kio_v12(body: bytes) -> Any:
    from kafka_tui.admin import wire

    response, end = wire.decode(protocol.MetadataRequest.API.response_type(12), body)
    assert end == len(body)
    return response


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
    body = METADATA_RESPONSE_SCHEMA.encode([12, brokers, None, -1, topics, {}])
    fast, generic = both_ways(body, unknown_tags=True)
    assert fast == generic
    assert fast["topics"][0]["partitions"][0]["replica_nodes"] == list(range(40))
    assert fast["topics"][0]["partitions"][0]["isr_nodes"] == []  # null
    empty = METADATA_RESPONSE_SCHEMA.encode([0, [], "c", 1, [], {}])
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
    body = METADATA_RESPONSE_SCHEMA.encode([1, [], "c", 1, topics, {}])
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
    body = METADATA_RESPONSE_SCHEMA.encode([0, [], "c", 1, topics, {}])
    for cut in (1, 5, 12, len(body) - 20, len(body) - 1):
        with pytest.raises(ValueError):
            protocol.decode_metadata_response(body[:cut])


CREATE_GENERIC = wire_schemas._response(19, 7, wire_schemas.CREATE_TOPICS_RESPONSE_SCHEMA)


def kio_read(request: Any, version: int, body: bytes) -> Any:
    """`body` read as the product reads that version's answer (kio), to its end."""
    answer, end = request.read(version)(body, 0)
    assert end == len(body), "the reader must stop exactly at the end"
    return answer


def test_create_topics_answers_decode_as_aiokafka_decodes_them_but_the_configs() -> None:
    """Each topic's CreateTopics v7 answer holds what aiokafka's generic decoding gives, with
    long and null strings, tagged fields and many configs (which kafka-tui never reads)."""
    configs = [
        ("k" * 150, "v" * 300, False, 5, False, {}),
        ("x", None, True, 1, True, {}),
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
            {},
        ),
        ("ünï", "AAAAAAAAAAAAAAAAAAAAAQ", 0, None, 1, 1, [], {}),
    ]
    body = wire_schemas.CREATE_TOPICS_RESPONSE_SCHEMA.encode([7, topics, {}])
    request = protocol.CreateTopicsRequest([], 0, False)
    fast = protocol.CreateTopicsRequest.topic_answers(kio_read(request, 7, body))
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
            request.read(7)(body[:cut], 0)


DELETE_GENERIC = wire_schemas._response(20, 6, wire_schemas.DELETE_TOPICS_RESPONSE_SCHEMA)


def test_delete_topics_answers_decode_as_aiokafka_decodes_them() -> None:
    """The DeleteTopics v6 answers equal aiokafka's generic decoding: ids and none, null
    and long messages, non-ASCII names, tagged fields; a cut answer is an error."""
    request = protocol.DeleteTopicsRequest([], 0)
    responses = [
        ("orders", "AQIDBAUGBwgJCgsMDQ4PEA", 0, None, {}),
        ("gone", None, 3, "This server does not host this topic-partition." * 5, {}),
        ("ünï" * 60, "AAAAAAAAAAAAAAAAAAAAAQ", 41, "", {}),
    ]
    for topics in (responses, responses * 700, []):
        body = wire_schemas.DELETE_TOPICS_RESPONSE_SCHEMA.encode([7, topics, {}])
        fast = protocol.DeleteTopicsRequest.topic_answers(kio_read(request, 6, body))
        generic = DELETE_GENERIC.decode(BytesIO(body)).to_object()
        assert fast == [
            protocol.TopicAnswer(t["name"], t["error_code"], t["error_message"], t["topic_id"])
            for t in generic["responses"] or []
        ]
        assert len(fast) == len(topics)
    body = wire_schemas.DELETE_TOPICS_RESPONSE_SCHEMA.encode([7, responses, {}])
    for cut in (1, 9, len(body) // 2, len(body) - 1):
        with pytest.raises(ValueError):
            request.read(6)(body[:cut], 0)


def test_create_topics_v4_answers_decode_as_aiokafka_decodes_them() -> None:
    """The CreateTopics v4 answers give what aiokafka's generic decoding of the same
    schema gives, with null and long messages and non-ASCII names."""
    topics = [
        ("orders", 0, None),
        ("taken", 36, "Topic 'taken' already exists." * 20),
        ("ünï" * 60, 37, ""),
    ] * 3
    body = wire_schemas.CREATE_TOPICS_V4_RESPONSE_SCHEMA.encode([5, topics])
    generic = wire_schemas._response(19, 4, wire_schemas.CREATE_TOPICS_V4_RESPONSE_SCHEMA)
    decoded = generic.decode(BytesIO(body))
    request = protocol.CreateTopicsRequest([], 0, False, details=False)
    fast = protocol.CreateTopicsRequest.topic_answers(kio_read(request, 4, body))
    assert fast == [protocol.TopicAnswer(n, c, m) for n, c, m in decoded.topics]
    for cut in (1, 7, len(body) // 2, len(body) - 1):
        with pytest.raises(ValueError):
            request.read(4)(body[:cut], 0)


def test_kio_refuses_unknown_tagged_fields_and_error_codes() -> None:
    """A fact of kio 0.6.5 (the generated wire), pinned: Kafka's protocol says a reader skips
    tagged fields it does not know, and a broker may send error codes newer than the reader;
    kio's reader refuses both. kafka-tui reports that as a ValueError naming the message
    (not a crash), and Metadata v12, the one answer a broker is most likely to extend, is
    read by the hand decoder, which skips unknown tags."""
    request = protocol.DeleteTopicsRequest([], 0)
    tagged = [("orders", None, 0, None, {1: _tag(b"\0\x05")})]
    with pytest.raises(ValueError, match=r"DeleteTopicsResponse.*tagged field"):
        request.read(6)(wire_schemas.DELETE_TOPICS_RESPONSE_SCHEMA.encode([0, tagged, {}]), 0)
    unknown_code = [("orders", None, 9999, None, {})]
    with pytest.raises(ValueError, match=r"DeleteTopicsResponse.*9999"):
        request.read(6)(wire_schemas.DELETE_TOPICS_RESPONSE_SCHEMA.encode([0, unknown_code, {}]), 0)
    partition = (0, 0, 1, 0, [1], [1], [], {7: _tag(b"new")})
    body = METADATA_RESPONSE_SCHEMA.encode(
        [0, [], "c", 1, [(0, "t", None, False, [partition], 0, {})], {}]
    )
    assert protocol.decode_metadata_response(body)[0].topics[0].partitions[0].replica_nodes == (1,)
