"""The consumer-group requests on the generated wire: each answer built with kio's response
dataclasses for a version, encoded as a broker sends it (kio's encoder, Kafka's schema), read
back through the frame the request prepares for a broker speaking up to that version, then
through the request's `answer` — at the newest version sent and at the oldest. Several groups
go in one request only from Kafka 3.0 (OffsetFetch v8, FindCoordinator v4); an older broker is
asked one group per request (`AdminGroups._ask`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from io import BytesIO
from typing import Any

import pytest
from kio.schema.errors import ErrorCode

from kafka_tui.admin import wire
from kafka_tui.admin.consumer_groups import AdminGroups, _Listed
from kafka_tui.admin.model import ConnectionSettings
from kafka_tui.admin.protocol_groups import (
    CLASSIC,
    CONSUMER,
    DESCRIBE,
    SHARE,
    STREAMS,
    CommittedOffset,
    ConsumerGroupDescribeRequest,
    Coordinator,
    DescribedGroup,
    DescribeGroupsRequest,
    DescribeShareGroupOffsetsRequest,
    FetchedGroup,
    FindCoordinatorRequest,
    GroupList,
    ListedGroup,
    ListGroupsRequest,
    OffsetFetchRequest,
    ShareGroupDescribeRequest,
    ShareGroupOffsets,
    SharePartitionOffset,
    StreamsGroupDescribeRequest,
)
from kafka_tui.admin.wire import UnsupportedByBroker, millis, nested, shape

NOT_COORDINATOR = 16
TOPIC_AUTHORIZATION_FAILED = 29
GROUP_AUTHORIZATION_FAILED = 30
COORDINATOR_NOT_AVAILABLE = 15
GROUP_ID_NOT_FOUND = 69


def read(request: Any, version: int, answer: Callable[[type[Any]], Any]) -> Any:
    """The frame `request` prepares for a broker that speaks up to `version`, and the answer
    `answer(response type)` built, as the frame decodes it from a broker's bytes."""
    frame = request.prepare({request.API_KEY: (0, version)})
    assert version == frame.API_VERSION
    response_type = request.API.response_type(version)
    data = BytesIO(wire.encode(answer(response_type)))
    decoded = frame.RESPONSE_TYPE.decode(data)
    assert data.read() == b"", "the whole answer is read"
    assert type(decoded) is response_type
    return decoded


# -- ListGroups: v0-5, the state from v4, the type from v5 ------------------------------------


def _groups(response: type[Any], error: int, *groups: tuple[str, str, str]) -> Any:
    listed = nested(response, "ListedGroup")
    return shape(
        response,
        throttle_time=millis(0),
        error_code=ErrorCode(error),
        groups=tuple(
            shape(listed, group_id=g, protocol_type=t, group_state=s, group_type=t)
            for g, s, t in groups
        ),
    )


@pytest.mark.parametrize(
    ("version", "states", "types"), [(5, True, True), (4, True, False), (0, False, False)]
)
def test_list_groups(version: int, states: bool, types: bool) -> None:
    # As Kafka 4.4.0 lists them: protocol type and group type "share" for a share group,
    # "consumer" for a KIP-848 group (and protocol type "consumer" for a classic consumer).
    def answer(response: type[Any]) -> Any:
        return _groups(
            response,
            0,
            ("orders-app", "Stable", CLASSIC),
            ("old", "", CLASSIC),
            ("jobs", "Empty", SHARE),
            ("g848", "Stable", CONSUMER),
            ("app", "Assigning", STREAMS),
        )

    decoded = read(ListGroupsRequest(), version, answer)
    state = (lambda s: s) if states else (lambda s: "")
    kind = (lambda t: t) if types else (lambda t: CLASSIC)  # only classic groups before v5
    assert ListGroupsRequest.answer(decoded) == GroupList(
        0,
        [
            ListedGroup("orders-app", state("Stable"), CLASSIC),
            ListedGroup("old", "", CLASSIC),
            ListedGroup("jobs", state("Empty"), kind(SHARE)),
            ListedGroup("g848", state("Stable"), kind(CONSUMER)),
            ListedGroup("app", state("Assigning"), kind(STREAMS)),
        ],
    )
    # COORDINATOR_LOAD_IN_PROGRESS for the whole broker, no groups
    decoded = read(ListGroupsRequest(), version, lambda r: _groups(r, 14))
    assert ListGroupsRequest.answer(decoded) == GroupList(14, [])


