"""KIP-409 creates and partition increases: the cluster's snapshot, the placer, then the send.

The CLI and the TUI both call these, so a preview (`plan_*`) is exactly what `create_topics`
and `grow_partitions` send. Observed brokers: KRaft = registered brokers (DescribeCluster v2,
fenced = offline); ZooKeeper mode = /brokers/observed_ids (written here whenever kafka-tui
sees a broker), when the profile names ZooKeeper; otherwise only the live brokers.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

from ..admin import (
    AdminError,
    KafkaAdmin,
    NewPartitions,
    TopicDescription,
    TopicResult,
    TopicSpec,
    audit,
)
from ..admin.connection import poll_until
from ..admin.model import DEFAULT_TIMEOUT_MS
from ..admin.placeholders import PlaceholderEntry, PlaceholderStore, Slot
from ..fields import Field, FieldError
from .records import current_entries

if TYPE_CHECKING:
    from ..admin.zookeeper import ZooKeeperExtras
from ..planning.explicit import INVALID_REPLICA_ASSIGNMENT, check_assignment
from ..planning.placement import (
    INVALID_REPLICATION_FACTOR,
    MODES,
    Broker,
    Load,
    Mode,
    Placement,
    Request,
    place,
)

Where = Literal["client", "broker"]
UNDER_REPLICATED_WARNING = "CREATED_UNDER_REPLICATED"
_DEFAULT_KEYS = ("num.partitions", "default.replication.factor", "min.insync.replicas")


def zookeeper_extras(connect: str) -> ZooKeeperExtras:
    """kazoo loads only for ZooKeeper-mode work (it costs a command's start-up ~70 ms)."""
    from ..admin.zookeeper import ZooKeeperExtras

    return ZooKeeperExtras(connect)


@dataclass(frozen=True)
class PlacementOptions:
    mode: Mode = "disabled"
    min_required: int | None = None
    placement: Where = "client"

    @classmethod
    def of(
        cls, mode: str | None, min_required: int | None, placement: str | None
    ) -> PlacementOptions:
        """The one check of KIP-409's options. `mode` None: not chosen, and a minimum given
        alone then implies `enabled` (KIP-409's CLI); the disabled mode chosen with a minimum
        is a conflict (the minimum would be ignored), not a silent choice."""
        chosen = mode or ("enabled" if min_required is not None else "disabled")
        if chosen not in MODES:
            raise FieldError(
                Field.UNDER_REPLICATED_MODE,
                f"must be one of {', '.join(MODES)} (got '{chosen}')",
            )
        if min_required is not None and min_required < 1:
            raise FieldError(Field.MIN_REQUIRED_RF, "must be at least 1")
        if min_required is not None and chosen == "disabled":
            raise FieldError(
                Field.MIN_REQUIRED_RF,
                f"{min_required} applies to the enabled modes only; the mode chosen is "
                "disabled (every replica on a live broker), which would ignore it. Choose an "
                "enabled mode, or leave the minimum out",
                conflict=(Field.UNDER_REPLICATED_MODE, "disabled"),
            )
        where = placement or "client"
        if where not in ("client", "broker"):
            raise FieldError(Field.PLACEMENT, "must be 'client' or 'broker'")
        if where == "broker" and chosen != "disabled":
            raise FieldError(
                Field.PLACEMENT,
                "broker leaves placement to Kafka, which knows nothing of KIP-409: it works "
                f"only with the disabled mode (got {chosen})",
                conflict=(Field.UNDER_REPLICATED_MODE, chosen),
            )
        return cls(chosen, min_required, where)  # type: ignore[arg-type]


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
    admin: KafkaAdmin, zookeeper: str | None
) -> tuple[list[Broker], bool, dict[int, str]]:
    """(brokers live and observed-offline, whether the cluster is KRaft, where each is known
    from: "registered" (KRaft), "live", "recorded" (ZooKeeper's /brokers/observed_ids))."""
    info = await admin.describe_cluster()
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


