"""Kafka protocol messages for moving replicas and retiring brokers, which aiokafka 0.14 lacks.

Also DescribeLogDirs (35) v3, for the bytes a reassignment copies (v3 is the first with a
top-level error code; Kafka 3.9 and 4.x both accept it), and IncrementalAlterConfigs on any
resource type (broker resources carry the replication throttle rates).

Schemas from Kafka's clients/src/main/resources/common/message/: AlterPartitionReassignments
(45) and ListPartitionReassignments (46) at v0, which both Kafka 3.9 (ZooKeeper mode) and 4.x
accept (4.1's v1 only adds AllowReplicationFactorChange, default true, so v0 behaves the
same); UnregisterBroker (64) v0, which only KRaft clusters have: a ZooKeeper-mode broker
leaves it out of its ApiVersions answer, so aiokafka refuses to send it.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from aiokafka.protocol.api import Request, RequestStruct, Response
from aiokafka.protocol.types import Boolean, Int8, Int16, Int32, Int64, Schema

from .protocol import (
    _INCREMENTAL_ALTER_CONFIGS_V1,
    INT32_ARRAY,
    STRING,
    TAGS,
    _array,
    _flexible_request,
    _response,
    altered_resources,
)


class PartitionAnswer(NamedTuple):
    topic: str
    partition: int
    error_code: int
    error_message: str | None


class PartitionAnswers(NamedTuple):
    """A request's own error (e.g. NOT_CONTROLLER for all of it) and each partition's."""

    error_code: int
    error_message: str | None
    partitions: list[PartitionAnswer]


class ErrorAnswer(NamedTuple):
    error_code: int
    error_message: str | None


class ReassigningPartition(NamedTuple):
    topic: str
    partition: int
    replicas: list[int]
    adding_replicas: list[int]
    removing_replicas: list[int]


class Reassignments(NamedTuple):
    error_code: int
    error_message: str | None
    partitions: list[ReassigningPartition]


class ReplicaSize(NamedTuple):
    topic: str
    partition: int
    size: int  # bytes
    is_future_key: bool  # a copy being made by a move between log dirs


class LogDir(NamedTuple):
    error_code: int
    log_dir: str
    replicas: list[ReplicaSize]


class LogDirs(NamedTuple):
    error_code: int
    dirs: list[LogDir]


# -- AlterPartitionReassignments (45) v0 ---------------------------------------------------

_ALTER_PARTITION_REASSIGNMENTS_V0 = _flexible_request(
    45,
    0,
    Schema(
        ("timeout_ms", Int32),
        (
            "topics",
            _array(
                ("name", STRING),
                # replicas: a nullable compact array; null cancels a pending reassignment.
                ("partitions", _array(("partition_index", Int32), ("replicas", INT32_ARRAY))),
            ),
        ),
        TAGS,
    ),
    _response(
        45,
        0,
        Schema(
            ("throttle_time_ms", Int32),
            ("error_code", Int16),
            ("error_message", STRING),
            (
                "responses",
                _array(
                    ("name", STRING),
                    (
                        "partitions",
                        _array(
                            ("partition_index", Int32),
                            ("error_code", Int16),
                            ("error_message", STRING),
                        ),
                    ),
                ),
            ),
            TAGS,
        ),
    ),
)


class AlterPartitionReassignmentsRequest(Request[RequestStruct]):
    API_KEY = 45

    def __init__(
        self, topics: list[tuple[str, list[tuple[int, list[int] | None]]]], timeout_ms: int
    ) -> None:
        self.topics = topics
        self.timeout_ms = timeout_ms

    def build(self, request_struct_class: type[RequestStruct]) -> RequestStruct:
        topics: Any = [
            (name, [(p, replicas, {}) for p, replicas in partitions], {})
            for name, partitions in self.topics
        ]
        return request_struct_class(self.timeout_ms, topics, {})

    @staticmethod
    def answer(response: Response) -> PartitionAnswers:
        raw = response.to_object()
        return PartitionAnswers(
            raw["error_code"],
            raw["error_message"],
            [
                PartitionAnswer(
                    t["name"], p["partition_index"], p["error_code"], p["error_message"]
                )
                for t in raw["responses"] or []
                for p in t["partitions"] or []
            ],
        )


# -- ListPartitionReassignments (46) v0 ----------------------------------------------------

_LIST_PARTITION_REASSIGNMENTS_V0 = _flexible_request(
    46,
    0,
    Schema(
        ("timeout_ms", Int32),
        # null lists every ongoing reassignment
        ("topics", _array(("name", STRING), ("partition_indexes", INT32_ARRAY))),
        TAGS,
    ),
    _response(
        46,
        0,
        Schema(
            ("throttle_time_ms", Int32),
            ("error_code", Int16),
            ("error_message", STRING),
            (
                "topics",
                _array(
                    ("name", STRING),
                    (
                        "partitions",
                        _array(
                            ("partition_index", Int32),
                            ("replicas", INT32_ARRAY),
                            ("adding_replicas", INT32_ARRAY),
                            ("removing_replicas", INT32_ARRAY),
                        ),
                    ),
                ),
            ),
            TAGS,
        ),
    ),
)


class ListPartitionReassignmentsRequest(Request[RequestStruct]):
    API_KEY = 46

    def __init__(self, topics: list[tuple[str, list[int]]] | None, timeout_ms: int) -> None:
        self.topics = topics
        self.timeout_ms = timeout_ms

    def build(self, request_struct_class: type[RequestStruct]) -> RequestStruct:
        topics: Any = (
            None
            if self.topics is None
            else [(name, partitions, {}) for name, partitions in self.topics]
        )
        return request_struct_class(self.timeout_ms, topics, {})

    @staticmethod
    def answer(response: Response) -> Reassignments:
        raw = response.to_object()
        return Reassignments(
            raw["error_code"],
            raw["error_message"],
            [
                ReassigningPartition(
                    t["name"],
                    p["partition_index"],
                    list(p["replicas"] or []),
                    list(p["adding_replicas"] or []),
                    list(p["removing_replicas"] or []),
                )
                for t in raw["topics"] or []
                for p in t["partitions"] or []
            ],
        )


# -- UnregisterBroker (64) v0: KRaft only --------------------------------------------------

_UNREGISTER_BROKER_V0 = _flexible_request(
    64,
    0,
    Schema(("broker_id", Int32), TAGS),
    _response(
        64,
        0,
        Schema(
            ("throttle_time_ms", Int32),
            ("error_code", Int16),
            ("error_message", STRING),
            TAGS,
        ),
    ),
)


class UnregisterBrokerRequest(Request[RequestStruct]):
    API_KEY = 64

    def __init__(self, broker_id: int) -> None:
        self.broker_id = broker_id

    def build(self, request_struct_class: type[RequestStruct]) -> RequestStruct:
        return request_struct_class(self.broker_id, {})

    @staticmethod
    def answer(response: Response) -> ErrorAnswer:
        raw = response.to_object()
        return ErrorAnswer(raw["error_code"], raw["error_message"])


# -- DescribeLogDirs (35) v3: every partition's size on the broker asked -------------------

_DESCRIBE_LOG_DIRS_V3 = _flexible_request(
    35,
    3,
    Schema(
        # null: every topic
        ("topics", _array(("topic", STRING), ("partitions", INT32_ARRAY))),
        TAGS,
    ),
    _response(
        35,
        3,
        Schema(
            ("throttle_time_ms", Int32),
            ("error_code", Int16),
            (
                "results",
                _array(
                    ("error_code", Int16),
                    ("log_dir", STRING),
                    (
                        "topics",
                        _array(
                            ("name", STRING),
                            (
                                "partitions",
                                _array(
                                    ("partition_index", Int32),
                                    ("partition_size", Int64),
                                    ("offset_lag", Int64),
                                    ("is_future_key", Boolean),
                                ),
                            ),
                        ),
                    ),
                ),
            ),
            TAGS,
        ),
    ),
)


class DescribeLogDirsRequest(Request[RequestStruct]):
    API_KEY = 35

    def __init__(self, topics: list[tuple[str, list[int]]] | None) -> None:
        self.topics = topics

    def build(self, request_struct_class: type[RequestStruct]) -> RequestStruct:
        topics: Any = (
            None
            if self.topics is None
            else [(name, partitions, {}) for name, partitions in self.topics]
        )
        return request_struct_class(topics, {})

    @staticmethod
    def answer(response: Response) -> LogDirs:
        raw = response.to_object()
        return LogDirs(
            raw["error_code"],
            [
                LogDir(
                    d["error_code"],
                    d["log_dir"],
                    [
                        ReplicaSize(
                            t["name"],
                            p["partition_index"],
                            p["partition_size"],
                            p["is_future_key"],
                        )
                        for t in d["topics"] or []
                        for p in t["partitions"] or []
                    ],
                )
                for d in raw["results"] or []
            ],
        )


# -- IncrementalAlterConfigs (44) v1 on any resource (protocol.py's covers topics only) -----


class AlterResourceConfigsRequest(Request[RequestStruct]):
    """`resources`: (resource type, name, [(key, op, value)]); protocol.RESOURCE_BROKER
    resources must be sent to that broker."""

    API_KEY = 44

    def __init__(self, resources: list[tuple[int, str, list[tuple[str, int, str | None]]]]) -> None:
        self.resources = resources

    def build(self, request_struct_class: type[RequestStruct]) -> RequestStruct:
        resources: Any = [
            (kind, name, [(k, op, v, {}) for k, op, v in ops], {})
            for kind, name, ops in self.resources
        ]
        return request_struct_class(resources, False, {})

    answer = staticmethod(altered_resources)


DescribeLogDirsRequest._CLASSES = (_DESCRIBE_LOG_DIRS_V3,)
AlterResourceConfigsRequest._CLASSES = (_INCREMENTAL_ALTER_CONFIGS_V1,)
AlterPartitionReassignmentsRequest._CLASSES = (_ALTER_PARTITION_REASSIGNMENTS_V0,)
ListPartitionReassignmentsRequest._CLASSES = (_LIST_PARTITION_REASSIGNMENTS_V0,)
UnregisterBrokerRequest._CLASSES = (_UNREGISTER_BROKER_V0,)


# -- ElectLeaders (43) v2: preferred or unclean leader election (KIP-460) --------------------
# v1 added ElectionType and the top-level error code; v2 is the first flexible version. Kafka
# 3.9 (ZooKeeper mode) and 4.1 both accept v0-v2.

ELECTION_PREFERRED = 0
ELECTION_UNCLEAN = 1

_ELECT_LEADERS_V2 = _flexible_request(
    43,
    2,
    Schema(
        ("election_type", Int8),
        # null: every partition of the cluster (kafka-tui always names them)
        ("topic_partitions", _array(("topic", STRING), ("partition_ids", INT32_ARRAY))),
        ("timeout_ms", Int32),
        TAGS,
    ),
    _response(
        43,
        2,
        Schema(
            ("throttle_time_ms", Int32),
            ("error_code", Int16),
            (
                "replica_election_results",
                _array(
                    ("topic", STRING),
                    (
                        "partition_result",
                        _array(
                            ("partition_id", Int32),
                            ("error_code", Int16),
                            ("error_message", STRING),
                        ),
                    ),
                ),
            ),
            TAGS,
        ),
    ),
)


class ElectLeadersRequest(Request[RequestStruct]):
    """`election_type`: ELECTION_PREFERRED or ELECTION_UNCLEAN; `topics`: (topic, partitions)."""

    API_KEY = 43

    def __init__(
        self, election_type: int, topics: list[tuple[str, list[int]]], timeout_ms: int
    ) -> None:
        self.election_type = election_type
        self.topics = topics
        self.timeout_ms = timeout_ms

    def build(self, request_struct_class: type[RequestStruct]) -> RequestStruct:
        topics: Any = [(name, partitions, {}) for name, partitions in self.topics]
        return request_struct_class(self.election_type, topics, self.timeout_ms, {})

    @staticmethod
    def answer(response: Response) -> PartitionAnswers:
        raw = response.to_object()
        return PartitionAnswers(
            raw["error_code"],
            None,
            [
                PartitionAnswer(t["topic"], p["partition_id"], p["error_code"], p["error_message"])
                for t in raw["replica_election_results"] or []
                for p in t["partition_result"] or []
            ],
        )


ElectLeadersRequest._CLASSES = (_ELECT_LEADERS_V2,)
