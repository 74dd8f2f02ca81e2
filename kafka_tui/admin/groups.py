"""Consumer groups with committed offsets on topics: who reads a topic before it is deleted.

Each broker coordinates the groups whose `__consumer_offsets` partition it leads, and its
ListGroups answer lists exactly those: one ListGroups per broker finds every group and its
coordinator. OffsetFetch then goes to each coordinator with all its groups at once (v8,
Kafka 3.0+: many groups in one request; ZooKeeper-mode 3.9 and KRaft 4.1 both answer v8),
and DescribeGroups (members) only for the groups that committed offsets on the topics. A
coordinator that moved meanwhile (NOT_COORDINATOR) is found again with FindCoordinator v4
(batched keys) and asked once more.

ACLs: ListGroups never fails for lack of rights — it lists only the groups the principal may
describe (every group with DESCRIBE on the cluster); OffsetFetch and DescribeGroups answer
GROUP_AUTHORIZATION_FAILED per group. Such groups are counted as not checked, never raised.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from aiokafka.protocol.api import Request, RequestStruct
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

from .connection import AdminConnection
from .errors import AdminError, error_name
from .protocol import INT32_ARRAY, STRING, TAGS, _array, _flexible_request, _response

GROUP_AUTHORIZATION_FAILED = "GROUP_AUTHORIZATION_FAILED"
CLUSTER_AUTHORIZATION_FAILED = "CLUSTER_AUTHORIZATION_FAILED"
TOPIC_AUTHORIZATION_FAILED = "TOPIC_AUTHORIZATION_FAILED"
# A group's coordinator moved or is still loading: find it again and ask once more.
_MOVED = frozenset({14, 15, 16})  # COORDINATOR_LOAD_IN_PROGRESS, _NOT_AVAILABLE, NOT_COORDINATOR
# An OffsetFetch names every partition of the topics for each of its groups: this many
# (group, partition) pairs per request keeps a request and its answer near 1 MB.
_PAIRS_PER_REQUEST = 50_000
_GROUPS_PER_DESCRIBE = 1_000
_STRINGS = CompactArray(STRING)

# -- the wire: Kafka's JSON schemas (clients/src/main/resources/common/message/) -------------

# ListGroups (16) v4: the first version with each group's state.
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

# OffsetFetch (9) v8: many groups per request (KIP-709).
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

# DescribeGroups (15) v5: the first flexible version (v6 only adds an error message).
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

# FindCoordinator (10) v4: batched keys (KIP-699).
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


class ListGroupsRequest(Request[RequestStruct]):
    API_KEY = 16

    def build(self, request_struct_class: type[RequestStruct]) -> RequestStruct:
        return request_struct_class([], {})


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


class DescribeGroupsRequest(Request[RequestStruct]):
    API_KEY = 15

    def __init__(self, groups: Sequence[str]) -> None:
        self.groups = groups

    def build(self, request_struct_class: type[RequestStruct]) -> RequestStruct:
        return request_struct_class(list(self.groups), False, {})


class FindCoordinatorRequest(Request[RequestStruct]):
    API_KEY = 10

    def __init__(self, groups: Sequence[str]) -> None:
        self.groups = groups

    def build(self, request_struct_class: type[RequestStruct]) -> RequestStruct:
        return request_struct_class(0, list(self.groups), {})  # key type 0: group


# Request.__init_subclass__ derives _CLASSES from the generic parameter; ours are built here.
ListGroupsRequest._CLASSES = (_LIST_GROUPS_V4,)
OffsetFetchRequest._CLASSES = (_OFFSET_FETCH_V8,)
DescribeGroupsRequest._CLASSES = (_DESCRIBE_GROUPS_V5,)
FindCoordinatorRequest._CLASSES = (_FIND_COORDINATOR_V4,)


# -- the admin layer's language -------------------------------------------------------------


@dataclass(frozen=True)
class GroupOffsets:
    """A group with committed offsets on some of the topics asked about. `members`: None
    when the group could not be described (its state then comes from ListGroups)."""

    group: str
    state: str
    members: int | None
    # topic -> partition -> committed offset (partitions without a commit left out)
    committed: Mapping[str, Mapping[int, int]]


@dataclass(frozen=True)
class GroupsOfTopics:
    """The groups that committed offsets on the topics, and what could not be checked:
    `unchecked` maps a group (or "broker N") to the Kafka error name that kept it from
    being checked (GROUP_AUTHORIZATION_FAILED, CONNECTION_FAILED, ...)."""

    groups: list[GroupOffsets]
    listed: int  # groups found by ListGroups, all brokers together
    unchecked: Mapping[str, str] = field(default_factory=dict)


@dataclass
class _Listed:
    group: str
    state: str
    coordinator: int


def _chunks(items: Sequence[str], size: int) -> Iterator[Sequence[str]]:
    for start in range(0, len(items), max(size, 1)):
        yield items[start : start + max(size, 1)]


class AdminGroups(AdminConnection):
    async def consumer_groups_of(self, topics: Mapping[str, Sequence[int]]) -> GroupsOfTopics:
        """The groups with committed offsets on `topics` (name -> its partitions): one
        ListGroups per broker, then OffsetFetch and DescribeGroups batched per coordinator.
        Never raises for a group or a broker it cannot check: see `GroupsOfTopics.unchecked`."""
        unchecked: dict[str, str] = {}
        listed = await self._list_groups(unchecked)
        if not listed or not topics:
            return GroupsOfTopics([], len(listed), unchecked)
        offsets = await self._fetch_offsets(listed, topics, unchecked)
        moved = [g for g, code in unchecked.items() if code == "NOT_COORDINATOR"]
        if moved:
            for g in moved:
                del unchecked[g]
            found = await self._find_coordinators(moved, unchecked)
            again = {g: _Listed(g, listed[g].state, node) for g, node in found.items()}
            offsets |= await self._fetch_offsets(again, topics, unchecked)
            for g, node in found.items():
                listed[g].coordinator = node
        reading = {g: listed[g] for g, committed in offsets.items() if committed}
        members = await self._describe_groups(reading, unchecked)
        groups = [
            GroupOffsets(
                g,
                members[g][0] if g in members else reading[g].state,
                members[g][1] if g in members else None,
                offsets[g],
            )
            for g in sorted(reading)
        ]
        return GroupsOfTopics(groups, len(listed), unchecked)

    async def _list_groups(self, unchecked: dict[str, str]) -> dict[str, _Listed]:
        brokers = sorted(b.nodeId for b in self.client.cluster.brokers())
        answers = await asyncio.gather(
            *(self._send_to_itself(ListGroupsRequest(), b) for b in brokers),
            return_exceptions=True,
        )
        listed: dict[str, _Listed] = {}
        for broker, answer in zip(brokers, answers, strict=True):
            if isinstance(answer, AdminError):
                unchecked[f"broker {broker}"] = answer.name
                continue
            if isinstance(answer, BaseException):
                raise answer
            response = answer.to_object()
            if response["error_code"]:
                unchecked[f"broker {broker}"] = error_name(response["error_code"])
                continue
            for g in response["groups"]:
                listed[g["group_id"]] = _Listed(g["group_id"], g["group_state"] or "", broker)
        return listed

    async def _fetch_offsets(
        self,
        listed: Mapping[str, _Listed],
        topics: Mapping[str, Sequence[int]],
        unchecked: dict[str, str],
    ) -> dict[str, dict[str, dict[int, int]]]:
        """group -> topic -> partition -> committed offset ({} for a group with none)."""
        partitions = max(sum(len(p) for p in topics.values()), 1)
        requests: list[tuple[int, Sequence[str]]] = []
        for node, groups in _by_coordinator(listed).items():
            requests += [
                (node, chunk) for chunk in _chunks(groups, _PAIRS_PER_REQUEST // partitions)
            ]
        answers = await asyncio.gather(
            *(
                self._send_to_itself(OffsetFetchRequest(chunk, topics), node)
                for node, chunk in requests
            ),
            return_exceptions=True,
        )
        offsets: dict[str, dict[str, dict[int, int]]] = {}
        for (_, chunk), answer in zip(requests, answers, strict=True):
            if isinstance(answer, AdminError):
                unchecked.update(dict.fromkeys(chunk, answer.name))
                continue
            if isinstance(answer, BaseException):
                raise answer
            for g in answer.to_object()["groups"]:
                name = g["group_id"]
                if g["error_code"]:
                    code = g["error_code"]
                    unchecked[name] = "NOT_COORDINATOR" if code in _MOVED else error_name(code)
                    continue
                committed: dict[str, dict[int, int]] = {}
                for t in g["topics"]:
                    for p in t["partitions"]:
                        if p["error_code"]:
                            unchecked[name] = error_name(p["error_code"])
                        elif p["committed_offset"] >= 0:
                            committed.setdefault(t["name"], {})[p["partition_index"]] = p[
                                "committed_offset"
                            ]
                offsets[name] = committed
        return offsets

    async def _find_coordinators(
        self, groups: Sequence[str], unchecked: dict[str, str]
    ) -> dict[str, int]:
        try:
            response = (await self._send(FindCoordinatorRequest(groups))).to_object()
        except AdminError as exc:
            unchecked.update(dict.fromkeys(groups, exc.name))
            return {}
        found = {}
        for c in response["coordinators"]:
            if c["error_code"]:
                unchecked[c["key"]] = error_name(c["error_code"])
            else:
                found[c["key"]] = int(c["node_id"])
        return found

    async def _describe_groups(
        self, groups: Mapping[str, _Listed], unchecked: dict[str, str]
    ) -> dict[str, tuple[str, int]]:
        """group -> (state, members), for the groups that could be described."""
        requests: list[tuple[int, Sequence[str]]] = []
        for node, names in _by_coordinator(groups).items():
            requests += [(node, chunk) for chunk in _chunks(names, _GROUPS_PER_DESCRIBE)]
        answers = await asyncio.gather(
            *(self._send_to_itself(DescribeGroupsRequest(chunk), node) for node, chunk in requests),
            return_exceptions=True,
        )
        described: dict[str, tuple[str, int]] = {}
        for answer in answers:
            if isinstance(answer, AdminError):
                continue  # the state from ListGroups stands; members unknown
            if isinstance(answer, BaseException):
                raise answer
            for g in answer.to_object()["groups"]:
                if g["error_code"]:
                    continue
                described[g["group_id"]] = (g["group_state"] or "", len(g["members"] or []))
        return described


def _by_coordinator(listed: Mapping[str, _Listed]) -> dict[int, list[str]]:
    nodes: dict[int, list[str]] = {}
    for g in sorted(listed):
        nodes.setdefault(listed[g].coordinator, []).append(g)
    return nodes
