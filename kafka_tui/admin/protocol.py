"""The topic requests kafka-tui sends, on Kafka's generated wire (wire.py, kio).

Each request sends the highest version both sides know, from the lowest that Kafka 2.1
brokers speak (and Kafka 4.x still accepts, KIP-896) to the newest kafka-tui reads, and its
answer is turned into the admin layer's own records here, whatever the version: a field an
old version lacks reads as absent (no topic id before Kafka 2.8, say). Metadata v12 answers
keep the measured hand decoders of metadata_v12.py; the bulk CreateTopics v4 request keeps
its measured hand encoder (`encode_create_topics_v4`, tested byte for byte against kio's).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any, NamedTuple

from . import hand_wire, wire
from .metadata_v12 import (
    Metadata,
    MetadataBroker,
    MetadataLoad,
    MetadataPartition,
    MetadataTopic,
    decode_metadata_load,
    decode_metadata_response,
)
from .wire import Api, WireRequest, code, millis, nested, shape, topic_id_text

__all__ = [
    "Metadata",
    "MetadataBroker",
    "MetadataLoad",
    "MetadataPartition",
    "MetadataTopic",
    "decode_metadata_load",
    "decode_metadata_response",
]

RESOURCE_TOPIC = 2
RESOURCE_BROKER = 4
OP_SET = 0
OP_DELETE = 1


class TopicAnswer(NamedTuple):
    """One topic's answer to a change (CreateTopics, CreatePartitions, DeleteTopics,
    IncrementalAlterConfigs: `name` is the resource's). A tuple: a bulk change gets 2,000."""

    name: str
    error_code: int
    error_message: str | None
    topic_id: str | None = None  # CreateTopics v7, DeleteTopics v6 (KRaft)
    num_partitions: int | None = None  # CreateTopics v5+
    replication_factor: int | None = None  # CreateTopics v5+
    # Not on the wire: the answer was lost and the outcome read back (connection.py says why).
    recovered: str | None = None


# -- DescribeCluster (60): v2 (Kafka 4.0+) lists registered-but-fenced brokers --------------


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


class DescribeClusterRequest(WireRequest):
    API = Api(60, "DescribeCluster", 0, 2)
    API_KEY = 60

    def __init__(self, include_fenced_brokers: bool = True) -> None:
        self.include_fenced_brokers = include_fenced_brokers

    def message(self, version: int) -> Any:
        return shape(
            self.API.request_type(version),
            include_cluster_authorized_operations=False,
            endpoint_type=1,  # brokers
            include_fenced_brokers=self.include_fenced_brokers,
        )

    def encode_message(self, version: int) -> bytes:
        if version == 2:  # by hand: kio not loaded (hand_wire.py)
            return hand_wire.describe_cluster_v2_request(self.include_fenced_brokers)
        return super().encode_message(version)

    def read(self, version: int) -> Callable[[bytes, int], tuple[Any, int]]:
        return hand_wire.read_describe_cluster_v2 if version == 2 else super().read(version)

    @staticmethod
    def answer(response: Any) -> ClusterAnswer:
        if isinstance(response, hand_wire.Cluster):
            return ClusterAnswer(
                response.error_code,
                response.error_message,
                response.cluster_id,
                response.controller_id,
                [ClusterBroker(*b) for b in response.brokers],
                bool(response.brokers),  # v2 says which are fenced
            )
        brokers: Any = response.brokers or ()
        return ClusterAnswer(
            code(response.error_code),
            response.error_message,
            response.cluster_id,
            response.controller_id,
            [
                ClusterBroker(
                    b.broker_id, b.host, b.port, b.rack, bool(getattr(b, "is_fenced", False))
                )
                for b in brokers
            ],
            bool(brokers) and wire.has(type(brokers[0]), "is_fenced"),
        )


# -- Metadata (3): never auto-creates (v4+), offline replicas (v5+), topic ids (v10+) -------


def metadata_answer(response: Any, partitions: bool = True) -> Metadata:
    """kio's Metadata answer (any version) as the admin layer's records."""
    topics: list[MetadataTopic] = []
    for t in response.topics or ():
        listed = [
            MetadataPartition(
                code(p.error_code),
                p.partition_index,
                p.leader_id,
                getattr(p, "leader_epoch", -1),
                tuple(p.replica_nodes or ()),
                tuple(p.isr_nodes or ()),
                tuple(getattr(p, "offline_replicas", None) or ()),
                {},
            )
            for p in t.partitions or ()
        ]
        topics.append(
            MetadataTopic(
                code(t.error_code),
                t.name or "",
                topic_id_text(getattr(t, "topic_id", None)),
                t.is_internal,
                listed if partitions else [],
                len(t.partitions or ()),
                getattr(t, "topic_authorized_operations", -(2**31)),
                {},
            )
        )
    brokers = [
        MetadataBroker(b.node_id, b.host or "", b.port, b.rack, {}) for b in response.brokers or ()
    ]
    throttle = int(response.throttle_time.total_seconds() * 1000)
    cluster_id = getattr(response, "cluster_id", None)
    return Metadata(throttle, brokers, cluster_id, response.controller_id, topics, {})


