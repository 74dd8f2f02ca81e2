"""Which broker a request goes to: the routing rules of connection.py, pure (no I/O).

Changes go to the controller (ZooKeeper mode needs the real one, named by Metadata; KRaft
names a random live broker, which forwards); reads to one broker, the same one while it
answers, once its metadata meets the journal (journal.py); after a failure, to another
broker; a request about a broker's own configs to that broker, whatever failed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Mapping, Sequence

from .journal import Expectation
from .protocol import Metadata


def unmet(metadata: Metadata, pending: Sequence[Expectation]) -> set[str]:
    """The topics of `pending` whose expectation this Metadata answer does not meet."""
    listed = {t.name: t for t in metadata.topics}
    return {e.topic for e in pending if not e.met_by(listed.get(e.topic))}


def any_broker(
    nodes: Collection[int],
    avoid: int | None = None,
    choose: Callable[[Sequence[int]], int] = random.choice,
) -> int | None:
    """A broker to send to: any (`choose`) of `nodes`; after a failure (`avoid`, the broker
    that failed), the lowest other one — or `avoid` itself when it is the only broker known
    (a one-broker cluster back after a restart). None when no broker is known."""
    others = sorted(n for n in nodes if n != avoid)
    if avoid is not None and others:
        return others[0]
    return choose(sorted(nodes)) if nodes else None


def read_broker(nodes: Collection[int], current: int | None, avoid: int | None) -> int | None:
    """The broker reads stick to: `current` while it is listed and did not just fail
    (`avoid`); None: pick another (`any_broker`)."""
    if current is not None and current != avoid and current in nodes:
        return current
    return None


def nearest(unmet_at: Mapping[int, Collection[str]]) -> int:
    """Of the brokers polled for the journal's expectations (broker -> topics whose
    expectation it does not meet yet), the one nearest to meeting them (ties: lowest id)."""
    return min(sorted(unmet_at), key=lambda n: len(unmet_at[n]))


def controller(named: int | None, known: Collection[int], avoid: int | None) -> int | None:
    """The broker a change goes to, from a Metadata answer: the controller it `named`
    (ZooKeeper mode: the real one; KRaft: a random live broker, which forwards) while it is
    listed and not `avoid` (a broker whose connection was just lost: brokers still name it
    until a new controller is elected); else the lowest other listed broker (KRaft forwards;
    ZooKeeper mode answers NOT_CONTROLLER, and the change is sent again after a refresh).
    None: no broker listed but `avoid`."""
    if named is not None and named in known and named != avoid:
        return named
    others = sorted(n for n in known if n != avoid)
    return others[0] if others else None


def recent_controller(
    named: int | None,
    named_at: float | None,
    read: tuple[float, int] | None,
    now: float,
    fresh_s: float,
) -> int | None:
    """The controller the broker map's last refresh `named` at `named_at`, or else the one
    read on its own (`read`: when, which), if at most `fresh_s` old at `now` (all
    time.monotonic()); None: read it again."""
    if named is not None and named_at is not None and now - named_at <= fresh_s:
        return named
    if read is not None and now - read[0] <= fresh_s:
        return read[1]
    return None


def config_owner(broker: int, failed: int | None = None) -> int:
    """The broker a request about `broker`'s own configs goes to, also after its link to
    `failed` broke: `broker` itself. A broker describes (and in ZooKeeper mode alters) only
    its own configs; asked about another id, it answers INVALID_REQUEST ("Unexpected
    broker id")."""
    return broker


def refresh_order(nodes: Collection[int], suspect: Collection[int]) -> list[int]:
    """The brokers to ask which brokers exist, in order: by id, those whose last request
    failed or is still unanswered (`suspect`: a frozen broker holds a refresh for the whole
    request timeout) last."""
    return sorted(nodes, key=lambda n: (n in suspect, n))
