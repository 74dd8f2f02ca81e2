"""Who reads a topic, and who still writes to it, before it is deleted: the groups with
offsets on it, of every kind (classic consumer groups, the new consumer protocol's, share
and streams groups), their state, members and lag (log end offset minus committed offset,
summed over the topic's partitions; for a share group, the lag its coordinator counts where
the broker gives it, DescribeShareGroupOffsets v1, as kafka-share-groups.sh 4.4 shows it,
else log end offset minus share-partition start offset). Read only for a deletion; both
front ends show it before asking.

Writers: the producer ids each partition's leader still keeps (DescribeProducers, KIP-664,
Kafka 2.8+), and whether the brokers auto-create topics: a topic deleted under a producer that
still writes comes back at once as a topic of the brokers' defaults. A producer is **live**
while its id has not expired, i.e. its last write (`last_timestamp`) is within the broker's
`producer.id.expiration.ms` (one day by default) of now: exactly the producers the broker
would still deduplicate for. Its id is listed a little longer (expired ids are swept every
10 minutes); those are shown, not counted as live.

What cannot be checked (no right to describe groups, a broker that did not answer) becomes a
note, never a failure: the deletion is the operator's call. Only the unconsumed-only
deletion refuses a topic then, since it cannot tell.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..admin import AdminError, TopicResult
from ..admin.consumer_groups import (
    CLUSTER_AUTHORIZATION_FAILED,
    GROUP_AUTHORIZATION_FAILED,
    TOPIC_AUTHORIZATION_FAILED,
    GroupsOfTopics,
)
from ..admin.producers import ActiveProducer, ProducersOfTopics
from ..admin.protocol_groups import CLASSIC, CONSUMER, SHARE, STREAMS
from .ports import AdminPort

TOPIC_IN_USE = "TOPIC_IN_USE"
GROUPS_NOT_CHECKED = "GROUPS_NOT_CHECKED"
PRODUCERS_NOT_CHECKED = "PRODUCERS_NOT_CHECKED"
NOT_AUTHORIZED_NOTE = "consumer groups not checked: not authorized to describe groups"


# How each kind of group is named next to it (a classic consumer group goes unnamed).
_KINDS = {
    CLASSIC: "",
    CONSUMER: "consumer protocol, ",
    SHARE: "share group, ",
    STREAMS: "streams group, ",
}


@dataclass(frozen=True)
class Reader:
    """A group with offsets on a topic. `members`: None when the group could not be
    described; `lag`: None when a partition's log end offset is unknown. `type`: "classic",
    "consumer" (KIP-848), "share" (KIP-932), "streams" (KIP-1071), or a newer kind."""

    group: str
    state: str
    members: int | None
    lag: int | None
    type: str = CLASSIC

    @property
    def active(self) -> bool:
        return bool(self.members)

    def to_json(self) -> dict[str, object]:
        return {
            "group": self.group,
            "state": self.state,
            "members": self.members,
            "lag": self.lag,
            "type": self.type,
        }

    def describe(self) -> str:
        """ "'billing' (Stable, 2 members, lag 40)", "'jobs' (share group, Empty, ...)"."""
        kind = _KINDS.get(self.type, f"{self.type} group, ")
        members = "members unknown" if self.members is None else _count(self.members, "member")
        lag = "lag unknown" if self.lag is None else f"lag {self.lag}"
        return f"'{self.group}' ({kind}{self.state or 'state unknown'}, {members}, {lag})"


@dataclass(frozen=True)
class Writer:
    """A producer id a partition's leader still keeps. `last_timestamp`: ms since the
    epoch, -1 unknown; `live`: its id has not expired (see the module's docstring)."""

    partition: int
    producer_id: int
    last_timestamp: int
    live: bool
    transaction_open: bool = False

    def to_json(self) -> dict[str, object]:
        return {
            "partition": self.partition,
            "producer_id": self.producer_id,
            "last_timestamp": self.last_timestamp,
            "live": self.live,
            "transaction_open": self.transaction_open,
        }

    def seconds_ago(self, now_ms: int) -> int | None:
        return None if self.last_timestamp < 0 else max(now_ms - self.last_timestamp, 0) // 1000

    def describe(self, now_ms: int) -> str:
        """ "producer 4001 (partition 0, wrote 3 s ago, transaction open)"."""
        ago = self.seconds_ago(now_ms)
        when = "last write unknown" if ago is None else f"wrote {ago} s ago"
        txn = ", transaction open" if self.transaction_open else ""
        return f"producer {self.producer_id} (partition {self.partition}, {when}{txn})"


@dataclass(frozen=True)
class Readers:
    """Each topic's readers and writers (topics without any: absent); `note`: what could
    not be checked about groups, a sentence; None when every group was checked;
    `writers_note` the same about producers. `auto_create`: whether the brokers
    auto-create topics (None: unknown); `checked_at_ms`: when the producers were read."""

    by_topic: Mapping[str, list[Reader]] = field(default_factory=dict)
    note: str | None = None
    writers: Mapping[str, list[Writer]] = field(default_factory=dict)
    writers_note: str | None = None
    auto_create: bool | None = None
    checked_at_ms: int = 0

    def of(self, topic: str) -> list[Reader]:
        return self.by_topic.get(topic, [])

    def active(self, topic: str) -> list[Reader]:
        return [r for r in self.of(topic) if r.active]

    def writers_of(self, topic: str) -> list[Writer]:
        return list(self.writers.get(topic, []))

    def live_writers(self, topic: str) -> list[Writer]:
        return [w for w in self.writers_of(topic) if w.live]

    def writer_warning(self, topic: str) -> str | None:
        """ "a producer wrote to it 3 s ago; with auto-creation on, the topic will come back
        as soon as it writes again" (None: no live producer)."""
        live = self.live_writers(topic)
        if not live:
            return None
        ids = {w.producer_id for w in live}
        agos = [a for w in live if (a := w.seconds_ago(self.checked_at_ms)) is not None]
        who = "a producer" if len(ids) == 1 else f"{len(ids)} producers"
        when = f" {min(agos)} s ago" if agos else " recently"
        if len(ids) > 1 and agos:
            when = f", the last{when}"
        pronoun = "it" if len(ids) == 1 else "one"
        if self.auto_create:
            then = (
                f"with auto-creation on, the topic will come back as soon as {pronoun} writes again"
            )
        elif self.auto_create is None:
            then = "whether the brokers auto-create topics is unknown: it may come back"
        else:
            then = "auto-creation is off: its writes will fail once the topic is gone"
        return f"{who} wrote to it{when}; {then}"


async def readers_of(admin: AdminPort, names: Sequence[str]) -> Readers:
    """The groups reading `names` and the producers writing to them (topics that do not
    exist have none), looked up side by side. Cost: one ListGroups per broker; when some
    group exists, one Metadata read, per coordinator one OffsetFetch (and one
    DescribeShareGroupOffsets if it has share groups), at most one describe per kind of group,
    and ListOffsets only for the topics some group reads. For producers: one Metadata read,
    one DescribeProducers per leader broker, one DescribeConfigs."""
    if not names:
        return Readers()
    (by_topic, note), (writers, writers_note, auto, now_ms) = await asyncio.gather(
        _groups(admin, names), _writers(admin, names)
    )
    return Readers(by_topic, note, writers, writers_note, auto, now_ms)


async def _groups(
    admin: AdminPort, names: Sequence[str]
) -> tuple[dict[str, list[Reader]], str | None]:
    try:
        groups = await admin.consumer_groups_of(names)
        read = sorted({t for g in groups.groups for t in g.committed})
        ends = await admin.log_end_offsets(read) if read else {}
    except AdminError as exc:
        return {}, f"consumer groups not checked: {exc.message}"
    by_topic: dict[str, list[Reader]] = {}
    for g in groups.groups:
        for topic, committed in sorted(g.committed.items()):
            lag: int | None = 0
            given = g.lags.get(topic, {})
            for partition, offset in committed.items():
                end = ends.get((topic, partition))
                behind = given.get(partition, None if end is None else max(end - offset, 0))
                lag = None if behind is None or lag is None else lag + behind
            by_topic.setdefault(topic, []).append(Reader(g.group, g.state, g.members, lag, g.type))
    return by_topic, _note(groups)


async def _writers(
    admin: AdminPort, names: Sequence[str]
) -> tuple[dict[str, list[Writer]], str | None, bool | None, int]:
    try:
        found = await admin.producers_of(names)
    except AdminError as exc:
        return {}, f"producers not checked: {exc.message.rstrip('.')}", None, _now_ms()
    now_ms = _now_ms()
    writers: dict[str, list[Writer]] = {}
    for p in found.producers:
        writers.setdefault(p.topic, []).append(_writer(p, now_ms, found.expiration_ms))
    return writers, _writers_note(found), found.auto_create, now_ms


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _writer(p: ActiveProducer, now_ms: int, expiration_ms: int) -> Writer:
    # An unknown last write (-1) counts as live: the broker still keeps the id.
    live = p.last_timestamp < 0 or now_ms - p.last_timestamp < expiration_ms
    return Writer(p.partition, p.producer_id, p.last_timestamp, live, p.transaction_open)


def _writers_note(found: ProducersOfTopics) -> str | None:
    """One sentence for the partitions whose producers could not be checked."""
    unchecked = {k: v for k, v in found.unchecked.items() if k != "configs"}
    if not unchecked:
        return None
    unsupported = [m for name, m in unchecked.values() if name == "UNSUPPORTED_VERSION"]
    if unsupported:
        return f"producers not checked: {unsupported[0].rstrip('.')}"
    names = {name for name, _ in unchecked.values()}
    if names == {TOPIC_AUTHORIZATION_FAILED}:
        return "producers not checked: not authorized to read the topic"
    brokers = sorted(k for k in unchecked if k.startswith("broker "))
    partitions = sorted(k for k in unchecked if not k.startswith("broker "))
    parts = []
    if brokers:
        why = ", ".join(sorted({unchecked[b][0] for b in brokers}))
        parts.append(f"producers on {', '.join(brokers)} not checked ({why})")
    if partitions:
        why = ", ".join(sorted({unchecked[p][0] for p in partitions}))
        parts.append(f"producers of {', '.join(partitions)} not checked ({why})")
    return "; ".join(parts)


def _note(groups: GroupsOfTopics) -> str | None:
    """One sentence for what was not checked, the rights first (the usual reason)."""
    unchecked = groups.unchecked
    if not unchecked:
        return None
    reasons = set(unchecked.values())
    brokers = sorted(k for k in unchecked if k.startswith("broker "))
    unauthorized = [g for g, e in unchecked.items() if e == GROUP_AUTHORIZATION_FAILED]
    parts = []
    if CLUSTER_AUTHORIZATION_FAILED in reasons:
        parts.append("consumer groups not checked: not authorized to list groups")
    elif unauthorized and len(unauthorized) >= groups.listed:
        parts.append(NOT_AUTHORIZED_NOTE)
    elif unauthorized:
        parts.append(
            f"{len(unauthorized)} of {groups.listed} consumer groups not checked: not "
            "authorized to describe them"
        )
    if TOPIC_AUTHORIZATION_FAILED in reasons:
        parts.append("committed offsets not checked: not authorized to describe the topic")
    if brokers:
        why = ", ".join(sorted({unchecked[b] for b in brokers}))
        parts.append(f"consumer groups coordinated by {', '.join(brokers)} not checked ({why})")
    explained = {
        GROUP_AUTHORIZATION_FAILED,
        CLUSTER_AUTHORIZATION_FAILED,
        TOPIC_AUTHORIZATION_FAILED,
    }
    others = sorted(
        g for g, e in unchecked.items() if e not in explained and not g.startswith("broker ")
    )
    if others:
        why = ", ".join(sorted({unchecked[g] for g in others}))
        parts.append(f"{_count(len(others), 'consumer group')} not checked ({why})")
    return "; ".join(parts)


def unconsumed_only(
    names: Sequence[str], readers: Readers
) -> tuple[list[str], dict[str, TopicResult]]:
    """The topics an unconsumed-only deletion may delete, and a refusal for each of the
    others: a group with members reads it or a live producer writes to it (TOPIC_IN_USE), or
    the groups or producers could not all be checked (GROUPS_NOT_CHECKED,
    PRODUCERS_NOT_CHECKED: whether one uses it is unknown)."""
    allowed: list[str] = []
    refused: dict[str, TopicResult] = {}
    for name in names:
        active = readers.active(name)
        live = readers.live_writers(name)
        if active or live:
            uses = []
            if active:
                which = ", ".join(r.describe() for r in active)
                verb = "is" if len(active) == 1 else "are"
                uses.append(f"consumer group{'s' * (len(active) > 1)} {which} {verb} reading it")
            if live:
                which = ", ".join(w.describe(readers.checked_at_ms) for w in live)
                verb = "is" if len(live) == 1 else "are"
                uses.append(f"{which} {verb} writing to it")
            whose = "its" if len(active) + len(live) == 1 else "their"
            clients = " and ".join(
                c for c, used in (("consumers", active), ("producers", live)) if used
            )
            refused[name] = TopicResult(
                name,
                ok=False,
                error=TOPIC_IN_USE,
                message=f"Topic '{name}' was not deleted: {' and '.join(uses)}. Stop "
                f"{whose} {clients} first.",
            )
        elif readers.note is not None:
            refused[name] = TopicResult(
                name,
                ok=False,
                error=GROUPS_NOT_CHECKED,
                message=f"Topic '{name}' was not deleted: whether a consumer group reads it is "
                f"unknown ({readers.note}).",
            )
        elif readers.writers_note is not None:
            refused[name] = TopicResult(
                name,
                ok=False,
                error=PRODUCERS_NOT_CHECKED,
                message=f"Topic '{name}' was not deleted: whether a producer writes to it is "
                f"unknown ({readers.writers_note}).",
            )
        else:
            allowed.append(name)
    return allowed, refused


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' * (n != 1)}"
