"""Kafka protocol messages that aiokafka 0.14 lacks, sent through aiokafka's own client.

aiokafka stops at Metadata v5 / CreateTopics v3, its Metadata request may auto-create topics,
and it has no DescribeCluster, IncrementalAlterConfigs or flexible DescribeConfigs. The
structs here follow the JSON schemas under Kafka's clients/src/main/resources/common/message/.
Each message is defined at one flexible version (compact strings and arrays, tagged fields)
that both Kafka 3.9 and 4.x accept, except DescribeCluster (v1 on ZooKeeper-mode brokers,
v2 with fenced brokers on 4.x); aiokafka checks the version against the broker's
ApiVersions per connection.
"""

from __future__ import annotations

import base64
import struct
from collections import Counter
from io import BytesIO
from typing import Any, NamedTuple, TypeVar

from aiokafka.protocol.api import Request, RequestStruct, Response
from aiokafka.protocol.types import (
    AbstractType,
    Array,
    Boolean,
    CompactArray,
    CompactString,
    Int8,
    Int16,
    Int32,
    Schema,
    String,
    TaggedFields,
)

Field = tuple[str, Any]


class Uuid(AbstractType[str | None]):
    """Kafka's 16-byte Uuid, shown as Kafka shows it (URL-safe base64, no padding).

    The all-zero Uuid means "none" and decodes to None.
    """

    ZERO = b"\0" * 16

    @classmethod
    def encode(cls, value: str | None) -> bytes:
        if not value:
            return cls.ZERO
        return base64.urlsafe_b64decode(value + "==")

    @classmethod
    def decode(cls, data: BytesIO) -> str | None:
        raw = data.read(16)
        if len(raw) != 16:
            raise ValueError("Buffer underrun decoding Uuid")
        if raw == cls.ZERO:
            return None
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    @classmethod
    def repr(cls, value: str | None) -> str:
        return repr(value)


def _flexible_request(
    api_key: int, version: int, schema: Schema, response: type[Response]
) -> type[RequestStruct]:
    attrs: dict[str, Any] = {
        "API_KEY": api_key,
        "API_VERSION": version,
        "SCHEMA": schema,
        "RESPONSE_TYPE": response,
        "FLEXIBLE_VERSION": True,
    }
    return type(f"Request{api_key}_v{version}", (RequestStruct,), attrs)


def _response(api_key: int, version: int, schema: Schema) -> type[Response]:
    attrs = {"API_KEY": api_key, "API_VERSION": version, "SCHEMA": schema}
    return type(f"Response{api_key}_v{version}", (Response,), attrs)


STRING = CompactString("utf-8")
TAGS: Field = ("tags", TaggedFields)
INT32_ARRAY = CompactArray(Int32)


def _array(*fields: Field) -> CompactArray:
    """A compact array of structs; every flexible struct ends in its tagged fields."""
    return CompactArray(Schema(*fields, TAGS))


_ERROR_RESULTS = _array(("name", STRING), ("error_code", Int16), ("error_message", STRING))


# -- DescribeCluster (60): v2 (Kafka 3.9+ on KRaft) lists registered-but-fenced brokers -----


def _describe_cluster_response(version: int) -> type[Response]:
    broker: list[Field] = [("broker_id", Int32), ("host", STRING), ("port", Int32)]
    broker.append(("rack", STRING))
    if version >= 2:
        broker.append(("is_fenced", Boolean))
    fields: list[Field] = [
        ("throttle_time_ms", Int32),
        ("error_code", Int16),
        ("error_message", STRING),
    ]
    if version >= 1:
        fields.append(("endpoint_type", Int8))
    fields += [
        ("cluster_id", STRING),
        ("controller_id", Int32),
        ("brokers", _array(*broker)),
        ("cluster_authorized_operations", Int32),
    ]
    return _response(60, version, Schema(*fields, TAGS))


def _describe_cluster_request(version: int) -> type[RequestStruct]:
    fields: list[Field] = [("include_cluster_authorized_operations", Boolean)]
    if version >= 1:
        fields.append(("endpoint_type", Int8))
    if version >= 2:
        fields.append(("include_fenced_brokers", Boolean))
    return _flexible_request(
        60, version, Schema(*fields, TAGS), _describe_cluster_response(version)
    )


class ClusterBroker(NamedTuple):
    broker_id: int
    host: str
    port: int
    rack: str | None
    is_fenced: bool  # False before v2, which does not say


class ClusterAnswer(NamedTuple):
    error_code: int
    error_message: str | None
    cluster_id: str | None
    controller_id: int  # -1: unknown
    brokers: list[ClusterBroker]
    lists_fenced_brokers: bool  # v2+ (and at least one broker listed)


class DescribeClusterRequest(Request[RequestStruct]):
    API_KEY = 60

    def __init__(self, include_fenced_brokers: bool = True) -> None:
        self.include_fenced_brokers = include_fenced_brokers

    @staticmethod
    def answer(response: Response) -> ClusterAnswer:
        raw = response.to_object()
        brokers = raw["brokers"] or []
        return ClusterAnswer(
            raw["error_code"],
            raw["error_message"],
            raw["cluster_id"],
            raw["controller_id"],
            [
                ClusterBroker(
                    b["broker_id"], b["host"], b["port"], b["rack"], bool(b.get("is_fenced"))
                )
                for b in brokers
            ],
            bool(brokers) and "is_fenced" in brokers[0],
        )

    def build(self, request_struct_class: type[RequestStruct]) -> RequestStruct:
        version = request_struct_class.API_VERSION
        args: list[Any] = [False]
        if version >= 1:
            args.append(1)  # endpoint type: brokers
        if version >= 2:
            args.append(self.include_fenced_brokers)
        return request_struct_class(*args, {})


