"""A recorded-data admin: the screens' `AdminPort` answered from a recording of a real
dev cluster (tests/data/*.json[.gz], written by tests/data/record.py).

Reads answer what the cluster answered when it was recorded, filtered to what is asked.
Nothing is made up: a read the recording cannot answer (a topic or config it does not
hold) raises `ReplayGap`, and every change raises `ReplayChangeRefused` — a test that
changes the cluster belongs in tests/integration, against a real one.
"""

from __future__ import annotations

import asyncio
import gzip
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from kafka_tui.admin import (
    AdminError,
    BrokerInfo,
    ClusterInfo,
    ConfigEntry,
    ConfigSource,
    ConnectionSettings,
    NewPartitions,
    PartitionInfo,
    TopicDescription,
    TopicResult,
    TopicSpec,
)
from kafka_tui.admin.configs import ConfigWithDefault
from kafka_tui.admin.consumer_groups import GroupsOfTopics
from kafka_tui.admin.elections import ElectionResult, ElectionType
from kafka_tui.admin.model import DEFAULT_TIMEOUT_MS, BrokerLoad, BrokerLogDirs
from kafka_tui.admin.partition_moves import (
    MoveResult,
    OngoingReassignment,
    PartitionMove,
    ReplicationThrottle,
)
from kafka_tui.admin.placeholders import PlaceholderEntry, PlaceholderStore
from kafka_tui.admin.producers import ProducersOfTopics
from kafka_tui.admin.sampling import TailSample
from kafka_tui.config import Profile, Settings
from kafka_tui.planning.placement import Load
from kafka_tui.tui.app import KafkaTuiApp, make_app

DATA = Path(__file__).resolve().parent.parent / "data"
FORMAT = 1


class ReplayGap(LookupError):
    """The recording does not hold the answer to a read."""


class ReplayChangeRefused(RuntimeError):
    """A change was attempted against recorded data."""


def _refuse(what: str) -> NoReturn:
    raise ReplayChangeRefused(
        f"{what}: a recorded cluster answers reads only; a test that changes the cluster "
        "belongs in tests/integration, against a real one."
    )


# -- the file format: encode (the recorder) and decode (the replay) -------------------------


def encode_cluster(info: ClusterInfo) -> dict[str, Any]:
    return {
        "cluster_id": info.cluster_id,
        "controller_id": info.controller_id,
        "lists_fenced_brokers": info.lists_fenced_brokers,
        "brokers": [[b.id, b.host, b.port, b.rack, b.fenced] for b in info.brokers],
    }


def decode_cluster(data: Mapping[str, Any]) -> ClusterInfo:
    return ClusterInfo(
        cluster_id=data["cluster_id"],
        controller_id=data["controller_id"],
        brokers=[BrokerInfo(i, h, p, r, f) for i, h, p, r, f in data["brokers"]],
        lists_fenced_brokers=data["lists_fenced_brokers"],
    )


def encode_topic(t: TopicDescription) -> list[Any]:
    """[name, topic id, internal, [[partition, leader, replicas, isr, offline], ...]]:
    compact, as a 10,000-topic recording repeats it 10,000 times."""
    parts = [[p.partition, p.leader, p.replicas, p.isr, p.offline_replicas] for p in t.partitions]
    return [t.name, t.topic_id, t.internal, parts]


def decode_topic(
    data: Sequence[Any], shared: dict[tuple[int, ...], tuple[int, ...]] | None = None
) -> TopicDescription:
    """`shared`: equal replica lists as one tuple across the topics decoded with it, as the
    admin's own decoder shares them within one read (metadata_v12's `intern`)."""
    name, topic_id, internal, parts = data
    seen = shared if shared is not None else {}

    def one(ids: list[int]) -> tuple[int, ...]:
        as_tuple = tuple(ids)
        return seen.setdefault(as_tuple, as_tuple)

    partitions = [PartitionInfo(p, ld, one(r), one(i), tuple(o)) for p, ld, r, i, o in parts]
    return TopicDescription(name, topic_id, internal, partitions)


def encode_configs(configs: Mapping[str, ConfigEntry]) -> list[list[Any]]:
    return [
        [c.name, c.value, c.source.name, c.read_only, c.sensitive]
        for c in sorted(configs.values(), key=lambda c: c.name)
    ]


def decode_configs(data: Sequence[Sequence[Any]]) -> dict[str, ConfigEntry]:
    return {n: ConfigEntry(n, v, ConfigSource[s], ro, se) for n, v, s, ro, se in data}


