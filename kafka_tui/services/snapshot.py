"""The cluster as one operation sees it: brokers (live and observed-offline), topics and
their load, broker defaults, and KIP-409's placeholder records, read once.

Observed brokers: KRaft = registered brokers (DescribeCluster v2, fenced = offline);
ZooKeeper mode = /brokers/observed_ids (written here whenever kafka-tui sees a broker), when
the profile names ZooKeeper, and any broker a topic's replicas name.

Cordoned log directories (KIP-1066, Kafka 4.3+): each live broker describes its own
(DescribeLogDirs v5). A broker whose every directory is cordoned is `Broker.cordoned`: the
placer, fills and reassignments give it no new replica. An offline broker cannot be asked
(the controller keeps its cordon, clients cannot read it): it counts as not cordoned.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..admin import TopicDescription
from ..admin.model import BrokerLogDirs
from ..admin.placeholders import PlaceholderEntry, PlaceholderStore
from ..planning.placement import Broker, Load
from .ports import AdminPort
from .records import current_entries

if TYPE_CHECKING:
    from ..admin.zookeeper import ZooKeeperExtras
    from .recent_load import LoadReuse

log = logging.getLogger(__name__)

_DEFAULT_KEYS = ("num.partitions", "default.replication.factor", "min.insync.replicas")


def zookeeper_extras(connect: str) -> ZooKeeperExtras:
    """kazoo loads only for ZooKeeper-mode work (it costs a command's start-up ~70 ms)."""
    from ..admin.zookeeper import ZooKeeperExtras

    return ZooKeeperExtras(connect)


@dataclass
class Snapshot:
    """What the placer needs to know of the cluster, read once per operation."""

    brokers: list[Broker]
    load: Load
    topics: dict[str, TopicDescription]
    defaults: dict[str, str | None]
    placeholders: dict[str, PlaceholderEntry] = field(default_factory=dict)
    kraft: bool = True  # KRaft lists fenced brokers; ZooKeeper mode only live ones
    # Stored records that no longer match the partitions (filled by another tool): as they
    # should be stored, for a change to write (`tidy_records`).
    stale_records: list[PlaceholderEntry] = field(default_factory=list)
    # Where each broker is known from (`observed_brokers`, "replica lists").
    sources: dict[int, str] = field(default_factory=dict)
    # The Kafka release each live broker runs ("3.9", "3.3+"; admin/releases.py), when asked
    # for (`take_snapshot(releases=True)`); a broker missing did not answer.
    releases: dict[int, str] = field(default_factory=dict)
    # Each live broker's log directories and the cordoned ones; a broker missing did not
    # answer (or is offline) — or, from `take_snapshot(every_dir=False)`, cordons none.
    log_dirs: dict[int, BrokerLogDirs] = field(default_factory=dict)

    @property
    def live(self) -> list[int]:
        return [b.id for b in self.brokers if b.live]

    @property
    def offline(self) -> list[int]:
        return [b.id for b in self.brokers if not b.live]

    def default_int(self, key: str, fallback: int) -> int:
        value = self.defaults.get(key)
        return int(value) if value and value.lstrip("-").isdigit() else fallback


async def observed_brokers(
    admin: AdminPort, zookeeper: str | None
) -> tuple[list[Broker], bool, dict[int, str]]:
    """(brokers live and observed-offline, whether the cluster is KRaft, where each is known
    from: "registered" (KRaft), "live", "recorded" (ZooKeeper's /brokers/observed_ids)).
    Without the KRaft quorum: the controller is not needed here (DescribeQuorum and its
    schema cost a one-topic create ~10 ms of CPU, bench/startup.py)."""
    info = await admin.describe_cluster(quorum=False)
    if info.lists_fenced_brokers or not zookeeper:
        brokers = [Broker(b.id, b.rack, not b.fenced) for b in info.brokers]
        source = "registered" if info.lists_fenced_brokers else "live"
        return brokers, info.lists_fenced_brokers, {b.id: source for b in brokers}
    async with zookeeper_extras(zookeeper) as zk:
        await zk.record_observed()
        observed = await zk.observed_brokers()
    return (
        [Broker(o.id, o.rack, o.live) for o in observed],
        False,
        {o.id: o.source for o in observed},
    )


async def _brokers_and_dirs(
    admin: AdminPort, zookeeper: str | None, every_dir: bool = True
) -> tuple[list[Broker], bool, dict[int, str], dict[int, BrokerLogDirs]]:
    """`observed_brokers` and the live ones' log directories (`every_dir` False: only of
    those that cordon any, `AdminPort.cordons`); those whose every directory is cordoned
    marked `cordoned`. The directories are asked of the brokers the client
    knows as live while DescribeCluster is on its way (one round trip less on a create's
    path to its request); a broker live in the answer but not asked is asked then, and
    the answer of one asked but not live in it is dropped: as if asked afterwards."""
    read = admin.log_dirs if every_dir else admin.cordons
    hinted = admin.known_brokers()
    early = asyncio.ensure_future(read(hinted)) if hinted else None
    try:
        brokers, kraft, sources = await observed_brokers(admin, zookeeper)
    except BaseException:
        if early is not None:
            early.cancel()
        raise
    live = [b.id for b in brokers if b.live]
    asked = set(hinted)
    dirs = {b: d for b, d in (await early).items() if b in live} if early is not None else {}
    if missing := [b for b in live if b not in asked]:
        dirs |= await read(missing)
    marked = [
        replace(b, cordoned=True) if b.id in dirs and dirs[b.id].all_cordoned else b
        for b in brokers
    ]
    return marked, kraft, sources, dirs


async def _named_by_replicas(
    brokers: list[Broker], sources: dict[int, str], load: Load, zookeeper: str | None
) -> list[Broker]:
    """ZooKeeper mode: a broker id a topic's replicas name belonged to the cluster, even if
    kafka-tui never saw it live; it is observed (offline), and recorded in ZooKeeper on first
    sight. KRaft names only registered brokers, which DescribeCluster lists already. (The
    brokers holding a replica are those the load counts.)"""
    known = {b.id for b in brokers}
    named = sorted(set(load.replicas) - known)
    if not named:
        return brokers
    if zookeeper:
        async with zookeeper_extras(zookeeper) as zk:
            await zk.record_from_replicas(named)
    sources.update(dict.fromkeys(named, "replica lists"))
    return sorted([*brokers, *(Broker(b, None, False) for b in named)], key=lambda b: b.id)


async def take_snapshot(
    admin: AdminPort,
    *,
    zookeeper: str | None = None,
    store: PlaceholderStore | None = None,
    current: Sequence[str] | None = None,
    defaults: bool = True,
    known: Sequence[TopicDescription] | None = None,
    reuse: LoadReuse | None = None,
    releases: bool = False,
    every_dir: bool = True,
) -> Snapshot:
    """`current`: the topics the operation touches, whose latest state (after kafka-tui's own
    recent changes) the snapshot must show, and the only ones it describes (with the
    placeholder store's topic); None: all. The rest only weigh as load, counted per broker
    without describing them (AdminPort.topics_with_load: on a 30,000-partition cluster,
    describing every topic cost a one-topic create ~3x its CreateTopics request), and
    waiting for brokers still applying an earlier bulk change would cost seconds.
    `defaults=False`: the broker defaults are not read (see `needs_defaults`).
    `known`: every topic as the caller last read it (the TUI's topics screen): the topics and
    their load are taken from it instead of asking a broker for every topic again (at
    1,000,000 partitions that answer costs the broker seconds); brokers, defaults and
    placeholder records are still read.
    `reuse` (with `current`): a load kafka-tui counted recently serves instead of a count of
    every partition, when it may (services/recent_load.py); else the count is kept for it.
    `releases`: ask each live broker which Kafka release it runs (its ApiVersions).
    `every_dir=False`: `log_dirs` holds only the brokers that cordon a directory (what a
    placement needs; the others are not asked to describe their directories)."""
    wanted = None if current is None else [*current, *([store.topic] if store else [])]
    # The reads at once: the brokers, the topics (and load), and (unless not needed) the
    # defaults of the broker reads go to (a live one: the client's metadata lists live
    # brokers only).
    (brokers, kraft, sources, dirs), (listed, load), read = await asyncio.gather(
        _brokers_and_dirs(admin, zookeeper, every_dir),
        _topics_and_load(admin, wanted, known, reuse),
        admin.broker_configs(None, _DEFAULT_KEYS) if defaults else _no_defaults(),
    )
    topics = {t.name: t for t in listed}
    if not kraft:
        brokers = await _named_by_replicas(brokers, sources, load, zookeeper)
    entries: dict[str, PlaceholderEntry] = {}
    stale: list[PlaceholderEntry] = []
    # Records matter only for topics that exist: a create of new topics reads none (a
    # consumer's start saved, and a create does not depend on the store being readable).
    touched = current is None or any(name in topics for name in current)
    if store is not None and store.topic in topics and touched:
        stored = await store.load(len(topics[store.topic].partitions))
        entries, stale = current_entries(stored, topics)
    live = [b.id for b in brokers if b.live]
    runs = await admin.kafka_releases(live) if releases else {}
    return Snapshot(brokers, load, topics, read, entries, kraft, stale, sources, runs, dirs)


async def _no_defaults() -> dict[str, str | None]:
    return {}


async def _topics_and_load(
    admin: AdminPort,
    wanted: Sequence[str] | None,
    known: Sequence[TopicDescription] | None,
    reuse: LoadReuse | None = None,
) -> tuple[list[TopicDescription], Load]:
    """Every topic and the load they make (`wanted` None), or `wanted` and every topic's
    load, counted (or reused); from `known` when given."""
    if known is not None or wanted is None:
        every = known if known is not None else await admin.list_topics()
        # In a thread: at 1,000,000 partitions the count takes ~0.4 s, which on the TUI's
        # event loop would freeze the form being opened.
        load = await asyncio.to_thread(_load_of, every)
        names = None if wanted is None else set(wanted)
        return [t for t in every if names is None or t.name in names], load
    if reuse is not None:
        recent = reuse.recent(admin.cluster_id)
        if recent is not None:
            log.info(
                "placing against the load read %.1f s ago (topics kafka-tui placed since: %d)",
                recent.age_s,
                recent.added,
            )
            described, _ = await admin.describe_topics(wanted, configs=False)
            return described, recent.load
    read_at = time.time()
    described, counted = await admin.topics_with_load(wanted)
    load = Load(dict(counted.replicas), dict(counted.leaders))
    if reuse is not None:
        reuse.keep(admin.cluster_id, load, read_at)
    return described, load


def _load_of(topics: Sequence[TopicDescription]) -> Load:
    return Load.from_assignments(p.replicas for t in topics for p in t.partitions)


async def min_insync_replicas(admin: AdminPort, topics: Sequence[str]) -> dict[str, int]:
    """Each topic's min.insync.replicas as Kafka reports it (its override, else the broker's
    default): the one reader of that setting. A topic whose value cannot be read is left out."""
    if not topics:
        return {}
    values = await admin.topic_config_value("min.insync.replicas", list(topics))
    return {t: int(v) for t, v in values.items() if v and v.isdigit()}
