"""Groups as a whole: list every group, describe them with members and assignments, read
their committed offsets on every topic, the partitions' log start/end and the timestamps of
the records at given offsets, and change them (commit offsets as an admin, set a share group's
start offsets, delete groups).

Routing: a group's requests go to its coordinator, which ListGroups names (each broker lists
the groups it coordinates); ListOffsets and Fetch go to each partition's leader. A leader that
moved between the metadata read and the request (NOT_LEADER_OR_FOLLOWER, ...) is asked once
more after a fresh read; a coordinator that moved is found again with FindCoordinator
(consumer_groups.py's `_all_offsets`).
"""

from __future__ import annotations

import asyncio
import bisect
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from . import audit_log as audit
from .consumer_groups import _MOVED, AdminGroupOffsets, _Listed
from .errors import AdminError, error_name, sentence
from .group_detail import GroupDetail
from .protocol_group_changes import (
    AlterShareGroupOffsetsRequest,
    DeleteGroupsRequest,
    ListedOffset,
    ListOffsetsRequest,
    OffsetCommitRequest,
)
from .record_fetch import READ_UNCOMMITTED, TopicsFetchRequest, fetched_partitions, readable_batches
from .sampling import AdminSampling

# A partition's leader moved or is not known yet: read the metadata again and ask once more.
_LEADER_MOVED = frozenset({3, 5, 6, 74, 75})  # UNKNOWN_TOPIC_OR_PARTITION, LEADER_NOT_AVAILABLE,
# NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH
# A Fetch for the records at committed offsets: a typical batch fits; one larger than this is
# returned whole only for a request's first partition (KIP-74), so a partition whose batch did
# not come whole is asked again alone.
_PEEK_BYTES = 65_536
_PEEK_TOTAL_BYTES = 16_777_216
_COORDINATOR_SOON = frozenset({"COORDINATOR_NOT_AVAILABLE", "COORDINATOR_LOAD_IN_PROGRESS"})


@dataclass(frozen=True)
class ListedGroupInfo:
    group: str
    type: str  # "classic", "consumer", "share", "streams" (ListGroups v5; classic before)
    state: str  # "" where the broker names none (ListGroups before v4, Kafka 2.6)
    coordinator: int


@dataclass(frozen=True)
class RecordAt:
    """The first record at or after an offset: its offset and timestamp (ms)."""

    offset: int
    timestamp: int


@dataclass(frozen=True)
class OffsetCommitResult:
    """One partition's outcome of a commit (the shape the audit log reads)."""

    group: str
    topic: str
    partition: int
    offset: int
    ok: bool
    error: str | None = None
    message: str = ""


@dataclass(frozen=True)
class GroupDeletion:
    group: str
    ok: bool
    error: str | None = None
    message: str = ""

    @property
    def topic(self) -> str:
        """The audit log's outcome key: for a group deletion it names the group."""
        return self.group


