"""What the screens show about KIP-409 placeholders and leftover throttles, read from the
cluster: how many placeholders are open, which could be filled now (the same choice
`fill_placeholders` makes, without the moves), and the replication throttles no
reassignment needs. Service work: the screens only draw these."""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass
from itertools import chain
from operator import attrgetter

from ..admin import AdminError, ClusterInfo, TopicDescription
from ..admin.placeholders import PlaceholderStore
from ..planning.fill_choice import choose_fills
from ..planning.placement import Broker, Load
from .filling import open_slots
from .ports import AdminPort
from .replication_throttles import list_throttles
from .snapshot import Snapshot


@dataclass(frozen=True)
class PlaceholderState:
    open: int  # placeholders still missing a broker
    topics: frozenset[str]  # the topics they belong to
    fillable: int  # how many a live broker outside their partition could take now
    # What goes where if filled now: 'orders-0 -> 4', the first few.
    preview: tuple[str, ...] = ()

    def where(self) -> str:
        more = self.fillable - len(self.preview)
        return ", ".join(self.preview) + (f" and {more} more" if more > 0 else "")

    def line(self, key: str) -> str:
        if not self.open:
            return "No open placeholders: every topic has the replicas it was created with."
        text = f"{self.open} open placeholder(s) in {len(self.topics)} topic(s)"
        if self.fillable:
            return f"{text}; {self.fillable} can be filled now ({self.where()}): press {key}."
        return f"{text}; none can be filled until a broker joins."


NO_PLACEHOLDERS = PlaceholderState(0, frozenset(), 0)
_PARTITIONS = attrgetter("partitions")
_REPLICAS = attrgetter("replicas")
PREVIEW_FILLS = 3


def placeholder_state(snapshot: Snapshot) -> PlaceholderState:
    """What `fill_placeholders` would find now (the same choice, without the moves)."""
    slots = open_slots(snapshot)
    replicas = {
        (t, p.partition): p.replicas
        for t in {s.topic for s in slots}
        for p in snapshot.topics[t].partitions
    }
    fills = choose_fills(snapshot.brokers, snapshot.load, replicas, slots)
    taken = [f for f in fills if f.broker is not None]
    return PlaceholderState(
        len(slots),
        frozenset(s.topic for s in slots),
        len(taken),
        tuple(f"{f.topic}-{f.partition} -> {f.broker}" for f in taken[:PREVIEW_FILLS]),
    )


async def read_placeholder_state(
    admin: AdminPort,
    store: PlaceholderStore,
    cluster: ClusterInfo,
    topics: list[TopicDescription],
    by_name: dict[str, TopicDescription] | None = None,
) -> PlaceholderState:
    """The placeholders of the topics just read, for the topics screen: nothing is read when
    the placeholder topic does not exist (nothing was ever created under-replicated). An
    unreadable record is left for the brokers screen to report. `by_name`: `topics` by
    name, when the caller has them (the topics screen's view: made once per read, off its
    thread; this dict of 200,000 topics made on the caller's thread held it ~60-80 ms)."""
    if by_name is None:
        by_name = {t.name: t for t in topics}
    if store.topic not in by_name:
        return NO_PLACEHOLDERS
    try:
        entries = await store.load(len(by_name[store.topic].partitions))
    except AdminError:
        return NO_PLACEHOLDERS
    entries = {
        name: e
        for name, e in entries.items()
        if name in by_name and e.topic_id in (None, by_name[name].topic_id)
    }
    if not entries:
        return NO_PLACEHOLDERS
    brokers = [Broker(b.id, b.rack, not b.fenced) for b in cluster.brokers]

    def state() -> PlaceholderState:
        snapshot = Snapshot(
            brokers, load_of(topics), by_name, {}, entries, cluster.lists_fenced_brokers
        )
        return placeholder_state(snapshot)

    # Off the caller's thread: every partition is counted (the topics screen's refresh).
    return await asyncio.to_thread(state)


def load_of(topics: list[TopicDescription]) -> Load:
    """Load.from_assignments of every partition's replicas, counted by distinct replica
    list first (in C: a read's equal lists are one tuple, a few hundred on 2,000,000
    partitions, where the list-by-list count took over a second; issue 52). The brokers come
    in the same order. A slice of 5,000 topics at a time: a C loop over every partition
    holds the interpreter for its whole length, and the screen's thread waits."""
    lists: Counter[tuple[int, ...]] = Counter()
    for start in range(0, len(topics), 5000):  # in C, a slice at a time: see below
        lists.update(
            map(_REPLICAS, chain.from_iterable(map(_PARTITIONS, topics[start : start + 5000])))
        )
    replicas: dict[int, int] = {}
    leaders: dict[int, int] = {}
    for ids, count in lists.items():
        for position, broker in enumerate(ids):
            if broker < 0:
                continue
            replicas[broker] = replicas.get(broker, 0) + count
            if position == 0:
                leaders[broker] = leaders.get(broker, 0) + count
    return Load(replicas, leaders)


async def orphaned_throttles(admin: AdminPort) -> list[str]:
    """Where replication throttles sit that no reassignment in progress needs ('broker 2',
    'topic orders'), sorted; none when none. Advice only: a read it cannot make (an ACL, an
    old broker) finds none."""
    try:
        report = await list_throttles(admin)
    except Exception:  # the brokers themselves are shown already; this line is a hint
        return []
    return sorted(
        {f"broker {t.name}" if t.kind == "broker" else f"topic {t.name}" for t in report.orphaned}
    )
