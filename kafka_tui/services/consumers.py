"""Who reads a topic, before it is deleted: the groups with offsets on it, of every kind
(classic consumer groups, the new consumer protocol's, share and streams groups), their
state, members and lag (log end offset minus committed offset, summed over the topic's
partitions; for a share group, the lag its coordinator counts where the broker gives it,
DescribeShareGroupOffsets v1, as kafka-share-groups.sh 4.4 shows it, else log end offset minus
share-partition start offset). Read only for a deletion; both front ends show it before asking.

What cannot be checked (no right to describe groups, a broker that did not answer) becomes a
note, never a failure: the deletion is the operator's call. Only the unconsumed-only
deletion refuses a topic then, since it cannot tell.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..admin import AdminError, TopicResult
from ..admin.consumer_groups import (
    CLUSTER_AUTHORIZATION_FAILED,
    GROUP_AUTHORIZATION_FAILED,
    TOPIC_AUTHORIZATION_FAILED,
    GroupsOfTopics,
)
from ..admin.protocol_groups import CLASSIC, CONSUMER, SHARE, STREAMS
from .ports import AdminPort

TOPIC_IN_USE = "TOPIC_IN_USE"
GROUPS_NOT_CHECKED = "GROUPS_NOT_CHECKED"
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
class Readers:
    """Each topic's readers (topics without any: absent); `note`: what could not be checked,
    a sentence; None when every group was checked."""

    by_topic: Mapping[str, list[Reader]] = field(default_factory=dict)
    note: str | None = None

    def of(self, topic: str) -> list[Reader]:
        return self.by_topic.get(topic, [])

    def active(self, topic: str) -> list[Reader]:
        return [r for r in self.of(topic) if r.active]


async def readers_of(admin: AdminPort, names: Sequence[str]) -> Readers:
    """The groups reading `names` (topics that do not exist have none). Cost: one
    ListGroups per broker; when some group exists, one Metadata read, per coordinator one
    OffsetFetch (and one DescribeShareGroupOffsets if it has share groups), at most one
    describe per kind of group, and ListOffsets only for the topics some group reads."""
    if not names:
        return Readers()
    try:
        groups = await admin.consumer_groups_of(names)
        read = sorted({t for g in groups.groups for t in g.committed})
        ends = await admin.log_end_offsets(read) if read else {}
    except AdminError as exc:
        return Readers(note=f"consumer groups not checked: {exc.message}")
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
    return Readers(by_topic, _note(groups))


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
    others: a group with members reads it (TOPIC_IN_USE), or the groups could not all be
    checked (GROUPS_NOT_CHECKED: whether one reads it is unknown)."""
    allowed: list[str] = []
    refused: dict[str, TopicResult] = {}
    for name in names:
        active = readers.active(name)
        if active:
            which = ", ".join(r.describe() for r in active)
            verb = "is" if len(active) == 1 else "are"
            refused[name] = TopicResult(
                name,
                ok=False,
                error=TOPIC_IN_USE,
                message=f"Topic '{name}' was not deleted: consumer "
                f"group{'s' * (len(active) > 1)} {which} {verb} reading it. Stop "
                f"{'its' if len(active) == 1 else 'their'} consumers first.",
            )
        elif readers.note is not None:
            refused[name] = TopicResult(
                name,
                ok=False,
                error=GROUPS_NOT_CHECKED,
                message=f"Topic '{name}' was not deleted: whether a consumer group reads it is "
                f"unknown ({readers.note}).",
            )
        else:
            allowed.append(name)
    return allowed, refused


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' * (n != 1)}"
