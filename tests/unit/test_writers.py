"""The producers a deletion warns of: which are live, how the warning reads, and what an
unconsumed-only deletion refuses (services/consumers.py, pure)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kafka_tui.admin.producers import ActiveProducer, DescribeProducersRequest, ProducersOfTopics
from kafka_tui.admin.wire import UnsupportedByBroker
from kafka_tui.services.consumers import (
    PRODUCERS_NOT_CHECKED,
    TOPIC_IN_USE,
    Readers,
    Writer,
    _writer,
    _writers_note,
    unconsumed_only,
)

NOW = 1_700_000_000_000
DAY = 86_400_000


def _active(last: int, partition: int = 0, pid: int = 7) -> ActiveProducer:
    return ActiveProducer("t", partition, pid, 0, last, transaction_open=False)


def test_a_producer_is_live_until_its_id_expires() -> None:
    assert _writer(_active(NOW - 3_000), NOW, DAY).live
    assert not _writer(_active(NOW - DAY), NOW, DAY).live  # swept at the next check
    assert _writer(_active(-1), NOW, DAY).live  # the broker still keeps it


def test_the_warning_says_when_and_whether_the_topic_comes_back() -> None:
    one = {"t": [Writer(0, 7, NOW - 3_000, live=True)]}
    on = Readers(writers=one, auto_create=True, checked_at_ms=NOW)
    assert on.writer_warning("t") == (
        "a producer wrote to it 3 s ago; with auto-creation on, the topic will come back as "
        "soon as it writes again"
    )
    off = Readers(writers=one, auto_create=False, checked_at_ms=NOW)
    assert off.writer_warning("t") == (
        "a producer wrote to it 3 s ago; auto-creation is off: its writes will fail once the "
        "topic is gone"
    )
    two = {"t": [Writer(0, 7, NOW - 9_000, True), Writer(1, 8, NOW - 2_500, True)]}
    assert Readers(writers=two, auto_create=True, checked_at_ms=NOW).writer_warning("t") == (
        "2 producers wrote to it, the last 2 s ago; with auto-creation on, the topic will come "
        "back as soon as one writes again"
    )
    expired = {"t": [Writer(0, 7, NOW - 2 * DAY, live=False)]}
    assert Readers(writers=expired, auto_create=True, checked_at_ms=NOW).writer_warning("t") is None


def test_an_unconsumed_only_deletion_refuses_live_producers_and_unknowns() -> None:
    readers = Readers(
        writers={
            "busy": [Writer(1, 42, NOW - 1_000, True, transaction_open=True)],
            "old": [Writer(0, 9, NOW - 2 * DAY, False)],
        },
        auto_create=True,
        checked_at_ms=NOW,
    )
    allowed, refused = unconsumed_only(["busy", "old", "idle"], readers)
    assert allowed == ["old", "idle"]
    assert refused["busy"].error == TOPIC_IN_USE
    assert refused["busy"].message == (
        "Topic 'busy' was not deleted: producer 42 (partition 1, wrote 1 s ago, transaction "
        "open) is writing to it. Stop its producers first."
    )
    unknown = Readers(writers_note="producers not checked: DescribeProducers needs Kafka 2.8")
    _, refused = unconsumed_only(["t"], unknown)
    assert refused["t"].error == PRODUCERS_NOT_CHECKED


def test_a_broker_without_describe_producers_is_one_sentence() -> None:
    found = ProducersOfTopics(
        [],
        None,
        unchecked={
            "broker 1": (
                "UNSUPPORTED_VERSION",
                "DescribeProducers needs Kafka 2.8 or newer; this broker does not know this "
                "request.",
            )
        },
    )
    assert _writers_note(found) == (
        "producers not checked: DescribeProducers needs Kafka 2.8 or newer; this broker does "
        "not know this request"
    )
    denied = ProducersOfTopics(
        [], True, unchecked={"t-0": ("TOPIC_AUTHORIZATION_FAILED", "denied")}
    )
    assert _writers_note(denied) == "producers not checked: not authorized to read the topic"
    assert _writers_note(ProducersOfTopics([], True, unchecked={"configs": ("X", "x")})) is None


def test_describe_producers_is_refused_before_kafka_2_8_in_one_sentence() -> None:
    """On the ApiVersions recorded from real brokers of each release (tests/data)."""
    recorded = json.loads((Path(__file__).parent.parent / "data" / "api-versions.json").read_text())
    request = DescribeProducersRequest([("t", 0)])
    for release, answer in recorded["answers"].items():
        versions = {int(k): (v[0], v[1]) for k, v in answer.items()}
        if release.startswith(("2.1.", "2.2.")):
            with pytest.raises(UnsupportedByBroker) as refused:
                request.prepare(versions)
            assert refused.value.message == (
                "DescribeProducers needs Kafka 2.8 or newer; this broker does not know this "
                "request."
            )
        else:
            assert request.prepare(versions).API_VERSION == 0, release


def test_the_delete_dialog_lists_the_producers_and_warns() -> None:
    from kafka_tui.tui.screens.changes import in_use, readers_text

    readers = Readers(
        writers={"t": [Writer(0, 7, NOW - 3_000, True), Writer(1, 9, NOW - 2 * DAY, False)]},
        auto_create=True,
        checked_at_ms=NOW,
    )
    assert readers_text(["t"], readers).splitlines()[1:] == [
        "Producers still known to its leaders:",
        "  producer 7 (partition 0, wrote 3 s ago)",
        "  producer 9 (partition 1, wrote 172800 s ago) (expired)",
        "Warning: A producer wrote to it 3 s ago; with auto-creation on, the topic will come "
        "back as soon as it writes again.",
    ]
    assert in_use(["t"], readers)
    quiet = Readers(writers={"t": [Writer(1, 9, NOW - 2 * DAY, False)]}, checked_at_ms=NOW)
    assert not in_use(["t"], quiet)