class UndecodedMetadata(NamedTuple):
    """A Metadata v12 answer about every topic with their partitions, as bytes: the largest
    answer kafka-tui reads (2,000,000 partitions: seconds to decode), decoded by the caller
    off the event loop (`decode`), so that a screen's keys and redraws do not wait for it
    (issue 52)."""

    data: bytes
    pos: int

    def decode(self) -> Metadata:
        return decode_metadata_response(self.data, self.pos)[0]


class MetadataRequest(WireRequest):
    """Metadata for `topics` (None: every topic). Never asks the broker to create a topic.
    `partitions=False`: the answer's partitions are only counted."""

    API = Api(3, "Metadata", 5, 12)
    API_KEY = 3

    def __init__(self, topics: list[str] | None, *, partitions: bool = True) -> None:
        self.topics = topics
        self.partitions = partitions

    def message(self, version: int) -> Any:
        request = self.API.request_type(version)
        topic = nested(request, "MetadataRequestTopic")
        names = (
            None
            if self.topics is None
            else tuple(shape(topic, name=n, topic_id=None) for n in self.topics)
        )
        return shape(
            request,
            topics=names,
            allow_auto_topic_creation=False,
            include_topic_authorized_operations=False,
        )

    def encode_message(self, version: int) -> bytes:
        if version == 12:  # by hand: kio not loaded (hand_wire.py)
            return hand_wire.metadata_v12_request(self.topics)
        return super().encode_message(version)

    def read(self, version: int) -> Callable[[bytes, int], tuple[Any, int]]:
        if version == 12:
            partitions = self.partitions
            if self.topics is None and partitions and type(self) is MetadataRequest:
                return lambda data, pos: (UndecodedMetadata(data, pos), len(data))
            return lambda data, pos: decode_metadata_response(data, pos, partitions)
        generated = super().read(version)
        partitions = self.partitions

        def read(data: bytes, pos: int) -> tuple[Metadata, int]:
            response, end = generated(data, pos)
            return metadata_answer(response, partitions), end

        return read

    @staticmethod
    def answer(response: Any) -> Metadata:
        assert isinstance(response, Metadata), type(response)
        return response


class MetadataLoadRequest(MetadataRequest):
    """Metadata for every topic, answered as per-broker counts (decode_metadata_load)."""

    def __init__(self) -> None:
        super().__init__(None)

    def read(self, version: int) -> Callable[[bytes, int], tuple[Any, int]]:
        if version == 12:
            return decode_metadata_load
        generated = super().read(version)

        def read(data: bytes, pos: int) -> tuple[MetadataLoad, int]:
            metadata, end = generated(data, pos)
            return load_of(metadata), end

        return read

    @staticmethod
    def load(response: Any) -> MetadataLoad:
        assert isinstance(response, MetadataLoad), type(response)
        return response


def load_of(metadata: Metadata) -> MetadataLoad:
    """A decoded answer counted as decode_metadata_load counts the undecoded one."""
    replicas: dict[int, int] = {}
    leaders: dict[int, int] = {}
    topics = partitions = 0
    for topic in metadata.topics:
        if topic.error_code:
            continue
        topics += 1
        partitions += len(topic.partitions)
        for p in topic.partitions:
            for broker in p.replica_nodes:
                if broker >= 0:
                    replicas[broker] = replicas.get(broker, 0) + 1
            if p.replica_nodes and p.replica_nodes[0] >= 0:
                leaders[p.replica_nodes[0]] = leaders.get(p.replica_nodes[0], 0) + 1
    return MetadataLoad(
        metadata.throttle_time_ms,
        metadata.brokers,
        metadata.cluster_id,
        metadata.controller_id,
        replicas,
        leaders,
        topics,
        partitions,
    )


class MetadataBodyRequest(MetadataRequest):
    """Metadata for `topics` (None: every topic), answered as its undecoded bytes, so that
    several decoders can read one answer (bench/load_decode.py, the decoding tests). The
    version sent is in `version_sent`."""

    version_sent = -1

    def read(self, version: int) -> Callable[[bytes, int], tuple[Any, int]]:
        self.version_sent = version
        return lambda data, pos: (bytes(data[pos:]), len(data))

    @staticmethod
    def body(response: Any) -> bytes:
        assert isinstance(response, bytes), type(response)
        return response


