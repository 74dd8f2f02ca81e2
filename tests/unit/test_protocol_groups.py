"""The consumer-group answers (and DescribeConfigs with synonyms) decode into typed records:
each answer is encoded with aiokafka's own Schema for the response, decoded by its Response
class as a broker's bytes would be, then read through the request's `answer`."""

from __future__ import annotations

from io import BytesIO
from typing import Any

from aiokafka.protocol.api import Request, Response

from kafka_tui.admin import protocol
from kafka_tui.admin.configs import ConfigWithDefault, _with_default
from kafka_tui.admin.model import ConfigEntry, ConfigSource
from kafka_tui.admin.protocol_configs import (
    ConfigResourceWithSynonyms,
    ConfigSynonym,
    ConfigWithSynonyms,
    DescribeConfigsWithSynonymsRequest,
)
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


def test_describe_configs_with_synonyms() -> None:
    topic, default, broker = (
        ConfigSource.DYNAMIC_TOPIC_CONFIG.value,
        ConfigSource.DEFAULT_CONFIG.value,
        ConfigSource.STATIC_BROKER_CONFIG.value,
    )
    retention = (
        "retention.ms",
        "3600000",
        False,
        topic,
        False,
        [
            ("retention.ms", "3600000", topic, NO_TAGS),
            ("log.retention.ms", "86400000", broker, NO_TAGS),
            ("log.retention.hours", "168", default, NO_TAGS),
        ],
        5,
        None,
        NO_TAGS,
    )
    cleanup: tuple[Any, ...] = (
        "cleanup.policy",
        "delete",
        False,
        default,
        False,
        [],
        2,
        None,
        NO_TAGS,
    )
    results = [
        (0, None, protocol.RESOURCE_TOPIC, "orders", [retention, cleanup], NO_TAGS),
        (3, "This server does not host this topic.", protocol.RESOURCE_TOPIC, "gone", [], NO_TAGS),
    ]
    answer = DescribeConfigsWithSynonymsRequest.answer(
        wire(DescribeConfigsWithSynonymsRequest, 0, results, NO_TAGS)
    )
    decoded_retention = ConfigWithSynonyms(
        "retention.ms",
        "3600000",
        False,
        topic,
        False,
        [
            ConfigSynonym("retention.ms", "3600000", topic),
            ConfigSynonym("log.retention.ms", "86400000", broker),
            ConfigSynonym("log.retention.hours", "168", default),
        ],
    )
    decoded_cleanup = ConfigWithSynonyms("cleanup.policy", "delete", False, default, False, [])
    assert answer == [
        ConfigResourceWithSynonyms(
            0, None, protocol.RESOURCE_TOPIC, "orders", [decoded_retention, decoded_cleanup]
        ),
        ConfigResourceWithSynonyms(
            3, "This server does not host this topic.", protocol.RESOURCE_TOPIC, "gone", []
        ),
    ]
    # the value underneath an override: its first synonym that is not the topic's own
    assert _with_default(decoded_retention) == ConfigWithDefault(
        ConfigEntry("retention.ms", "3600000", ConfigSource.DYNAMIC_TOPIC_CONFIG, False, False),
        "86400000",
    )
    assert _with_default(decoded_cleanup).default is None


def test_the_synonyms_request_asks_for_synonyms() -> None:
    request = DescribeConfigsWithSynonymsRequest([(protocol.RESOURCE_TOPIC, "orders")])
    (struct,) = DescribeConfigsWithSynonymsRequest._CLASSES
    built = request.build(struct)
    assert built.include_synonyms is True
    assert built.include_documentation is False
