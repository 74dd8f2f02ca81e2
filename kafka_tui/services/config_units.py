"""Human units beside a config's raw value: `86400000 (1 d)`, `1073741824 (1 GiB)`,
`9223372036854775807 (no limit)`, for the tables an operator reads (the TUI's configs, the
CLI's `--output table`); JSON keeps the raw value.

Each key's unit is as Kafka's configuration reference documents it (Topic-Level Configs and
Broker Configs, "Type: long ... (ms)"); a key not listed is read by Kafka's naming rule
(`.ms`, `.bytes`, `.minutes`, `.hours`, `.seconds` at the end). Special values are Kafka's:
`Long.MAX_VALUE` is no limit wherever a limit is meant, `-1` is no limit for the retention
settings, `-2` for the tiered-storage local retention means "as retention.ms/.bytes".
"""

from __future__ import annotations

from enum import Enum


class Unit(Enum):
    MS = "ms"
    SECONDS = "s"
    MINUTES = "min"
    HOURS = "h"
    BYTES = "bytes"
    BYTES_PER_SECOND = "bytes/s"
    COUNT = "count"


LONG_MAX = 9_223_372_036_854_775_807
NO_LIMIT = "no limit"

# Kafka's topic- and broker-level keys with a unit, as its reference documents them.
UNITS: dict[str, Unit] = {
    # topic configs
    "retention.ms": Unit.MS,
    "retention.bytes": Unit.BYTES,
    "segment.ms": Unit.MS,
    "segment.bytes": Unit.BYTES,
    "segment.jitter.ms": Unit.MS,
    "segment.index.bytes": Unit.BYTES,
    "delete.retention.ms": Unit.MS,
    "file.delete.delay.ms": Unit.MS,
    "flush.ms": Unit.MS,
    "flush.messages": Unit.COUNT,
    "index.interval.bytes": Unit.BYTES,
    "max.message.bytes": Unit.BYTES,
    "min.compaction.lag.ms": Unit.MS,
    "max.compaction.lag.ms": Unit.MS,
    "message.timestamp.difference.max.ms": Unit.MS,
    "message.timestamp.before.max.ms": Unit.MS,
    "message.timestamp.after.max.ms": Unit.MS,
    "local.retention.ms": Unit.MS,
    "local.retention.bytes": Unit.BYTES,
    # broker configs
    "log.retention.ms": Unit.MS,
    "log.retention.minutes": Unit.MINUTES,
    "log.retention.hours": Unit.HOURS,
    "log.retention.bytes": Unit.BYTES,
    "log.roll.ms": Unit.MS,
    "log.roll.hours": Unit.HOURS,
    "log.roll.jitter.ms": Unit.MS,
    "log.roll.jitter.hours": Unit.HOURS,
    "log.segment.bytes": Unit.BYTES,
    "log.segment.delete.delay.ms": Unit.MS,
    "log.index.size.max.bytes": Unit.BYTES,
    "log.index.interval.bytes": Unit.BYTES,
    "log.flush.interval.ms": Unit.MS,
    "log.flush.interval.messages": Unit.COUNT,
    "log.flush.scheduler.interval.ms": Unit.MS,
    "log.cleaner.delete.retention.ms": Unit.MS,
    "log.cleaner.min.compaction.lag.ms": Unit.MS,
    "log.cleaner.max.compaction.lag.ms": Unit.MS,
    "log.cleaner.dedupe.buffer.size": Unit.BYTES,
    "log.cleaner.io.buffer.size": Unit.BYTES,
    "log.cleaner.backoff.ms": Unit.MS,
    "log.local.retention.ms": Unit.MS,
    "log.local.retention.bytes": Unit.BYTES,
    "log.message.timestamp.difference.max.ms": Unit.MS,
    "log.message.timestamp.before.max.ms": Unit.MS,
    "log.message.timestamp.after.max.ms": Unit.MS,
    "message.max.bytes": Unit.BYTES,
    "replica.fetch.max.bytes": Unit.BYTES,
    "replica.fetch.response.max.bytes": Unit.BYTES,
    "replica.lag.time.max.ms": Unit.MS,
    "socket.request.max.bytes": Unit.BYTES,
    "socket.send.buffer.bytes": Unit.BYTES,
    "socket.receive.buffer.bytes": Unit.BYTES,
    "fetch.max.bytes": Unit.BYTES,
    "offsets.retention.minutes": Unit.MINUTES,
    "offsets.retention.check.interval.ms": Unit.MS,
    "group.initial.rebalance.delay.ms": Unit.MS,
    "transactional.id.expiration.ms": Unit.MS,
    "transaction.max.timeout.ms": Unit.MS,
    "producer.id.expiration.ms": Unit.MS,
    "leader.replication.throttled.rate": Unit.BYTES_PER_SECOND,
    "follower.replication.throttled.rate": Unit.BYTES_PER_SECOND,
    "replica.alter.log.dirs.io.max.bytes.per.second": Unit.BYTES_PER_SECOND,
}

