"""Human units beside raw config values (services/config_units.py, pure)."""

from __future__ import annotations

import pytest

from kafka_tui.services.config_units import Unit, duration, human, size, unit_of, with_unit


@pytest.mark.parametrize(
    ("name", "value", "shown"),
    [
        ("delete.retention.ms", "86400000", "86400000 (1 d)"),
        ("retention.ms", "604800000", "604800000 (7 d)"),
        ("segment.bytes", "1073741824", "1073741824 (1 GiB)"),
        ("flush.ms", "9223372036854775807", "9223372036854775807 (no limit)"),
        ("flush.messages", "9223372036854775807", "9223372036854775807 (no limit)"),
        ("retention.ms", "-1", "-1 (no limit)"),
        ("retention.bytes", "-1", "-1 (no limit)"),
        ("local.retention.ms", "-2", "-2 (as retention.ms)"),
        ("max.message.bytes", "1048588", "1048588 (~1 MiB)"),
        ("index.interval.bytes", "4096", "4096 (4 KiB)"),
        ("segment.ms", "90000000", "90000000 (1 d 1 h)"),
        ("log.retention.hours", "168", "168 (7 d)"),
        ("offsets.retention.minutes", "10080", "10080 (7 d)"),
        ("leader.replication.throttled.rate", "10485760", "10485760 (10 MiB/s)"),
        ("cleanup.policy", "compact", "compact"),
        ("min.cleanable.dirty.ratio", "0.5", "0.5"),
        ("flush.messages", "1000", "1000"),  # a count: nothing to add
        ("retention.ms", None, "(sensitive)"),
        ("retention.ms", "soon", "soon"),
    ],
)
def test_a_value_is_shown_with_its_unit(name: str, value: str | None, shown: str) -> None:
    assert with_unit(name, value) == shown


def test_units_come_from_kafkas_reference_then_its_naming_rule() -> None:
    assert unit_of("retention.ms") is Unit.MS
    assert unit_of("log.cleaner.dedupe.buffer.size") is Unit.BYTES  # listed, no suffix
    assert unit_of("remote.fetch.max.wait.ms") is Unit.MS  # by its suffix
    assert unit_of("compression.type") is None
    assert human("some.new.limit.bytes", "2048") == "2 KiB"


def test_durations_and_sizes() -> None:
    assert [duration(ms) for ms in (0, 250, 1_000, 90_000, 129_600_000, 86_400_500)] == [
        "0 ms",
        "250 ms",
        "1 s",
        "1 min 30 s",
        "1 d 12 h",
        "~1 d",
    ]
    assert [size(n) for n in (512, 1024, 1536, 1_000_000, 1 << 40)] == [
        "512 B",
        "1 KiB",
        "1.5 KiB",
        "~977 KiB",
        "1 TiB",
    ]
