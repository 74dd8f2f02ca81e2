"""The requests behind `groups describe`, `groups reset-offsets` and `groups delete`, on Kafka's
generated wire (wire.py, kio), each at the highest version both sides know:

- ListOffsets (2) v1-10: a partition's log start (-2), log end (-1) or the first offset at or
  after a timestamp (-1 offset back: no record that new), to its leader.
- OffsetCommit (8) v2-9 as an admin: generation -1 and no member. The coordinator takes it only
  while the group has no member (classic: UNKNOWN_MEMBER_ID otherwise; KIP-848 and streams
  groups: the same answer, see tests/integration/test_groups.py).
- AlterShareGroupOffsets (91) v0: a share group's share-partition start offsets (KIP-932, Kafka
  4.1+); refused while the group has members (NON_EMPTY_GROUP).
- DeleteGroups (42) v0-2: every kind of group (the coordinator deletes classic, consumer, share
  and streams groups alike); NON_EMPTY_GROUP while it has members.

The describe answers of each kind of group are read into members and assignments by
group_detail.py; their requests are protocol_groups.py's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from .wire import Api, WireRequest, code, millis, nested, shape

EARLIEST = -2  # ListOffsets' timestamp for the log start offset
LATEST = -1  # ... for the log end offset (the high watermark under read_uncommitted)
READ_UNCOMMITTED = 0


def _by_topic(values: Mapping[tuple[str, int], int]) -> dict[str, list[tuple[int, int]]]:
    """(topic, partition) -> value, as the requests nest it: topic -> [(partition, value)]."""
    by_topic: dict[str, list[tuple[int, int]]] = {}
    for (t, p), value in sorted(values.items()):
        by_topic.setdefault(t, []).append((p, value))
    return by_topic


class ListedOffset(NamedTuple):
    topic: str
    partition: int
    offset: int  # -1: no record at or after the timestamp
    timestamp: int  # the record's timestamp for a timestamp query, else -1
    error_code: int


class ListOffsetsRequest(WireRequest):
    """`partitions` ((topic, partition) -> timestamp: EARLIEST, LATEST or ms since the epoch),
    sent to their leader."""

    API = Api(2, "ListOffsets", 1, 10)
    API_KEY = 2

    def __init__(
        self,
        partitions: Mapping[tuple[str, int], int],
        timeout_ms: int,
        isolation: int = READ_UNCOMMITTED,
    ) -> None:
        self.partitions = partitions
        self.timeout_ms = timeout_ms  # v10+: how long the leader may wait (tiered storage)
        self.isolation = isolation  # READ_COMMITTED (1): LATEST is the last stable offset

    def message(self, version: int) -> Any:
        request = self.API.request_type(version)
        topic = nested(request, "ListOffsetsTopic")
        partition = nested(request, "ListOffsetsPartition")
        by_topic = _by_topic(self.partitions)
        return shape(
            request,
            replica_id=-1,
            isolation_level=self.isolation,
            timeout=millis(self.timeout_ms),
            topics=tuple(
                shape(
                    topic,
                    name=t,
                    partitions=tuple(
                        shape(partition, partition_index=p, current_leader_epoch=-1, timestamp=ts)
                        for p, ts in parts
                    ),
                )
                for t, parts in by_topic.items()
            ),
        )

    @staticmethod
    def answer(response: Any) -> list[ListedOffset]:
        return [
            ListedOffset(t.name, p.partition_index, p.offset, p.timestamp, code(p.error_code))
            for t in response.topics
            for p in t.partitions
        ]


class PartitionAnswer(NamedTuple):
    topic: str
    partition: int
    error_code: int
    message: str | None = None


class OffsetCommitRequest(WireRequest):
    """Commit `offsets` ((topic, partition) -> offset) for `group` as an admin: no member,
    generation -1; accepted only while the group has no member."""

    API = Api(8, "OffsetCommit", 2, 9)
    API_KEY = 8

    def __init__(self, group: str, offsets: Mapping[tuple[str, int], int]) -> None:
        self.group = group
        self.offsets = offsets

    def message(self, version: int) -> Any:
        request = self.API.request_type(version)
        topic = nested(request, "OffsetCommitRequestTopic")
        partition = nested(request, "OffsetCommitRequestPartition")
        by_topic = _by_topic(self.offsets)
        return shape(
            request,
            group_id=self.group,
            generation_id_or_member_epoch=-1,
            member_id="",
            group_instance_id=None,
            topics=tuple(
                shape(
                    topic,
                    name=t,
                    partitions=tuple(
                        shape(
                            partition,
                            partition_index=p,
                            committed_offset=offset,
                            committed_leader_epoch=-1,
                            committed_metadata="",
                        )
                        for p, offset in parts
                    ),
                )
                for t, parts in by_topic.items()
            ),
        )

    @staticmethod
    def answer(response: Any) -> list[PartitionAnswer]:
        return [
            PartitionAnswer(t.name, p.partition_index, code(p.error_code))
            for t in response.topics
            for p in t.partitions
        ]


class ShareOffsetsAnswer(NamedTuple):
    error_code: int
    message: str | None
    partitions: list[PartitionAnswer]


class AlterShareGroupOffsetsRequest(WireRequest):
    """Set share `group`'s start offsets ((topic, partition) -> offset), at its coordinator."""

    API = Api(91, "AlterShareGroupOffsets", 0, 0)
    API_KEY = 91

    def __init__(self, group: str, offsets: Mapping[tuple[str, int], int]) -> None:
        self.group = group
        self.offsets = offsets

    def message(self, version: int) -> Any:
        request = self.API.request_type(version)
        topic = nested(request, "AlterShareGroupOffsetsRequestTopic")
        partition = nested(request, "AlterShareGroupOffsetsRequestPartition")
        by_topic = _by_topic(self.offsets)
        return shape(
            request,
            group_id=self.group,
            topics=tuple(
                shape(
                    topic,
                    topic_name=t,
                    partitions=tuple(
                        shape(partition, partition_index=p, start_offset=offset)
                        for p, offset in parts
                    ),
                )
                for t, parts in by_topic.items()
            ),
        )

    @staticmethod
    def answer(response: Any) -> ShareOffsetsAnswer:
        return ShareOffsetsAnswer(
            code(response.error_code),
            response.error_message,
            [
                PartitionAnswer(
                    t.topic_name, p.partition_index, code(p.error_code), p.error_message
                )
                for t in response.responses
                for p in t.partitions
            ],
        )


class GroupAnswer(NamedTuple):
    group: str
    error_code: int


class DeleteGroupsRequest(WireRequest):
    """Delete `groups` (all coordinated by the broker it is sent to)."""

    API = Api(42, "DeleteGroups", 0, 2)
    API_KEY = 42

    def __init__(self, groups: Sequence[str]) -> None:
        self.groups = list(groups)

    def message(self, version: int) -> Any:
        return shape(self.API.request_type(version), groups_names=tuple(self.groups))

    @staticmethod
    def answer(response: Any) -> list[GroupAnswer]:
        return [GroupAnswer(r.group_id, code(r.error_code)) for r in response.results]
