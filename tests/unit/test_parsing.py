"""kafka-topics.sh / kafka-configs.sh argument formats (no cluster needed)."""

from __future__ import annotations

import pytest

from kafka_tui.admin.validation import collision_warning, topic_name_problem
from kafka_tui.cli.words import field_error_text
from kafka_tui.fields import Field, FieldError
from kafka_tui.services import parsing
from kafka_tui.services.parsing import (
    add_config,
    config_pairs,
    delete_config,
    replica_assignment,
    replica_lists,
)


def test_replica_assignment_format() -> None:
    assert replica_assignment("1:2:3,2:3:1") == {0: [1, 2, 3], 1: [2, 3, 1]}
    assert replica_lists(" 3 : 1 ") == [[3, 1]]
    for bad in ("", "1:2,", "1:x", "1,,2"):
        with pytest.raises(FieldError) as raised:
            replica_lists(bad)
        assert raised.value.field is Field.REPLICA_ASSIGNMENT
    # The field is named by each front end, never in the message itself (issue 31.2).
    with pytest.raises(FieldError) as raised:
        replica_lists("1,,2", Field.PLAN_TOPICS)
    assert "--" not in raised.value.message
    assert field_error_text(raised.value) == "--topics has an empty partition entry 1"


def test_config_formats() -> None:
    assert config_pairs(["a=1", "b=x=y"]) == {"a": "1", "b": "x=y"}
    assert add_config("cleanup.policy=[compact,delete],retention.ms=10") == {
        "cleanup.policy": "compact,delete",
        "retention.ms": "10",
    }
    assert delete_config("a, b") == ["a", "b"]
    for bad in (["novalue"], ["=1"], ["a=1", "a=2"]):
        with pytest.raises(FieldError, match=r"^(?!--)") as raised:
            config_pairs(bad)
        assert raised.value.field is Field.CONFIGS
    with pytest.raises(FieldError) as raised:
        add_config("a=1,,b")
    assert field_error_text(raised.value).startswith("--add-config 'a=1,,b' must look like")
    with pytest.raises(FieldError) as raised:
        delete_config("a,,b")
    assert field_error_text(raised.value) == "--delete-config 'a,,b' must look like k1,k2"


def test_topic_name_rules_match_kafkas_messages() -> None:
    assert topic_name_problem("orders.v1-eu_2") is None
    assert topic_name_problem("") == "Topic name is illegal, it can't be empty"
    assert topic_name_problem("..") == 'Topic name cannot be "." or ".."'
    assert "can't be longer than 249" in (topic_name_problem("x" * 250) or "")
    assert topic_name_problem("x" * 249) is None
    assert "contains a character other than" in (topic_name_problem("ünïcode") or "")
    assert collision_warning("a.b_c") and not collision_warning("a.b.c")


def test_epoch_ms_takes_milliseconds_or_iso_8601_utc_unless_a_zone_is_named() -> None:
    assert parsing.epoch_ms("1795773600000") == 1_795_773_600_000
    assert parsing.epoch_ms("2026-11-27T10:00:00Z") == 1_795_773_600_000
    assert parsing.epoch_ms("2026-11-27T10:00:00") == 1_795_773_600_000  # UTC
    assert parsing.epoch_ms("2026-11-27T11:00:00+01:00") == 1_795_773_600_000
    with pytest.raises(ValueError, match="'yesterday' is not an ISO-8601 time"):
        parsing.epoch_ms("yesterday")
