"""Every error DESIGN.md lists reads as a sentence naming the topic."""

from __future__ import annotations

import pytest

from kafka_tui.admin.errors import ERROR_NAMES, KafkaRequestError, error_name, sentence

DESIGN_ERRORS = [
    "TOPIC_ALREADY_EXISTS",
    "INVALID_TOPIC_EXCEPTION",
    "INVALID_PARTITIONS",
    "INVALID_REPLICATION_FACTOR",
    "INVALID_REPLICA_ASSIGNMENT",
    "INVALID_CONFIG",
    "INVALID_REQUEST",
    "REASSIGNMENT_IN_PROGRESS",
    "UNKNOWN_TOPIC_OR_PARTITION",
    "TOPIC_AUTHORIZATION_FAILED",
    "CLUSTER_AUTHORIZATION_FAILED",
    "REQUEST_TIMED_OUT",
]


@pytest.mark.parametrize("name", DESIGN_ERRORS)
def test_design_errors_have_their_own_sentence(name: str) -> None:
    code = next(c for c, n in ERROR_NAMES.items() if n == name)
    assert error_name(code) == name
    text = sentence(name, "orders")
    assert "'orders'" in text and "Kafka returned" not in text
    assert text.endswith(".")


def test_unknown_codes_still_read_as_a_sentence_with_the_brokers_detail() -> None:
    assert error_name(9999) == "ERROR_CODE_9999"
    text = sentence("ERROR_CODE_9999", "orders", "something odd")
    assert text == "Topic 'orders': Kafka returned ERROR_CODE_9999. Kafka said: something odd"


@pytest.mark.parametrize("name", [*DESIGN_ERRORS, "ERROR_CODE_9999"])
def test_an_error_about_a_broker_names_the_broker_not_a_topic(name: str) -> None:
    """DescribeConfigs and AlterConfigs answer errors about a broker resource; they used to
    read "Topic 'broker 3': the request is invalid"."""
    code = next((c for c, n in ERROR_NAMES.items() if n == name), 9999)
    err = KafkaRequestError.from_code(code, "broker 3", "detail", subject="Broker 3")
    assert "Topic 'broker 3'" not in err.message
    if name not in ("INVALID_TOPIC_EXCEPTION", "TOPIC_AUTHORIZATION_FAILED"):
        assert "Broker 3" in err.message or "'broker 3'" in err.message
    assert err.message.endswith("Kafka said: detail")


def test_an_invalid_request_about_a_broker_reads_as_a_sentence_about_the_broker() -> None:
    err = KafkaRequestError.from_code(
        42, "broker 1", "Unexpected broker id, expected 2", subject="Broker 1"
    )
    assert err.message == (
        "Broker 1: the request is invalid. Kafka said: Unexpected broker id, expected 2"
    )
    same = KafkaRequestError.about_broker(42, 1, "Unexpected broker id, expected 2")
    assert (same.name, same.message, same.topic) == (err.name, err.message, err.topic)
