"""The automatic throttle's rule (services/throttle_auto.next_rate): double while the brokers
cope, halve when a partition outside the move falls out of sync or a broker answers slowly,
always within the bounds."""

from __future__ import annotations

from kafka_tui.services.throttle_auto import AutoRule, Signals, next_rate

RULE = AutoRule(min_rate=1000, max_rate=10_000, latency_limit_ms=500)


def test_raises_while_the_brokers_cope_up_to_the_bound() -> None:
    assert next_rate(2000, Signals(3, 20.0), 3, RULE) == (4000, "raise: brokers cope")
    assert next_rate(8000, Signals(0, 20.0), 0, RULE)[0] == 10_000


def test_lowers_on_new_under_replicated_partitions_or_slow_brokers() -> None:
    rate, why = next_rate(8000, Signals(4, 20.0), 3, RULE)
    assert rate == 4000 and why == "lower: 1 more partition(s) under-replicated"
    rate, why = next_rate(8000, Signals(0, 900.0), 0, RULE)
    assert rate == 4000 and "900 ms" in why
    assert next_rate(1500, Signals(0, 900.0), 0, RULE)[0] == 1000
