"""The group requests (consumer_groups.py) on Kafka's generated wire (wire.py, kio), each at the
highest version both sides know, its answer read into typed records whatever the version:
ListGroups (16) v0-5, OffsetFetch (9) v2-8, DescribeGroups (15) v0-5 and FindCoordinator (10)
v0-4 for every kind of group; ConsumerGroupDescribe (69) v0-1 for the new consumer protocol's
groups (KIP-848), ShareGroupDescribe (77) v1 and DescribeShareGroupOffsets (90) v0-1 for share
groups (KIP-932), StreamsGroupDescribe (89) v0 for streams groups (KIP-1071).

Brokers' ApiVersions for ListGroups, OffsetFetch, DescribeGroups and FindCoordinator: Kafka
2.1.1 0-2, 0-5, 0-2, 0-2; 2.8.2 0-4, 0-7, 0-5, 0-3; 4.4.0 0-5, 1-10, 0-6, 0-6 (Kafka 4.0
dropped OffsetFetch v0 only of these, KIP-896). A group's state is in ListGroups answers from
v4 (Kafka 2.6), read as "" before; its type ("classic", "consumer", "share", "streams") from
v5 (KIP-848), read as "classic" before: the only kind older brokers have. OffsetFetch v1 gives
a group's own error (NOT_COORDINATOR, ...) only on each partition, v2 (every broker since
0.10.2) as the group's: v2 is the lowest sent.

Kafka 4.4.0 answers ConsumerGroupDescribe 0-1, ShareGroupDescribe 1-1 (v0 was the early access
one; kio has v1 only), StreamsGroupDescribe 0-1 (kio has v0) and DescribeShareGroupOffsets 0-1
(v1 adds each partition's lag). Each describe answers GROUP_ID_NOT_FOUND ("Group g is not a
share group.") for a group of another kind; DescribeGroups v0-5 answers a group that is not
classic as state Dead with no members and no error (v6: GROUP_ID_NOT_FOUND, "Group g is not a
classic group."), which is why the kind decides the request. OffsetFetch reads the offsets of
classic, consumer and streams groups alike; a share group has none there (-1 on every
partition, no error): its share-partition start offsets come from DescribeShareGroupOffsets.

Many groups in one request: OffsetFetch from v8 (KIP-709) and FindCoordinator from v4
(KIP-699), both Kafka 3.0. Older brokers take one group per request, and their answers do not
name it. A `GroupsRequest` about several groups is therefore sent only at the batched
versions (`BATCHED`): an older broker's ApiVersions refuses it before anything is sent
(`UnsupportedByBroker`), and the caller asks again with one request per group (`for_group`),
sent at any version. groups.py does that (`AdminGroups._ask`).

Left out: ListGroups v5's types filter (sent empty: every type is listed, one kafka-tui does
not know yet included, so that a deletion never misses a group); DescribeGroups v6 (an error
message and GROUP_ID_NOT_FOUND for a group that does not exist, instead of state Dead);
FindCoordinator v5-6 (transactions, share-partition keys); OffsetFetch v9 (a member id and
epoch, for members of KIP-848 groups) and v10 (topics named by id).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, NamedTuple, Self

from .wire import Api, WireRequest, code, has, nested, shape

# The kinds of group ListGroups v5 names (KIP-1043's group types).
CLASSIC = "classic"
CONSUMER = "consumer"  # the new consumer protocol (KIP-848, group.protocol=consumer)
SHARE = "share"  # KIP-932
STREAMS = "streams"  # KIP-1071


class ListedGroup(NamedTuple):
    group_id: str
    state: str  # "" when the broker names none (ListGroups before v4)
    type: str = CLASSIC  # as the broker names it; classic before v5


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


class SharePartitionOffset(NamedTuple):
    topic: str
    partition: int
    start_offset: int  # negative: the group holds no state on this partition
    lag: int  # negative: unknown (DescribeShareGroupOffsets v0, or no state)
    error_code: int


class ShareGroupOffsets(NamedTuple):
    """One share group's DescribeShareGroupOffsets answer."""

    group_id: str
    error_code: int
    offsets: list[SharePartitionOffset]


class Coordinator(NamedTuple):
    key: str  # the group
    node_id: int
    error_code: int


class GroupsRequest(WireRequest):
    """A request about `groups` that newer brokers take many at a time (from `BATCHED.low`)
    and older ones one at a time: about several groups it is sent at `BATCHED` only, about one
    at any version of `API`. Older answers do not name their group, so `answer` is the
    request's own: it knows which group it asked about."""

    BATCHED: ClassVar[Api]

    def __init__(self, groups: Sequence[str]) -> None:
        self.groups = list(groups)

    def api(self) -> Api:
        return self.API if len(self.groups) == 1 else self.BATCHED

    def batched(self, version: int) -> bool:
        return version >= self.BATCHED.low

    def for_group(self, group: str) -> Self:
        """The same request about `group` alone (for a broker that takes one at a time)."""
        raise NotImplementedError


