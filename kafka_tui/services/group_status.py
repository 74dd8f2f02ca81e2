"""A group's status from a window of looks at its offsets, in the spirit of LinkedIn Burrow's
evaluator (pure: no I/O, no clock).

Burrow reads every commit from `__consumer_offsets` and judges a window of them per partition.
kafka-tui has no commit log: it looks at each partition's committed offset, log start and log
end (and the group's members) now and then — each `groups describe --samples N`, each refresh
of the groups screen — and judges the window of looks it has. The rules, first match wins:

- ERR: a committed offset is behind the log start (retention deleted records the group never
  read), or went backwards between two looks without a reset by kafka-tui (Burrow's REWIND).
- STOP: some partition lags and the group has no member (Empty): nobody is consuming.
- STALL: the group has members, some partition lags, and its committed offset did not move
  over the window (the last WINDOW looks, at least two): consumers are there but not
  progressing.
- WARN: over the window (at least three looks) the group's total lag never shrank from one
  look to the next and grew from the first to the last, while offsets moved: the consumers
  progress more slowly than the producers (Burrow's "lag consistently increasing").
- OK: none of the above (caught up, or progressing).

One look can tell ERR, STOP and OK only; the reason says so when STALL or WARN could not be
judged. A partition without a committed offset does not count as lagging.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# Looks judged together, as Burrow judges its last 10 commits of a partition.
WINDOW = 10

OK = "OK"
WARN = "WARN"
STALL = "STALL"
STOP = "STOP"
ERR = "ERR"
STATUSES = (OK, WARN, STALL, STOP, ERR)

_EMPTY_STATES = frozenset({"empty", "dead", ""})

Partition = tuple[str, int]


@dataclass(frozen=True)
class Look:
    """One look at a group: when (seconds, any clock), its members, and per partition the
    committed offset (None: none), the log start and the log end (None: not known)."""

    at: float
    members: int
    committed: Mapping[Partition, int | None]
    log_start: Mapping[Partition, int | None]
    log_end: Mapping[Partition, int | None]

    def lag(self, tp: Partition) -> int | None:
        committed, end = self.committed.get(tp), self.log_end.get(tp)
        if committed is None or end is None:
            return None
        return max(end - committed, 0)

    def total_lag(self) -> int:
        return sum(lag for tp in self.committed if (lag := self.lag(tp)) is not None)


@dataclass(frozen=True)
class Status:
    status: str
    reason: str


def evaluate(looks: Sequence[Look], state: str = "") -> Status:
    """The status of a group from its looks, oldest first (at least one)."""
    if not looks:
        raise ValueError("at least one look is needed")
    looks = list(looks)[-WINDOW:]
    last = looks[-1]
    behind = [
        (tp, c, last.log_start.get(tp))
        for tp, c in sorted(last.committed.items())
        if c is not None and (s := last.log_start.get(tp)) is not None and c < s
    ]
    if behind:
        (t, p), c, s = behind[0]
        more = f" (and {len(behind) - 1} more partitions)" if len(behind) > 1 else ""
        return Status(
            ERR,
            f"'{t}'-{p}: committed offset {c} is behind the log start {s}{more}: retention "
            "deleted records the group never read.",
        )
    for before, after in itertools.pairwise(looks):
        for tp, now in sorted(after.committed.items()):
            then = before.committed.get(tp)
            if now is not None and then is not None and now < then:
                return Status(
                    ERR, f"'{tp[0]}'-{tp[1]}: committed offset went back from {then} to {now}."
                )
    lagging = sorted(tp for tp in last.committed if (last.lag(tp) or 0) > 0)
    if not lagging:
        return Status(OK, "Caught up: no partition lags.")
    total = last.total_lag()
    if last.members == 0 or state.lower() in _EMPTY_STATES:
        return Status(
            STOP,
            f"{total} records behind on {len(lagging)} partition(s) and no member consumes them.",
        )
    if len(looks) >= 2 and looks[-1].at > looks[0].at:
        first = looks[0]
        stuck = [tp for tp in lagging if first.committed.get(tp) == last.committed.get(tp)]
        if stuck:
            t, p = stuck[0]
            span = last.at - first.at
            return Status(
                STALL,
                f"'{t}'-{p}{_more(stuck)}: lagging and its committed offset "
                f"{last.committed.get((t, p))} did not move in {span:.0f} s although the group "
                f"has {last.members} member(s).",
            )
    if len(looks) >= 3:
        lags = [look.total_lag() for look in looks]
        moved = any(looks[0].committed.get(tp) != last.committed.get(tp) for tp in last.committed)
        growing = lags[-1] > lags[0] and all(b <= a for b, a in itertools.pairwise(lags))
        if moved and growing:
            return Status(
                WARN,
                f"Lag never shrank over the last {len(looks)} looks ({lags[0]} -> {lags[-1]} "
                f"records over {last.at - looks[0].at:.0f} s): the consumers are slower than "
                "the producers.",
            )
        return Status(OK, f"{total} records behind and progressing.")
    if len(looks) == 2:
        return Status(OK, f"{total} records behind and progressing (three looks tell a growth).")
    return Status(
        OK,
        f"{total} records behind; one look cannot tell a stall or a growing lag "
        "(look again over time).",
    )


def _more(items: Sequence[object]) -> str:
    return f" (and {len(items) - 1} more partitions)" if len(items) > 1 else ""
