"""Groups of every kind (classic, KIP-848 consumer, share, streams): who reads what, how far
behind in records and in seconds, a status over time, and deleting groups. What `groups list`,
`groups describe`, `groups delete` and the groups screens share.

One read of the cluster per call: ListGroups on every broker (kind, state, coordinator), the
describe of each kind at its coordinator (members, assignments), the committed offsets of
every group on every topic (OffsetFetch; a share group's start offsets from
DescribeShareGroupOffsets), each partition's log start and end (ListOffsets to the leaders),
and, for lag in seconds, the timestamp of the first record not yet consumed (one small Fetch
per leader for all lagging partitions, deduplicated across groups).

Lag in seconds = now minus the timestamp of the oldest record the group has not consumed (the
record at its committed offset): how old the work waiting for it is. 0 when caught up; when the
committed offset was deleted by retention, the oldest record still in the log is used and the
partition says so; null where no record could be read (the note says why).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ..admin.errors import sentence
from ..admin.group_detail import GroupDetail, GroupMember
from ..admin.group_work import GroupDeletion, ListedGroupInfo
from ..admin.protocol_group_changes import EARLIEST, LATEST
from ..admin.protocol_groups import CLASSIC, CONSUMER, SHARE, STREAMS
from .group_status import Look, Status, evaluate
from .parsing import UsageError
from .ports import AdminPort

KINDS = (CLASSIC, CONSUMER, SHARE, STREAMS)
NO_SHARE_STATE = "no share state yet (made at the group's first fetch from it)"
Partition = tuple[str, int]
# Looks kept per group for its status and the lag sparkline (the groups screen looks at every
# refresh: 10 s apart, so about 10 minutes).
LOOKS_KEPT = 60
_EMPTY = frozenset({"empty", "dead"})


@dataclass(frozen=True)
class PartitionLag:
    topic: str
    partition: int
    committed: int | None  # None: the group committed nothing here
    log_start: int | None
    log_end: int | None
    lag: int | None
    lag_seconds: float | None
    note: str | None = None  # why lag_seconds is what it is, where that needs saying
    member_id: str | None = None  # the member it is assigned to, if any

    def to_json(self) -> dict[str, object]:
        return {
            "topic": self.topic,
            "partition": self.partition,
            "committed": self.committed,
            "log_start": self.log_start,
            "log_end": self.log_end,
            "lag": self.lag,
            "lag_seconds": _seconds(self.lag_seconds),
            "member_id": self.member_id,
            "note": self.note,
        }


@dataclass(frozen=True)
class GroupView:
    group: str
    type: str
    state: str
    coordinator: int | None
    protocol: str
    members: tuple[GroupMember, ...] | None  # None: the group could not be described
    offsets: tuple[PartitionLag, ...]
    status: str = ""
    status_reason: str = ""
    epoch: int | None = None
    source_topics: tuple[str, ...] = ()
    error: str | None = None  # the Kafka error name that kept the group from being read
    message: str | None = None

    @property
    def lag(self) -> int | None:
        lags = [p.lag for p in self.offsets if p.lag is not None]
        return sum(lags) if lags else None

    @property
    def lag_seconds(self) -> float | None:
        """The oldest unconsumed record's age over the group's partitions."""
        ages = [p.lag_seconds for p in self.offsets if p.lag_seconds is not None]
        return max(ages) if ages else None

    @property
    def member_count(self) -> int | None:
        return None if self.members is None else len(self.members)

    def summary_json(self) -> dict[str, object]:
        return {
            "group": self.group,
            "type": self.type,
            "state": self.state,
            "members": self.member_count,
            "lag": self.lag,
            "lag_seconds": _seconds(self.lag_seconds),
            "status": self.status or None,
        }

    def to_json(self) -> dict[str, object]:
        document: dict[str, object] = {
            "group": self.group,
            "type": self.type,
            "state": self.state,
            "coordinator": self.coordinator,
            "protocol": self.protocol,
            "members": None
            if self.members is None
            else [_member_json(m, self.type) for m in self.members],
            "offsets": [p.to_json() for p in self.offsets],
            "lag": self.lag,
            "lag_seconds": _seconds(self.lag_seconds),
            "status": self.status or None,
            "status_reason": self.status_reason or None,
        }
        if self.epoch is not None:
            document["epoch"] = self.epoch
        if self.type == STREAMS:
            document["source_topics"] = list(self.source_topics)
        if self.error:
            document["error"] = self.error
            document["message"] = self.message
        return document


def _member_json(m: GroupMember, kind: str) -> dict[str, object]:
    document: dict[str, object] = {
        "member_id": m.member_id,
        "client_id": m.client_id,
        "host": m.host,
        "assignment": [{"topic": t, "partition": p} for t, p in m.assignment],
    }
    if m.instance_id:
        document["instance_id"] = m.instance_id
    if kind in (CONSUMER, SHARE, STREAMS):
        document["epoch"] = m.epoch
    if m.target is not None:
        document["target_assignment"] = [{"topic": t, "partition": p} for t, p in m.target]
    if m.subscribed:
        document["subscribed_topics"] = list(m.subscribed)
    return document


def age(seconds: float | None) -> str:
    """Lag in time as people read it: 12s, 3m05s, 2h10m, 4d03h; "-" where unknown."""
    if seconds is None:
        return "-"
    s = int(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    if s < 86400:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{s // 86400}d{s % 86400 // 3600:02d}h"


def _seconds(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


@dataclass
class GroupLooks:
    """The looks kept at each group between reads (the groups screen's refreshes, a
    describe's samples): its status and the lag over time."""

    kept: int = LOOKS_KEPT
    looks: dict[str, deque[Look]] = field(default_factory=dict)

    def add(self, group: str, look: Look) -> list[Look]:
        window = self.looks.setdefault(group, deque(maxlen=self.kept))
        window.append(look)
        return list(window)

    def lags(self, group: str) -> list[int]:
        """The group's total lag at each look kept, oldest first (the sparkline)."""
        return [look.total_lag() for look in self.looks.get(group, ())]

    def forget_rewinds(self, group: str) -> None:
        """After kafka-tui itself moved the group's offsets: the looks before are no window."""
        self.looks.pop(group, None)


@dataclass(frozen=True)
class GroupsRead:
    views: list[GroupView]
    unchecked: Mapping[str, str]  # "broker N" or a group -> the error that kept it unread


async def list_groups(
    admin: AdminPort,
    *,
    types: Iterable[str] = (),
    states: Iterable[str] = (),
    topic: str | None = None,
    looks: GroupLooks | None = None,
    clock: Callable[[], float] = time.time,
) -> GroupsRead:
    """Every group (of `types`, in `states`, with offsets on `topic`), each with its lag and
    status. Unknown types or states are refused (UsageError) before anything is read."""
    wanted_types = _types(types)
    wanted_states = {s.lower() for s in states}
    listed, unchecked = await admin.all_groups()
    chosen = [
        g
        for g in listed
        if (not wanted_types or g.type in wanted_types)
        and (not wanted_states or g.state.lower() in wanted_states)
    ]
    read = await _read(admin, chosen, dict(unchecked), looks, clock)
    if topic is not None:
        read = GroupsRead(
            [v for v in read.views if any(p.topic == topic for p in v.offsets)], read.unchecked
        )
    return read


async def describe_groups(
    admin: AdminPort,
    groups: Sequence[str],
    *,
    looks: GroupLooks | None = None,
    clock: Callable[[], float] = time.time,
) -> list[GroupView]:
    """`groups` in the order given; a group that does not exist (or that the principal may
    not describe: ListGroups leaves those out) carries GROUP_ID_NOT_FOUND."""
    if not groups:
        raise UsageError("Name at least one group.")
    listed, unchecked = await admin.all_groups()
    by_name = {g.group: g for g in listed}
    found = [by_name[g] for g in dict.fromkeys(groups) if g in by_name]
    read = await _read(admin, found, dict(unchecked), looks, clock)
    views = {v.group: v for v in read.views}
    out = []
    for g in dict.fromkeys(groups):
        if g in views:
            out.append(views[g])
        else:
            out.append(missing(g))
    return out


def missing(group: str) -> GroupView:
    name = "GROUP_ID_NOT_FOUND"
    return GroupView(
        group,
        "",
        "Dead",
        None,
        "",
        None,
        (),
        error=name,
        message=sentence(name, group, subject=f"Group '{group}'"),
    )


def _types(types: Iterable[str]) -> set[str]:
    wanted = {t.lower() for t in types}
    unknown = wanted - set(KINDS)
    if unknown:
        raise UsageError(
            f"Unknown group type {', '.join(sorted(unknown))}: one of {', '.join(KINDS)}."
        )
    return wanted


async def _read(
    admin: AdminPort,
    listed: Sequence[ListedGroupInfo],
    unchecked: dict[str, str],
    looks: GroupLooks | None,
    clock: Callable[[], float],
) -> GroupsRead:
    if not listed:
        return GroupsRead([], unchecked)
    details = await admin.group_details(listed)
    committed, broker_lags = await admin.committed_offsets(listed, unchecked)
    partitions: set[Partition] = set()
    for g in listed:
        partitions |= set(committed.get(g.group, {}))
        if g.group in details:
            for m in details[g.group].members:
                partitions |= set(m.assignment)
    starts, ends = await _log_bounds(admin, partitions)
    wanted: dict[tuple[str, int, int], None] = {}
    for g in listed:
        for tp, offset in committed.get(g.group, {}).items():
            end = ends.get(tp)
            if end is not None and offset < end:
                start = starts.get(tp)
                wanted[(tp[0], tp[1], max(offset, start or 0))] = None
    records = await _records(admin, wanted)
    now = clock()
    views = []
    for g in listed:
        if g.group in unchecked:
            name = unchecked[g.group]
            views.append(
                GroupView(
                    g.group,
                    g.type,
                    g.state,
                    g.coordinator,
                    "",
                    None,
                    (),
                    error=name,
                    message=sentence(name, g.group, subject=f"Group '{g.group}'"),
                )
            )
            continue
        detail = details.get(g.group)
        known = broker_lags.get(g.group, {})
        views.append(
            _view(g, detail, committed.get(g.group, {}), known, starts, ends, records, now, looks)
        )
    return GroupsRead(views, unchecked)


async def _log_bounds(
    admin: AdminPort, partitions: Iterable[Partition]
) -> tuple[dict[Partition, int], dict[Partition, int]]:
    wanted = sorted(partitions)
    if not wanted:
        return {}, {}
    first, last = await asyncio.gather(
        admin.list_offsets(dict.fromkeys(wanted, EARLIEST)),
        admin.list_offsets(dict.fromkeys(wanted, LATEST)),
    )
    starts = {tp: o.offset for tp, o in first.items() if not o.error_code and o.offset >= 0}
    ends = {tp: o.offset for tp, o in last.items() if not o.error_code and o.offset >= 0}
    return starts, ends


async def _records(
    admin: AdminPort, wanted: Mapping[tuple[str, int, int], None]
) -> dict[tuple[str, int, int], tuple[int, int]]:
    """(topic, partition, offset) -> (the first record's offset at or after it, its
    timestamp)."""
    positions: dict[Partition, list[int]] = {}
    for t, p, o in wanted:
        positions.setdefault((t, p), []).append(o)
    found = await admin.records_at(positions)
    return {key: (r.offset, r.timestamp) for key, r in found.items()}


def _view(
    g: ListedGroupInfo,
    detail: GroupDetail | None,
    committed: Mapping[Partition, int],
    known_lags: Mapping[Partition, int],
    starts: Mapping[Partition, int],
    ends: Mapping[Partition, int],
    records: Mapping[tuple[str, int, int], tuple[int, int]],
    now: float,
    looks: GroupLooks | None,
) -> GroupView:
    """`known_lags`: a share group's lag as its coordinator counts it (DescribeShareGroupOffsets
    v1, what kafka-share-groups.sh shows: records not yet acknowledged). Its start offsets are
    the persisted share state, which can stay behind what the consumers acknowledged (Kafka
    4.4: 0 after a console share consumer read and acknowledged every record, lag 0): where the
    coordinator gives a lag, it is the lag, and its position for the status is the log end
    minus it."""
    owner: dict[Partition, str] = {}
    if detail is not None:
        for m in detail.members:
            for tp in m.assignment:
                owner[tp] = m.member_id
    # A share partition's state (its start offset) is made at the group's first fetch from
    # it (Kafka 4.4: start and lag -1 until then, tests/integration/test_groups_kinds.py).
    unset = NO_SHARE_STATE if g.type == SHARE else "nothing committed"
    rows = []
    for tp in sorted(set(committed) | set(owner)):
        rows.append(
            _partition_lag(
                tp, committed.get(tp), known_lags.get(tp), starts, ends, records, now, owner, unset
            )
        )
    state = detail.state if detail is not None and detail.state else g.state
    members = detail.members if detail is not None else None
    keys = [(r.topic, r.partition) for r in rows]
    look = Look(
        now,
        len(members) if members is not None else (0 if state.lower() in _EMPTY else 1),
        {(r.topic, r.partition): _position(r) for r in rows},
        {tp: starts.get(tp) for tp in keys},
        {tp: ends.get(tp) for tp in keys},
    )
    window = looks.add(g.group, look) if looks is not None else [look]
    status: Status = evaluate(window, state)
    return GroupView(
        g.group,
        g.type,
        state,
        g.coordinator,
        detail.protocol if detail is not None else "",
        members,
        tuple(rows),
        status.status,
        status.reason,
        detail.epoch if detail is not None else None,
        detail.source_topics if detail is not None else (),
    )


def _position(row: PartitionLag) -> int | None:
    """Where the group stands on a partition for its status: the committed offset, or the log
    end minus the lag where the coordinator gave one that says otherwise (share groups)."""
    if row.committed is None or row.lag is None or row.log_end is None:
        return row.committed
    return max(row.committed, row.log_end - row.lag)


def _partition_lag(
    tp: Partition,
    committed: int | None,
    known_lag: int | None,
    starts: Mapping[Partition, int],
    ends: Mapping[Partition, int],
    records: Mapping[tuple[str, int, int], tuple[int, int]],
    now: float,
    owner: Mapping[Partition, str],
    unset: str = "nothing committed",
) -> PartitionLag:
    """`unset`: the note of a partition without a committed offset (or share start)."""
    start, end = starts.get(tp), ends.get(tp)
    t, p = tp
    member = owner.get(tp)
    if committed is None:
        return PartitionLag(t, p, None, start, end, None, None, unset, member)
    if end is None:
        unknown = "log end unknown (no leader answered)"
        return PartitionLag(t, p, committed, start, None, None, None, unknown, member)
    lag = max(end - committed, 0) if known_lag is None else known_lag
    if lag == 0:
        return PartitionLag(t, p, committed, start, end, 0, 0.0, None, member)
    note: str | None = None
    at = committed
    if start is not None and committed < start:
        at = start
        note = (
            f"committed offset {committed} was deleted by retention (the log starts at {start}): "
            "lag in seconds is the oldest record still in the log"
        )
    record = records.get((t, p, at))
    if record is None:
        why = "no record could be read at the committed offset"
        return PartitionLag(t, p, committed, start, end, lag, None, note or why, member)
    seconds = max(now - record[1] / 1000, 0.0)
    return PartitionLag(t, p, committed, start, end, lag, seconds, note, member)


# -- deleting groups -------------------------------------------------------------------------


def delete_refusal(group: str, members: int, state: str) -> str:
    """Why a group with members is not deleted (the CLI's error, the TUI's dialog)."""
    return (
        f"Group '{group}' has {members} active member(s) (state {state}): Kafka deletes only "
        "a group without members. Stop its consumers first."
    )


async def delete_groups(admin: AdminPort, groups: Sequence[str]) -> list[GroupDeletion]:
    """Delete `groups` (every kind), one result per group in the order given. A group that
    does not exist, or has members, is refused before anything is sent."""
    if not groups:
        raise UsageError("Name at least one group.")
    listed, _ = await admin.all_groups()
    by_name = {g.group: g for g in listed}
    deletable = [by_name[g] for g in dict.fromkeys(groups) if g in by_name]
    details = await admin.group_details(deletable) if deletable else {}
    refused: dict[str, GroupDeletion] = {}
    send = []
    for g in dict.fromkeys(groups):
        subject = f"Group '{g}'"
        if g not in by_name:
            name = "GROUP_ID_NOT_FOUND"
            refused[g] = GroupDeletion(g, False, name, sentence(name, g, subject=subject))
            continue
        detail = details.get(g)
        if detail is not None and detail.members:
            name = "NON_EMPTY_GROUP"
            text = delete_refusal(g, len(detail.members), detail.state)
            refused[g] = GroupDeletion(g, False, name, text)
            continue
        send.append(by_name[g])
    done = {r.group: r for r in (await admin.delete_groups(send) if send else [])}
    return [refused.get(g) or done[g] for g in dict.fromkeys(groups)]