async def _named_by_replicas(
    brokers: list[Broker],
    sources: dict[int, str],
    topics: Mapping[str, TopicDescription],
    zookeeper: str | None,
) -> list[Broker]:
    """ZooKeeper mode: a broker id a topic's replicas name belonged to the cluster, even if
    kafka-tui never saw it live; it is observed (offline), and recorded in ZooKeeper on first
    sight. KRaft names only registered brokers, which DescribeCluster lists already."""
    known = {b.id for b in brokers}
    named = sorted(
        {r for t in topics.values() for p in t.partitions for r in p.replicas if r >= 0} - known
    )
    if not named:
        return brokers
    if zookeeper:
        async with zookeeper_extras(zookeeper) as zk:
            await zk.record_from_replicas(named)
    sources.update(dict.fromkeys(named, "replica lists"))
    return sorted([*brokers, *(Broker(b, None, False) for b in named)], key=lambda b: b.id)


async def take_snapshot(
    admin: KafkaAdmin,
    *,
    zookeeper: str | None = None,
    store: PlaceholderStore | None = None,
    current: Sequence[str] | None = None,
    defaults: bool = True,
) -> Snapshot:
    """`current`: the topics the operation touches, whose latest state (after kafka-tui's own
    recent changes) the snapshot must show; None: all. The rest only weigh as load, and
    waiting for brokers still applying an earlier bulk change would cost seconds.
    `defaults=False`: the broker defaults are not read (see `needs_defaults`)."""
    wanted = None if current is None else [*current, *([store.topic] if store else [])]
    # The reads at once: the brokers, the topics, and (unless not needed) the defaults of the
    # broker reads go to (a live one: the client's metadata lists live brokers only).
    (brokers, kraft, sources), listed, read = await asyncio.gather(
        observed_brokers(admin, zookeeper),
        admin.list_topics(consistent_for=wanted),
        admin.broker_configs(None, _DEFAULT_KEYS) if defaults else _no_defaults(),
    )
    topics = {t.name: t for t in listed}
    if not kraft:
        brokers = await _named_by_replicas(brokers, sources, topics, zookeeper)
    load = Load.from_assignments(p.replicas for t in topics.values() for p in t.partitions)
    entries: dict[str, PlaceholderEntry] = {}
    stale: list[PlaceholderEntry] = []
    # Records matter only for topics that exist: a create of new topics reads none (a
    # consumer's start saved, and a create does not depend on the store being readable).
    touched = current is None or any(name in topics for name in current)
    if store is not None and store.topic in topics and touched:
        stored = await store.load(len(topics[store.topic].partitions))
        entries, stale = current_entries(stored, topics)
    return Snapshot(brokers, load, topics, read, entries, kraft, stale, sources)


async def _no_defaults() -> dict[str, str | None]:
    return {}


def needs_defaults(specs: Sequence[TopicSpec], options: PlacementOptions) -> bool:
    """Whether placing `specs` reads a broker default: a count left to the broker, or
    min.insync.replicas, which only the enabled modes weigh (`Request.min_live_replicas`).
    A create with both counts in the disabled mode skips that read, the snapshot's slowest
    (2-14 ms at the broker, on the way to the request)."""
    if options.placement != "client" or options.mode != "disabled":
        return True
    return any(
        s.assignment is None and (s.partitions is None or s.replication_factor is None)
        for s in specs
    )


# -- creates ---------------------------------------------------------------------------------


@dataclass  # not frozen: 2,000 per bulk create (see admin.model.TopicSpec)
class Planned:
    """One topic's plan: what is sent (`spec` / `grow`), the placement behind it (None when
    Kafka or the user places), or the refusal."""

    topic: str
    spec: TopicSpec | None = None
    grow: NewPartitions | None = None
    placement: Placement | None = None
    refusal: TopicResult | None = None
    via_zookeeper: bool = False  # a ZooKeeper-mode grow onto an offline observed broker

    @property
    def sent_assignment(self) -> list[list[int]] | None:
        if self.placement is None:
            return None
        return [[r for r in replicas if r >= 0] for replicas in self.placement.assignment]