# -- CreateTopics (19) ---------------------------------------------------------------------


class CreatableTopic(NamedTuple):
    """A tuple: a bulk create makes 2,000 on the way to its request, and a frozen dataclass
    took ~3x as long to make."""

    name: str
    num_partitions: int  # -1: the broker's default (or the assignment's size)
    replication_factor: int  # -1: the broker's default (or the assignment's size)
    assignments: dict[int, list[int]]
    configs: dict[str, str]


_INT16 = struct.Struct(">h")


def encode_create_topics_v4(topics: list[CreatableTopic], timeout_ms: int, validate: bool) -> bytes:
    """CreateTopics v4's bytes, written directly: kio's generated writer took ~35 ms for
    2,000 topics with explicit assignments (a tenth of the whole create), this ~5 ms.
    tests/unit/test_request_encoding.py holds it to kio's bytes."""
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
        data = name.encode()
        layout(f"h{len(data)}sihi")
        extend((len(data), data, partitions, factor, len(assignments)))
        for index, replicas in sorted(assignments.items()):
            layout(f"ii{len(replicas)}i")
            add(index)
            add(len(replicas))
            extend(replicas)
        layout("i")
        add(len(configs))
        for key, value in configs.items():
            text(key)
            text(value)
    layout("i?")
    extend((timeout_ms, validate))
    return struct.pack("".join(formats), *values)


class CreateTopicsRequest(WireRequest):
    """v7 (v2 on Kafka 2.1), or with `details=False` v4 where the broker has it: a v5+
    answer lists every config of every new topic (~35 a topic), which costs the brokers and
    the client ~0.5 s per 2,000 topics; v4 answers name, error and message only."""

    API = Api(19, "CreateTopics", 2, 7)
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

    def prepare(self, versions: dict[int, tuple[int, int]]) -> Any:
        low, high = versions.get(self.API_KEY, (0, -1))
        if not self.details and low <= 4 <= high:
            body = encode_create_topics_v4(self.topics, self.timeout_ms, self.validate_only)
            return wire.Frame(self.API, 4, body, wire.Decoder(self.read(4)))
        return super().prepare(versions)

    def read(self, version: int) -> Callable[[bytes, int], tuple[Any, int]]:
        return hand_wire.read_create_topics_v4 if version == 4 else super().read(version)

    def message(self, version: int) -> Any:
        request = self.API.request_type(version)
        topic = nested(request, "CreatableTopic")
        assignment = nested(request, "CreatableReplicaAssignment")
        config = nested(request, "CreatableTopicConfig")
        return shape(
            request,
            topics=tuple(
                shape(
                    topic,
                    name=t.name,
                    num_partitions=t.num_partitions,
                    replication_factor=t.replication_factor,
                    assignments=tuple(
                        shape(assignment, partition_index=p, broker_ids=tuple(r))
                        for p, r in sorted(t.assignments.items())
                    ),
                    configs=tuple(shape(config, name=k, value=v) for k, v in t.configs.items()),
                )
                for t in self.topics
            ),
            timeout=millis(self.timeout_ms),
            validate_only=self.validate_only,
        )

    @staticmethod
    def topic_answers(response: Any) -> list[TopicAnswer]:
        if isinstance(response, hand_wire.CreateTopicsV4Answer):
            return [TopicAnswer(t.name, t.error_code, t.error_message) for t in response.topics]
        answers = []
        for t in response.topics:
            details = wire.has(type(t), "num_partitions")
            answers.append(
                TopicAnswer(
                    t.name,
                    code(t.error_code),
                    getattr(t, "error_message", None),
                    topic_id_text(getattr(t, "topic_id", None)),
                    t.num_partitions if details else None,
                    t.replication_factor if details else None,
                )
            )
        return answers


# -- CreatePartitions (37) -----------------------------------------------------------------


def _errors(results: Any) -> list[TopicAnswer]:
    return [
        TopicAnswer(r.name or "", code(r.error_code), getattr(r, "error_message", None))
        for r in results
    ]


class CreatePartitionsRequest(WireRequest):
    API = Api(37, "CreatePartitions", 0, 3)
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

    def message(self, version: int) -> Any:
        request = self.API.request_type(version)
        topic = nested(request, "CreatePartitionsTopic")
        assignment = nested(request, "CreatePartitionsAssignment")
        return shape(
            request,
            topics=tuple(
                shape(
                    topic,
                    name=name,
                    count=count,
                    assignments=None
                    if lists is None
                    else tuple(shape(assignment, broker_ids=tuple(r)) for r in lists),
                )
                for name, count, lists in self.topics
            ),
            timeout=millis(self.timeout_ms),
            validate_only=self.validate_only,
        )

    @staticmethod
    def topic_answers(response: Any) -> list[TopicAnswer]:
        return _errors(response.results)


