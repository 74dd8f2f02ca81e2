"""kafka-topics.sh / kafka-configs.sh argument formats (no cluster needed)."""

from __future__ import annotations

import pytest

from kafka_tui.admin.validation import collision_warning, topic_name_problem
from kafka_tui.services.parsing import (
    UsageError,
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
        with pytest.raises(UsageError):
            replica_lists(bad)


def test_config_formats() -> None:
    assert config_pairs(["a=1", "b=x=y"]) == {"a": "1", "b": "x=y"}
    assert add_config("cleanup.policy=[compact,delete],retention.ms=10") == {
        "cleanup.policy": "compact,delete",
        "retention.ms": "10",
    }
    assert delete_config("a, b") == ["a", "b"]
    for bad in (["novalue"], ["=1"], ["a=1", "a=2"]):
        with pytest.raises(UsageError):
            config_pairs(bad)
    with pytest.raises(UsageError):
        add_config("a=1,,b")
    with pytest.raises(UsageError):
        delete_config("a,,b")


def test_topic_name_rules_match_kafkas_messages() -> None:
    assert topic_name_problem("orders.v1-eu_2") is None
    assert topic_name_problem("") == "Topic name is illegal, it can't be empty"
    assert topic_name_problem("..") == 'Topic name cannot be "." or ".."'
    assert "can't be longer than 249" in (topic_name_problem("x" * 250) or "")
    assert topic_name_problem("x" * 249) is None
    assert "contains a character other than" in (topic_name_problem("ünïcode") or "")
    assert collision_warning("a.b_c") and not collision_warning("a.b.c")