def _min_live(options: PlacementOptions, min_isr: int) -> int:
    return max(options.min_required or 1, min_isr)


def _refused(topic: str, placement: Placement) -> TopicResult:
    return TopicResult(
        topic,
        ok=False,
        error=placement.error,
        message=placement.message,
        remedies=placement.remedies,
    )


def plan_creates(
    snapshot: Snapshot, specs: list[TopicSpec], options: PlacementOptions
) -> list[Planned]:
    min_isr = snapshot.default_int("min.insync.replicas", 1)
    if options.placement != "client":
        return [
            Planned(s.name, spec=s)
            if s.assignment is None
            else _given(snapshot, s, options, _min_isr_of(s, min_isr))
            for s in specs
        ]
    # Built without dataclasses.replace and with the defaults read once: for a 2,000-topic
    # create this wrapper around `place` cost ~10 ms, a third of the placer's own time.
    partitions = snapshot.default_int("num.partitions", 1)
    rf = snapshot.default_int("default.replication.factor", 1)
    placed = [s for s in specs if s.assignment is None]
    requests = [
        Request(
            s.name,
            partitions if s.partitions is None else s.partitions,
            rf if s.replication_factor is None else s.replication_factor,
            _min_live(options, _min_isr_of(s, min_isr)),
        )
        for s in placed
    ]
    placements = iter(place(snapshot.brokers, snapshot.load, requests, options.mode))
    planned = []
    for s in specs:
        if s.assignment is not None:
            planned.append(_given(snapshot, s, options, _min_isr_of(s, min_isr)))
            continue
        p = next(placements)
        if p.error:
            planned.append(Planned(s.name, placement=p, refusal=_refused(s.name, p)))
            continue
        if any(p.placeholder_racks):  # placeholders (< 0) are not sent
            lists = {i: [r for r in rs if r >= 0] for i, rs in enumerate(p.assignment)}
        else:
            lists = dict(enumerate(map(list, p.assignment)))
        # Positional: keywords cost ~2 ms per 2,000 topics.
        planned.append(Planned(s.name, TopicSpec(s.name, None, None, lists, s.configs), None, p))
    return planned


def _given(snapshot: Snapshot, spec: TopicSpec, options: PlacementOptions, min_isr: int) -> Planned:
    """An assignment the operator gave, held to the mode like a placed one (explicit.py);
    its placeholders are recorded, not sent."""
    assert spec.assignment is not None
    lists = [spec.assignment[i] for i in sorted(spec.assignment)]
    p = check_assignment(
        snapshot.brokers, spec.name, lists, options.mode, _min_live(options, min_isr)
    )
    if p.error:
        return Planned(spec.name, placement=p, refusal=_refused(spec.name, p))
    sent = {i: [r for r in rs if r >= 0] for i, rs in enumerate(p.assignment)}
    return Planned(spec.name, TopicSpec(spec.name, None, None, sent, spec.configs), None, p)


async def min_insync_replicas(admin: KafkaAdmin, topics: Sequence[str]) -> dict[str, int]:
    """Each topic's min.insync.replicas as Kafka reports it (its override, else the broker's
    default): the one reader of that setting. A topic whose value cannot be read is left out."""
    if not topics:
        return {}
    values = await admin.topic_config_value("min.insync.replicas", list(topics))
    return {t: int(v) for t, v in values.items() if v and v.isdigit()}


def _min_isr_of(spec: TopicSpec, default: int) -> int:
    value = spec.configs.get("min.insync.replicas")
    if value is None:
        return default
    return int(value) if value.isdigit() else default