def test_list_groups_asks_for_every_group() -> None:
    # Every type too: a kind kafka-tui does not know yet still has its offsets read.
    newest = ListGroupsRequest().message(5)
    assert newest.states_filter == () and newest.types_filter == ()


# -- OffsetFetch: v2-7 one group per request, v8 many ----------------------------------------

TOPICS = {"orders": [0, 1], "audit": [2]}
ORDERS_APP = FetchedGroup(
    "orders-app",
    0,
    [
        CommittedOffset("orders", 0, 42, 0),
        CommittedOffset("orders", 1, -1, 0),
        CommittedOffset("audit", 2, 7, TOPIC_AUTHORIZATION_FAILED),
    ],
)


def _offset_topics(response: type[Any], topic_name: str, partition_name: str) -> tuple[Any, ...]:
    topic, partition = nested(response, topic_name), nested(response, partition_name)

    def p(index: int, offset: int, error: int) -> Any:
        return shape(
            partition,
            partition_index=index,
            committed_offset=offset,
            committed_leader_epoch=-1,
            metadata=None,
            error_code=ErrorCode(error),
        )

    return (
        topic(name="orders", partitions=(p(0, 42, 0), p(1, -1, 0))),
        topic(name="audit", partitions=(p(2, 7, TOPIC_AUTHORIZATION_FAILED),)),
    )


def test_offset_fetch_of_many_groups_in_one_request() -> None:
    request = OffsetFetchRequest(["orders-app", "moved"], TOPICS)

    def answer(response: type[Any]) -> Any:
        group = nested(response, "OffsetFetchResponseGroup")
        topics = _offset_topics(
            response, "OffsetFetchResponseTopics", "OffsetFetchResponsePartitions"
        )
        return response(
            throttle_time=millis(0),
            groups=(
                group(group_id="orders-app", topics=topics, error_code=ErrorCode.none),
                group(group_id="moved", topics=(), error_code=ErrorCode(NOT_COORDINATOR)),
            ),
        )

    assert request.answer(read(request, 8, answer)) == [
        ORDERS_APP,
        FetchedGroup("moved", NOT_COORDINATOR, []),
    ]
    sent = request.message(8)
    assert [g.group_id for g in sent.groups] == ["orders-app", "moved"]
    assert [(t.name, t.partition_indexes) for t in sent.groups[0].topics] == [
        ("orders", (0, 1)),
        ("audit", (2,)),
    ]


@pytest.mark.parametrize("version", [7, 2])
def test_offset_fetch_of_one_group(version: int) -> None:
    request = OffsetFetchRequest(["orders-app"], TOPICS)

    def answer(response: type[Any]) -> Any:
        topics = _offset_topics(
            response, "OffsetFetchResponseTopic", "OffsetFetchResponsePartition"
        )
        return shape(response, throttle_time=millis(0), topics=topics, error_code=ErrorCode.none)

    # the answer does not name its group: the request knows it
    assert request.answer(read(request, version, answer)) == [ORDERS_APP]
    moved = read(
        request,
        version,
        lambda r: shape(
            r, throttle_time=millis(0), topics=(), error_code=ErrorCode(NOT_COORDINATOR)
        ),
    )
    assert request.answer(moved) == [FetchedGroup("orders-app", NOT_COORDINATOR, [])]
    sent = request.message(version)
    assert sent.group_id == "orders-app"
    assert [(t.name, t.partition_indexes) for t in sent.topics] == [
        ("orders", (0, 1)),
        ("audit", (2,)),
    ]