# -- Metadata (3) v12: topic ids, and AllowAutoTopicCreation=false so describing never creates

METADATA_RESPONSE_SCHEMA = Schema(
    ("throttle_time_ms", Int32),
    (
        "brokers",
        _array(("node_id", Int32), ("host", STRING), ("port", Int32), ("rack", STRING)),
    ),
    ("cluster_id", STRING),
    ("controller_id", Int32),
    (
        "topics",
        _array(
            ("error_code", Int16),
            ("name", STRING),
            ("topic_id", Uuid),
            ("is_internal", Boolean),
            (
                "partitions",
                _array(
                    ("error_code", Int16),
                    ("partition_index", Int32),
                    ("leader_id", Int32),
                    ("leader_epoch", Int32),
                    ("replica_nodes", INT32_ARRAY),
                    ("isr_nodes", INT32_ARRAY),
                    ("offline_replicas", INT32_ARRAY),
                ),
            ),
            ("topic_authorized_operations", Int32),
        ),
    ),
    TAGS,
)

# Hand-written decoding of METADATA_RESPONSE_SCHEMA into typed records holding what aiokafka's
# to_object() gives (tests/integration/test_metadata_decoding.py compares them). The generic
# decoding (a BytesIO read and a struct call per field, then a second pass for to_object) took
# 230-340 ms for 10,000 topics / 30,000 partitions; this takes 50-80 ms (bench/load_decode.py).
_INT16 = struct.Struct(">h")
_INT32 = struct.Struct(">i")
_PARTITION_HEAD = struct.Struct(">hiii")  # error code, index, leader, leader epoch
_INT32_RUNS = [struct.Struct(f">{n}i") for n in range(16)]