def decorate(result: TopicResult, plan: Planned, validate_only: bool) -> TopicResult:
    p = plan.placement
    if p is None or not result.ok:
        return result
    message, warning = result.message, result.warning
    if p.under_replicated:
        message = f"{result.message} {p.message}".strip()
        if result.warning:
            message = f"{message} {result.warning}"
        warning = UNDER_REPLICATED_WARNING if not validate_only else None
        if validate_only:
            message = f"{message} (It would be created under-replicated.)"
    # Built field by field, and with the placement's own (immutable) lists: dataclasses.replace
    # and copying the lists cost ~7 us a topic (14 ms per 2,000), all of it on the CPU the
    # brokers applying the create need.
    return TopicResult(
        result.topic,
        result.ok,
        result.error,
        message,
        result.topic_id,
        result.partitions,
        result.replication_factor,
        warning,
        p.assignment,
        len(p.under_replicated),
    )


def _entries(
    plans: list[Planned], results: dict[str, TopicResult], snapshot: Snapshot, first: int = 0
) -> list[PlaceholderEntry]:
    """Placeholder records for the placements that left placeholders and succeeded."""
    entries = []
    for plan in plans:
        p = plan.placement
        r = results.get(plan.topic)
        if p is None or r is None or not r.ok or not any(p.placeholder_racks):
            continue
        slots = {
            first + i: [Slot(-(k + 1), rack) for k, rack in enumerate(racks)]
            for i, racks in enumerate(p.placeholder_racks)
            if racks
        }
        old = snapshot.placeholders.get(plan.topic)
        rf = len(p.assignment[0]) if p.assignment else 0
        topic_id = r.topic_id or (old.topic_id if old else None)
        if topic_id is None and plan.topic in snapshot.topics:
            topic_id = snapshot.topics[plan.topic].topic_id
        merged = {**(old.slots if old else {}), **slots}
        entries.append(PlaceholderEntry(plan.topic, topic_id, rf, merged))
    return entries


INTERNAL_RF_KEY = "offsets.topic.replication.factor"


async def ensure_store(
    admin: KafkaAdmin, store: PlaceholderStore, snapshot: Snapshot
) -> list[PlaceholderEntry]:
    """Create the record topic if it is missing: replicated as the cluster replicates its
    internal topics, placed like any KIP-409 topic (enabled, one live replica at least;
    placeholders for what no broker can take). Returns its own placeholder record, if any."""
    if store.topic in snapshot.topics:
        return []
    raw = (await admin.broker_configs(None, [INTERNAL_RF_KEY])).get(INTERNAL_RF_KEY)
    factor = int(raw) if raw and raw.isdigit() else 3
    [plan] = plan_creates(snapshot, [store.topic_spec(factor)], PlacementOptions("enabled", 1))
    if plan.refusal is not None or plan.spec is None:
        refusal = plan.refusal.message if plan.refusal else ""
        raise AdminError("PLACEHOLDERS_UNWRITABLE", f"Cannot create '{store.topic}': {refusal}")
    [created] = await admin.create_topics([plan.spec], placed=True)
    if not created.ok and created.error != "TOPIC_ALREADY_EXISTS":
        raise AdminError(
            "PLACEHOLDERS_UNWRITABLE",
            f"Cannot create '{store.topic}' for the placeholder records: {created.message}",
        )
    return _entries([plan], {store.topic: created}, snapshot) if created.ok else []