# Values with a meaning of their own, beyond Long.MAX_VALUE's "no limit".
_SPECIAL: dict[tuple[str, int], str] = {
    ("retention.ms", -1): NO_LIMIT,
    ("retention.bytes", -1): NO_LIMIT,
    ("log.retention.ms", -1): NO_LIMIT,
    ("log.retention.bytes", -1): NO_LIMIT,
    ("local.retention.ms", -2): "as retention.ms",
    ("local.retention.bytes", -2): "as retention.bytes",
    ("log.local.retention.ms", -2): "as log.retention.ms",
    ("log.local.retention.bytes", -2): "as log.retention.bytes",
}

_SUFFIXES = (
    (".ms", Unit.MS),
    (".bytes", Unit.BYTES),
    (".seconds", Unit.SECONDS),
    (".minutes", Unit.MINUTES),
    (".hours", Unit.HOURS),
)

# (unit in ms, name), largest first
_DURATIONS = ((86_400_000, "d"), (3_600_000, "h"), (60_000, "min"), (1_000, "s"), (1, "ms"))
_TO_MS = {Unit.MS: 1, Unit.SECONDS: 1_000, Unit.MINUTES: 60_000, Unit.HOURS: 3_600_000}
_SIZES = ((1 << 50, "PiB"), (1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB"))


def unit_of(name: str) -> Unit | None:
    """A config key's unit: Kafka's reference, else its naming rule; None: no unit."""
    found = UNITS.get(name)
    if found is not None:
        return found
    for suffix, unit in _SUFFIXES:
        if name.endswith(suffix):
            return unit
    return None


def human(name: str, value: str | None) -> str | None:
    """The value of `name` in human units ("1 d", "1 GiB", "no limit"); None when there is
    nothing to add (no unit, not a number, or a number the unit would only repeat)."""
    unit = unit_of(name)
    if unit is None or value is None:
        return None
    try:
        number = int(value.strip())
    except ValueError:
        return None
    special = _SPECIAL.get((name, number))
    if special is not None:
        return special
    if number == LONG_MAX:
        return NO_LIMIT
    if number < 0:
        return None
    if unit in _TO_MS:
        return duration(number * _TO_MS[unit])
    if unit is Unit.BYTES:
        return size(number)
    if unit is Unit.BYTES_PER_SECOND:
        return f"{size(number)}/s"
    return None


def with_unit(name: str, value: str | None) -> str:
    """ "86400000 (1 d)"; the raw value alone when no unit adds anything."""
    shown = "(sensitive)" if value is None else value
    extra = human(name, value)
    return shown if extra is None or extra == shown else f"{shown} ({extra})"


def duration(ms: int) -> str:
    """ "1 d", "1 d 12 h", "~1.52 d", "250 ms": the largest unit, the next one when it
    makes the value exact, else three significant digits."""
    for i, (size_ms, label) in enumerate(_DURATIONS):
        if ms >= size_ms:
            whole, rest = divmod(ms, size_ms)
            if not rest:
                return f"{whole} {label}"
            next_ms, next_label = _DURATIONS[i + 1]  # ms divides all: never past the end
            if rest % next_ms == 0:
                return f"{whole} {label} {rest // next_ms} {next_label}"
            return f"~{ms / size_ms:.3g} {label}"
    return "0 ms"


def size(count: int) -> str:
    """ "1 GiB", "1.5 KiB", "~1 MiB", "512 B"."""
    for unit, label in _SIZES:
        if count >= unit:
            exact = count / unit
            text = f"{exact:.3g}"
            return f"{text} {label}" if float(text) * unit == count else f"~{text} {label}"
    return f"{count} B"