def _uvarint(buf: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
        if shift > 28:
            raise ValueError(f"Invalid unsigned varint {value}")


def _compact_string(buf: bytes, pos: int) -> tuple[str | None, int]:
    size, pos = _uvarint(buf, pos)
    if size == 0:
        return None, pos
    end = pos + size - 1
    if end > len(buf):
        raise ValueError("Buffer underrun decoding string")
    return buf[pos:end].decode(), end


def _uuid(buf: bytes, pos: int) -> tuple[str | None, int]:
    raw = buf[pos : pos + 16]
    if len(raw) != 16:
        raise ValueError("Buffer underrun decoding Uuid")
    return (None if raw == Uuid.ZERO else base64.urlsafe_b64encode(raw)[:22].decode()), pos + 16


def _int32_tuple(buf: bytes, pos: int) -> tuple[tuple[int, ...], int]:
    """A compact array of int32 (null reads as empty)."""
    count = buf[pos] - 1
    if 0 <= count < len(_INT32_RUNS):
        run, pos = _INT32_RUNS[count], pos + 1
    else:  # null, long, or a length of more than one byte
        count, pos = _uvarint(buf, pos)
        if count == 0:
            return (), pos
        count -= 1
        run = struct.Struct(f">{count}i")
    return run.unpack_from(buf, pos), pos + 4 * count


def _tagged_fields(buf: bytes, pos: int) -> tuple[dict[int, bytes], int]:
    count, pos = _uvarint(buf, pos)
    tags: dict[int, bytes] = {}
    previous = -1
    for _ in range(count):
        tag, pos = _uvarint(buf, pos)
        if tag <= previous:
            raise ValueError(f"Invalid or out-of-order tag {tag}")
        previous = tag
        size, pos = _uvarint(buf, pos)
        tags[tag] = buf[pos : pos + size]
        pos += size
    return tags, pos


class MetadataPartition(NamedTuple):
    error_code: int
    partition_index: int
    leader_id: int  # -1: no leader
    leader_epoch: int
    # Tuples: tuples of ints leave the garbage collector's view (a list stays in it), which
    # makes a full collection at 1,000,000 partitions ~3x cheaper (bench/README.md).
    replica_nodes: tuple[int, ...]
    isr_nodes: tuple[int, ...]
    offline_replicas: tuple[int, ...]
    tags: dict[int, bytes]


class MetadataTopic(NamedTuple):
    error_code: int
    name: str
    topic_id: str | None
    is_internal: bool
    # Empty when the partitions were counted, not decoded (`partitions=False`).
    partitions: list[MetadataPartition]
    partition_count: int
    topic_authorized_operations: int
    tags: dict[int, bytes]


class MetadataBroker(NamedTuple):
    node_id: int
    host: str
    port: int
    rack: str | None
    tags: dict[int, bytes]


class Metadata(NamedTuple):
    """A Metadata v12 answer. Tuples, built with tuple.__new__: 30,000 partitions' records
    cost what their dicts did (a NamedTuple's own constructor took ~2x as long)."""

    throttle_time_ms: int
    brokers: list[MetadataBroker]
    cluster_id: str | None
    controller_id: int
    topics: list[MetadataTopic]
    tags: dict[int, bytes]


class MetadataLoad(NamedTuple):
    """A Metadata (all topics) answer counted per broker: replicas, and preferred leaders
    (each partition's first replica), of the topics without an error. No partition record
    and no topic name is made (see decode_metadata_load)."""

    throttle_time_ms: int
    brokers: list[MetadataBroker]
    cluster_id: str | None
    controller_id: int
    replicas: dict[int, int]
    leaders: dict[int, int]
    topics: int
    partitions: int


_new = tuple.__new__


def _metadata_partitions(buf: bytes, pos: int) -> tuple[list[MetadataPartition], int]:
    count, pos = _uvarint(buf, pos)
    partitions: list[MetadataPartition] = []
    head, int32s = _PARTITION_HEAD.unpack_from, _int32_tuple
    add = partitions.append
    for _ in range(count - 1):
        error_code, index, leader, epoch = head(buf, pos)
        replicas, pos = int32s(buf, pos + 14)
        isr, pos = int32s(buf, pos)
        offline, pos = int32s(buf, pos)
        if buf[pos]:
            tags, pos = _tagged_fields(buf, pos)
        else:
            tags, pos = {}, pos + 1
        add(
            _new(
                MetadataPartition, (error_code, index, leader, epoch, replicas, isr, offline, tags)
            )
        )
    return partitions, pos


def _skip_int32_arrays(buf: bytes, pos: int, arrays: int) -> int:
    for _array in range(arrays):
        size = buf[pos]
        if size < 0x80:
            pos += 1
        else:
            size, pos = _uvarint(buf, pos)
        pos += 4 * max(size - 1, 0)
    return pos


def _skip_partitions(buf: bytes, pos: int) -> tuple[list[MetadataPartition], int]:
    """Step over a topic's partitions: none is decoded (only their count is read)."""
    count, pos = _uvarint(buf, pos)
    for _ in range(count - 1):
        # error code, index, leader, leader epoch; replicas, ISR, offline replicas
        pos = _skip_int32_arrays(buf, pos + 14, 3)
        pos = pos + 1 if buf[pos] == 0 else _tagged_fields(buf, pos)[1]
    return [], pos


def _partition_count(buf: bytes, pos: int) -> int:
    count = buf[pos]
    return count - 1 if 0 < count < 0x80 else max(_uvarint(buf, pos)[0] - 1, 0)


def _metadata_topics(
    buf: bytes, pos: int, partitions: bool = True
) -> tuple[list[MetadataTopic], int]:
    count, pos = _uvarint(buf, pos)
    topics: list[MetadataTopic] = []
    read_partitions = _metadata_partitions if partitions else _skip_partitions
    for _ in range(count - 1):
        (error_code,) = _INT16.unpack_from(buf, pos)
        name, pos = _compact_string(buf, pos + 2)
        topic_id, pos = _uuid(buf, pos)
        internal = buf[pos] != 0
        listed = _partition_count(buf, pos + 1)
        decoded, pos = read_partitions(buf, pos + 1)
        (operations,) = _INT32.unpack_from(buf, pos)
        tags, pos = _tagged_fields(buf, pos + 4)
        topics.append(
            _new(
                MetadataTopic,
                (error_code, name or "", topic_id, internal, decoded, listed, operations, tags),
            )
        )
    return topics, pos


def _metadata_brokers(buf: bytes, pos: int) -> tuple[list[MetadataBroker], int]:
    count, pos = _uvarint(buf, pos)
    brokers: list[MetadataBroker] = []
    for _ in range(count - 1):
        (node_id,) = _INT32.unpack_from(buf, pos)
        host, pos = _compact_string(buf, pos + 4)
        (port,) = _INT32.unpack_from(buf, pos)
        rack, pos = _compact_string(buf, pos + 4)
        tags, pos = _tagged_fields(buf, pos)
        brokers.append(MetadataBroker(node_id, host or "", port, rack, tags))
    return brokers, pos


def decode_metadata_response(
    buf: bytes, pos: int = 0, partitions: bool = True
) -> tuple[Metadata, int]:
    """A Metadata v12 response body (after the response header), and the position after
    it. `partitions=False`: each topic's partitions are counted (`partition_count`), not
    decoded (a deletion's check of 2,000 topics needs their names and ids, not 6,000
    replica lists). A null array (brokers never send one here) reads as empty, a null name
    or host as ""."""
    try:
        (throttle,) = _INT32.unpack_from(buf, pos)
        brokers, pos = _metadata_brokers(buf, pos + 4)
        cluster_id, pos = _compact_string(buf, pos)
        (controller,) = _INT32.unpack_from(buf, pos)
        topics, pos = _metadata_topics(buf, pos + 4, partitions)
        tags, pos = _tagged_fields(buf, pos)
    except (IndexError, struct.error) as exc:
        raise ValueError(f"Buffer underrun decoding the Metadata response: {exc}") from None
    if pos > len(buf):
        raise ValueError("Buffer underrun decoding the Metadata response")
    return Metadata(throttle, brokers, cluster_id, controller, topics, tags), pos


def decode_metadata_load(buf: bytes, pos: int = 0) -> tuple[MetadataLoad, int]:
    """A Metadata v12 answer counted as load, in one pass: per broker, its replicas and the
    partitions it is the first replica of (what the placer balances against), over the
    topics without an error. Topic names, ids and ISR / offline lists are stepped over; per
    partition, one replica-list unpack appended to one flat list, counted once at the end
    (collections.Counter counts in C). A placement needs only this of the topics it does not
    touch (issue 30)."""
    nodes: list[int] = []
    firsts: list[int] = []
    extend, first = nodes.extend, firsts.append
    runs, last_run = _INT32_RUNS, len(_INT32_RUNS)
    partitions = topics = 0
    try:
        (throttle,) = _INT32.unpack_from(buf, pos)
        brokers, pos = _metadata_brokers(buf, pos + 4)
        cluster_id, pos = _compact_string(buf, pos)
        (controller,) = _INT32.unpack_from(buf, pos)
        count, pos = _uvarint(buf, pos + 4)
        for _ in range(count - 1):
            failed = buf[pos] or buf[pos + 1]  # the int16 error code
            size = buf[pos + 2]  # the name: a compact string, 1 + its length
            if size < 0x80:
                pos += 3 + max(size - 1, 0)
            else:
                size, pos = _uvarint(buf, pos + 2)
                pos += size - 1
            listed, pos = _uvarint(buf, pos + 17)  # after the topic id and is_internal
            if failed:  # left out, as `list_topics` leaves it out
                for _partition in range(listed - 1):
                    pos = _skip_int32_arrays(buf, pos + 14, 3)
                    pos = pos + 1 if buf[pos] == 0 else _tagged_fields(buf, pos)[1]
            else:
                topics += 1
                partitions += max(listed - 1, 0)
                for _partition in range(listed - 1):
                    # error code, index, leader, leader epoch: 14 bytes; then the replicas
                    size = buf[pos + 14]
                    if 1 < size < last_run:
                        replicas = runs[size - 1].unpack_from(buf, pos + 15)
                        pos += 4 * size + 11
                        extend(replicas)
                        first(replicas[0])
                    else:
                        replicas, pos = _int32_tuple(buf, pos + 14)
                        if replicas:
                            extend(replicas)
                            first(replicas[0])
                    # ISR and offline replicas, stepped over; then the tagged fields
                    size = buf[pos]
                    if size < 0x80:
                        pos += 4 * size - 3 if size else 1
                    else:
                        pos = _skip_int32_arrays(buf, pos, 1)
                    size = buf[pos]
                    if size < 0x80:
                        pos += 4 * size - 3 if size else 1
                    else:
                        pos = _skip_int32_arrays(buf, pos, 1)
                    pos = pos + 1 if buf[pos] == 0 else _tagged_fields(buf, pos)[1]
            pos += 4  # topic authorized operations
            pos = pos + 1 if buf[pos] == 0 else _tagged_fields(buf, pos)[1]
        _, pos = _tagged_fields(buf, pos)
    except (IndexError, struct.error) as exc:
        raise ValueError(f"Buffer underrun decoding the Metadata response: {exc}") from None
    if pos > len(buf):
        raise ValueError("Buffer underrun decoding the Metadata response")
    # Placeholders (negative ids) are not load; brokers never send them.
    replica_counts = {b: n for b, n in Counter(nodes).items() if b >= 0}
    leader_counts = {b: n for b, n in Counter(firsts).items() if b >= 0}
    load = MetadataLoad(
        throttle, brokers, cluster_id, controller, replica_counts, leader_counts, topics, partitions
    )
    return load, pos


_Decoded = TypeVar("_Decoded", bound="OnePassResponse")


class OnePassResponse(Response):
    """A response decoded in one pass by `body(buf, pos)` into typed records (aiokafka's
    generic decoding and to_object took several times as long on 2,000-topic answers):
    `answer` holds them."""

    def __init__(self, answer: Any) -> None:
        super().__init__()  # the generic fields, None: `answer` holds the decoded records
        self.answer = answer

    @classmethod
    def body(cls, buf: bytes, pos: int) -> tuple[Any, int]:
        raise NotImplementedError

    @classmethod
    def decode(cls: type[_Decoded], data: BytesIO | bytes) -> _Decoded:
        if isinstance(data, bytes):
            data = BytesIO(data)
        decoded, end = cls.body(data.getvalue(), data.tell())
        data.seek(end)
        return cls(decoded)


class MetadataResponse(OnePassResponse):
    API_KEY = 3
    API_VERSION = 12
    SCHEMA = METADATA_RESPONSE_SCHEMA
    PARTITIONS = True

    @classmethod
    def body(cls, buf: bytes, pos: int) -> tuple[Metadata, int]:
        return decode_metadata_response(buf, pos, cls.PARTITIONS)


class MetadataNamesResponse(MetadataResponse):
    """The same answer with partitions counted, not decoded."""

    PARTITIONS = False


class MetadataLoadResponse(OnePassResponse):
    """The same answer counted per broker (decode_metadata_load)."""

    API_KEY = 3
    API_VERSION = 12
    SCHEMA = METADATA_RESPONSE_SCHEMA

    @classmethod
    def body(cls, buf: bytes, pos: int) -> tuple[MetadataLoad, int]:
        return decode_metadata_load(buf, pos)


_METADATA_V12_SCHEMA = Schema(
    ("topics", _array(("topic_id", Uuid), ("name", STRING))),
    ("allow_auto_topic_creation", Boolean),
    ("include_topic_authorized_operations", Boolean),
    TAGS,
)
_METADATA_V12 = _flexible_request(3, 12, _METADATA_V12_SCHEMA, MetadataResponse)
_METADATA_V12_NAMES = _flexible_request(3, 12, _METADATA_V12_SCHEMA, MetadataNamesResponse)
_METADATA_V12_LOAD = _flexible_request(3, 12, _METADATA_V12_SCHEMA, MetadataLoadResponse)


class MetadataRequest(Request[RequestStruct]):
    """Metadata for `topics` (None: every topic). Never asks the broker to create a topic.
    `partitions=False`: the answer's partitions are only counted."""

    API_KEY = 3

    def __init__(self, topics: list[str] | None, *, partitions: bool = True) -> None:
        self.topics = topics
        self.partitions = partitions

    def prepare(self, versions: dict[int, tuple[int, int]]) -> RequestStruct:
        if self.partitions:
            return super().prepare(versions)
        low, high = versions.get(self.API_KEY, (0, -1))
        if not low <= 12 <= high:
            return super().prepare(versions)
        return self.build(_METADATA_V12_NAMES)

    def build(self, request_struct_class: type[RequestStruct]) -> RequestStruct:
        topics: Any = None if self.topics is None else [(None, name, {}) for name in self.topics]
        return request_struct_class(topics, False, False, {})

    @staticmethod
    def answer(response: Response) -> Metadata:
        assert isinstance(response, MetadataResponse), type(response)
        metadata: Metadata = response.answer
        return metadata


class MetadataLoadRequest(MetadataRequest):
    """Metadata for every topic, answered as per-broker counts (decode_metadata_load)."""

    def __init__(self) -> None:
        super().__init__(None)

    @staticmethod
    def load(response: Response) -> MetadataLoad:
        assert isinstance(response, MetadataLoadResponse), type(response)
        load: MetadataLoad = response.answer
        return load


class MetadataBodyResponse(Response):
    """The same answer kept as its undecoded bytes, so that several decoders can read one
    answer (bench/load_decode.py, tests/integration/test_metadata_decoding.py)."""

    API_KEY = 3
    API_VERSION = 12
    SCHEMA = Schema()
    body: bytes

    @classmethod
    def decode(cls, data: BytesIO | bytes) -> MetadataBodyResponse:
        response = cls()
        response.body = data.read() if isinstance(data, BytesIO) else data
        return response


class MetadataBodyRequest(MetadataRequest):
    """Metadata for `topics` (None: every topic), answered as a MetadataBodyResponse."""

    @staticmethod
    def body(response: Response) -> bytes:
        assert isinstance(response, MetadataBodyResponse), type(response)
        return response.body


# -- CreateTopics (19) v7 ------------------------------------------------------------------

_CONFIG_RESULT = (
    ("name", STRING),
    ("value", STRING),
    ("read_only", Boolean),
    ("config_source", Int8),
    ("is_sensitive", Boolean),
)
CREATE_TOPICS_RESPONSE_SCHEMA = Schema(
    ("throttle_time_ms", Int32),
    (
        "topics",
        _array(
            ("name", STRING),
            ("topic_id", Uuid),
            ("error_code", Int16),
            ("error_message", STRING),
            ("num_partitions", Int32),
            ("replication_factor", Int16),
            ("configs", _array(*_CONFIG_RESULT)),
        ),
    ),
    TAGS,
)


class TopicAnswer(NamedTuple):
    """One topic's answer to a change (CreateTopics, CreatePartitions, DeleteTopics,
    IncrementalAlterConfigs: `name` is the resource's). A tuple: a bulk change gets 2,000."""

    name: str
    error_code: int
    error_message: str | None
    topic_id: str | None = None  # CreateTopics v7, DeleteTopics (KRaft)
    num_partitions: int | None = None  # CreateTopics v7
    replication_factor: int | None = None  # CreateTopics v7
    # Not on the wire: the answer was lost and the outcome read back (connection.py says why).
    recovered: str | None = None


def _skip_configs(buf: bytes, pos: int) -> int:
    """Step over a compact array of config results (name, value, 3 bytes, tagged fields);
    lengths below 128 take one byte, the common case, read inline."""
    count, pos = _uvarint(buf, pos)
    for _ in range(max(count - 1, 0)):
        for _field in range(2):  # name, value
            size = buf[pos]
            if size < 0x80:
                pos += 1
            else:
                size, pos = _uvarint(buf, pos)
            pos += max(size - 1, 0)
        pos += 3  # read_only, config_source, is_sensitive
        if buf[pos] == 0:
            pos += 1
        else:
            _, pos = _tagged_fields(buf, pos)
    return pos


def decode_create_topics_response(buf: bytes, pos: int = 0) -> tuple[list[TopicAnswer], int]:
    """A CreateTopics v7 response body in one pass: each topic's answer. Each topic's
    `configs` (every config of the new topic: some 35 entries a topic, 70,000 for 2,000
    topics, which aiokafka's generic decoding took seconds to build) and tagged fields are
    skipped: kafka-tui never reads them."""
    try:
        _INT32.unpack_from(buf, pos)  # throttle time
        count, pos = _uvarint(buf, pos + 4)
        topics: list[TopicAnswer] = []
        for _ in range(max(count - 1, 0)):
            name, pos = _compact_string(buf, pos)
            topic_id, pos = _uuid(buf, pos)
            (error_code,) = _INT16.unpack_from(buf, pos)
            message, pos = _compact_string(buf, pos + 2)
            (partitions,) = _INT32.unpack_from(buf, pos)
            (factor,) = _INT16.unpack_from(buf, pos + 4)
            pos = _skip_configs(buf, pos + 6)
            _, pos = _tagged_fields(buf, pos)
            topics.append(
                TopicAnswer(name or "", error_code, message, topic_id, partitions, factor)
            )
        _, pos = _tagged_fields(buf, pos)
    except (IndexError, struct.error) as exc:
        raise ValueError(f"Buffer underrun decoding the CreateTopics response: {exc}") from None
    if pos > len(buf):
        raise ValueError("Buffer underrun decoding the CreateTopics response")
    return topics, pos


class CreateTopicsResponse(OnePassResponse):
    """Configs skipped (see decode_create_topics_response)."""

    API_KEY = 19
    API_VERSION = 7
    SCHEMA = CREATE_TOPICS_RESPONSE_SCHEMA

    @classmethod
    def body(cls, buf: bytes, pos: int) -> tuple[list[TopicAnswer], int]:
        return decode_create_topics_response(buf, pos)


_CREATE_TOPICS_V7 = _flexible_request(
    19,
    7,
    Schema(
        (
            "topics",
            _array(
                ("name", STRING),
                ("num_partitions", Int32),
                ("replication_factor", Int16),
                ("assignments", _array(("partition_index", Int32), ("broker_ids", INT32_ARRAY))),
                ("configs", _array(("name", STRING), ("value", STRING))),
            ),
        ),
        ("timeout_ms", Int32),
        ("validate_only", Boolean),
        TAGS,
    ),
    CreateTopicsResponse,
)


class CreatableTopic(NamedTuple):
    """A tuple: a bulk create makes 2,000 on the way to its request, and a frozen dataclass
    took ~3x as long to make."""

    name: str
    num_partitions: int  # -1: the broker's default (or the assignment's size)
    replication_factor: int  # -1: the broker's default (or the assignment's size)
    assignments: dict[int, list[int]]
    configs: dict[str, str]


class CreateTopicsRequest(Request[RequestStruct]):
    """v7, or with `details=False` v4: a v5+ answer lists every config of every new topic
    (~35 a topic), which costs the brokers and the client ~0.5 s per 2,000 topics; v4 answers
    name, error and message only (no topic id, no counts)."""

    API_KEY = 19

    def __init__(
        self,
        topics: list[CreatableTopic],
        timeout_ms: int,
        validate_only: bool,
        *,
        details: bool = True,
    ) -> None:
        self.topics = topics
        self.timeout_ms = timeout_ms
        self.validate_only = validate_only
        self.details = details

    def prepare(self, versions: dict[int, tuple[int, int]]) -> RequestStruct:
        low, high = versions.get(self.API_KEY, (0, -1))
        if not self.details and low <= 4 <= high:
            return self.build(_CREATE_TOPICS_V4)
        return super().prepare(versions)

    def build(self, request_struct_class: type[RequestStruct]) -> RequestStruct:
        if request_struct_class.API_VERSION == 4:
            slim: Any = [
                (
                    t.name,
                    t.num_partitions,
                    t.replication_factor,
                    sorted(t.assignments.items()),
                    list(t.configs.items()),
                )
                for t in self.topics
            ]
            return request_struct_class(slim, self.timeout_ms, self.validate_only)
        topics: Any = [
            (
                t.name,
                t.num_partitions,
                t.replication_factor,
                [(p, replicas, {}) for p, replicas in sorted(t.assignments.items())],
                [(k, v, {}) for k, v in t.configs.items()],
                {},
            )
            for t in self.topics
        ]
        return request_struct_class(topics, self.timeout_ms, self.validate_only, {})

    @staticmethod
    def topic_answers(response: Response) -> list[TopicAnswer]:
        assert isinstance(response, CreateTopicsResponse | CreateTopicsResponseV4)
        answers: list[TopicAnswer] = response.answer
        return answers


_STR = String("utf-8")  # nullable: None is sent as length -1


class CreateTopicsResponseV4(OnePassResponse):
    """The v4 answer as the v7 one's dict: the same keys, without id, counts or configs."""

    API_KEY = 19
    API_VERSION = 4
    SCHEMA = Schema(
        ("throttle_time_ms", Int32),
        (
            "topics",
            Array(("name", _STR), ("error_code", Int16), ("error_message", _STR)),
        ),
    )

    @classmethod
    def body(cls, buf: bytes, pos: int) -> tuple[list[TopicAnswer], int]:
        """aiokafka's generic decoding and then to_object took ~4x as long (5 ms per 2,000
        topics, after the controller's answer)."""
        try:
            (count,) = _INT32.unpack_from(buf, pos + 4)  # after the throttle time
            pos += 8
            topics = []
            for _ in range(count):
                name, pos = _nullable_string(buf, pos)
                (code,) = _INT16.unpack_from(buf, pos)
                message, pos = _nullable_string(buf, pos + 2)
                topics.append(TopicAnswer(name or "", code, message))
        except (IndexError, struct.error) as exc:
            raise ValueError(f"Buffer underrun decoding the CreateTopics response: {exc}") from None
        return topics, pos


def _nullable_string(buf: bytes, pos: int) -> tuple[str | None, int]:
    """STRING / NULLABLE_STRING (int16 length, -1: null)."""
    (size,) = _INT16.unpack_from(buf, pos)
    if size < 0:
        return None, pos + 2
    end = pos + 2 + size
    if end > len(buf):
        raise ValueError("Buffer underrun decoding string")
    return buf[pos + 2 : end].decode(), end


def _encode_create_topics_v4(self: RequestStruct) -> bytes:
    """The SCHEMA's bytes, written directly: aiokafka's generic encoder took ~15 ms for 2,000
    topics with explicit assignments. One struct.pack of the whole request, its format
    built as it goes: ~5 ms, against ~8 for a pack per field (tests compare the encodings)."""
    fields = self.__dict__
    topics = fields["topics"]
    formats = [">i"]
    values: list[Any] = [len(topics)]
    layout, add, extend = formats.append, values.append, values.extend

    def text(value: str | None) -> None:
        if value is None:
            layout("h")
            add(-1)
        else:
            data = value.encode()
            layout(f"h{len(data)}s")
            extend((len(data), data))

    for name, partitions, factor, assignments, configs in topics:
        if name is None:
            text(name)
            layout("ihi")
            extend((partitions, factor, len(assignments)))
        else:
            data = name.encode()
            layout(f"h{len(data)}sihi")
            extend((len(data), data, partitions, factor, len(assignments)))
        for index, replicas in assignments:
            layout(f"ii{len(replicas)}i")
            add(index)
            add(len(replicas))
            extend(replicas)
        layout("i")
        add(len(configs))
        for key, value in configs:
            text(key)
            text(value)
    layout("i?")
    extend((fields["timeout_ms"], fields["validate_only"]))
    return struct.pack("".join(formats), *values)


_CREATE_TOPICS_V4 = type(
    "Request19_v4",
    (RequestStruct,),
    {
        "encode": _encode_create_topics_v4,
        "API_KEY": 19,
        "API_VERSION": 4,
        "RESPONSE_TYPE": CreateTopicsResponseV4,
        "SCHEMA": Schema(
            (
                "topics",
                Array(
                    ("name", _STR),
                    ("num_partitions", Int32),
                    ("replication_factor", Int16),
                    ("assignments", Array(("partition_index", Int32), ("replicas", Array(Int32)))),
                    ("configs", Array(("name", _STR), ("value", _STR))),
                ),
            ),
            ("timeout_ms", Int32),
            ("validate_only", Boolean),
        ),
    },
)


# -- CreatePartitions (37) v3 --------------------------------------------------------------

_CREATE_PARTITIONS_V3 = _flexible_request(
    37,
    3,
    Schema(
        (
            "topics",
            _array(
                ("name", STRING),
                ("count", Int32),
                ("assignments", _array(("broker_ids", INT32_ARRAY))),
            ),
        ),
        ("timeout_ms", Int32),
        ("validate_only", Boolean),
        TAGS,
    ),
    _response(37, 3, Schema(("throttle_time_ms", Int32), ("results", _ERROR_RESULTS), TAGS)),
)


class CreatePartitionsRequest(Request[RequestStruct]):
    API_KEY = 37

    def __init__(
        self,
        topics: list[tuple[str, int, list[list[int]] | None]],
        timeout_ms: int,
        validate_only: bool,
    ) -> None:
        self.topics = topics
        self.timeout_ms = timeout_ms
        self.validate_only = validate_only

    def build(self, request_struct_class: type[RequestStruct]) -> RequestStruct:
        topics: Any = [
            (name, count, None if lists is None else [(r, {}) for r in lists], {})
            for name, count, lists in self.topics
        ]
        return request_struct_class(topics, self.timeout_ms, self.validate_only, {})

    @staticmethod
    def topic_answers(response: Response) -> list[TopicAnswer]:
        return [
            TopicAnswer(r["name"], r["error_code"], r["error_message"])
            for r in response.to_object()["results"] or []
        ]


# -- DeleteTopics (20) v6 ------------------------------------------------------------------

DELETE_TOPICS_RESPONSE_SCHEMA = Schema(
    ("throttle_time_ms", Int32),
    (
        "responses",
        _array(
            ("name", STRING),
            ("topic_id", Uuid),
            ("error_code", Int16),
            ("error_message", STRING),
        ),
    ),
    TAGS,
)


def decode_delete_topics_response(buf: bytes, pos: int = 0) -> tuple[list[TopicAnswer], int]:
    """A DeleteTopics v6 response body in one pass, each topic's answer (tagged fields
    skipped): aiokafka's generic decoding and to_object took 10-20 ms per 2,000 topics, after
    the answer, this ~2.5. The usual entry (a name under 128 bytes, no message, no tags) is
    read inline."""
    try:
        _INT32.unpack_from(buf, pos)  # throttle time
        count, pos = _uvarint(buf, pos + 4)
        responses: list[TopicAnswer] = []
        for _ in range(max(count - 1, 0)):
            size = buf[pos]
            if 0 < size < 0x80 and pos + size <= len(buf):
                name: str | None = buf[pos + 1 : pos + size].decode()
                pos += size
            else:
                name, pos = _compact_string(buf, pos)
            topic_id, pos = _uuid(buf, pos)
            (error_code,) = _INT16.unpack_from(buf, pos)
            if buf[pos + 2] == 0:
                message, pos = None, pos + 3
            else:
                message, pos = _compact_string(buf, pos + 2)
            pos = pos + 1 if buf[pos] == 0 else _tagged_fields(buf, pos)[1]
            responses.append(TopicAnswer(name or "", error_code, message, topic_id))
        _, pos = _tagged_fields(buf, pos)
    except (IndexError, struct.error) as exc:
        raise ValueError(f"Buffer underrun decoding the DeleteTopics response: {exc}") from None
    if pos > len(buf):
        raise ValueError("Buffer underrun decoding the DeleteTopics response")
    return responses, pos


class DeleteTopicsResponse(OnePassResponse):
    API_KEY = 20
    API_VERSION = 6
    SCHEMA = DELETE_TOPICS_RESPONSE_SCHEMA

    @classmethod
    def body(cls, buf: bytes, pos: int) -> tuple[list[TopicAnswer], int]:
        return decode_delete_topics_response(buf, pos)


_DELETE_TOPICS_V6 = _flexible_request(
    20,
    6,
    Schema(("topics", _array(("name", STRING), ("topic_id", Uuid))), ("timeout_ms", Int32), TAGS),
    DeleteTopicsResponse,
)


class DeleteTopicsRequest(Request[RequestStruct]):
    API_KEY = 20

    def __init__(self, names: list[str], timeout_ms: int) -> None:
        self.names = names
        self.timeout_ms = timeout_ms

    def build(self, request_struct_class: type[RequestStruct]) -> RequestStruct:
        return request_struct_class([(n, None, {}) for n in self.names], self.timeout_ms, {})

    @staticmethod
    def topic_answers(response: Response) -> list[TopicAnswer]:
        assert isinstance(response, DeleteTopicsResponse), type(response)
        answers: list[TopicAnswer] = response.answer
        return answers


# -- DescribeConfigs (32) v4: values with their source -------------------------------------

RESOURCE_TOPIC = 2
RESOURCE_BROKER = 4

_DESCRIBE_CONFIGS_V4 = _flexible_request(
    32,
    4,
    Schema(
        (
            "resources",
            _array(
                ("resource_type", Int8),
                ("resource_name", STRING),
                ("configuration_keys", CompactArray(STRING)),
            ),
        ),
        ("include_synonyms", Boolean),
        ("include_documentation", Boolean),
        TAGS,
    ),
    _response(
        32,
        4,
        Schema(
            ("throttle_time_ms", Int32),
            (
                "results",
                _array(
                    ("error_code", Int16),
                    ("error_message", STRING),
                    ("resource_type", Int8),
                    ("resource_name", STRING),
                    (
                        "configs",
                        _array(
                            *_CONFIG_RESULT,
                            (
                                "synonyms",
                                _array(("name", STRING), ("value", STRING), ("source", Int8)),
                            ),
                            ("config_type", Int8),
                            ("documentation", STRING),
                        ),
                    ),
                ),
            ),
            TAGS,
        ),
    ),
)


class ConfigValue(NamedTuple):
    name: str
    value: str | None  # None for sensitive values
    read_only: bool
    config_source: int
    is_sensitive: bool


class ConfigResource(NamedTuple):
    error_code: int
    error_message: str | None
    resource_type: int
    resource_name: str
    configs: list[ConfigValue]


class DescribeConfigsRequest(Request[RequestStruct]):
    API_KEY = 32

    def __init__(self, resources: list[tuple[int, str]], keys: list[str] | None = None) -> None:
        self.resources = resources
        self.keys = keys  # None: every config

    def build(self, request_struct_class: type[RequestStruct]) -> RequestStruct:
        resources: Any = [(kind, name, self.keys, {}) for kind, name in self.resources]
        return request_struct_class(resources, False, False, {})

    @staticmethod
    def answer(response: Response) -> list[ConfigResource]:
        return [
            ConfigResource(
                r["error_code"],
                r["error_message"],
                r["resource_type"],
                r["resource_name"],
                [
                    ConfigValue(
                        c["name"], c["value"], c["read_only"], c["config_source"], c["is_sensitive"]
                    )
                    for c in r["configs"] or []
                ],
            )
            for r in response.to_object()["results"] or []
        ]


# -- IncrementalAlterConfigs (44) v1 ------------------------------------------------------

OP_SET = 0
OP_DELETE = 1

_INCREMENTAL_ALTER_CONFIGS_V1 = _flexible_request(
    44,
    1,
    Schema(
        (
            "resources",
            _array(
                ("resource_type", Int8),
                ("resource_name", STRING),
                (
                    "configs",
                    _array(("name", STRING), ("config_operation", Int8), ("value", STRING)),
                ),
            ),
        ),
        ("validate_only", Boolean),
        TAGS,
    ),
    _response(
        44,
        1,
        Schema(
            ("throttle_time_ms", Int32),
            (
                "responses",
                _array(
                    ("error_code", Int16),
                    ("error_message", STRING),
                    ("resource_type", Int8),
                    ("resource_name", STRING),
                ),
            ),
            TAGS,
        ),
    ),
)


class IncrementalAlterConfigsRequest(Request[RequestStruct]):
    API_KEY = 44

    def __init__(
        self, topic_ops: list[tuple[str, list[tuple[str, int, str | None]]]], validate_only: bool
    ) -> None:
        self.topic_ops = topic_ops
        self.validate_only = validate_only

    def build(self, request_struct_class: type[RequestStruct]) -> RequestStruct:
        resources: Any = [
            (RESOURCE_TOPIC, topic, [(k, op, v, {}) for k, op, v in ops], {})
            for topic, ops in self.topic_ops
        ]
        return request_struct_class(resources, self.validate_only, {})

    @staticmethod
    def topic_answers(response: Response) -> list[TopicAnswer]:
        return [
            TopicAnswer(r.resource_name, r.error_code, r.error_message)
            for r in altered_resources(response)
        ]


class ResourceAnswer(NamedTuple):
    error_code: int
    error_message: str | None
    resource_type: int
    resource_name: str


def altered_resources(response: Response) -> list[ResourceAnswer]:
    """An IncrementalAlterConfigs answer: one per resource."""
    return [
        ResourceAnswer(r["error_code"], r["error_message"], r["resource_type"], r["resource_name"])
        for r in response.to_object()["responses"] or []
    ]


# Request.__init_subclass__ derives _CLASSES from the generic parameter; ours are built at
# import time, so each request's versions are set once the classes exist.
DescribeClusterRequest._CLASSES = tuple(_describe_cluster_request(v) for v in range(3))
MetadataRequest._CLASSES = (_METADATA_V12,)
MetadataLoadRequest._CLASSES = (_METADATA_V12_LOAD,)
MetadataBodyRequest._CLASSES = (
    _flexible_request(3, 12, _METADATA_V12_SCHEMA, MetadataBodyResponse),
)
CreateTopicsRequest._CLASSES = (_CREATE_TOPICS_V7,)
CreatePartitionsRequest._CLASSES = (_CREATE_PARTITIONS_V3,)
DeleteTopicsRequest._CLASSES = (_DELETE_TOPICS_V6,)
DescribeConfigsRequest._CLASSES = (_DESCRIBE_CONFIGS_V4,)
IncrementalAlterConfigsRequest._CLASSES = (_INCREMENTAL_ALTER_CONFIGS_V1,)