class AdminGroupWork(AdminSampling, AdminGroupOffsets):
    # -- reads ----------------------------------------------------------------------------

    async def all_groups(self) -> tuple[list[ListedGroupInfo], dict[str, str]]:
        """Every group of every kind (one ListGroups per broker), and the brokers that could
        not be asked ("broker N" -> the Kafka error name)."""
        unchecked: dict[str, str] = {}
        listed = await self._list_groups(unchecked)
        return [
            ListedGroupInfo(g.group, g.type, g.state, g.coordinator)
            for g in sorted(listed.values(), key=lambda g: g.group)
        ], unchecked

    async def group_coordinator(self, group: str) -> int:
        """The broker coordinating `group` (FindCoordinator), also for a group that does not
        exist yet (its offsets would be kept there)."""
        deadline = time.monotonic() + self.settings.request_timeout_ms / 1000
        delay = 0.05
        while True:
            unchecked: dict[str, str] = {}
            found = await self._find_coordinators([group], unchecked)
            if group in found:
                return found[group]
            name = unchecked.get(group, "COORDINATOR_NOT_AVAILABLE")
            # A cluster's first group lookup creates __consumer_offsets: its coordinators are
            # not available (or still loading) for a moment.
            if name not in _COORDINATOR_SOON or time.monotonic() + delay > deadline:
                raise AdminError(name, sentence(name, group, subject=f"Group '{group}'"))
            await asyncio.sleep(delay)
            delay = min(delay * 2, 1.0)

    async def group_details(self, groups: Sequence[ListedGroupInfo]) -> dict[str, GroupDetail]:
        """Members and assignments of `groups`, each kind with its own describe, at its
        coordinator. A group whose kind's describe the broker lacks is left out."""
        return await self._details(_as_listed(groups))

    async def committed_offsets(
        self, groups: Sequence[ListedGroupInfo], unchecked: dict[str, str]
    ) -> tuple[dict[str, dict[tuple[str, int], int]], dict[str, dict[tuple[str, int], int]]]:
        """Each group's committed offsets on every topic (a share group's share-partition
        start offsets), and the lags the broker gives (share groups, Kafka 4.2+). Groups that
        could not be read are named in `unchecked` with the Kafka error name."""
        listed = _as_listed(groups)
        lags: dict[str, dict[str, dict[int, int]]] = {}
        found = await self._all_offsets(listed, None, unchecked, lags)
        flat = {
            g: {(t, p): o for t, parts in by.items() for p, o in parts.items()}
            for g, by in found.items()
        }
        flat_lags = {
            g: {(t, p): lag for t, parts in by.items() for p, lag in parts.items()}
            for g, by in lags.items()
        }
        return flat, flat_lags

    async def list_offsets(
        self, partitions: Mapping[tuple[str, int], int]
    ) -> dict[tuple[str, int], ListedOffset]:
        """ListOffsets for `partitions` ((topic, partition) -> EARLIEST, LATEST or a
        timestamp in ms), at their leaders. Partitions without a leader, or whose leader
        answered an error twice, carry that error code."""
        result: dict[tuple[str, int], ListedOffset] = {}
        wanted = dict(partitions)
        for attempt in range(2):
            by_leader = await self._leaders(sorted({t for t, _ in wanted}))
            leaders = sorted(by_leader)
            asked = {b: {tp: wanted[tp] for tp in by_leader[b] if tp in wanted} for b in leaders}
            asked = {b: parts for b, parts in asked.items() if parts}
            answers = await asyncio.gather(
                *(
                    self._send_to_itself(
                        ListOffsetsRequest(parts, self.settings.request_timeout_ms), b
                    )
                    for b, parts in asked.items()
                ),
                return_exceptions=True,
            )
            again: dict[tuple[str, int], int] = {}
            for (_, parts), answer in zip(asked.items(), answers, strict=True):
                if isinstance(answer, AdminError):
                    for t, p in parts:
                        result[(t, p)] = ListedOffset(t, p, -1, -1, 7)  # REQUEST_TIMED_OUT
                    continue
                if isinstance(answer, BaseException):
                    raise answer
                for listed in ListOffsetsRequest.answer(answer):
                    key = (listed.topic, listed.partition)
                    result[key] = listed
                    if listed.error_code in _LEADER_MOVED and attempt == 0:
                        again[key] = wanted[key]
            placed = {tp for parts in asked.values() for tp in parts}
            for t, p in wanted:
                if (t, p) not in placed:
                    result[(t, p)] = ListedOffset(t, p, -1, -1, 5)  # LEADER_NOT_AVAILABLE
                    if attempt == 0:
                        again[(t, p)] = wanted[(t, p)]
            if not again:
                break
            wanted = again
        return result

    async def records_at(
        self, positions: Mapping[tuple[str, int], Sequence[int]]
    ) -> dict[tuple[str, int, int], RecordAt]:
        """The first data record at or after each offset of each partition ((topic,
        partition) -> offsets; read_uncommitted: what the log holds): one small Fetch per
        leader from each partition's lowest offset not yet found, every offset the returned
        batches cover found from them, again from the next one until none is left (many
        groups at different offsets of one partition cost a Fetch per ~64 KB of log between
        them, not one each). An offset left out has no record there (the log end, or deleted
        by retention: OFFSET_OUT_OF_RANGE), or its batch could not be read."""
        wanted = {tp: sorted(set(offsets)) for tp, offsets in positions.items() if offsets}
        found: dict[tuple[str, int, int], RecordAt] = {}
        if not wanted:
            return found
        by_leader = await self._leaders(sorted({t for t, _ in wanted}))
        leader_of = {tp: b for b, parts in by_leader.items() for tp in parts}
        wanted = {tp: offsets for tp, offsets in wanted.items() if tp in leader_of}
        while wanted:
            asked: dict[int, dict[tuple[str, int], int]] = {}
            for tp, offsets in wanted.items():
                asked.setdefault(leader_of[tp], {})[tp] = offsets[0]
            answers = await asyncio.gather(
                *(self._peek(b, parts, _PEEK_BYTES) for b, parts in asked.items()),
                return_exceptions=True,
            )
            progress: dict[tuple[str, int], list[int]] = {}
            cut: list[tuple[str, int]] = []  # data came, but no whole batch of it
            for answer in answers:
                if isinstance(answer, AdminError):
                    continue  # that leader's partitions stay unknown
                if isinstance(answer, BaseException):
                    raise answer
                for tp, (records, some) in answer.items():
                    if some and not records:
                        cut.append(tp)
                    left = _resolve(tp, wanted[tp], records, found)
                    if left and left[0] > wanted[tp][0]:
                        progress[tp] = left
            # A batch larger than the limit comes whole only as a request's first partition
            # (KIP-74): such a partition is asked again alone, with room for its batch.
            for tp in cut:
                alone = await self._peek(leader_of[tp], {tp: wanted[tp][0]}, _PEEK_TOTAL_BYTES)
                left = _resolve(tp, wanted[tp], alone.get(tp, ([], False))[0], found)
                if left and left[0] > wanted[tp][0]:
                    progress[tp] = left
            wanted = progress
        return found

    async def _peek(
        self, broker: int, starts: Mapping[tuple[str, int], int], partition_bytes: int
    ) -> dict[tuple[str, int], tuple[list[tuple[int, int]], bool]]:
        """The data records (offset, timestamp) the leader returns from each partition's
        start, and whether it returned any bytes; a partition that answered an error
        (OFFSET_OUT_OF_RANGE and the like) is left out."""
        by_topic: dict[str, dict[int, int]] = {}
        for (t, p), offset in starts.items():
            by_topic.setdefault(t, {})[p] = offset
        request = TopicsFetchRequest(
            by_topic,
            READ_UNCOMMITTED,
            wait_ms=0,
            partition_bytes=partition_bytes,
            total_bytes=_PEEK_TOTAL_BYTES,
        )
        answer = await self._send_to_itself(request, broker)
        return {
            (part.topic, part.partition): (_records_in(part.records), bool(part.records))
            for part in fetched_partitions(answer)
            if not part.error_code
        }

    # -- changes --------------------------------------------------------------------------

    async def commit_group_offsets(
        self, group: str, coordinator: int, offsets: Mapping[tuple[str, int], int]
    ) -> list[OffsetCommitResult]:
        """Commit `offsets` for `group` as an admin (OffsetCommit, no member), one result per
        partition; audited. Kafka takes it only while the group has no member."""
        return await audit.audited(
            self,
            "group offsets reset",
            sorted({t for t, _ in offsets}),
            {"group": group, "offsets": _by_topic_text(offsets)},
            self._commit(group, coordinator, offsets),
        )

    async def _commit(
        self, group: str, coordinator: int, offsets: Mapping[tuple[str, int], int]
    ) -> list[OffsetCommitResult]:
        request = OffsetCommitRequest(group, offsets)
        deadline = time.monotonic() + self.settings.request_timeout_ms / 1000
        while True:
            answer = request.answer(await self._send_to_itself(request, coordinator, retry=False))
            codes = {(a.topic, a.partition): a.error_code for a in answer}
            # The coordinator moved or is loading (__consumer_offsets' leaders settling): the
            # commit was not made; setting offsets again is safe.
            if not set(codes.values()) & _MOVED or time.monotonic() > deadline:
                break
            coordinator = await self.group_coordinator(group)
        return [_committed(group, tp, offsets[tp], codes.get(tp, 0)) for tp in sorted(offsets)]

    async def alter_share_group_offsets(
        self, group: str, coordinator: int, offsets: Mapping[tuple[str, int], int]
    ) -> list[OffsetCommitResult]:
        """Set share `group`'s start offsets (AlterShareGroupOffsets, Kafka 4.1+); audited."""
        return await audit.audited(
            self,
            "share group offsets reset",
            sorted({t for t, _ in offsets}),
            {"group": group, "offsets": _by_topic_text(offsets)},
            self._alter_share(group, coordinator, offsets),
        )

    async def _alter_share(
        self, group: str, coordinator: int, offsets: Mapping[tuple[str, int], int]
    ) -> list[OffsetCommitResult]:
        request = AlterShareGroupOffsetsRequest(group, offsets)
        deadline = time.monotonic() + self.settings.request_timeout_ms / 1000
        while True:
            answer = request.answer(await self._send_to_itself(request, coordinator, retry=False))
            if answer.error_code not in _MOVED or time.monotonic() > deadline:
                break
            coordinator = await self.group_coordinator(group)
        if answer.error_code:
            return [
                _committed(group, tp, offsets[tp], answer.error_code, answer.message)
                for tp in sorted(offsets)
            ]
        codes = {(a.topic, a.partition): (a.error_code, a.message) for a in answer.partitions}
        return [
            _committed(group, tp, offsets[tp], *codes.get(tp, (0, None))) for tp in sorted(offsets)
        ]

    async def delete_groups(self, groups: Sequence[ListedGroupInfo]) -> list[GroupDeletion]:
        """Delete `groups` (DeleteGroups at each coordinator), one result per group;
        audited."""
        return await audit.audited(
            self,
            "groups delete",
            [],
            {"groups": [g.group for g in groups]},
            self._delete_groups(groups),
        )

    async def _delete_groups(self, groups: Sequence[ListedGroupInfo]) -> list[GroupDeletion]:
        codes: dict[str, int] = {}
        failed: dict[str, AdminError] = {}
        at = {g.group: g.coordinator for g in groups}
        deadline = time.monotonic() + self.settings.request_timeout_ms / 1000
        while at:
            by_node: dict[int, list[str]] = {}
            for group, node in at.items():
                by_node.setdefault(node, []).append(group)
            nodes = sorted(by_node)
            answers = await asyncio.gather(
                *(
                    self._send_to_itself(DeleteGroupsRequest(by_node[n]), n, retry=False)
                    for n in nodes
                ),
                return_exceptions=True,
            )
            for n, answer in zip(nodes, answers, strict=True):
                if isinstance(answer, AdminError):
                    failed |= dict.fromkeys(by_node[n], answer)
                    continue
                if isinstance(answer, BaseException):
                    raise answer
                codes |= {r.group: r.error_code for r in DeleteGroupsRequest.answer(answer)}
            # A coordinator that moved did not delete: find it again and ask once more.
            moved = [g for g in at if codes.get(g, 0) in _MOVED]
            if not moved or time.monotonic() > deadline:
                break
            at = {g: await self.group_coordinator(g) for g in moved}
        results = []
        for g in groups:
            subject = f"Group '{g.group}'"
            if g.group in failed:
                err = failed[g.group]
                results.append(GroupDeletion(g.group, False, err.name, err.message))
            elif codes.get(g.group, 0):
                name = error_name(codes[g.group])
                text = sentence(name, g.group, subject=subject)
                results.append(GroupDeletion(g.group, False, name, text))
            else:
                results.append(GroupDeletion(g.group, True, None, f"{subject} deleted."))
        return results


