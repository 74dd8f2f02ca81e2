"""The automatic throttle of a running move (`reassignments throttle --auto`): raise the rate
while the brokers cope, lower it when they do not, measured from the brokers themselves.

Every `interval` seconds two signals are read: the partitions under-replicated outside the
move (Metadata: ISR shorter than the replicas, partitions being reassigned left out) and the
slowest broker's answer time to a cheap request (DescribeConfigs of its own two throttle
rates, sent to each live broker). The rule (`next_rate`, multiplicative both ways, bounded):
the count of under-replicated partitions above what it was at the start, or a broker slower
than `latency_limit_ms` -> halve the rate (not below `min_rate`); else double it (not above
`max_rate`). Each change goes through `throttles.change_throttle_rate` (one audit line, read
back from every broker). The loop ends when no reassignment is in progress; the rates are
then removed only if none was set when it started (it set them).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .ports import AdminPort
from .replication_throttles import RATES, busy, change_throttle_rate, read_rates

# The bounds an operator gets without naming them (the CLI's --min / --max, the TUI's key).
DEFAULT_MIN_RATE = 1_000_000
DEFAULT_MAX_RATE = 1_000_000_000


@dataclass(frozen=True)
class AutoRule:
    min_rate: int = DEFAULT_MIN_RATE
    max_rate: int = DEFAULT_MAX_RATE
    interval_s: float = 5.0
    latency_limit_ms: float = 500.0
    raise_by: float = 2.0
    lower_by: float = 0.5


@dataclass(frozen=True)
class Signals:
    under_replicated: int  # outside the move
    latency_ms: float  # the slowest broker's answer


def next_rate(rate: int, signals: Signals, baseline: int, rule: AutoRule) -> tuple[int, str]:
    """The next rate and why (pure)."""
    if signals.under_replicated > baseline:
        why = f"{signals.under_replicated - baseline} more partition(s) under-replicated"
        return max(rule.min_rate, int(rate * rule.lower_by)), f"lower: {why}"
    if signals.latency_ms > rule.latency_limit_ms:
        why = f"a broker answered in {signals.latency_ms:.0f} ms"
        return max(rule.min_rate, int(rate * rule.lower_by)), f"lower: {why}"
    return min(rule.max_rate, int(rate * rule.raise_by)), "raise: brokers cope"


@dataclass(frozen=True)
class Step:
    at: float  # seconds since the start
    rate: int
    signals: Signals
    reason: str
    verified: bool  # every broker involved describes the rate

    def to_json(self) -> dict[str, object]:
        return {
            "at_s": round(self.at, 1),
            "rate": self.rate,
            "under_replicated": self.signals.under_replicated,
            "latency_ms": round(self.signals.latency_ms, 1),
            "reason": self.reason,
            "verified": self.verified,
        }


@dataclass
class AutoRun:
    steps: list[Step] = field(default_factory=list)
    removed: bool = False  # the rates were removed at the end (it had set them)

    def to_json(self) -> dict[str, object]:
        return {"steps": [s.to_json() for s in self.steps], "removed": self.removed}


async def measure(admin: AdminPort) -> Signals:
    ongoing = {(r.topic, r.partition) for r in await admin.list_partition_reassignments(None)}
    found, _ = await admin.describe_topics(None, configs=False)
    urp = sum(
        1
        for t in found
        for p in t.partitions
        if len(p.isr) < len(p.replicas) and (t.name, p.partition) not in ongoing
    )
    live = sorted((await admin.describe_cluster()).live_broker_ids)

    async def timed(broker: int) -> float:
        start = time.monotonic()
        await admin.broker_configs(broker, list(RATES))
        return (time.monotonic() - start) * 1000

    latencies = await asyncio.gather(*(timed(b) for b in live))
    return Signals(urp, max(latencies, default=0.0))


async def auto_throttle(
    admin: AdminPort,
    rule: AutoRule,
    start_rate: int | None = None,
    report: Callable[[Step], None] = lambda step: None,
) -> AutoRun:
    """Run the rule until no reassignment is in progress (see the module's words)."""
    began = time.monotonic()
    brokers = sorted((await busy(admin)).brokers)
    run = AutoRun()
    if not brokers:
        return run
    before = await read_rates(admin, brokers)
    set_before = any(v.get(k) for v in before.values() for k in RATES)
    baseline = (await measure(admin)).under_replicated
    rate = start_rate or rule.min_rate
    signals = Signals(baseline, 0.0)
    reason = "start"
    applied: int | None = None
    while True:
        in_use = await busy(admin)
        if not in_use.partitions:
            break
        if rate != applied:  # each change is one audit line; an unchanged rate is none
            chosen = sorted(in_use.brokers | set(brokers))
            change = await change_throttle_rate(admin, rate, chosen)
            brokers, applied = change.brokers, rate
            step = Step(time.monotonic() - began, rate, signals, reason, change.verified)
            run.steps.append(step)
            report(step)
        await asyncio.sleep(rule.interval_s)
        signals = await measure(admin)
        new, reason = next_rate(rate, signals, baseline, rule)
        if new == rate:
            reason = f"{reason} (at the bound)"
        rate = new
    if not set_before:
        await admin.clear_replication_throttle(brokers, [])
        run.removed = True
    return run
