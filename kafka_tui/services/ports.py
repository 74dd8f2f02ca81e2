"""The admin client as the screens and the use-cases they call see it.

`KafkaAdmin` satisfies `AdminPort` structurally; the TUI's screen tests replay recorded
cluster answers through another implementation (tests/tui/replay.py). The list is exactly
what the TUI and the services it calls use: a method added here must exist on KafkaAdmin.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from ..admin.model import (
    DEFAULT_TIMEOUT_MS,
    BrokerLoad,
    BrokerLogDirs,
    ClusterInfo,
    ConfigChange,
    ConnectionSettings,
    NewPartitions,
    TopicDescription,
    TopicResult,
    TopicSpec,
)

if TYPE_CHECKING:
    from ..admin.configs import ConfigWithDefault
    from ..admin.consumer_groups import GroupsOfTopics, OffsetDeletion
    from ..admin.elections import ElectionResult, ElectionType
    from ..admin.group_detail import GroupDetail
    from ..admin.group_work import GroupDeletion, ListedGroupInfo, OffsetCommitResult, RecordAt
    from ..admin.partition_moves import (
        MoveResult,
        OngoingReassignment,
        PartitionMove,
        ReplicationThrottle,
    )
    from ..admin.producers import ProducersOfTopics
    from ..admin.protocol_group_changes import ListedOffset
    from ..admin.sampling import TailSample


class AdminPort(Protocol):
    """Reads, then changes; every call may raise `AdminError`."""

    settings: ConnectionSettings
    cluster_id: str | None

    async def ensure_connected(self) -> None: ...

    async def close(self) -> None: ...

    # -- reads ---------------------------------------------------------------------------

    async def describe_cluster(self, *, quorum: bool = True) -> ClusterInfo: ...

    def known_brokers(self) -> list[int]: ...

    async def kafka_releases(self, brokers: Sequence[int]) -> dict[int, str]: ...

    async def log_dirs(self, brokers: Sequence[int]) -> dict[int, BrokerLogDirs]: ...

    async def cordons(self, brokers: Sequence[int]) -> dict[int, BrokerLogDirs]: ...

    async def list_topics(
        self, *, consistent_for: Sequence[str] | None = None
    ) -> list[TopicDescription]: ...

    async def describe_topics(
        self, names: Sequence[str] | None = None, *, configs: bool = True, elr: bool = False
    ) -> tuple[list[TopicDescription], list[TopicResult]]: ...

    async def topics_with_load(
        self, names: Sequence[str]
    ) -> tuple[list[TopicDescription], BrokerLoad]: ...

    async def topic_config_value(
        self, key: str, topics: Sequence[str]
    ) -> dict[str, str | None]: ...

    async def broker_configs(
        self, broker_id: int | None, keys: Sequence[str]
    ) -> dict[str, str | None]: ...

    async def topic_configs_with_defaults(
        self, names: Sequence[str]
    ) -> tuple[dict[str, dict[str, ConfigWithDefault]], list[TopicResult]]: ...

    async def wait_for_topic_configs(
        self, expected: Mapping[str, Mapping[str, str | None]], deadline: float
    ) -> set[str]: ...

    async def list_partition_reassignments(
        self, topics: Sequence[str] | None = None
    ) -> list[OngoingReassignment]: ...

    async def partition_sizes(
        self, topics: Sequence[str], brokers: Sequence[int]
    ) -> dict[tuple[str, int], int]: ...

    async def consumer_groups_of(self, topics: Sequence[str]) -> GroupsOfTopics: ...

    async def producers_of(self, topics: Sequence[str]) -> ProducersOfTopics: ...

    async def log_end_offsets(self, topics: Sequence[str]) -> dict[tuple[str, int], int]: ...

    async def all_groups(self) -> tuple[list[ListedGroupInfo], dict[str, str]]: ...

    async def group_coordinator(self, group: str) -> int: ...

    async def group_details(self, groups: Sequence[ListedGroupInfo]) -> dict[str, GroupDetail]: ...

    async def committed_offsets(
        self, groups: Sequence[ListedGroupInfo], unchecked: dict[str, str]
    ) -> tuple[dict[str, dict[tuple[str, int], int]], dict[str, dict[tuple[str, int], int]]]: ...

    async def list_offsets(
        self, partitions: Mapping[tuple[str, int], int]
    ) -> dict[tuple[str, int], ListedOffset]: ...

    async def records_at(
        self, positions: Mapping[tuple[str, int], Sequence[int]]
    ) -> dict[tuple[str, int, int], RecordAt]: ...

    async def sample_last_batches(
        self, topics: Sequence[str], *, timeout_s: float = 5.0
    ) -> dict[str, TailSample]: ...

    # -- changes -------------------------------------------------------------------------

    async def create_topics(
        self,
        specs: Sequence[TopicSpec],
        *,
        timeout_ms: int = DEFAULT_TIMEOUT_MS,
        validate_only: bool = False,
        topic_ids: bool = True,
        placed: bool = False,
    ) -> list[TopicResult]: ...

    async def create_partitions(
        self,
        requests: Sequence[NewPartitions],
        *,
        timeout_ms: int = DEFAULT_TIMEOUT_MS,
        validate_only: bool = False,
    ) -> list[TopicResult]: ...

    def expect_partitions(self, topic: str, total: int) -> None: ...

    async def alter_topic_configs(
        self, changes: dict[str, list[ConfigChange]], *, validate_only: bool = False
    ) -> list[TopicResult]: ...

    async def delete_topics(
        self,
        names: Sequence[str],
        *,
        timeout_ms: int = DEFAULT_TIMEOUT_MS,
        allow_internal: bool = False,
    ) -> list[TopicResult]: ...

    async def alter_partition_reassignments(
        self, moves: Sequence[PartitionMove], *, timeout_ms: int = DEFAULT_TIMEOUT_MS
    ) -> list[MoveResult]: ...

    async def wait_for_reassignments(
        self, partitions: Sequence[tuple[str, int]], deadline: float
    ) -> set[tuple[str, int]]: ...

    async def set_replication_throttle(self, throttle: ReplicationThrottle) -> None: ...

    async def commit_group_offsets(
        self, group: str, coordinator: int, offsets: Mapping[tuple[str, int], int]
    ) -> list[OffsetCommitResult]: ...

    async def alter_share_group_offsets(
        self, group: str, coordinator: int, offsets: Mapping[tuple[str, int], int]
    ) -> list[OffsetCommitResult]: ...

    async def delete_groups(self, groups: Sequence[ListedGroupInfo]) -> list[GroupDeletion]: ...

    async def delete_group_offsets(
        self, group: str, topics: Mapping[str, Sequence[int]]
    ) -> list[OffsetDeletion]: ...

    async def set_throttle_rate(self, brokers: Sequence[int], rate: int) -> None: ...

    async def clear_replication_throttle(
        self, brokers: Sequence[int], topics: Sequence[str]
    ) -> None: ...

    async def set_cordon(self, broker: int, value: str | None) -> None: ...

    async def elect_leaders(
        self,
        partitions: Sequence[tuple[str, int]],
        election: ElectionType | None = None,
        *,
        timeout_ms: int = DEFAULT_TIMEOUT_MS,
    ) -> list[ElectionResult]: ...
