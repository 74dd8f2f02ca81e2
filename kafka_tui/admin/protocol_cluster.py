"""The requests that move replicas, elect leaders and retire brokers, on Kafka's generated wire
(wire.py, kio), each at the highest version both sides know.

AlterPartitionReassignments (45) and ListPartitionReassignments (46) need Kafka 2.4; v1 of
AlterPartitionReassignments (4.1) carries AllowReplicationFactorChange (KIP-860).
ElectLeaders (43) needs 2.2, an unclean election 2.4 (v1). UnregisterBroker (64) exists on
KRaft only: a ZooKeeper-mode broker leaves it out of its ApiVersions. DescribeLogDirs (35)
gives the bytes a reassignment copies (its top-level error code from v3) and, from v5 (Kafka
4.3, KIP-1066), which log directories are cordoned. ApiVersions (18) asked of each broker on
its own tells which Kafka release it runs (releases.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from .. import __version__
from . import hand_wire
from .wire import Api, WireRequest, code, millis, nested, shape

ELECTION_PREFERRED = 0
ELECTION_UNCLEAN = 1


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
    version: int = -1  # of the answer, where it changes what an answer means


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
    cordoned: bool = False  # takes no new replica (KIP-1066); before v5 never


class LogDirs(NamedTuple):
    error_code: int
    dirs: list[LogDir]


# -- AlterPartitionReassignments (45) -------------------------------------------------------


class AlterPartitionReassignmentsRequest(WireRequest):
    """`topics`: (name, [(partition, replicas or None to cancel)]). `allow_rf_change=False`
    (sent from v1, Kafka 4.1) makes the controller refuse a move that would change a
    partition's replica count; older brokers never check it."""

    API = Api(45, "AlterPartitionReassignments", 0, 1)
    API_KEY = 45

    def __init__(
        self,
        topics: list[tuple[str, list[tuple[int, list[int] | None]]]],
        timeout_ms: int,
        *,
        allow_rf_change: bool = True,
    ) -> None:
        self.topics = topics
        self.timeout_ms = timeout_ms
        self.allow_rf_change = allow_rf_change

    def message(self, version: int) -> Any:
        request = self.API.request_type(version)
        topic = nested(request, "ReassignableTopic")
        partition = nested(request, "ReassignablePartition")
        return shape(
            request,
            timeout=millis(self.timeout_ms),
            allow_replication_factor_change=self.allow_rf_change,
            topics=tuple(
                shape(
                    topic,
                    name=name,
                    partitions=tuple(
                        shape(
                            partition,
                            partition_index=p,
                            replicas=None if replicas is None else tuple(replicas),
                        )
                        for p, replicas in partitions
                    ),
                )
                for name, partitions in self.topics
            ),
        )

    @staticmethod
    def answer(response: Any) -> PartitionAnswers:
        return PartitionAnswers(
            code(response.error_code),
            response.error_message,
            [
                PartitionAnswer(t.name, p.partition_index, code(p.error_code), p.error_message)
                for t in response.responses
                for p in t.partitions
            ],
        )


# -- ListPartitionReassignments (46) -----------------------------------------------------------


class ListPartitionReassignmentsRequest(WireRequest):
    """`topics`: (name, partitions); None lists every ongoing reassignment."""

    API = Api(46, "ListPartitionReassignments", 0, 0)
    API_KEY = 46

    def __init__(self, topics: list[tuple[str, list[int]]] | None, timeout_ms: int) -> None:
        self.topics = topics
        self.timeout_ms = timeout_ms

    def message(self, version: int) -> Any:
        request = self.API.request_type(version)
        topic = nested(request, "ListPartitionReassignmentsTopics")
        topics = (
            None
            if self.topics is None
            else tuple(
                shape(topic, name=name, partition_indexes=tuple(partitions))
                for name, partitions in self.topics
            )
        )
        return shape(request, timeout=millis(self.timeout_ms), topics=topics)

    @staticmethod
    def answer(response: Any) -> Reassignments:
        return Reassignments(
            code(response.error_code),
            response.error_message,
            [
                ReassigningPartition(
                    t.name,
                    p.partition_index,
                    list(p.replicas),
                    list(p.adding_replicas),
                    list(p.removing_replicas),
                )
                for t in response.topics
                for p in t.partitions
            ],
        )


# -- UnregisterBroker (64): KRaft only ---------------------------------------------------------


class UnregisterBrokerRequest(WireRequest):
    API = Api(64, "UnregisterBroker", 0, 0)
    API_KEY = 64

    def __init__(self, broker_id: int) -> None:
        self.broker_id = broker_id

    def message(self, version: int) -> Any:
        return shape(self.API.request_type(version), broker_id=self.broker_id)

    @staticmethod
    def answer(response: Any) -> ErrorAnswer:
        return ErrorAnswer(code(response.error_code), response.error_message)


# -- DescribeLogDirs (35): every partition's size on the broker asked --------------------------


