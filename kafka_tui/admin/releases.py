"""Which Kafka release a broker runs, read from its own ApiVersions answer (as Kafka's
kafka-broker-api-versions.sh and kafka-ui show it): each release raised the highest version of
some requests, so the highest versions a broker speaks place it between two releases.

`MARKERS` holds, newest release first, requests whose highest version first appeared in that
release. They come from Kafka's message schemas (clients/src/main/resources/common/message/
*.json: release branches 2.2-3.9, the kafka-clients jars of 4.0.2-4.4.0; 2.1 from its Java
request classes) and were checked against real brokers' answers: 2.1.1, 2.2.2, 2.8.2, 3.3.2
and 3.9.2 in ZooKeeper mode, 3.3.2, 3.9.2 and 4.0.2-4.4.0 in KRaft mode, which answered exactly
what the schemas say (tests/data/api-versions.json, tests/unit/test_releases.py).

A marker the broker does not list at all tells nothing: KRaft brokers leave out the requests
only a ZooKeeper-mode controller sends (LeaderAndIsr, StopReplica, UpdateMetadata), the only
ones that changed from 3.3 to 3.4, so a KRaft broker of 3.3 or 3.4 reads "3.3+". Where a
release cannot be told from the next ones the answer is its lower bound with "+"; the newest
release known here reads "4.4+", as a newer one answers at least the same.
"""

from __future__ import annotations

from collections.abc import Mapping

# (release, ((API key, highest version first answered by that release), ...)), newest first.
MARKERS: tuple[tuple[str, tuple[tuple[int, int], ...]], ...] = (
    ("4.4", ((28, 6), (42, 3))),  # TxnOffsetCommit v6, DeleteGroups v3
    ("4.3", ((35, 5),)),  # DescribeLogDirs v5 (cordoned log dirs, KIP-1066)
    ("4.2", ((2, 11), (8, 10), (9, 10))),  # ListOffsets v11, OffsetCommit v10, OffsetFetch v10
    ("4.1", ((0, 13), (1, 18), (45, 1))),  # Produce v13, Fetch v18, AlterPartitionReassign. v1
    ("4.0", ((3, 13), (15, 6), (60, 2))),  # Metadata v13, DescribeGroups v6, DescribeCluster v2
    ("3.9", ((1, 17), (2, 9), (10, 6))),  # Fetch v17, ListOffsets v9, FindCoordinator v6
    ("3.8", ((0, 11), (10, 5), (16, 5))),  # Produce v11, FindCoordinator v5, ListGroups v5
    ("3.7", ((0, 10), (1, 16), (8, 9), (9, 9))),  # Produce v10, Fetch v16, OffsetCommit/Fetch v9
    ("3.6", ((24, 4),)),  # AddPartitionsToTxn v4
    ("3.5", ((1, 15), (2, 8))),  # Fetch v15, ListOffsets v8
    ("3.4", ((4, 7), (5, 4), (6, 8))),  # LeaderAndIsr v7, StopReplica v4, UpdateMetadata v8
    ("3.3", ((29, 3), (35, 4))),  # DescribeAcls v3, DescribeLogDirs v4
    ("3.2", ((11, 9), (13, 5), (35, 3))),  # JoinGroup v9, LeaveGroup v5, DescribeLogDirs v3
    ("3.1", ((1, 13), (3, 12))),  # Fetch v13, Metadata v12
    ("3.0", ((2, 7), (9, 8), (10, 4))),  # ListOffsets v7, OffsetFetch v8, FindCoordinator v4
    ("2.8", ((0, 9), (2, 6), (3, 11), (19, 7))),  # Produce v9, ListOffsets v6, Metadata v11, ..
    ("2.7", ((1, 12), (19, 6), (37, 3))),  # Fetch v12, CreateTopics v6, CreatePartitions v3
    ("2.6", ((16, 4), (32, 3), (35, 2))),  # ListGroups v4, DescribeConfigs v3, DescribeLogDirs v2
    ("2.5", ((9, 7), (11, 7), (14, 5))),  # OffsetFetch v7, JoinGroup v7, SyncGroup v5
    ("2.4", ((0, 8), (3, 9), (19, 5), (45, 0))),  # Produce v8, Metadata v9, CreateTopics v5, ..
    ("2.3", ((1, 11), (3, 8), (44, 0))),  # Fetch v11, Metadata v8, IncrementalAlterConfigs
    ("2.2", ((2, 5), (43, 0))),  # ListOffsets v5, ElectLeaders (ElectPreferredLeaders)
    ("2.1", ((1, 10), (2, 4))),  # Fetch v10, ListOffsets v4 (KIP-320)
)

OLDEST = MARKERS[-1][0]


def _verdict(
    versions: Mapping[int, tuple[int, int]], markers: tuple[tuple[int, int], ...]
) -> bool | None:
    """True: the broker has this release's versions; False: it lacks one; None: it lists
    none of the marker requests, so this release cannot be told."""
    listed = [(key, version) for key, version in markers if key in versions]
    if not listed:
        return None
    return all(versions[key][1] >= version for key, version in listed)


def kafka_release(versions: Mapping[int, tuple[int, int]]) -> str:
    """The Kafka release (major.minor) a broker whose ApiVersions answer is `versions` (API key
    -> (lowest, highest version)) runs: "3.9", "3.3+" (3.3 or a later release that answers
    the same), "<2.1" (older than any release in MARKERS)."""
    told = False  # whether the release just newer than this one was ruled out
    for release, markers in MARKERS:
        verdict = _verdict(versions, markers)
        if verdict:
            return release if told else f"{release}+"
        told = verdict is False
    return f"<{OLDEST}"