def test_offset_fetch_versions() -> None:
    many = OffsetFetchRequest(["a", "b"], TOPICS)
    assert many.prepare({9: (1, 9)}).API_VERSION == 8  # Kafka 4.x
    with pytest.raises(UnsupportedByBroker):  # Kafka 2.1-2.8: one group per request
        many.prepare({9: (0, 7)})
    one = many.for_group("a")
    assert one.groups == ["a"] and one.topics is TOPICS
    assert one.prepare({9: (1, 9)}).API_VERSION == 8
    assert one.prepare({9: (0, 5)}).API_VERSION == 5  # Kafka 2.1
    with pytest.raises(UnsupportedByBroker):  # v1 names a group's error on each partition
        one.prepare({9: (0, 1)})


# -- DescribeGroups: v0-5 ----------------------------------------------------------------------


@pytest.mark.parametrize("version", [5, 0])
def test_describe_groups(version: int) -> None:
    def answer(response: type[Any]) -> Any:
        group, member = nested(response, "DescribedGroup"), nested(response, "DescribedGroupMember")
        members = tuple(
            shape(
                member,
                member_id=f"m{i}",
                group_instance_id=None,
                client_id="client",
                client_host="/10.0.0.1",
                member_metadata=b"\x00\x01",
                member_assignment=b"",
            )
            for i in range(3)
        )

        def g(error: int, name: str, state: str, members: tuple[Any, ...] = ()) -> Any:
            return shape(
                group,
                error_code=ErrorCode(error),
                group_id=name,
                group_state=state,
                protocol_type="consumer" if state else "",
                protocol_data="range" if members else "",
                members=members,
                authorized_operations=-2147483648,
            )

        return shape(
            response,
            throttle_time=millis(0),
            groups=(
                g(0, "orders-app", "Stable", members),
                g(0, "idle", "Empty"),
                g(GROUP_AUTHORIZATION_FAILED, "secret", ""),
            ),
        )

    request = DescribeGroupsRequest(["orders-app", "idle", "secret"])
    assert DescribeGroupsRequest.answer(read(request, version, answer)) == [
        DescribedGroup("orders-app", 0, "Stable", 3),
        DescribedGroup("idle", 0, "Empty", 0),
        DescribedGroup("secret", GROUP_AUTHORIZATION_FAILED, "", 0),
    ]
    sent = request.message(version)
    assert sent.groups == ("orders-app", "idle", "secret")
    assert getattr(sent, "include_authorized_operations", False) is False


# -- ConsumerGroupDescribe, ShareGroupDescribe, StreamsGroupDescribe ---------------------------


def test_each_kind_has_its_describe() -> None:
    assert {
        CLASSIC: DescribeGroupsRequest,
        CONSUMER: ConsumerGroupDescribeRequest,
        SHARE: ShareGroupDescribeRequest,
        STREAMS: StreamsGroupDescribeRequest,
    } == DESCRIBE
    # The keys and versions, as Kafka 4.4.0's ApiVersions answers them: 69 0-1, 77 1-1
    # (kio knows v1 only), 89 0-1 (kio knows v0).
    four_four = {69: (0, 1), 77: (1, 1), 89: (0, 1)}
    assert ConsumerGroupDescribeRequest(["g"]).prepare(four_four).API_VERSION == 1
    assert ShareGroupDescribeRequest(["g"]).prepare(four_four).API_VERSION == 1
    assert StreamsGroupDescribeRequest(["g"]).prepare(four_four).API_VERSION == 0
    for request in (ConsumerGroupDescribeRequest, ShareGroupDescribeRequest):
        with pytest.raises(UnsupportedByBroker):  # a broker before the kind: ListGroups' state
            request(["g"]).prepare({15: (0, 5)})