# -- DeleteTopics (20) ---------------------------------------------------------------------


class DeleteTopicsRequest(WireRequest):
    API = Api(20, "DeleteTopics", 1, 6)
    API_KEY = 20

    def __init__(self, names: list[str], timeout_ms: int) -> None:
        self.names = names
        self.timeout_ms = timeout_ms

    def message(self, version: int) -> Any:
        request = self.API.request_type(version)
        if wire.has(request, "topics"):  # v6+: each topic by name or id
            state = nested(request, "DeleteTopicState")
            topics = tuple(shape(state, name=n, topic_id=None) for n in self.names)
            return shape(request, topics=topics, timeout=millis(self.timeout_ms))
        return shape(request, topic_names=tuple(self.names), timeout=millis(self.timeout_ms))

    @staticmethod
    def topic_answers(response: Any) -> list[TopicAnswer]:
        return [
            TopicAnswer(
                r.name or "",
                code(r.error_code),
                getattr(r, "error_message", None),
                topic_id_text(getattr(r, "topic_id", None)),
            )
            for r in response.responses
        ]


# -- DescribeConfigs (32): values with their source (v1+) -----------------------------------


class ConfigSynonym(NamedTuple):
    name: str
    value: str | None
    source: int  # ConfigSource's codes


class ConfigValue(NamedTuple):
    name: str
    value: str | None  # None for sensitive values
    read_only: bool
    config_source: int
    is_sensitive: bool
    synonyms: list[ConfigSynonym]  # asked with `synonyms=True`: the config, then what it hides


class ConfigResource(NamedTuple):
    error_code: int
    error_message: str | None
    resource_type: int
    resource_name: str
    configs: list[ConfigValue]


class DescribeConfigsRequest(WireRequest):
    """`resources`: (resource type, name); `keys`: None asks for every config;
    `synonyms`: each config with the values its override hides."""

    API = Api(32, "DescribeConfigs", 1, 4)
    API_KEY = 32

    def __init__(
        self,
        resources: list[tuple[int, str]],
        keys: list[str] | None = None,
        *,
        synonyms: bool = False,
    ) -> None:
        self.resources = resources
        self.keys = keys
        self.synonyms = synonyms

    def message(self, version: int) -> Any:
        request = self.API.request_type(version)
        resource = nested(request, "DescribeConfigsResource")
        keys = None if self.keys is None else tuple(self.keys)
        return shape(
            request,
            resources=tuple(
                shape(resource, resource_type=kind, resource_name=name, configuration_keys=keys)
                for kind, name in self.resources
            ),
            include_synonyms=self.synonyms,
            include_documentation=False,
        )

    def encode_message(self, version: int) -> bytes:
        if version == 4:  # by hand: kio not loaded (hand_wire.py)
            return hand_wire.describe_configs_v4_request(self.resources, self.keys, self.synonyms)
        return super().encode_message(version)

    def read(self, version: int) -> Callable[[bytes, int], tuple[Any, int]]:
        return hand_wire.read_describe_configs_v4 if version == 4 else super().read(version)

    @staticmethod
    def answer(response: Any) -> list[ConfigResource]:
        return [
            ConfigResource(
                code(r.error_code),
                r.error_message,
                r.resource_type,
                r.resource_name,
                [
                    ConfigValue(
                        c.name,
                        c.value,
                        c.read_only,
                        c.config_source,
                        c.is_sensitive,
                        [ConfigSynonym(s.name, s.value, s.source) for s in c.synonyms],
                    )
                    for c in r.configs
                ],
            )
            for r in response.results
        ]


# -- IncrementalAlterConfigs (44), Kafka 2.3+ ------------------------------------------------


class ResourceAnswer(NamedTuple):
    error_code: int
    error_message: str | None
    resource_type: int
    resource_name: str