def _as_listed(groups: Sequence[ListedGroupInfo]) -> dict[str, _Listed]:
    return {g.group: _Listed(g.group, g.state, g.coordinator, g.type) for g in groups}


def _committed(
    group: str, tp: tuple[str, int], offset: int, error_code: int, detail: str | None = None
) -> OffsetCommitResult:
    t, p = tp
    if not error_code:
        return OffsetCommitResult(group, t, p, offset, True, None, f"'{t}'-{p} set to {offset}.")
    name = error_name(error_code)
    text = sentence(name, t, detail, subject=f"Group '{group}'")
    return OffsetCommitResult(group, t, p, offset, False, name, text)


def _by_topic_text(offsets: Mapping[tuple[str, int], int]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for (t, p), o in sorted(offsets.items()):
        out.setdefault(t, {})[str(p)] = o
    return out


def _resolve(
    tp: tuple[str, int],
    offsets: Sequence[int],
    records: Sequence[tuple[int, int]],
    found: dict[tuple[str, int, int], RecordAt],
) -> list[int]:
    """Find each of `offsets` (sorted) among `records` (offset order): the first record at or
    after it, if the records reach that far. Returns the offsets left."""
    left = []
    for offset in offsets:
        at = bisect.bisect_left(records, (offset, -(2**63)))
        if at < len(records):
            found[(tp[0], tp[1], offset)] = RecordAt(*records[at])
        else:
            left.append(offset)
    return left


def _records_in(data: bytes | None) -> list[tuple[int, int]]:
    """(offset, timestamp) of every data record of the whole batches in `data` (control
    batches skipped; a truncated last batch, or a codec this Python lacks, ends the list)."""
    return [(r.offset, r.timestamp) for records in readable_batches(data) for r in records]
