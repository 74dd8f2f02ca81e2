"""The rule that ends a move whose copy cannot finish (Cruise Control's "dead" task): a move
is stalled when its new replica's broker has not been live for `stall_s` while the move
copied nothing. Pure: it is told the time, the bytes each move holds and, when it asks, the
brokers the cluster lists; `draining._move` does the asking and the cancelling.

The live brokers are read only while some move has shown no byte of progress for a while
(`quiet_s`, a quarter of `stall_s`), and then at most every `quiet_s`: a run whose copies
progress never asks.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

STALL_S = 30.0  # the default: a move whose new broker has been gone this long is cancelled
Key = tuple[str, int]


@dataclass
class _Watched:
    adding: tuple[int, ...]
    held: int
    since: float  # the last time it held more bytes (or when it started)


@dataclass
class StallWatch:
    stall_s: float = STALL_S
    moves: dict[Key, _Watched] = field(default_factory=dict)
    gone_since: dict[int, float] = field(default_factory=dict)  # broker -> first seen gone
    read_at: float | None = None  # the last read of the live brokers

    def __post_init__(self) -> None:
        if self.stall_s <= 0:
            raise ValueError("stall_s must be above 0")

    @property
    def quiet_s(self) -> float:
        return self.stall_s / 4

    def start(self, key: Key, adding: Iterable[int], now: float) -> None:
        self.moves[key] = _Watched(tuple(adding), 0, now)

    def drop(self, key: Key) -> None:
        self.moves.pop(key, None)

    def held(self, key: Key, size: int, now: float) -> None:
        """The bytes `key`'s new replica(s) hold now: more than before is progress."""
        w = self.moves.get(key)
        if w is not None and size > w.held:
            w.held, w.since = size, now

    def bytes_held(self) -> int:
        return sum(w.held for w in self.moves.values())

    def quiet(self, now: float) -> list[Key]:
        """The moves without a byte of progress for `quiet_s` or more."""
        return [k for k, w in self.moves.items() if now - w.since >= self.quiet_s]

    def longest_quiet_s(self, now: float) -> float:
        return max((now - self.moves[k].since for k in self.quiet(now)), default=0.0)

    def wants_live(self, now: float) -> bool:
        """Whether to read the live brokers now: some move is quiet, and the last read is
        `quiet_s` old or more."""
        if not self.quiet(now):
            return False
        return self.read_at is None or now - self.read_at >= self.quiet_s

    def saw_live(self, live: Iterable[int], now: float) -> None:
        """The brokers the cluster lists now: a new broker missing starts (or continues)
        its absence, one listed again ends it."""
        shown = set(live)
        self.read_at = now
        for b in {b for w in self.moves.values() for b in w.adding}:
            if b in shown:
                self.gone_since.pop(b, None)
            else:
                self.gone_since.setdefault(b, now)
        for b in [b for b in self.gone_since if b in shown]:
            del self.gone_since[b]

    @property
    def gone(self) -> frozenset[int]:
        """The new brokers seen missing at the last read."""
        return frozenset(self.gone_since)

    def stalled(self, now: float) -> list[tuple[Key, tuple[int, ...]]]:
        """The quiet moves whose new broker(s) have been gone `stall_s` or more, with those
        brokers."""
        found = []
        for key in self.quiet(now):
            gone = tuple(
                sorted(
                    b
                    for b in self.moves[key].adding
                    if b in self.gone_since and now - self.gone_since[b] >= self.stall_s
                )
            )
            if gone:
                found.append((key, gone))
        return sorted(found)

    def cancel_in_s(self, now: float) -> float | None:
        """Seconds until the first quiet move to a gone broker is cancelled (None: none)."""
        waits = [
            self.stall_s - (now - self.gone_since[b])
            for k in self.quiet(now)
            for b in self.moves[k].adding
            if b in self.gone_since
        ]
        return max(0.0, min(waits)) if waits else None
