"""DescribeConfigs with synonyms on the generated wire: an answer as a broker sends it (kio's
encoder, Kafka's schema) read into the admin layer's records, and the value underneath an
override taken from them."""

from __future__ import annotations

from io import BytesIO

from kio.schema.errors import ErrorCode

from kafka_tui.admin import protocol, wire
from kafka_tui.admin.configs import ConfigWithDefault, _with_default
from kafka_tui.admin.model import ConfigEntry, ConfigSource

TOPIC, DEFAULT, BROKER = (
    ConfigSource.DYNAMIC_TOPIC_CONFIG.value,
    ConfigSource.DEFAULT_CONFIG.value,
    ConfigSource.STATIC_BROKER_CONFIG.value,
)


def _answer(version: int) -> bytes:
    response = protocol.DescribeConfigsRequest.API.response_type(version)
    result, config, synonym = (
        wire.nested(response, name)
        for name in (
            "DescribeConfigsResult",
            "DescribeConfigsResourceResult",
            "DescribeConfigsSynonym",
        )
    )
    retention = wire.shape(
        config,
        name="retention.ms",
        value="3600000",
        read_only=False,
        config_source=TOPIC,
        is_sensitive=False,
        synonyms=(
            synonym(name="retention.ms", value="3600000", source=TOPIC),
            synonym(name="log.retention.ms", value="86400000", source=BROKER),
            synonym(name="log.retention.hours", value="168", source=DEFAULT),
        ),
        config_type=5,
        documentation=None,
    )
    cleanup = wire.shape(
        config,
        name="cleanup.policy",
        value="delete",
        read_only=False,
        config_source=DEFAULT,
        is_sensitive=False,
        synonyms=(),
        config_type=2,
        documentation=None,
    )
    return wire.encode(
        response(
            throttle_time=wire.millis(0),
            results=(
                result(
                    error_code=ErrorCode.none,
                    error_message=None,
                    resource_type=protocol.RESOURCE_TOPIC,
                    resource_name="orders",
                    configs=(retention, cleanup),
                ),
                result(
                    error_code=ErrorCode(3),
                    error_message="This server does not host this topic.",
                    resource_type=protocol.RESOURCE_TOPIC,
                    resource_name="gone",
                    configs=(),
                ),
            ),
        )
    )


def test_describe_configs_with_synonyms_at_every_version() -> None:
    request = protocol.DescribeConfigsRequest([(protocol.RESOURCE_TOPIC, "orders")], synonyms=True)
    decoded_retention = protocol.ConfigValue(
        "retention.ms",
        "3600000",
        False,
        TOPIC,
        False,
        [
            protocol.ConfigSynonym("retention.ms", "3600000", TOPIC),
            protocol.ConfigSynonym("log.retention.ms", "86400000", BROKER),
            protocol.ConfigSynonym("log.retention.hours", "168", DEFAULT),
        ],
    )
    decoded_cleanup = protocol.ConfigValue("cleanup.policy", "delete", False, DEFAULT, False, [])
    for version in (1, 2, 3, 4):  # Kafka 2.1 speaks 0-2; 4.x 1-4
        frame = request.prepare({32: (0, version)})
        assert version == frame.API_VERSION
        answer = protocol.DescribeConfigsRequest.answer(
            frame.RESPONSE_TYPE.decode(BytesIO(_answer(version)))
        )
        assert answer == [
            protocol.ConfigResource(
                0, None, protocol.RESOURCE_TOPIC, "orders", [decoded_retention, decoded_cleanup]
            ),
            protocol.ConfigResource(
                3, "This server does not host this topic.", protocol.RESOURCE_TOPIC, "gone", []
            ),
        ]
    # the value underneath an override: its first synonym that is not the topic's own
    assert _with_default(decoded_retention) == ConfigWithDefault(
        ConfigEntry("retention.ms", "3600000", ConfigSource.DYNAMIC_TOPIC_CONFIG, False, False),
        "86400000",
    )
    assert _with_default(decoded_cleanup).default is None


def test_the_synonyms_request_asks_for_synonyms_and_no_documentation() -> None:
    request = protocol.DescribeConfigsRequest([(protocol.RESOURCE_TOPIC, "orders")], synonyms=True)
    built = request.message(4)
    assert built.include_synonyms is True
    assert built.include_documentation is False
    assert protocol.DescribeConfigsRequest([]).message(4).include_synonyms is False