def _member(member: type[Any], kind: str, i: int) -> Any:
    if kind == STREAMS:
        assignment = nested(member, "Assignment")
        tasks = assignment(active_tasks=(), standby_tasks=(), warmup_tasks=())
        return shape(
            member,
            member_id=f"m{i}",
            member_epoch=3,
            instance_id=None,
            rack_id=None,
            client_id="client",
            client_host="/10.0.0.1",
            topology_epoch=0,
            process_id="p",
            user_endpoint=None,
            client_tags=(),
            task_offsets=(),
            task_end_offsets=(),
            assignment=tasks,
            target_assignment=tasks,
            is_classic=False,
        )
    assignment = nested(member, "Assignment")
    return shape(
        member,
        member_id=f"m{i}",
        instance_id=None,
        rack_id=None,
        member_epoch=3,
        client_id="client",
        client_host="/10.0.0.1",
        subscribed_topic_names=("orders",),
        subscribed_topic_regex=None,
        assignment=assignment(topic_partitions=()),
        target_assignment=assignment(topic_partitions=()),
        member_type=1,
    )


@pytest.mark.parametrize(
    ("request_type", "kind", "version"),
    [
        (ConsumerGroupDescribeRequest, CONSUMER, 1),
        (ConsumerGroupDescribeRequest, CONSUMER, 0),
        (ShareGroupDescribeRequest, SHARE, 1),
        (StreamsGroupDescribeRequest, STREAMS, 0),
    ],
)
def test_describe_a_kind_of_group(request_type: type[Any], kind: str, version: int) -> None:
    def answer(response: type[Any]) -> Any:
        group, member = nested(response, "DescribedGroup"), nested(response, "Member")

        def g(
            error: int, name: str, state: str, members: int = 0, message: str | None = None
        ) -> Any:
            return shape(
                group,
                error_code=ErrorCode(error),
                error_message=message,
                group_id=name,
                group_state=state,
                group_epoch=4,
                assignment_epoch=4,
                assignor_name="simple",
                topology=None,
                members=tuple(_member(member, kind, i) for i in range(members)),
                authorized_operations=-2147483648,
            )

        return shape(
            response,
            throttle_time=millis(0),
            groups=(
                g(0, "reading", "Stable", 2),
                g(0, "idle", "Empty"),
                # Kafka 4.4.0's answer about a group of another kind
                g(
                    GROUP_ID_NOT_FOUND,
                    "classic-app",
                    "",
                    message="Group classic-app is not a share group.",
                ),
            ),
        )

    request = request_type(["reading", "idle", "classic-app"])
    assert request.answer(read(request, version, answer)) == [
        DescribedGroup("reading", 0, "Stable", 2),
        DescribedGroup("idle", 0, "Empty", 0),
        DescribedGroup("classic-app", GROUP_ID_NOT_FOUND, "", 0),
    ]
    sent = request.message(version)
    assert sent.group_ids == ("reading", "idle", "classic-app")
    assert sent.include_authorized_operations is False


# -- DescribeShareGroupOffsets: v0-1, the lag from v1 ---------------------------------------