async def create_topics(
    admin: KafkaAdmin,
    snapshot: Snapshot,
    specs: list[TopicSpec],
    options: PlacementOptions,
    store: PlaceholderStore,
    *,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    validate_only: bool = False,
    topic_ids: bool = True,
    while_waiting: Callable[[Iterable[TopicResult]], None] | None = None,
) -> list[TopicResult]:
    """`topic_ids=False`: bulk creates skip the ids (KafkaAdmin.create_topics) unless a
    placeholder record needs them (a record outlives a topic deleted and created again).
    `while_waiting`: given the results expected, while the controller works (output
    rendered ahead); a result returned is one of them only where it is what was expected."""
    plans = plan_creates(snapshot, specs, options)
    to_send = [p.spec for p in plans if p.spec is not None]
    topic_ids = topic_ids or any(has_placeholders(p) for p in plans)
    # Each placed topic's result decorated ahead, while the controller works; kept where the
    # real result is the one expected (see KafkaAdmin.create_topics).
    ahead: dict[str, tuple[TopicResult, TopicResult]] = {}

    def meanwhile(expected: Mapping[str, TopicResult]) -> None:
        for p in plans:
            plain = expected.get(p.topic)
            if plain is not None and p.placement is not None:
                ahead[p.topic] = (plain, decorate(plain, p, validate_only))
        if while_waiting is not None:
            while_waiting([decorated for _, decorated in ahead.values()])

    def finish(plan: Planned, result: TopicResult) -> TopicResult:
        early = ahead.get(plan.topic)
        if early is not None and early[0] is result:
            return early[1]
        return decorate(result, plan, validate_only)

    sent = iter(
        await admin.create_topics(
            to_send,
            timeout_ms=timeout_ms,
            validate_only=validate_only,
            topic_ids=topic_ids,
            while_waiting=meanwhile,
            placed=all(p.placement is not None for p in plans if p.spec is not None),
        )
    )
    results = [p.refusal if p.refusal is not None else finish(p, next(sent)) for p in plans]
    if not validate_only:
        await record_placeholders(admin, store, snapshot, plans, results)
    return results


def has_placeholders(plan: Planned) -> bool:
    return plan.placement is not None and any(plan.placement.placeholder_racks)


async def record_placeholders(
    admin: KafkaAdmin,
    store: PlaceholderStore,
    snapshot: Snapshot,
    plans: list[Planned],
    results: list[TopicResult],
    first: dict[str, int] | None = None,
) -> None:
    if not any(map(has_placeholders, plans)):  # the usual case: nothing to index
        return
    by_topic = {r.topic: r for r in results}
    entries = [
        e
        for plan in plans
        for e in _entries([plan], by_topic, snapshot, (first or {}).get(plan.topic, 0))
    ]
    if entries:
        entries += await ensure_store(admin, store, snapshot)
        await store.write(entries)


# -- partition increases -----------------------------------------------------------------------


def plan_grows(
    snapshot: Snapshot,
    requests: list[NewPartitions],
    options: PlacementOptions,
    min_isr: dict[str, int],
) -> list[Planned]:
    """A grow places as many replicas per new partition as the topic has in Kafka (Kafka
    needs as many), and, for a topic created under-replicated, adds placeholders up to the
    replication factor intended (its record); an assignment the operator gave is held to
    the mode (explicit.py)."""
    placed: list[tuple[int, Request]] = []
    plans: list[Planned | None] = []
    for i, r in enumerate(requests):
        topic = snapshot.topics.get(r.topic)
        if topic is None or r.total <= len(topic.partitions):
            plans.append(Planned(r.topic, grow=r))  # Kafka refuses it, in its own words
            continue
        min_live = _min_live(options, min_isr.get(r.topic, 1))
        if r.assignment is not None:
            plans.append(_given_grow(snapshot, r, options, min_live))
            continue
        if options.placement == "broker":
            plans.append(Planned(r.topic, grow=r))
            continue
        placed.append(
            (
                i,
                Request(
                    r.topic,
                    r.total - len(topic.partitions),
                    topic.replication_factor,
                    min_live,
                    tuple(tuple(p.replicas) for p in topic.partitions),
                ),
            )
        )
        plans.append(None)
    placements = place(snapshot.brokers, snapshot.load, [q for _, q in placed], options.mode)
    for (i, q), p in zip(placed, placements, strict=True):
        r = requests[i]
        if p.error:
            plans[i] = Planned(r.topic, placement=p, refusal=_refused(r.topic, p))
            continue
        have = q.replication_factor
        placeable = min(sum(1 for b in x if b >= 0) for x in p.assignment)
        if placeable < have:
            plans[i] = Planned(
                r.topic,
                placement=p,
                refusal=TopicResult(
                    r.topic,
                    ok=False,
                    error=INVALID_REPLICATION_FACTOR,
                    message=f"Topic '{r.topic}' has {have} replicas per partition in Kafka, "
                    "and Kafka needs as many in each new partition; only "
                    f"{placeable} broker(s) can take one ({len(snapshot.brokers)} known). "
                    "Add brokers first.",
                ),
            )
            continue
        entry = snapshot.placeholders.get(r.topic)
        intended = entry.replication_factor if entry else have
        if intended > have:
            p = _toward_intended(snapshot, p, intended, have)
        plans[i] = _grow_of(snapshot, r, p)
    return [p for p in plans if p is not None]


