"""Groups with offsets on topics: who reads a topic before it is deleted.

Each broker coordinates the groups whose `__consumer_offsets` partition it leads, and its
ListGroups answer lists exactly those, of every kind (classic, the new consumer protocol's,
share and streams groups; the kind from ListGroups v5, classic before): one ListGroups per
broker finds every group and its coordinator. Offsets then go to each coordinator with all
its groups at once: OffsetFetch for classic, consumer and streams groups (v8, Kafka 3.0+; an
older broker is asked one group per request, see `_ask`), DescribeShareGroupOffsets for share
groups, whose share-partition start offsets OffsetFetch does not know. Only the groups with
offsets on the topics are described (state, members), each kind with its own request:
DescribeGroups, ConsumerGroupDescribe, ShareGroupDescribe, StreamsGroupDescribe. A broker
without a kind's describe leaves that group's state as ListGroups gave it, members unknown. A
coordinator that moved meanwhile (NOT_COORDINATOR) is found again with FindCoordinator
(batched keys from v4, Kafka 3.0, one per request before) and asked once more.

ACLs: ListGroups never fails for lack of rights — it lists only the groups the principal may
describe (every group with DESCRIBE on the cluster); OffsetFetch and DescribeGroups answer
GROUP_AUTHORIZATION_FAILED per group. Such groups are counted as not checked, never raised.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .connection import AdminConnection
from .errors import AdminError, error_name
from .group_detail import GroupDetail, read_detail
from .protocol_groups import (
    CLASSIC,
    DESCRIBE,
    SHARE,
    DescribeGroupsRequest,
    DescribeShareGroupOffsetsRequest,
    FindCoordinatorRequest,
    GroupsRequest,
    KindDescribeRequest,
    ListGroupsRequest,
    OffsetFetchRequest,
)
from .wire import UnsupportedByBroker

Q = TypeVar("Q", bound=GroupsRequest)

GROUP_AUTHORIZATION_FAILED = "GROUP_AUTHORIZATION_FAILED"
CLUSTER_AUTHORIZATION_FAILED = "CLUSTER_AUTHORIZATION_FAILED"
TOPIC_AUTHORIZATION_FAILED = "TOPIC_AUTHORIZATION_FAILED"
# A group's coordinator moved or is still loading: find it again and ask once more.
_MOVED = frozenset({14, 15, 16})  # COORDINATOR_LOAD_IN_PROGRESS, _NOT_AVAILABLE, NOT_COORDINATOR
# An OffsetFetch names every partition of the topics for each of its groups: this many
# (group, partition) pairs per request keeps a request and its answer near 1 MB.
_PAIRS_PER_REQUEST = 50_000
_GROUPS_PER_DESCRIBE = 1_000
# A request about every topic of its groups: a group is counted as this many partitions.
_PARTITIONS_OF_ALL = 500
# A broker before Kafka 3.0 is asked about one group per request: this many at a time.
_SINGLES_IN_FLIGHT = 16

# -- the admin layer's language -------------------------------------------------------------


@dataclass(frozen=True)
class GroupOffsets:
    """A group with offsets on some of the topics asked about. `members`: None when the
    group could not be described (its state then comes from ListGroups). A share group's
    offsets are its share-partition start offsets."""

    group: str
    state: str
    members: int | None
    # topic -> partition -> committed offset (partitions without a commit left out)
    committed: Mapping[str, Mapping[int, int]]
    # "classic", "consumer" (KIP-848), "share" (KIP-932), "streams" (KIP-1071), or a newer
    # kind as ListGroups names it
    type: str = CLASSIC
    # topic -> partition -> lag, where the broker gives it (share groups: DescribeShareGroupOffsets
    # v1); the others' lag is the log end offset minus the committed offset
    lags: Mapping[str, Mapping[int, int]] = field(default_factory=dict)


@dataclass(frozen=True)
class GroupsOfTopics:
    """The groups that committed offsets on the topics, and what could not be checked:
    `unchecked` maps a group (or "broker N") to the Kafka error name that kept it from
    being checked (GROUP_AUTHORIZATION_FAILED, CONNECTION_FAILED, ...)."""

    groups: list[GroupOffsets]
    listed: int  # groups found by ListGroups, all brokers together
    unchecked: Mapping[str, str] = field(default_factory=dict)


@dataclass
class _Listed:
    group: str
    state: str
    coordinator: int
    type: str = CLASSIC


# group -> topic -> partition -> offset
_Offsets = dict[str, dict[str, dict[int, int]]]


def _chunks(items: Sequence[str], size: int) -> Iterator[Sequence[str]]:
    for start in range(0, len(items), max(size, 1)):
        yield items[start : start + max(size, 1)]


class AdminGroups(AdminConnection):
    async def consumer_groups_of(self, topics: Sequence[str]) -> GroupsOfTopics:
        """The groups with committed offsets on `topics` (those that do not exist have
        none): one ListGroups per broker; only when some group exists, the topics'
        partition counts from Metadata, then OffsetFetch and DescribeGroups batched per
        coordinator. Never raises for a group or a broker it cannot check: see
        `GroupsOfTopics.unchecked`."""
        unchecked: dict[str, str] = {}
        listed = await self._list_groups(unchecked)
        if not listed or not topics:
            # A cluster without groups (a deletion's usual case) costs no topic read.
            return GroupsOfTopics([], len(listed), unchecked)
        counted = await self._metadata(sorted(set(topics)), partitions=False)
        partitions: dict[str, Sequence[int]] = {
            t.name: range(t.partition_count) for t in counted.topics if t.error_code == 0
        }
        if not partitions:
            return GroupsOfTopics([], len(listed), unchecked)
        lags: _Offsets = {}
        offsets = await self._all_offsets(listed, partitions, unchecked, lags)
        reading = {g: listed[g] for g, committed in offsets.items() if committed}
        members = await self._describe_groups(reading)
        groups = [
            GroupOffsets(
                g,
                members[g][0] if g in members else reading[g].state,
                members[g][1] if g in members else None,
                offsets[g],
                reading[g].type,
                lags.get(g, {}),
            )
            for g in sorted(reading)
        ]
        return GroupsOfTopics(groups, len(listed), unchecked)

    async def _all_offsets(
        self,
        listed: Mapping[str, _Listed],
        topics: Mapping[str, Sequence[int]] | None,
        unchecked: dict[str, str],
        lags: _Offsets,
    ) -> _Offsets:
        """`_offsets`, and once more for the groups whose coordinator moved meanwhile (found
        again with FindCoordinator; `listed` is updated with the new coordinators)."""
        offsets = await self._offsets(listed, topics, unchecked, lags)
        moved = [g for g, code in unchecked.items() if code == "NOT_COORDINATOR"]
        if moved:
            for g in moved:
                del unchecked[g]
            found = await self._find_coordinators(moved, unchecked)
            again = {
                g: _Listed(g, listed[g].state, node, listed[g].type) for g, node in found.items()
            }
            offsets |= await self._offsets(again, topics, unchecked, lags)
            for g, node in found.items():
                listed[g].coordinator = node
        return offsets

    async def _offsets(
        self,
        listed: Mapping[str, _Listed],
        topics: Mapping[str, Sequence[int]] | None,
        unchecked: dict[str, str],
        lags: _Offsets,
    ) -> _Offsets:
        """Every group's offsets ({} for a group with none): a share group's from
        DescribeShareGroupOffsets (with the lags the broker gives, into `lags`), the others'
        from OffsetFetch."""
        shared = {g: found for g, found in listed.items() if found.type == SHARE}
        others = {g: found for g, found in listed.items() if found.type != SHARE}
        committed, started = await asyncio.gather(
            self._fetch_offsets(others, topics, unchecked),
            self._share_offsets(shared, topics, unchecked, lags),
        )
        return committed | started

    async def _list_groups(self, unchecked: dict[str, str]) -> dict[str, _Listed]:
        await self.ensure_connected()
        brokers = sorted(b.nodeId for b in self.client.cluster.brokers())
        answers = await asyncio.gather(
            *(self._send_to_itself(ListGroupsRequest(), b) for b in brokers),
            return_exceptions=True,
        )
        listed: dict[str, _Listed] = {}
        for broker, answer in zip(brokers, answers, strict=True):
            if isinstance(answer, AdminError):
                unchecked[f"broker {broker}"] = answer.name
                continue
            if isinstance(answer, BaseException):
                raise answer
            response = ListGroupsRequest.answer(answer)
            if response.error_code:
                unchecked[f"broker {broker}"] = error_name(response.error_code)
                continue
            for g in response.groups:
                listed[g.group_id] = _Listed(g.group_id, g.state, broker, g.type)
        return listed

    async def _fetch_offsets(
        self,
        listed: Mapping[str, _Listed],
        topics: Mapping[str, Sequence[int]] | None,
        unchecked: dict[str, str],
    ) -> _Offsets:
        """group -> topic -> partition -> committed offset ({} for a group with none)."""
        requests = _batches(listed, topics)
        asked = await asyncio.gather(
            *(
                self._ask(OffsetFetchRequest(chunk, topics), self._to(node))
                for node, chunk in requests
            ),
            return_exceptions=True,
        )
        sent: list[tuple[OffsetFetchRequest, Any]] = []
        for pairs in asked:
            if isinstance(pairs, BaseException):  # never an AdminError: _ask keeps those
                raise pairs
            sent += pairs
        offsets: _Offsets = {}
        for request, answer in sent:
            if isinstance(answer, AdminError):
                unchecked.update(dict.fromkeys(request.groups, answer.name))
                continue
            for g in request.answer(answer):
                if g.error_code:
                    unchecked[g.group_id] = _why_unchecked(g.error_code)
                    continue
                committed: dict[str, dict[int, int]] = {}
                for p in g.offsets:
                    if p.error_code:
                        unchecked[g.group_id] = error_name(p.error_code)
                    elif p.offset >= 0:
                        committed.setdefault(p.topic, {})[p.partition] = p.offset
                offsets[g.group_id] = committed
        return offsets

    async def _share_offsets(
        self,
        listed: Mapping[str, _Listed],
        topics: Mapping[str, Sequence[int]] | None,
        unchecked: dict[str, str],
        lags: _Offsets,
    ) -> _Offsets:
        """share group -> topic -> partition -> share-partition start offset ({} for a group
        with none); the lags the broker gives (DescribeShareGroupOffsets v1) into `lags`."""
        requests = _batches(listed, topics)
        answers = await asyncio.gather(
            *(
                self._send_to_itself(DescribeShareGroupOffsetsRequest(chunk, topics), node)
                for node, chunk in requests
            ),
            return_exceptions=True,
        )
        offsets: _Offsets = {}
        for (_, chunk), answer in zip(requests, answers, strict=True):
            if isinstance(answer, AdminError):  # UNSUPPORTED_VERSION too: offsets unknown
                unchecked.update(dict.fromkeys(chunk, answer.name))
                continue
            if isinstance(answer, BaseException):
                raise answer
            for g in DescribeShareGroupOffsetsRequest.answer(answer):
                if g.error_code:
                    unchecked[g.group_id] = _why_unchecked(g.error_code)
                    continue
                started: dict[str, dict[int, int]] = {}
                for p in g.offsets:
                    if p.error_code:
                        unchecked[g.group_id] = error_name(p.error_code)
                    elif p.start_offset >= 0:
                        started.setdefault(p.topic, {})[p.partition] = p.start_offset
                        if p.lag >= 0:
                            known = lags.setdefault(g.group_id, {}).setdefault(p.topic, {})
                            known[p.partition] = p.lag
                offsets[g.group_id] = started
        return offsets

    async def _find_coordinators(
        self, groups: Sequence[str], unchecked: dict[str, str]
    ) -> dict[str, int]:
        found = {}
        for request, answer in await self._ask(FindCoordinatorRequest(groups), self._send):
            if isinstance(answer, AdminError):
                unchecked.update(dict.fromkeys(request.groups, answer.name))
                continue
            for c in request.answer(answer):
                if c.error_code:
                    unchecked[c.key] = error_name(c.error_code)
                else:
                    found[c.key] = c.node_id
        return found

    def _to(self, node: int) -> Callable[[Any], Awaitable[Any]]:
        async def send(request: Any) -> Any:
            return await self._send_to_itself(request, node)

        return send

    async def _ask(self, request: Q, send: Callable[[Any], Awaitable[Any]]) -> list[tuple[Q, Any]]:
        """The requests sent about `request`'s groups, each with its answer (read it with the
        request's own `answer`) or the AdminError that kept it from being answered.

        One request about them all where the broker takes many groups in one (OffsetFetch v8,
        FindCoordinator v4: Kafka 3.0+), else one request per group: an older broker's
        ApiVersions refuses the request about many before anything is sent."""
        try:
            return [(request, await send(request))]
        except UnsupportedByBroker as exc:
            if len(request.groups) < 2:
                return [(request, exc)]
        except AdminError as exc:
            return [(request, exc)]
        singles = [request.for_group(g) for g in request.groups]
        asked: list[tuple[Q, Any]] = []
        for start in range(0, len(singles), _SINGLES_IN_FLIGHT):
            wave = singles[start : start + _SINGLES_IN_FLIGHT]
            answers = await asyncio.gather(*(send(r) for r in wave), return_exceptions=True)
            for single, answer in zip(wave, answers, strict=True):
                if isinstance(answer, BaseException) and not isinstance(answer, AdminError):
                    raise answer
                asked.append((single, answer))
        return asked

    async def _describe_groups(self, groups: Mapping[str, _Listed]) -> dict[str, tuple[str, int]]:
        """group -> (state, members), for the groups that could be described."""
        return {g: (d.state, len(d.members)) for g, d in (await self._details(groups)).items()}

    async def _details(self, groups: Mapping[str, _Listed]) -> dict[str, GroupDetail]:
        """Members and assignments of the groups that could be described: each kind with its
        own request, at its coordinator (a kind kafka-tui does not know is not described). A
        broker without a kind's describe (UNSUPPORTED_VERSION), or a failed request, leaves
        its groups out: their state from ListGroups stands, members unknown."""
        requests: list[tuple[str, int, DescribeGroupsRequest | KindDescribeRequest]] = []
        for kind, describe in DESCRIBE.items():
            of_kind = {g: found for g, found in groups.items() if found.type == kind}
            for node, names in _by_coordinator(of_kind).items():
                requests += [
                    (kind, node, describe(chunk)) for chunk in _chunks(names, _GROUPS_PER_DESCRIBE)
                ]
        answers = await asyncio.gather(
            *(self._send_to_itself(request, node) for _, node, request in requests),
            return_exceptions=True,
        )
        described: dict[str, GroupDetail] = {}
        for (kind, _, _), answer in zip(requests, answers, strict=True):
            if isinstance(answer, AdminError):
                continue
            if isinstance(answer, BaseException):
                raise answer
            for detail in read_detail(kind, answer):
                if not detail.error_code:
                    described[detail.group] = detail
        return described


def _batches(
    listed: Mapping[str, _Listed], topics: Mapping[str, Sequence[int]] | None
) -> list[tuple[int, Sequence[str]]]:
    """(coordinator, its groups) for requests that name every partition of `topics` for each
    group (None: every topic, counted as _PARTITIONS_OF_ALL): at most _PAIRS_PER_REQUEST
    (group, partition) pairs each."""
    if topics is None:
        partitions = _PARTITIONS_OF_ALL
    else:
        partitions = max(sum(len(p) for p in topics.values()), 1)
    requests: list[tuple[int, Sequence[str]]] = []
    for node, groups in _by_coordinator(listed).items():
        requests += [(node, chunk) for chunk in _chunks(groups, _PAIRS_PER_REQUEST // partitions)]
    return requests


def _by_coordinator(listed: Mapping[str, _Listed]) -> dict[int, list[str]]:
    nodes: dict[int, list[str]] = {}
    for g in sorted(listed):
        nodes.setdefault(listed[g].coordinator, []).append(g)
    return nodes


def _why_unchecked(code: int) -> str:
    """The error a group's offsets went unread for; a coordinator that moved (or is loading)
    reads as NOT_COORDINATOR."""
    return "NOT_COORDINATOR" if code in _MOVED else error_name(code)


# -- deleting a group's offsets (OffsetDelete) ----------------------------------------------


@dataclass(frozen=True)
class OffsetDeletion:
    """One partition's outcome of `delete_group_offsets` (the shape the audit log reads)."""

    group: str
    topic: str
    partition: int
    ok: bool
    error: str | None = None
    message: str = ""