def encode_elr(topics: Sequence[TopicDescription]) -> dict[str, list[list[Any]]]:
    """Each partition's eligible leader replicas and last known ones, where the broker said
    (DescribeTopicPartitions, KIP-966): {topic: [[partition, elr, last known elr], ...]}.
    Apart from the topics: Metadata (list_topics) carries none, as on a real cluster."""
    known = {
        t.name: [
            [p.partition, list(p.elr), list(p.last_known_elr or ())]
            for p in t.partitions
            if p.elr is not None
        ]
        for t in topics
    }
    return {name: parts for name, parts in known.items() if parts}


def encode_reassignment(r: OngoingReassignment) -> list[Any]:
    return [r.topic, r.partition, r.replicas, r.adding, r.removing]


def load_recording(name: str) -> dict[str, Any]:
    """tests/data/<name>.json, or .json.gz."""
    for path in (DATA / f"{name}.json", DATA / f"{name}.json.gz"):
        if path.exists():
            opener = gzip.open if path.suffix == ".gz" else open
            with opener(path, "rt", encoding="utf-8") as f:
                data: dict[str, Any] = json.load(f)
            if data.get("format") != FORMAT:
                raise ValueError(f"{path}: format {data.get('format')}, expected {FORMAT}")
            return data
    raise FileNotFoundError(f"no recording {name!r} in {DATA}; run tests/data/record.py")


# -- the replay -----------------------------------------------------------------------------


@dataclass
class Recording:
    """One recorded cluster, decoded."""

    name: str
    settings: ConnectionSettings
    cluster: ClusterInfo
    topics: dict[str, TopicDescription]
    topic_configs: dict[str, dict[str, ConfigEntry]]
    config_values: dict[str, dict[str, str | None]]
    broker_defaults: dict[str, str | None]
    reassignments: list[OngoingReassignment]
    sizes: dict[tuple[str, int], int]
    placeholders_topic: str
    placeholders: dict[str, PlaceholderEntry]
    # Each live broker's release and log directories; a recording made before they were
    # recorded holds none (the screens then show them as unknown).
    releases: dict[int, str]
    log_dirs: dict[int, BrokerLogDirs]
    # (topic, partition) -> (eligible leader replicas, last known ones), where recorded
    # (KRaft 3.8+; none in ZooKeeper mode or in a recording made before they were recorded).
    elr: dict[tuple[str, int], tuple[tuple[int, ...], tuple[int, ...]]]

    @classmethod
    def load(cls, name: str) -> Recording:
        return cls.of(name, load_recording(name))

    @classmethod
    def of(cls, name: str, data: Mapping[str, Any]) -> Recording:
        """From a recording's data (e.g. tests/data/record.py's expansion of one)."""
        shared: dict[tuple[int, ...], tuple[int, ...]] = {}
        topics = (decode_topic(t, shared) for t in data["topics"])
        return cls(
            name=name,
            settings=ConnectionSettings(data["bootstrap_servers"]),
            cluster=decode_cluster(data["cluster"]),
            topics={t.name: t for t in topics},
            topic_configs={t: decode_configs(c) for t, c in data["topic_configs"].items()},
            config_values=data["topic_config_values"],
            broker_defaults=data["broker_defaults"],
            reassignments=[OngoingReassignment(*r) for r in data["reassignments"]],
            sizes={(t, p): s for t, p, s in data["partition_sizes"]},
            placeholders_topic=data["placeholders"]["topic"],
            placeholders={
                k: PlaceholderEntry.from_json(v) for k, v in data["placeholders"]["entries"].items()
            },
            releases={int(b): r for b, r in data.get("kafka_releases", {}).items()},
            log_dirs={
                int(b): BrokerLogDirs(tuple(dirs), tuple(cordoned))
                for b, (dirs, cordoned) in data.get("log_dirs", {}).items()
            },
            elr={
                (t, p): (tuple(elr), tuple(last))
                for t, parts in data.get("eligible_leader_replicas", {}).items()
                for p, elr, last in parts
            },
        )

    def profile(self, name: str = "recorded", **options: Any) -> Profile:
        return Profile(name, self.settings, placeholders_topic=self.placeholders_topic, **options)


