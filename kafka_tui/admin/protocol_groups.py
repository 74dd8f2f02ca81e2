"""Kafka protocol messages for consumer groups (admin/groups.py), each answer decoded into
typed records: ListGroups (16) v4, OffsetFetch (9) v8, DescribeGroups (15) v5 and
FindCoordinator (10) v4.

Schemas from Kafka's clients/src/main/resources/common/message/. ListGroups v4 is the first
version with each group's state; OffsetFetch v8 asks about many groups at once (KIP-709);
DescribeGroups v5 is the first flexible version (v6 only adds an error message);
FindCoordinator v4 batches keys (KIP-699). Kafka 3.9 (ZooKeeper mode) and 4.1 accept all four.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from aiokafka.protocol.api import Request, RequestStruct, Response
from aiokafka.protocol.types import (
    Boolean,
    CompactArray,
    CompactBytes,
    Int8,
    Int16,
    Int32,
    Int64,
    Schema,
)

from .protocol_legacy import INT32_ARRAY, STRING, TAGS, _array, _flexible_request, _response

_STRINGS = CompactArray(STRING)


class ListedGroup(NamedTuple):
    group_id: str
    state: str  # "" when the broker names none


class GroupList(NamedTuple):
    """One broker's ListGroups answer: the groups it coordinates."""

    error_code: int
    groups: list[ListedGroup]


class CommittedOffset(NamedTuple):
    topic: str
    partition: int
    offset: int  # negative: nothing committed
    error_code: int


class FetchedGroup(NamedTuple):
    """One group's OffsetFetch answer: every partition asked about, in the answer's order."""

    group_id: str
    error_code: int
    offsets: list[CommittedOffset]


class DescribedGroup(NamedTuple):
    group_id: str
    error_code: int
    state: str  # "" when the broker names none
    members: int  # how many


class Coordinator(NamedTuple):
    key: str  # the group
    node_id: int
    error_code: int


# -- ListGroups (16) v4 ---------------------------------------------------------------------

_LIST_GROUPS_V4 = _flexible_request(
    16,
    4,
    Schema(("states_filter", _STRINGS), TAGS),
    _response(
        16,
        4,
        Schema(
            ("throttle_time_ms", Int32),
            ("error_code", Int16),
            (
                "groups",
                _array(("group_id", STRING), ("protocol_type", STRING), ("group_state", STRING)),
            ),
            TAGS,
        ),
    ),
)


class ListGroupsRequest(Request[RequestStruct]):
    API_KEY = 16

    def build(self, request_struct_class: type[RequestStruct]) -> RequestStruct:
        return request_struct_class([], {})

    @staticmethod
    def answer(response: Response) -> GroupList:
        raw = response.to_object()
        return GroupList(
            raw["error_code"],
            [ListedGroup(g["group_id"], g["group_state"] or "") for g in raw["groups"] or []],
        )


# -- OffsetFetch (9) v8 ---------------------------------------------------------------------

_OFFSET_FETCH_V8 = _flexible_request(
    9,
    8,
    Schema(
        (
            "groups",
            _array(
                ("group_id", STRING),
                ("topics", _array(("name", STRING), ("partition_indexes", INT32_ARRAY))),
            ),
        ),
        ("require_stable", Boolean),
        TAGS,
    ),
    _response(
        9,
        8,
        Schema(
            ("throttle_time_ms", Int32),
            (
                "groups",
                _array(
                    ("group_id", STRING),
                    (
                        "topics",
                        _array(
                            ("name", STRING),
                            (
                                "partitions",
                                _array(
                                    ("partition_index", Int32),
                                    ("committed_offset", Int64),
                                    ("committed_leader_epoch", Int32),
                                    ("metadata", STRING),
                                    ("error_code", Int16),
                                ),
                            ),
                        ),
                    ),
                    ("error_code", Int16),
                ),
            ),
            TAGS,
        ),
    ),
)