class AdminGroupOffsets(AdminGroups):
    async def delete_group_offsets(
        self, group: str, topics: Mapping[str, Sequence[int]]
    ) -> list[OffsetDeletion]:
        """Delete `group`'s committed offsets on `topics` (name -> partitions) with
        OffsetDelete at its coordinator: one result per partition. A group-wide refusal
        (NON_EMPTY_GROUP, GROUP_ID_NOT_FOUND, ...) is every partition's result."""
        from . import audit_log as audit

        return await audit.audited(
            self,
            "group offsets delete",
            sorted(topics),
            {"group": group, "partitions": {t: sorted(p) for t, p in topics.items()}},
            self._delete_offsets(group, topics),
        )

    async def _delete_offsets(
        self, group: str, topics: Mapping[str, Sequence[int]]
    ) -> list[OffsetDeletion]:
        from .errors import sentence
        from .protocol_groups import OffsetDeleteRequest

        subject = f"Group '{group}'"
        answer = None
        for _ in range(2):  # the coordinator may move between the lookup and the request
            unchecked: dict[str, str] = {}
            found = await self._find_coordinators([group], unchecked)
            if group not in found:
                name = unchecked.get(group, "COORDINATOR_NOT_AVAILABLE")
                raise AdminError(name, sentence(name, group, subject=subject))
            request = OffsetDeleteRequest(group, topics)
            answer = request.answer(await self._send_to_itself(request, found[group]))
            if answer.error_code not in _MOVED:
                break
        assert answer is not None
        pairs = [(t, p) for t, parts in topics.items() for p in parts]
        if answer.error_code:
            name = error_name(answer.error_code)
            text = sentence(name, group, subject=subject)
            return [OffsetDeletion(group, t, p, False, name, text) for t, p in pairs]
        by_partition = {(d.topic, d.partition): d.error_code for d in answer.partitions}
        results = []
        for t, p in pairs:
            err = by_partition.get((t, p), 0)
            if err:
                name = error_name(err)
                about = subject if name == "GROUP_SUBSCRIBED_TO_TOPIC" else None
                text = sentence(name, t, subject=about)
                results.append(OffsetDeletion(group, t, p, False, name, text))
            else:
                results.append(
                    OffsetDeletion(
                        group, t, p, True, None, f"{subject}: offset of '{t}'-{p} deleted."
                    )
                )
        return results