class ReplayAdmin:
    """`AdminPort` over a `Recording`."""

    def __init__(self, recording: Recording) -> None:
        self.recording = recording
        self.settings = recording.settings
        self.cluster_id: str | None = recording.cluster.cluster_id
        # The topic reads asked for, by method: what a screen reads, and how often.
        self.reads: Counter[str] = Counter()

    async def ensure_connected(self) -> None:
        return None

    async def close(self) -> None:
        return None

    # -- reads -------------------------------------------------------------------------

    async def describe_cluster(self, *, quorum: bool = True) -> ClusterInfo:
        return self.recording.cluster

    def known_brokers(self) -> list[int]:
        return []

    async def kafka_releases(self, brokers: Sequence[int]) -> dict[int, str]:
        return {b: r for b, r in self.recording.releases.items() if b in brokers}

    async def log_dirs(self, brokers: Sequence[int]) -> dict[int, BrokerLogDirs]:
        return {b: d for b, d in self.recording.log_dirs.items() if b in brokers}

    async def cordons(self, brokers: Sequence[int]) -> dict[int, BrokerLogDirs]:
        """The recorded directories of the brokers that cordon any: what a broker's
        `cordoned.log.dirs` says (tests/integration/test_cordon.py pins that they agree)."""
        return {b: d for b, d in (await self.log_dirs(brokers)).items() if d.cordoned}

    async def list_topics(
        self, *, consistent_for: Sequence[str] | None = None
    ) -> list[TopicDescription]:
        self.reads["list_topics"] += 1
        # Put in order off the event loop, as KafkaAdmin's read does (reading._descriptions).
        from kafka_tui.admin.reading import in_name_order

        topics = self.recording.topics.values()
        return await asyncio.to_thread(lambda: in_name_order(list(topics)))

    def _topic(self, name: str) -> TopicDescription:
        try:
            return self.recording.topics[name]
        except KeyError:
            raise ReplayGap(f"{self.recording.name}: topic {name!r} was not recorded") from None

    async def describe_topics(
        self, names: Sequence[str] | None = None, *, configs: bool = True, elr: bool = False
    ) -> tuple[list[TopicDescription], list[TopicResult]]:
        # `elr`: the recorded eligible leader replicas added, as KafkaAdmin adds them to the
        # Metadata answer (a partition without them stays unknown).
        self.reads["describe_topics"] += 1
        wanted = sorted(self.recording.topics) if names is None else list(dict.fromkeys(names))
        found = [self._topic(n) for n in wanted]
        if elr:
            found = [self._with_elr(t) for t in found]
        if configs:
            found = [
                TopicDescription(
                    t.name, t.topic_id, t.internal, t.partitions, self._configs(t.name)
                )
                for t in found
            ]
        return found, []

    def _with_elr(self, topic: TopicDescription) -> TopicDescription:
        known = self.recording.elr
        parts = [
            p._replace(elr=e[0], last_known_elr=e[1])
            if (e := known.get((topic.name, p.partition))) is not None
            else p
            for p in topic.partitions
        ]
        return TopicDescription(topic.name, topic.topic_id, topic.internal, parts, topic.configs)

    async def topics_with_load(
        self, names: Sequence[str]
    ) -> tuple[list[TopicDescription], BrokerLoad]:
        """The recorded topics named (those not recorded do not exist), and every recorded
        topic's load, counted as KafkaAdmin counts it."""
        self.reads["topics_with_load"] += 1
        topics = self.recording.topics
        load = Load.from_assignments(p.replicas for t in topics.values() for p in t.partitions)
        found = sorted(
            (topics[n] for n in dict.fromkeys(names) if n in topics), key=lambda t: t.name
        )
        count = sum(len(t.partitions) for t in topics.values())
        return found, BrokerLoad(load.replicas, load.leaders, len(topics), count)

    def _configs(self, topic: str) -> dict[str, ConfigEntry]:
        try:
            return self.recording.topic_configs[topic]
        except KeyError:
            raise ReplayGap(f"{self.recording.name}: configs of {topic!r} not recorded") from None

    async def topic_configs_with_defaults(
        self, names: Sequence[str]
    ) -> tuple[dict[str, dict[str, ConfigWithDefault]], list[TopicResult]]:
        # A recording holds no synonyms: the value underneath an override is unknown (None).
        found = {
            n: {k: ConfigWithDefault(c, None) for k, c in self._configs(n).items()} for n in names
        }
        return found, []

    async def topic_config_value(self, key: str, topics: Sequence[str]) -> dict[str, str | None]:
        values = self.recording.config_values.get(key)
        answer: dict[str, str | None] = {}
        for topic in topics:
            self._topic(topic)
            if values is not None and topic in values:
                answer[topic] = values[topic]
            elif key in self._configs(topic):
                answer[topic] = self._configs(topic)[key].value
        return answer

    async def broker_configs(
        self, broker_id: int | None, keys: Sequence[str]
    ) -> dict[str, str | None]:
        if broker_id is not None or not set(keys) <= set(self.recording.broker_defaults):
            raise ReplayGap(f"{self.recording.name}: broker {broker_id} configs {list(keys)}")
        return {k: self.recording.broker_defaults[k] for k in keys}

    async def list_partition_reassignments(
        self, topics: Sequence[str] | None = None
    ) -> list[OngoingReassignment]:
        return [r for r in self.recording.reassignments if topics is None or r.topic in set(topics)]

    async def partition_sizes(
        self, topics: Sequence[str], brokers: Sequence[int]
    ) -> dict[tuple[str, int], int]:
        """Recorded from every live broker: asked for fewer brokers, the answer would have
        to be made up."""
        live = set(self.recording.cluster.live_broker_ids)
        if not set(brokers) >= live:
            raise ReplayGap(f"{self.recording.name}: sizes on brokers {list(brokers)} only")
        named = set(topics)
        return {k: v for k, v in self.recording.sizes.items() if k[0] in named}

    # Consumer groups and the records' tail are not recorded: answered as a cluster that
    # cannot tell (an AdminError), which the screens show as a note, not as a failure.

    async def consumer_groups_of(self, topics: Sequence[str]) -> GroupsOfTopics:
        raise AdminError("NOT_RECORDED", f"{self.recording.name}: consumer groups not recorded")

    async def log_end_offsets(self, topics: Sequence[str]) -> dict[tuple[str, int], int]:
        raise AdminError("NOT_RECORDED", f"{self.recording.name}: log end offsets not recorded")

    async def producers_of(self, topics: Sequence[str]) -> ProducersOfTopics:
        raise AdminError("NOT_RECORDED", f"{self.recording.name}: producers not recorded")

    async def sample_last_batches(
        self, topics: Sequence[str], *, timeout_s: float = 5.0
    ) -> dict[str, TailSample]:
        raise AdminError("NOT_RECORDED", f"{self.recording.name}: records not recorded")

    # -- changes: refused --------------------------------------------------------------

    async def create_topics(
        self,
        specs: Sequence[TopicSpec],
        *,
        timeout_ms: int = DEFAULT_TIMEOUT_MS,
        validate_only: bool = False,
        topic_ids: bool = True,
        placed: bool = False,
    ) -> list[TopicResult]:
        _refuse("create_topics" + (" (validate only)" if validate_only else ""))

    async def create_partitions(
        self,
        requests: Sequence[NewPartitions],
        *,
        timeout_ms: int = DEFAULT_TIMEOUT_MS,
        validate_only: bool = False,
    ) -> list[TopicResult]:
        _refuse("create_partitions")

    def expect_partitions(self, topic: str, total: int) -> None:
        _refuse("expect_partitions")

    async def delete_topics(
        self,
        names: Sequence[str],
        *,
        timeout_ms: int = DEFAULT_TIMEOUT_MS,
        allow_internal: bool = False,
    ) -> list[TopicResult]:
        _refuse("delete_topics")

    async def alter_partition_reassignments(
        self, moves: Sequence[PartitionMove], *, timeout_ms: int = DEFAULT_TIMEOUT_MS
    ) -> list[MoveResult]:
        _refuse("alter_partition_reassignments")

    async def wait_for_reassignments(
        self, partitions: Sequence[tuple[str, int]], deadline: float
    ) -> set[tuple[str, int]]:
        _refuse("wait_for_reassignments")

    async def set_replication_throttle(self, throttle: ReplicationThrottle) -> None:
        _refuse("set_replication_throttle")

    async def delete_group_offsets(self, group: str, topics: Any) -> Any:
        _refuse("delete_group_offsets")

    async def set_throttle_rate(self, brokers: Sequence[int], rate: int) -> None:
        _refuse("set_throttle_rate")

    async def clear_replication_throttle(
        self, brokers: Sequence[int], topics: Sequence[str]
    ) -> None:
        _refuse("clear_replication_throttle")

    async def elect_leaders(
        self,
        partitions: Sequence[tuple[str, int]],
        election: ElectionType | None = None,
        *,
        timeout_ms: int = DEFAULT_TIMEOUT_MS,
    ) -> list[ElectionResult]:
        _refuse("elect_leaders")


class ReplayStore(PlaceholderStore):
    """The placeholder records as recorded; writing them is a change, refused."""

    def __init__(self, recording: Recording) -> None:
        super().__init__(recording.settings, recording.placeholders_topic)
        self.recording = recording

    async def load(self, partitions: int = 1) -> dict[str, PlaceholderEntry]:
        return dict(self.recording.placeholders)

    async def write(self, entries: list[PlaceholderEntry], removed: Sequence[str] = ()) -> None:
        if entries or removed:
            _refuse("writing placeholder records")


def replay_app(
    recording: Recording, profile: Profile | None = None, *, refresh_seconds: float = 0
) -> KafkaTuiApp:
    """The app on a recorded cluster, as the CLI opens it (`profile`: the recording's own by
    default); every read answered from the recording, every change refused."""
    profile = profile or recording.profile()
    return make_app(
        Settings(profiles={profile.name: profile}),
        profile,
        admin_factory=lambda _: ReplayAdmin(recording),
        store_factory=lambda _: ReplayStore(recording),
        refresh_seconds=refresh_seconds,
    )