class OffsetFetchRequest(Request[RequestStruct]):
    API_KEY = 9

    def __init__(self, groups: Sequence[str], topics: Mapping[str, Sequence[int]]) -> None:
        self.groups = groups
        self.topics = topics

    def build(self, request_struct_class: type[RequestStruct]) -> RequestStruct:
        topics: list[tuple[str, list[int], dict[int, bytes]]] = [
            (name, list(partitions), {}) for name, partitions in self.topics.items()
        ]
        return request_struct_class([(g, topics, {}) for g in self.groups], False, {})

    @staticmethod
    def answer(response: Response) -> list[FetchedGroup]:
        return [
            FetchedGroup(
                g["group_id"],
                g["error_code"],
                [
                    CommittedOffset(
                        t["name"], p["partition_index"], p["committed_offset"], p["error_code"]
                    )
                    for t in g["topics"] or []
                    for p in t["partitions"] or []
                ],
            )
            for g in response.to_object()["groups"] or []
        ]


# -- DescribeGroups (15) v5 -----------------------------------------------------------------

_DESCRIBE_GROUPS_V5 = _flexible_request(
    15,
    5,
    Schema(("groups", _STRINGS), ("include_authorized_operations", Boolean), TAGS),
    _response(
        15,
        5,
        Schema(
            ("throttle_time_ms", Int32),
            (
                "groups",
                _array(
                    ("error_code", Int16),
                    ("group_id", STRING),
                    ("group_state", STRING),
                    ("protocol_type", STRING),
                    ("protocol_data", STRING),
                    (
                        "members",
                        _array(
                            ("member_id", STRING),
                            ("group_instance_id", STRING),
                            ("client_id", STRING),
                            ("client_host", STRING),
                            ("member_metadata", CompactBytes),
                            ("member_assignment", CompactBytes),
                        ),
                    ),
                    ("authorized_operations", Int32),
                ),
            ),
            TAGS,
        ),
    ),
)


class DescribeGroupsRequest(Request[RequestStruct]):
    API_KEY = 15

    def __init__(self, groups: Sequence[str]) -> None:
        self.groups = groups

    def build(self, request_struct_class: type[RequestStruct]) -> RequestStruct:
        return request_struct_class(list(self.groups), False, {})

    @staticmethod
    def answer(response: Response) -> list[DescribedGroup]:
        return [
            DescribedGroup(
                g["group_id"], g["error_code"], g["group_state"] or "", len(g["members"] or [])
            )
            for g in response.to_object()["groups"] or []
        ]


# -- FindCoordinator (10) v4 ----------------------------------------------------------------

_FIND_COORDINATOR_V4 = _flexible_request(
    10,
    4,
    Schema(("key_type", Int8), ("coordinator_keys", _STRINGS), TAGS),
    _response(
        10,
        4,
        Schema(
            ("throttle_time_ms", Int32),
            (
                "coordinators",
                _array(
                    ("key", STRING),
                    ("node_id", Int32),
                    ("host", STRING),
                    ("port", Int32),
                    ("error_code", Int16),
                    ("error_message", STRING),
                ),
            ),
            TAGS,
        ),
    ),
)


class FindCoordinatorRequest(Request[RequestStruct]):
    API_KEY = 10

    def __init__(self, groups: Sequence[str]) -> None:
        self.groups = groups

    def build(self, request_struct_class: type[RequestStruct]) -> RequestStruct:
        return request_struct_class(0, list(self.groups), {})  # key type 0: group

    @staticmethod
    def answer(response: Response) -> list[Coordinator]:
        return [
            Coordinator(c["key"], int(c["node_id"]), c["error_code"])
            for c in response.to_object()["coordinators"] or []
        ]


# Request.__init_subclass__ derives _CLASSES from the generic parameter; ours are built here.
ListGroupsRequest._CLASSES = (_LIST_GROUPS_V4,)
OffsetFetchRequest._CLASSES = (_OFFSET_FETCH_V8,)
DescribeGroupsRequest._CLASSES = (_DESCRIBE_GROUPS_V5,)
FindCoordinatorRequest._CLASSES = (_FIND_COORDINATOR_V4,)