def _toward_intended(snapshot: Snapshot, p: Placement, intended: int, have: int) -> Placement:
    """The placed partitions with a placeholder for each replica the intended replication
    factor has beyond Kafka's: the new partitions match the topic's others."""
    extended = [[*x, *range(-1, -(intended - have) - 1, -1)] for x in p.assignment]
    # The placement obeyed the mode already; only the placeholders are added here.
    grown = check_assignment(snapshot.brokers, p.topic, extended, "enabled", kafka_replicas=have)
    missing = intended - have
    note = (
        f"The new partitions get {have} replicas like the topic's others (Kafka needs as "
        f"many), and {missing} placeholder{'s' * (missing > 1)} each toward the replication "
        f"factor {intended} it was created with, filled as brokers join."
    )
    return replace(grown, message=f"{note} {grown.message}".strip())


def _given_grow(
    snapshot: Snapshot, r: NewPartitions, options: PlacementOptions, min_live: int
) -> Planned:
    """New partitions' replicas the operator gave (placeholders allowed in enabled modes)."""
    assert r.assignment is not None
    topic = snapshot.topics[r.topic]
    new = r.total - len(topic.partitions)
    if len(r.assignment) != new:
        return Planned(
            r.topic,
            refusal=TopicResult(
                r.topic,
                ok=False,
                error=INVALID_REPLICA_ASSIGNMENT,
                message=f"Topic '{r.topic}' grows from {len(topic.partitions)} to {r.total} "
                f"partitions: give {new} replica list(s), one per new partition, not "
                f"{len(r.assignment)}.",
            ),
        )
    entry = snapshot.placeholders.get(r.topic)
    p = check_assignment(
        snapshot.brokers,
        r.topic,
        r.assignment,
        options.mode,
        min_live,
        kafka_replicas=topic.replication_factor,
        intended=entry.replication_factor if entry else None,
    )
    if p.error:
        return Planned(r.topic, placement=p, refusal=_refused(r.topic, p))
    return _grow_of(snapshot, r, p)


def _grow_of(snapshot: Snapshot, r: NewPartitions, p: Placement) -> Planned:
    lists = [[b for b in replicas if b >= 0] for replicas in p.assignment]
    # ZooKeeper-mode CreatePartitions refuses ids not in /brokers/ids; Kafka's own
    # AdminZkClient.addPartitions writes the znode instead, and so does kafka-tui.
    on_offline = bool(set(snapshot.offline) & {b for x in lists for b in x})
    return Planned(
        r.topic,
        grow=replace(r, assignment=lists),
        placement=p,
        via_zookeeper=on_offline and not snapshot.kraft,
    )