# -- ListGroups (16) ------------------------------------------------------------------------


class ListGroupsRequest(WireRequest):
    """Every group the broker coordinates (and the principal may describe); no filter."""

    API = Api(16, "ListGroups", 0, 5)
    API_KEY = 16

    def message(self, version: int) -> Any:
        return shape(self.API.request_type(version))

    @staticmethod
    def answer(response: Any) -> GroupList:
        return GroupList(
            code(response.error_code),
            [
                ListedGroup(
                    g.group_id,
                    getattr(g, "group_state", "") or "",
                    getattr(g, "group_type", "") or CLASSIC,
                )
                for g in response.groups
            ],
        )


# -- OffsetFetch (9) ------------------------------------------------------------------------


class OffsetFetchRequest(GroupsRequest):
    """The committed offsets of `groups` on `topics` (name -> partitions; None: every topic
    the group committed on, v2+)."""

    API = Api(9, "OffsetFetch", 2, 8)
    BATCHED = Api(9, "OffsetFetch (many groups)", 8, 8)
    API_KEY = 9

    def __init__(self, groups: Sequence[str], topics: Mapping[str, Sequence[int]] | None) -> None:
        super().__init__(groups)
        self.topics = topics

    def for_group(self, group: str) -> Self:
        return type(self)([group], self.topics)

    def message(self, version: int) -> Any:
        request = self.API.request_type(version)
        if not self.batched(version):
            topic = nested(request, "OffsetFetchRequestTopic")
            return shape(
                request,
                group_id=self.groups[0],
                topics=_topics(topic, self.topics),
            )
        group = nested(request, "OffsetFetchRequestGroup")
        topics = _topics(nested(request, "OffsetFetchRequestTopics"), self.topics)
        return shape(
            request,
            groups=tuple(shape(group, group_id=g, topics=topics) for g in self.groups),
            require_stable=False,
        )

    def answer(self, response: Any) -> list[FetchedGroup]:
        if not has(type(response), "groups"):  # v2-7: about this request's one group
            return [_fetched(self.groups[0], response.error_code, response.topics)]
        return [_fetched(g.group_id, g.error_code, g.topics) for g in response.groups]


def _topics(topic: type[Any], topics: Mapping[str, Sequence[int]] | None) -> Any:
    if topics is None:
        return None  # every topic
    return tuple(
        shape(topic, name=name, partition_indexes=tuple(partitions))
        for name, partitions in topics.items()
    )


def _fetched(group: str, error_code: Any, topics: Sequence[Any]) -> FetchedGroup:
    return FetchedGroup(
        group,
        code(error_code),
        [
            CommittedOffset(t.name, p.partition_index, p.committed_offset, code(p.error_code))
            for t in topics
            for p in t.partitions
        ],
    )


# -- DescribeGroups (15) --------------------------------------------------------------------


class DescribeGroupsRequest(WireRequest):
    API = Api(15, "DescribeGroups", 0, 5)
    API_KEY = 15

    def __init__(self, groups: Sequence[str]) -> None:
        self.groups = groups

    def message(self, version: int) -> Any:
        return shape(
            self.API.request_type(version),
            groups=tuple(self.groups),
            include_authorized_operations=False,
        )

    @staticmethod
    def answer(response: Any) -> list[DescribedGroup]:
        return [
            DescribedGroup(g.group_id, code(g.error_code), g.group_state or "", len(g.members))
            for g in response.groups
        ]


# -- ConsumerGroupDescribe (69), ShareGroupDescribe (77), StreamsGroupDescribe (89) ---------


class KindDescribeRequest(WireRequest):
    """The describe of one kind of group: the same request and answer shape for each (group
    ids in; each group's error, state and members out)."""

    def __init__(self, groups: Sequence[str]) -> None:
        self.groups = groups

    def message(self, version: int) -> Any:
        return shape(
            self.API.request_type(version),
            group_ids=tuple(self.groups),
            include_authorized_operations=False,
        )

    @staticmethod
    def answer(response: Any) -> list[DescribedGroup]:
        return [
            DescribedGroup(g.group_id, code(g.error_code), g.group_state or "", len(g.members))
            for g in response.groups
        ]


class ConsumerGroupDescribeRequest(KindDescribeRequest):
    API = Api(69, "ConsumerGroupDescribe", 0, 1)
    API_KEY = 69


class ShareGroupDescribeRequest(KindDescribeRequest):
    API = Api(77, "ShareGroupDescribe", 1, 1)
    API_KEY = 77


class StreamsGroupDescribeRequest(KindDescribeRequest):
    API = Api(89, "StreamsGroupDescribe", 0, 0)
    API_KEY = 89