@pytest.mark.parametrize("version", [1, 0])
def test_describe_share_group_offsets(version: int) -> None:
    request = DescribeShareGroupOffsetsRequest(["jobs", "moved"], TOPICS)

    def answer(response: type[Any]) -> Any:
        group = nested(response, "DescribeShareGroupOffsetsResponseGroup")
        topic = nested(response, "DescribeShareGroupOffsetsResponseTopic")
        partition = nested(response, "DescribeShareGroupOffsetsResponsePartition")

        def p(index: int, start: int, lag: int, error: int = 0) -> Any:
            return shape(
                partition,
                partition_index=index,
                start_offset=start,
                leader_epoch=0,
                lag=lag,
                error_code=ErrorCode(error),
                error_message=None,
            )

        # As Kafka 4.4.0 answered after 12 of 20 records were read: all 10 of partition 0
        # acknowledged (its start offset not yet moved, lag 0), 2 of partition 1; no state
        # (-1) on a partition the group never read.
        topics = (
            topic(topic_name="orders", topic_id=None, partitions=(p(0, 0, 0), p(1, 2, 8))),
            topic(topic_name="audit", topic_id=None, partitions=(p(2, -1, -1),)),
        )
        return shape(
            response,
            throttle_time=millis(0),
            groups=(
                group(
                    group_id="jobs", topics=topics, error_code=ErrorCode.none, error_message=None
                ),
                group(
                    group_id="moved",
                    topics=(),
                    error_code=ErrorCode(NOT_COORDINATOR),
                    error_message=None,
                ),
            ),
        )

    lag = (lambda n: n) if version >= 1 else (lambda n: -1)  # v0 gives no lag
    assert request.answer(read(request, version, answer)) == [
        ShareGroupOffsets(
            "jobs",
            0,
            [
                SharePartitionOffset("orders", 0, 0, lag(0), 0),
                SharePartitionOffset("orders", 1, 2, lag(8), 0),
                SharePartitionOffset("audit", 2, -1, -1, 0),
            ],
        ),
        ShareGroupOffsets("moved", NOT_COORDINATOR, []),
    ]
    sent = request.message(version)
    assert [g.group_id for g in sent.groups] == ["jobs", "moved"]
    assert [(t.topic_name, t.partitions) for t in sent.groups[0].topics] == [
        ("orders", (0, 1)),
        ("audit", (2,)),
    ]
    assert request.prepare({90: (0, 1)}).API_VERSION == 1  # Kafka 4.4.0


# -- FindCoordinator: v0-3 one key per request, v4 many ----------------------------------------


def test_find_coordinator_of_many_groups() -> None:
    request = FindCoordinatorRequest(["orders-app", "gone"])

    def answer(response: type[Any]) -> Any:
        coordinator = nested(response, "Coordinator")
        return response(
            throttle_time=millis(0),
            coordinators=(
                coordinator(
                    key="orders-app",
                    node_id=2,
                    host="broker-2",
                    port=9092,
                    error_code=ErrorCode.none,
                    error_message=None,
                ),
                coordinator(
                    key="gone",
                    node_id=-1,
                    host="",
                    port=-1,
                    error_code=ErrorCode(COORDINATOR_NOT_AVAILABLE),
                    error_message="The coordinator is not available.",
                ),
            ),
        )

    assert request.answer(read(request, 4, answer)) == [
        Coordinator("orders-app", 2, 0),
        Coordinator("gone", -1, COORDINATOR_NOT_AVAILABLE),
    ]
    sent = request.message(4)
    assert sent.coordinator_keys == ("orders-app", "gone") and sent.key_type == 0
    with pytest.raises(UnsupportedByBroker):  # Kafka 2.1-2.8: one key per request
        request.prepare({10: (0, 3)})


@pytest.mark.parametrize("version", [3, 0])
def test_find_coordinator_of_one_group(version: int) -> None:
    request = FindCoordinatorRequest(["orders-app"])

    def answer(response: type[Any]) -> Any:
        return shape(
            response,
            throttle_time=millis(0),
            error_code=ErrorCode.none,
            error_message=None,
            node_id=2,
            host="broker-2",
            port=9092,
        )

    assert request.answer(read(request, version, answer)) == [Coordinator("orders-app", 2, 0)]
    assert request.message(version).key == "orders-app"


# -- groups.py: many groups in one request, or one per group from an older broker ---------------