async def grow_partitions(
    admin: KafkaAdmin,
    snapshot: Snapshot,
    requests: list[NewPartitions],
    options: PlacementOptions,
    store: PlaceholderStore,
    *,
    zookeeper: str | None = None,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    validate_only: bool = False,
) -> list[TopicResult]:
    names = [r.topic for r in requests if r.topic in snapshot.topics]
    min_isr = await min_insync_replicas(admin, names) if options.mode != "disabled" else {}
    plans = plan_grows(snapshot, requests, options, min_isr)
    by_kafka = [p for p in plans if p.refusal is None and not p.via_zookeeper and p.grow]
    sent = iter(
        await admin.create_partitions(
            [p.grow for p in by_kafka if p.grow is not None],
            timeout_ms=timeout_ms,
            validate_only=validate_only,
        )
        if by_kafka
        else []
    )
    results: list[TopicResult] = []
    for p in plans:
        if p.refusal is not None:
            results.append(p.refusal)
        elif p.via_zookeeper:
            results.append(
                await grow_in_zookeeper(admin, snapshot, p, zookeeper, validate_only, timeout_ms)
            )
        else:
            results.append(decorate(next(sent), p, validate_only))
    if not validate_only:
        first = {t: len(d.partitions) for t, d in snapshot.topics.items()}
        await record_placeholders(admin, store, snapshot, plans, results, first)
    return results


async def grow_in_zookeeper(
    admin: KafkaAdmin,
    snapshot: Snapshot,
    plan: Planned,
    zookeeper: str | None,
    validate_only: bool,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
) -> TopicResult:
    assert plan.grow is not None and plan.grow.assignment is not None
    topic, total = plan.grow.topic, plan.grow.total
    offline = sorted(set(snapshot.offline) & {b for x in plan.grow.assignment for b in x})
    why = (
        f"broker(s) {', '.join(map(str, offline))} offline, which ZooKeeper-mode "
        "CreatePartitions refuses"
    )
    if zookeeper is None:
        return TopicResult(
            topic,
            ok=False,
            error=INVALID_REPLICATION_FACTOR,
            message=f"Topic '{topic}': the new partitions need {why}; kafka-tui writes them to "
            "ZooKeeper as Kafka's own tools do, which needs --zookeeper HOST:PORT (or the "
            "profile's zookeeper_connect).",
        )
    result = TopicResult(
        topic,
        ok=True,
        message=f"Topic '{topic}' {'would have' if validate_only else 'now has'} {total} "
        f"partitions (written to ZooKeeper: {why}).",
        partitions=total,
    )
    if not validate_only:
        current = len(snapshot.topics[topic].partitions)
        new = {current + i: lists for i, lists in enumerate(plan.grow.assignment)}
        deadline = time.monotonic() + timeout_ms / 1000
        async with zookeeper_extras(zookeeper) as zk:
            await audit.audited(
                admin,
                "partitions",
                [topic],
                {"partitions": total, "assignment": True, "via": "zookeeper"},
                zk.add_partitions(topic, new),
            )
            admin.expect_partitions(topic, total)
            # KIP-4's rule holds here too: the result is the controller's work done, every
            # new partition with a leader (its state znode), not the znode written.
            leaderless = await _wait_for_leaders(zk, topic, sorted(new), deadline)
        if leaderless:
            return TopicResult(
                topic,
                ok=False,
                error="REQUEST_TIMED_OUT",
                message=f"Topic '{topic}': the new partitions were written to ZooKeeper, but "
                f"partition(s) {', '.join(map(str, leaderless))} had no leader within "
                f"{timeout_ms / 1000:g}s. They may still be created later — check again "
                "(describe the topic).",
            )
    return decorate(result, plan, validate_only)


async def _wait_for_leaders(
    zk: ZooKeeperExtras, topic: str, partitions: list[int], deadline: float
) -> list[int]:
    """Poll the partitions' state znodes until each has a leader; those still without one
    when `deadline` (monotonic) passes."""
    waiting = list(partitions)

    async def led() -> bool | None:
        nonlocal waiting
        leaders = await zk.leaders_of(topic, waiting)
        waiting = [p for p in waiting if leaders.get(p, -1) < 0]
        return True if not waiting else None

    await poll_until(led, deadline, first_delay=0.1)
    return waiting