class IncrementalAlterConfigsRequest(WireRequest):
    """`resources`: (resource type, name, [(key, OP_SET or OP_DELETE, value)])."""

    API = Api(44, "IncrementalAlterConfigs", 0, 1)
    API_KEY = 44

    def __init__(
        self,
        resources: list[tuple[int, str, list[tuple[str, int, str | None]]]],
        validate_only: bool = False,
    ) -> None:
        self.resources = resources
        self.validate_only = validate_only

    @classmethod
    def for_topics(
        cls, topic_ops: list[tuple[str, list[tuple[str, int, str | None]]]], validate_only: bool
    ) -> IncrementalAlterConfigsRequest:
        """A RESOURCE_BROKER resource must be sent to that broker; topics to any."""
        return cls([(RESOURCE_TOPIC, t, ops) for t, ops in topic_ops], validate_only)

    def message(self, version: int) -> Any:
        request = self.API.request_type(version)
        resource = nested(request, "AlterConfigsResource")
        config = nested(request, "AlterableConfig")
        return shape(
            request,
            resources=tuple(
                shape(
                    resource,
                    resource_type=kind,
                    resource_name=name,
                    configs=tuple(
                        shape(config, name=k, config_operation=op, value=v) for k, op, v in ops
                    ),
                )
                for kind, name, ops in self.resources
            ),
            validate_only=self.validate_only,
        )

    @staticmethod
    def answer(response: Any) -> list[ResourceAnswer]:
        return [
            ResourceAnswer(code(r.error_code), r.error_message, r.resource_type, r.resource_name)
            for r in response.responses
        ]

    @staticmethod
    def topic_answers(response: Any) -> list[TopicAnswer]:
        return [
            TopicAnswer(r.resource_name, r.error_code, r.error_message)
            for r in IncrementalAlterConfigsRequest.answer(response)
        ]


# -- AlterConfigs (33): every override of a resource at once, for brokers before Kafka 2.3 --


class AlterConfigsRequest(WireRequest):
    """`resources`: (resource type, name, {key: value}): the resource's whole set of
    overrides; a key left out loses its override (what IncrementalAlterConfigs replaced)."""

    API = Api(33, "AlterConfigs", 0, 2)
    API_KEY = 33

    def __init__(
        self, resources: list[tuple[int, str, dict[str, str]]], validate_only: bool
    ) -> None:
        self.resources = resources
        self.validate_only = validate_only

    def message(self, version: int) -> Any:
        request = self.API.request_type(version)
        resource = nested(request, "AlterConfigsResource")
        config = nested(request, "AlterableConfig")
        return shape(
            request,
            resources=tuple(
                shape(
                    resource,
                    resource_type=kind,
                    resource_name=name,
                    configs=tuple(shape(config, name=k, value=v) for k, v in values.items()),
                )
                for kind, name, values in self.resources
            ),
            validate_only=self.validate_only,
        )

    topic_answers = staticmethod(IncrementalAlterConfigsRequest.topic_answers)


# -- DescribeTopicPartitions (75), Kafka 3.8+: partitions with eligible leader replicas ------


class PartitionElr(NamedTuple):
    topic: str
    partition: int
    error_code: int
    elr: tuple[int, ...]  # eligible leader replicas (KIP-966)
    last_known_elr: tuple[int, ...]


class TopicPartitionsPage(NamedTuple):
    partitions: list[PartitionElr]
    topic_errors: dict[str, int]
    cursor: tuple[str, int] | None  # where the next page starts; None: the last page


class DescribeTopicPartitionsRequest(WireRequest):
    """One page of the partitions of `topics` (named: kafka-tui never lists every topic
    this way), from `cursor` (topic, partition) on, at most `limit` partitions."""

    API = Api(75, "DescribeTopicPartitions", 0, 0)
    API_KEY = 75

    def __init__(
        self, topics: list[str], cursor: tuple[str, int] | None = None, limit: int = 2000
    ) -> None:
        self.topics = topics
        self.cursor = cursor
        self.limit = limit

    def message(self, version: int) -> Any:
        request = self.API.request_type(version)
        topic, cursor = nested(request, "TopicRequest"), nested(request, "Cursor")
        return shape(
            request,
            topics=tuple(shape(topic, name=n) for n in sorted(self.topics)),
            response_partition_limit=self.limit,
            cursor=None
            if self.cursor is None
            else shape(cursor, topic_name=self.cursor[0], partition_index=self.cursor[1]),
        )

    @staticmethod
    def answer(response: Any) -> TopicPartitionsPage:
        partitions = [
            PartitionElr(
                t.name or "",
                p.partition_index,
                code(p.error_code),
                tuple(p.eligible_leader_replicas or ()),
                tuple(p.last_known_elr or ()),
            )
            for t in response.topics
            for p in t.partitions
        ]
        errors = {t.name or "": code(t.error_code) for t in response.topics if code(t.error_code)}
        nxt = response.next_cursor
        cursor = None if nxt is None else (nxt.topic_name, nxt.partition_index)
        return TopicPartitionsPage(partitions, errors, cursor)