# The describe request of each kind of group.
DESCRIBE: Mapping[str, type[DescribeGroupsRequest | KindDescribeRequest]] = {
    CLASSIC: DescribeGroupsRequest,
    CONSUMER: ConsumerGroupDescribeRequest,
    SHARE: ShareGroupDescribeRequest,
    STREAMS: StreamsGroupDescribeRequest,
}


# -- DescribeShareGroupOffsets (90) ---------------------------------------------------------


class DescribeShareGroupOffsetsRequest(WireRequest):
    """The share-partition start offsets of share `groups` on `topics` (name -> partitions;
    None: every topic the group holds state on), many groups in one request."""

    API = Api(90, "DescribeShareGroupOffsets", 0, 1)
    API_KEY = 90

    def __init__(self, groups: Sequence[str], topics: Mapping[str, Sequence[int]] | None) -> None:
        self.groups = list(groups)
        self.topics = topics

    def message(self, version: int) -> Any:
        request = self.API.request_type(version)
        group = nested(request, "DescribeShareGroupOffsetsRequestGroup")
        topic = nested(request, "DescribeShareGroupOffsetsRequestTopic")
        topics = (
            None
            if self.topics is None
            else tuple(
                shape(topic, topic_name=name, partitions=tuple(partitions))
                for name, partitions in self.topics.items()
            )
        )
        return shape(
            request, groups=tuple(shape(group, group_id=g, topics=topics) for g in self.groups)
        )

    @staticmethod
    def answer(response: Any) -> list[ShareGroupOffsets]:
        return [
            ShareGroupOffsets(
                g.group_id,
                code(g.error_code),
                [
                    SharePartitionOffset(
                        t.topic_name,
                        p.partition_index,
                        p.start_offset,
                        getattr(p, "lag", -1),
                        code(p.error_code),
                    )
                    for t in g.topics
                    for p in t.partitions
                ],
            )
            for g in response.groups
        ]


# -- FindCoordinator (10) -------------------------------------------------------------------

KEY_GROUP = 0


class FindCoordinatorRequest(GroupsRequest):
    """The coordinator of each of `groups`."""

    API = Api(10, "FindCoordinator", 0, 4)
    BATCHED = Api(10, "FindCoordinator (many groups)", 4, 4)
    API_KEY = 10

    def for_group(self, group: str) -> Self:
        return type(self)([group])

    def message(self, version: int) -> Any:
        request = self.API.request_type(version)
        if not self.batched(version):
            return shape(request, key=self.groups[0], key_type=KEY_GROUP)
        return shape(request, key_type=KEY_GROUP, coordinator_keys=tuple(self.groups))

    def answer(self, response: Any) -> list[Coordinator]:
        if not has(type(response), "coordinators"):  # v0-3: about this request's one group
            return [Coordinator(self.groups[0], int(response.node_id), code(response.error_code))]
        return [
            Coordinator(c.key, int(c.node_id), code(c.error_code)) for c in response.coordinators
        ]


# -- OffsetDelete (47) ----------------------------------------------------------------------


class DeletedOffset(NamedTuple):
    topic: str
    partition: int
    error_code: int  # GROUP_SUBSCRIBED_TO_TOPIC (86): a member of the group reads the topic


class OffsetDeleteAnswer(NamedTuple):
    group_id: str
    error_code: int  # NON_EMPTY_GROUP (68), GROUP_ID_NOT_FOUND (69), ...
    partitions: list[DeletedOffset]


class OffsetDeleteRequest(WireRequest):
    """Delete `group`'s committed offsets on `topics` (name -> partitions), at its
    coordinator (Kafka 2.4+, KIP-496). Kafka's rule: an Empty group loses any offsets; a group
    with members keeps those of the topics its members subscribe to (per partition:
    GROUP_SUBSCRIBED_TO_TOPIC), and one whose members do not use the consumer protocol is
    refused whole (NON_EMPTY_GROUP)."""

    API = Api(47, "OffsetDelete", 0, 0)
    API_KEY = 47

    def __init__(self, group: str, topics: Mapping[str, Sequence[int]]) -> None:
        self.group = group
        self.topics = topics

    def message(self, version: int) -> Any:
        request = self.API.request_type(version)
        topic = nested(request, "OffsetDeleteRequestTopic")
        partition = nested(request, "OffsetDeleteRequestPartition")
        return shape(
            request,
            group_id=self.group,
            topics=tuple(
                shape(
                    topic,
                    name=name,
                    partitions=tuple(shape(partition, partition_index=p) for p in parts),
                )
                for name, parts in self.topics.items()
            ),
        )

    def answer(self, response: Any) -> OffsetDeleteAnswer:
        return OffsetDeleteAnswer(
            self.group,
            code(response.error_code),
            [
                DeletedOffset(t.name, p.partition_index, code(p.error_code))
                for t in response.topics
                for p in t.partitions
            ],
        )
