"""The config rules by release (admin/config_rules.py): each refuses only from the release
that refuses it, in that broker's words, and the releases kafka-tui reads ("3.3+") parse."""

from __future__ import annotations

from kafka_tui.admin.config_rules import refusal, release_numbers
from kafka_tui.admin.model import TopicSpec
from kafka_tui.admin.validation import check_spec


def test_release_numbers() -> None:
    assert release_numbers("4.4") == (4, 4)
    assert release_numbers("3.3+") == (3, 3)
    assert release_numbers("<2.1") is None


def test_segment_bytes_minimum_from_4_0_only() -> None:
    words = "Invalid value 1000 for configuration segment.bytes: Value must be at least 1048576"
    assert refusal("segment.bytes", "1000", [(4, 0)]) == words
    assert refusal("segment.bytes", "1000", [(3, 9)]) is None
    assert refusal("segment.bytes", "1048576", [(4, 4)]) is None
    assert refusal("segment.bytes", "lots", [(4, 4)]) is None  # the broker words a non-number
    # A cluster in a rolling upgrade: the strictest broker decides.
    assert refusal("segment.bytes", " 10 ", [(3, 9), (4, 1)]) is not None


def test_message_format_configs_are_unknown_from_4_0() -> None:
    for key in ("message.format.version", "message.downconversion.enable"):
        assert refusal(key, "x", [(4, 0)]) == f"Unknown topic config name: {key}"
        assert refusal(key, "x", [(3, 9)]) is None
    assert refusal("retention.ms", "1", [(4, 4)]) is None


def test_a_spec_is_refused_as_the_broker_would() -> None:
    spec = TopicSpec("orders", 1, 1, configs={"segment.bytes": "5"})
    refused = check_spec(spec, releases=[(4, 4)])
    assert refused is not None and refused.name == "INVALID_CONFIG"
    assert refused.message.endswith(
        "Kafka would say: Invalid value 5 for configuration segment.bytes: "
        "Value must be at least 1048576"
    )
    assert check_spec(spec, releases=[(3, 9)]) is None
    assert check_spec(spec) is None  # no release known: the broker decides
