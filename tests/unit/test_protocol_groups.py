"""The consumer-group answers decode into typed records:
each answer is encoded with aiokafka's own Schema for the response, decoded by its Response
class as a broker's bytes would be, then read through the request's `answer`."""

from __future__ import annotations

from io import BytesIO
from typing import Any

from aiokafka.protocol.api import Request, Response

from kafka_tui.admin.protocol_groups import (
    CommittedOffset,
    Coordinator,
    DescribedGroup,
    DescribeGroupsRequest,
    FetchedGroup,
    FindCoordinatorRequest,
    GroupList,
    ListedGroup,
    ListGroupsRequest,
    OffsetFetchRequest,
)

NO_TAGS: dict[int, bytes] = {}  # tagged fields: none


def wire(request: type[Request[Any]], *fields: Any) -> Response:
    """`fields` as the broker sends them: encoded by the response's SCHEMA, then decoded."""
    (struct,) = request._CLASSES
    response_type: type[Response] = struct.RESPONSE_TYPE
    data = BytesIO(response_type.SCHEMA.encode(list(fields)))
    response = response_type.decode(data)
    assert data.read() == b"", "the whole answer is read"
    return response


def test_list_groups() -> None:
    groups = [("orders-app", "consumer", "Stable", NO_TAGS), ("old", "consumer", None, NO_TAGS)]
    assert ListGroupsRequest.answer(wire(ListGroupsRequest, 0, 0, groups, NO_TAGS)) == GroupList(
        0, [ListedGroup("orders-app", "Stable"), ListedGroup("old", "")]
    )
    # COORDINATOR_LOAD_IN_PROGRESS for the whole broker, no groups
    assert ListGroupsRequest.answer(wire(ListGroupsRequest, 0, 14, [], NO_TAGS)) == GroupList(
        14, []
    )


def test_offset_fetch() -> None:
    orders = ("orders", [(0, 42, 3, "", 0, NO_TAGS), (1, -1, -1, None, 0, NO_TAGS)], NO_TAGS)
    audit = ("audit", [(2, 7, -1, "m", 29, NO_TAGS)], NO_TAGS)  # TOPIC_AUTHORIZATION_FAILED
    groups = [
        ("orders-app", [orders, audit], 0, NO_TAGS),
        ("moved", [], 16, NO_TAGS),  # NOT_COORDINATOR
    ]
    answer = OffsetFetchRequest.answer(wire(OffsetFetchRequest, 0, groups, NO_TAGS))
    assert answer == [
        FetchedGroup(
            "orders-app",
            0,
            [
                CommittedOffset("orders", 0, 42, 0),
                CommittedOffset("orders", 1, -1, 0),
                CommittedOffset("audit", 2, 7, 29),
            ],
        ),
        FetchedGroup("moved", 16, []),
    ]


def test_describe_groups() -> None:
    members = [(f"m{i}", None, "client", "/10.0.0.1", b"\x00\x01", b"", NO_TAGS) for i in range(3)]
    groups = [
        (0, "orders-app", "Stable", "consumer", "range", members, -2147483648, NO_TAGS),
        (0, "idle", None, "consumer", "", [], -2147483648, NO_TAGS),
        (30, "secret", "", "", "", [], -2147483648, NO_TAGS),  # GROUP_AUTHORIZATION_FAILED
    ]
    assert DescribeGroupsRequest.answer(wire(DescribeGroupsRequest, 0, groups, NO_TAGS)) == [
        DescribedGroup("orders-app", 0, "Stable", 3),
        DescribedGroup("idle", 0, "", 0),
        DescribedGroup("secret", 30, "", 0),
    ]


def test_find_coordinator() -> None:
    coordinators = [
        ("orders-app", 2, "broker-2", 9092, 0, None, NO_TAGS),
        ("gone", -1, "", -1, 15, "The coordinator is not available.", NO_TAGS),
    ]
    assert FindCoordinatorRequest.answer(
        wire(FindCoordinatorRequest, 0, coordinators, NO_TAGS)
    ) == [
        Coordinator("orders-app", 2, 0),
        Coordinator("gone", -1, 15),
    ]