def _offsets(response: type[Any], groups: list[str]) -> Any:
    """OffsetFetch's answer about `groups`, at the version of `response`: each committed offset
    42 on orders/0, except "moved" (NOT_COORDINATOR)."""
    batched = wire.has(response, "groups")
    s = "s" if batched else ""  # v8 names its structs in the plural
    topic = nested(response, f"OffsetFetchResponseTopic{s}")
    partition = nested(response, f"OffsetFetchResponsePartition{s}")
    committed = shape(
        partition,
        partition_index=0,
        committed_offset=42,
        committed_leader_epoch=-1,
        metadata="",
        error_code=ErrorCode.none,
    )

    def about(g: str) -> dict[str, Any]:
        if g == "moved":
            return {"topics": (), "error_code": ErrorCode(NOT_COORDINATOR)}
        return {
            "topics": (topic(name="orders", partitions=(committed,)),),
            "error_code": ErrorCode.none,
        }

    if batched:
        group = nested(response, "OffsetFetchResponseGroup")
        return response(
            throttle_time=millis(0), groups=tuple(group(group_id=g, **about(g)) for g in groups)
        )
    (one,) = groups
    return shape(response, throttle_time=millis(0), **about(one))


def _broker(versions: dict[int, tuple[int, int]]) -> tuple[Callable[[Any], Any], list[int]]:
    """A broker speaking `versions` of OffsetFetch; `sent`: each request's version."""
    sent: list[int] = []

    async def send(request: Any) -> Any:
        frame = request.prepare(versions)  # raises as aiokafka's connection would
        sent.append(frame.API_VERSION)
        built = _offsets(request.API.response_type(frame.API_VERSION), request.groups)
        return frame.RESPONSE_TYPE.decode(BytesIO(wire.encode(built)))

    return send, sent


@pytest.mark.parametrize(
    ("versions", "versions_sent"),
    [({9: (1, 9)}, [8]), ({9: (0, 5)}, [5, 5, 5])],  # Kafka 4.x; Kafka 2.1
)
def test_offsets_of_many_groups_whatever_the_broker(
    versions: dict[int, tuple[int, int]], versions_sent: list[int]
) -> None:
    send, sent = _broker(versions)
    admin = AdminGroups(ConnectionSettings("localhost:9092"))
    request = OffsetFetchRequest(["a", "b", "moved"], {"orders": [0]})
    asked = asyncio.run(admin._ask(request, send))
    assert sent == versions_sent
    fetched = [g for single, answer in asked for g in single.answer(answer)]
    assert fetched == [
        FetchedGroup("a", 0, [CommittedOffset("orders", 0, 42, 0)]),
        FetchedGroup("b", 0, [CommittedOffset("orders", 0, 42, 0)]),
        FetchedGroup("moved", NOT_COORDINATOR, []),
    ]


def test_a_broker_without_a_kinds_describe_leaves_its_groups_undescribed() -> None:
    """A broker that speaks DescribeGroups only (before Kafka 4.0): the classic group is
    described, the others keep ListGroups' state with members unknown, and nothing raises."""
    sent: list[int] = []

    async def send_to_itself(request: Any, broker: int) -> Any:
        frame = request.prepare({15: (0, 5)})  # raises UnsupportedByBroker for 69, 77, 89
        sent.append(frame.API_KEY)
        response = request.API.response_type(frame.API_VERSION)
        group = nested(response, "DescribedGroup")
        built = shape(
            response,
            throttle_time=millis(0),
            groups=tuple(
                shape(
                    group,
                    error_code=ErrorCode.none,
                    group_id=g,
                    group_state="Empty",
                    protocol_type="consumer",
                    protocol_data="",
                    members=(),
                    authorized_operations=-2147483648,
                )
                for g in request.groups
            ),
        )
        return frame.RESPONSE_TYPE.decode(BytesIO(wire.encode(built)))

    admin = AdminGroups(ConnectionSettings("localhost:9092"))
    admin._send_to_itself = send_to_itself  # type: ignore[method-assign]
    listed = {
        name: _Listed(name, "Stable", 1, kind)
        for name, kind in [("old", CLASSIC), ("new", CONSUMER), ("jobs", SHARE), ("app", STREAMS)]
    }
    assert asyncio.run(admin._describe_groups(listed)) == {"old": ("Empty", 0)}
    assert sent == [15]
