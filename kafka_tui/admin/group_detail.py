"""A group's members and assignments, read from the describe answer of its kind.

- DescribeGroups (classic): each member's assignment is bytes in the embedded consumer protocol
  (ConsumerProtocolAssignment: int16 version, then the partitions) when the group's protocol
  type is "consumer"; other protocol types (Kafka Connect's "connect", ...) carry their own
  bytes, and their assignment is left empty. The protocol (assignor) is `protocol_data`.
- ConsumerGroupDescribe (KIP-848): assignment and target assignment per member, the member
  epoch, the group's assignor; partitions are named by topic name and id.
- ShareGroupDescribe (KIP-932): assignment per member (no target).
- StreamsGroupDescribe (KIP-1071): tasks (subtopology, partitions) instead of partitions; the
  topology names the source topics of each subtopology: a member's assignment is its active
  tasks' source topic partitions.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .protocol_groups import CLASSIC, CONSUMER, SHARE, STREAMS
from .wire import code, decode

_CONSUMER_PROTOCOL = "consumer"


@dataclass(frozen=True)
class GroupMember:
    member_id: str
    client_id: str
    host: str
    assignment: tuple[tuple[str, int], ...]  # (topic, partition), sorted
    # KIP-848 consumer and streams groups: where the assignor is taking the member
    target: tuple[tuple[str, int], ...] | None = None
    epoch: int | None = None  # the member epoch (KIP-848, share, streams groups)
    instance_id: str | None = None  # static membership (group.instance.id)
    subscribed: tuple[str, ...] = ()  # the topics it subscribes to, where the answer says


@dataclass(frozen=True)
class GroupDetail:
    group: str
    type: str
    state: str
    protocol: str  # the assignor ("range", "uniform", ...) or "" when none is named
    members: tuple[GroupMember, ...]
    error_code: int = 0
    error_message: str | None = None
    epoch: int | None = None  # the group epoch (KIP-848, share, streams groups)
    # streams groups: the topics each subtopology reads
    source_topics: tuple[str, ...] = field(default=())


def read_detail(kind: str, response: Any) -> list[GroupDetail]:
    """The describe answer of `kind`'s request, one detail per group asked about."""
    if kind == CLASSIC:
        return [_classic(g) for g in response.groups]
    if kind == STREAMS:
        return [_streams(g) for g in response.groups]
    return [_kip848(kind, g) for g in response.groups]


def _classic(g: Any) -> GroupDetail:
    consumer = g.protocol_type in ("", _CONSUMER_PROTOCOL)
    members = tuple(
        GroupMember(
            m.member_id,
            m.client_id,
            m.client_host,
            _assigned(m.member_assignment) if consumer else (),
            instance_id=m.group_instance_id,
        )
        for m in g.members
    )
    return GroupDetail(
        g.group_id, CLASSIC, g.group_state or "", g.protocol_data or "", members, code(g.error_code)
    )


def _assigned(data: bytes | None) -> tuple[tuple[str, int], ...]:
    """The partitions of a consumer-protocol assignment (ConsumerProtocolAssignment)."""
    if not data or len(data) < 2:
        return ()
    version = min(int.from_bytes(data[:2], "big", signed=True), 3)
    module = importlib.import_module(f"kio.schema.consumer_protocol_assignment.v{version}.data")
    try:
        assignment, _ = decode(module.ConsumerProtocolAssignment, data, 2)
    except ValueError:
        return ()
    return tuple(
        sorted((t.topic, int(p)) for t in assignment.assigned_partitions for p in t.partitions)
    )


def _kip848(kind: str, g: Any) -> GroupDetail:
    target = kind == CONSUMER
    members = tuple(
        GroupMember(
            m.member_id,
            m.client_id,
            m.client_host,
            _partitions(m.assignment.topic_partitions),
            _partitions(m.target_assignment.topic_partitions) if target else None,
            int(m.member_epoch),
            getattr(m, "instance_id", None),
            tuple(m.subscribed_topic_names or ()),
        )
        for m in g.members
    )
    return GroupDetail(
        g.group_id,
        kind,
        g.group_state or "",
        g.assignor_name or "",
        members,
        code(g.error_code),
        g.error_message,
        int(g.group_epoch),
    )


def _partitions(topics: Iterable[Any]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted((t.topic_name, int(p)) for t in topics for p in t.partitions))


def _streams(g: Any) -> GroupDetail:
    sources: dict[str, tuple[str, ...]] = {}
    if g.topology is not None:
        for s in g.topology.subtopologies:
            sources[s.subtopology_id] = tuple(s.source_topics)

    def tasks(assignment: Any) -> tuple[tuple[str, int], ...]:
        if assignment is None:
            return ()
        return tuple(
            sorted(
                {
                    (topic, int(p))
                    for task in assignment.active_tasks
                    for topic in sources.get(task.subtopology_id, ())
                    for p in task.partitions
                }
            )
        )

    members = tuple(
        GroupMember(
            m.member_id,
            m.client_id,
            m.client_host,
            tasks(m.assignment),
            tasks(m.target_assignment),
            int(m.member_epoch),
            m.instance_id,
        )
        for m in g.members
    )
    return GroupDetail(
        g.group_id,
        STREAMS,
        g.group_state or "",
        "",
        members,
        code(g.error_code),
        g.error_message,
        int(g.group_epoch),
        tuple(sorted({t for topics in sources.values() for t in topics})),
    )


# The describe request of each kind is protocol_groups.DESCRIBE's; SHARE is read as KIP-848's.
KINDS = (CLASSIC, CONSUMER, SHARE, STREAMS)