class DescribeLogDirsRequest(WireRequest):
    """`topics`: (name, partitions); None: every topic; []: none, only the directories."""

    API = Api(35, "DescribeLogDirs", 1, 5)
    API_KEY = 35

    def __init__(self, topics: list[tuple[str, list[int]]] | None) -> None:
        self.topics = topics

    def message(self, version: int) -> Any:
        request = self.API.request_type(version)
        topic = nested(request, "DescribableLogDirTopic")
        topics = (
            None
            if self.topics is None
            else tuple(
                shape(topic, topic=name, partitions=tuple(partitions))
                for name, partitions in self.topics
            )
        )
        return shape(request, topics=topics)

    def encode_message(self, version: int) -> bytes:
        if version == 5:  # by hand: kio not loaded (hand_wire.py)
            return hand_wire.describe_log_dirs_v5_request(self.topics)
        return super().encode_message(version)

    def read(self, version: int) -> Callable[[bytes, int], tuple[Any, int]]:
        return hand_wire.read_describe_log_dirs_v5 if version == 5 else super().read(version)

    @staticmethod
    def answer(response: Any) -> LogDirs:
        if isinstance(response, hand_wire.LogDirsAnswer):
            return LogDirs(
                response.error_code,
                [
                    LogDir(
                        d.error_code,
                        d.log_dir,
                        [
                            ReplicaSize(
                                t.name, p.partition_index, p.partition_size, p.is_future_key
                            )
                            for t in d.topics
                            for p in t.partitions
                        ],
                        d.is_cordoned,
                    )
                    for d in response.results
                ],
            )
        return LogDirs(
            code(getattr(response, "error_code", 0)),
            [
                LogDir(
                    code(d.error_code),
                    d.log_dir,
                    [
                        ReplicaSize(t.name, p.partition_index, p.partition_size, p.is_future_key)
                        for t in d.topics
                        for p in t.partitions
                    ],
                    getattr(d, "is_cordoned", False),
                )
                for d in response.results
            ],
        )


# -- ApiVersions (18): what a broker speaks, hence which Kafka release it runs ----------------


class ApiVersionsAnswer(NamedTuple):
    error_code: int
    versions: dict[int, tuple[int, int]]  # API key -> (lowest, highest version)


class ApiVersionsRequest(WireRequest):
    """Sent to one broker, about itself. v3 (Kafka 2.4, KIP-511) names the client software."""

    API = Api(18, "ApiVersions", 0, 3)
    API_KEY = 18

    def message(self, version: int) -> Any:
        return shape(
            self.API.request_type(version),
            client_software_name="kafka-tui",
            client_software_version=__version__,
        )

    @staticmethod
    def answer(response: Any) -> ApiVersionsAnswer:
        return ApiVersionsAnswer(
            code(response.error_code),
            {k.api_key: (k.min_version, k.max_version) for k in response.api_keys},
        )


# -- ElectLeaders (43): preferred (2.2+) or unclean (2.4+, v1) leader election (KIP-460) --------


class ElectLeadersRequest(WireRequest):
    """`election_type`: ELECTION_PREFERRED or ELECTION_UNCLEAN; `topics`: (topic, partitions)."""

    API = Api(43, "ElectLeaders", 0, 2)
    UNCLEAN = Api(43, "ElectLeaders (unclean election)", 1, 2)
    API_KEY = 43

    def __init__(
        self, election_type: int, topics: list[tuple[str, list[int]]], timeout_ms: int
    ) -> None:
        self.election_type = election_type
        self.topics = topics
        self.timeout_ms = timeout_ms

    def api(self) -> Api:
        return self.UNCLEAN if self.election_type != ELECTION_PREFERRED else self.API

    def message(self, version: int) -> Any:
        request = self.API.request_type(version)
        topic = nested(request, "TopicPartitions")
        return shape(
            request,
            election_type=self.election_type,
            topic_partitions=tuple(
                shape(topic, topic=name, partitions=tuple(partitions))
                for name, partitions in self.topics
            ),
            timeout=millis(self.timeout_ms),
        )

    @staticmethod
    def answer(response: Any) -> PartitionAnswers:
        return PartitionAnswers(
            code(getattr(response, "error_code", 0)),
            None,
            [
                PartitionAnswer(t.topic, p.partition_id, code(p.error_code), p.error_message)
                for t in response.replica_election_results
                for p in t.partition_result
            ],
            type(response).__version__,
        )


# -- DescribeQuorum (55): the KRaft controller quorum (its leader is the active controller) --


class QuorumMember(NamedTuple):
    node_id: int
    log_end_offset: int  # -1: not known
    last_caught_up_ms: int  # -1: not known (v1+)


class Quorum(NamedTuple):
    error_code: int
    error_message: str | None
    leader_id: int  # the active controller; -1: none elected
    leader_epoch: int
    high_watermark: int
    voters: list[QuorumMember]
    observers: list[QuorumMember]  # the brokers (and controllers not voting)


class DescribeQuorumRequest(WireRequest):
    """About `__cluster_metadata`-0, the KRaft metadata log; a broker forwards it to the
    controller. ZooKeeper-mode brokers do not list the request (UnsupportedByBroker)."""

    API = Api(55, "DescribeQuorum", 0, 2)
    API_KEY = 55

    def message(self, version: int) -> Any:
        request = self.API.request_type(version)
        topic, partition = nested(request, "TopicData"), nested(request, "PartitionData")
        return shape(
            request,
            topics=(
                shape(
                    topic,
                    topic_name="__cluster_metadata",
                    partitions=(shape(partition, partition_index=0),),
                ),
            ),
        )

    @staticmethod
    def answer(response: Any) -> Quorum:
        def members(states: Any) -> list[QuorumMember]:
            return [
                QuorumMember(
                    s.replica_id, s.log_end_offset, getattr(s, "last_caught_up_timestamp", -1)
                )
                for s in states
            ]

        for topic in response.topics:
            for p in topic.partitions:
                error = code(p.error_code) or code(response.error_code)
                return Quorum(
                    error,
                    getattr(p, "error_message", None) or getattr(response, "error_message", None),
                    p.leader_id,
                    p.leader_epoch,
                    p.high_watermark,
                    members(p.current_voters),
                    members(p.observers),
                )
        return Quorum(
            code(response.error_code),
            getattr(response, "error_message", None),
            -1,
            -1,
            -1,
            [],
            [],
        )
