"""KIP-409 creates and partition increases: the cluster's snapshot, the placer, then the send.

The CLI and the TUI both call these, so a preview (`plan_*`) is exactly what `create_topics`
and `grow_partitions` send. Observed brokers: KRaft = registered brokers (DescribeCluster v2,
fenced = offline); ZooKeeper mode = /brokers/observed_ids (written here whenever kafka-tui
sees a broker), when the profile names ZooKeeper; otherwise only the live brokers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

from ..admin import (
    KafkaAdmin,
    NewPartitions,
    TopicDescription,
    TopicResult,
    TopicSpec,
    audit,
)
from ..admin.placeholders import PlaceholderEntry, PlaceholderStore, Slot

if TYPE_CHECKING:
    from ..admin.zookeeper import ZooKeeperExtras
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


class PlacementOptionError(ValueError):
    """The mode, minimum and placement options do not go together."""


@dataclass(frozen=True)
class PlacementOptions:
    mode: Mode = "disabled"
    min_required: int | None = None
    placement: Where = "client"

    @classmethod
    def of(
        cls, mode: str | None, min_required: int | None, placement: str | None
    ) -> PlacementOptions:
        """From flags/profile: a minimum given alone implies `enabled` (KIP-409's CLI)."""
        chosen = mode or ("enabled" if min_required is not None else "disabled")
        if chosen not in MODES:
            raise PlacementOptionError(
                f"--under-replicated must be one of {', '.join(MODES)} (got '{chosen}')"
            )
        if min_required is not None and min_required < 1:
            raise PlacementOptionError("--min-required-replication-factor must be at least 1")
        where = placement or "client"
        if where not in ("client", "broker"):
            raise PlacementOptionError("--placement must be 'client' or 'broker'")
        if where == "broker" and chosen != "disabled":
            raise PlacementOptionError(
                "--placement broker leaves placement to Kafka, which knows nothing of KIP-409: "
                f"it works only with --under-replicated disabled (got {chosen})"
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

    @property
    def live(self) -> list[int]:
        return [b.id for b in self.brokers if b.live]

    @property
    def offline(self) -> list[int]:
        return [b.id for b in self.brokers if not b.live]

    def default_int(self, key: str, fallback: int) -> int:
        value = self.defaults.get(key)
        return int(value) if value and value.lstrip("-").isdigit() else fallback


async def observed_brokers(admin: KafkaAdmin, zookeeper: str | None) -> tuple[list[Broker], bool]:
    """(brokers live and observed-offline, whether the cluster is KRaft)."""
    info = await admin.describe_cluster()
    if info.lists_fenced_brokers or not zookeeper:
        brokers = [Broker(b.id, b.rack, not b.fenced) for b in info.brokers]
        return brokers, info.lists_fenced_brokers
    async with zookeeper_extras(zookeeper) as zk:
        await zk.record_observed()
        observed = await zk.observed_brokers()
    return [Broker(o.id, o.rack, o.live) for o in observed], False


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
    (brokers, kraft), listed, read = await asyncio.gather(
        observed_brokers(admin, zookeeper),
        admin.list_topics(consistent_for=wanted),
        admin.broker_configs(None, _DEFAULT_KEYS) if defaults else _no_defaults(),
    )
    topics = {t.name: t for t in listed}
    load = Load.from_assignments(p.replicas for t in topics.values() for p in t.partitions)
    entries: dict[str, PlaceholderEntry] = {}
    # Records matter only for topics that exist: a create of new topics reads none (a
    # consumer's start saved, and a create does not depend on the store being readable).
    touched = current is None or any(name in topics for name in current)
    if store is not None and store.topic in topics and touched:
        entries = {
            name: e
            for name, e in (await store.load(len(topics[store.topic].partitions))).items()
            if name in topics and e.topic_id in (None, topics[name].topic_id)
        }
    return Snapshot(brokers, load, topics, read, entries, kraft)


async def _no_defaults() -> dict[str, str | None]:
    return {}


def needs_defaults(specs: Sequence[TopicSpec], options: PlacementOptions) -> bool:
    """Whether placing `specs` reads a broker default: a count left to the broker, or
    min.insync.replicas, which only the enabled modes weigh (`Request.min_live_replicas`).
    A create with both counts in the disabled mode skips that read, the snapshot's slowest
    (2-14 ms at the broker, on the way to the request)."""
    if options.placement != "client" or options.mode != "disabled":
        return True
    return any(s.partitions is None or s.replication_factor is None for s in specs)


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
    return TopicResult(topic, ok=False, error=placement.error, message=placement.message)


def plan_creates(
    snapshot: Snapshot, specs: list[TopicSpec], options: PlacementOptions
) -> list[Planned]:
    if options.placement != "client":
        return [Planned(s.name, spec=s) for s in specs]
    # Built without dataclasses.replace and with the defaults read once: for a 2,000-topic
    # create this wrapper around `place` cost ~10 ms, a third of the placer's own time.
    partitions = snapshot.default_int("num.partitions", 1)
    rf = snapshot.default_int("default.replication.factor", 1)
    min_isr = snapshot.default_int("min.insync.replicas", 1)
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
            planned.append(Planned(s.name, spec=s))
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


async def ensure_store(admin: KafkaAdmin, store: PlaceholderStore, snapshot: Snapshot) -> None:
    if store.topic in snapshot.topics:
        return
    created = await admin.create_topics([store.topic_spec(len(snapshot.live))])
    if not created[0].ok and created[0].error != "TOPIC_ALREADY_EXISTS":
        raise RuntimeError(created[0].message)


async def create_topics(
    admin: KafkaAdmin,
    snapshot: Snapshot,
    specs: list[TopicSpec],
    options: PlacementOptions,
    store: PlaceholderStore,
    *,
    timeout_ms: int = 30_000,
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
        await ensure_store(admin, store, snapshot)
        await store.write(entries)


# -- partition increases -----------------------------------------------------------------------


def plan_grows(
    snapshot: Snapshot,
    requests: list[NewPartitions],
    options: PlacementOptions,
    min_isr: dict[str, int],
) -> list[Planned]:
    placed: list[tuple[int, Request]] = []
    plans: list[Planned | None] = []
    for i, r in enumerate(requests):
        topic = snapshot.topics.get(r.topic)
        if (
            topic is None
            or r.assignment is not None
            or options.placement == "broker"
            or r.total <= len(topic.partitions)
        ):
            plans.append(Planned(r.topic, grow=r))  # Kafka or the user decides, or refuses
            continue
        entry = snapshot.placeholders.get(r.topic)
        intended = entry.replication_factor if entry else topic.replication_factor
        placed.append(
            (
                i,
                Request(
                    r.topic,
                    r.total - len(topic.partitions),
                    intended,
                    _min_live(options, min_isr.get(r.topic, 1)),
                    tuple(tuple(p.replicas) for p in topic.partitions),
                ),
            )
        )
        plans.append(None)
    placements = place(snapshot.brokers, snapshot.load, [q for _, q in placed], options.mode)
    offline = set(snapshot.offline)
    for (i, _), p in zip(placed, placements, strict=True):
        r = requests[i]
        if p.error:
            plans[i] = Planned(r.topic, placement=p, refusal=_refused(r.topic, p))
            continue
        lists = [[b for b in replicas if b >= 0] for replicas in p.assignment]
        have = snapshot.topics[r.topic].replication_factor
        if any(len(x) != have for x in lists):
            plans[i] = Planned(
                r.topic,
                placement=p,
                refusal=TopicResult(
                    r.topic,
                    ok=False,
                    error=INVALID_REPLICATION_FACTOR,
                    message=f"Topic '{r.topic}' has {have} replicas per partition, and Kafka "
                    f"needs as many for each new partition; only {len(lists[0])} brokers can "
                    f"take them ({len(snapshot.brokers)} observed). Add brokers, or fill the "
                    "placeholders first.",
                ),
            )
            continue
        # ZooKeeper-mode CreatePartitions refuses ids not in /brokers/ids; Kafka's own
        # AdminZkClient.addPartitions writes the znode instead, and so does kafka-tui.
        on_offline = bool(offline & {b for x in lists for b in x})
        plans[i] = Planned(
            r.topic,
            grow=replace(r, assignment=lists),
            placement=p,
            via_zookeeper=on_offline and not snapshot.kraft,
        )
    return [p for p in plans if p is not None]


async def grow_partitions(
    admin: KafkaAdmin,
    snapshot: Snapshot,
    requests: list[NewPartitions],
    options: PlacementOptions,
    store: PlaceholderStore,
    *,
    zookeeper: str | None = None,
    timeout_ms: int = 30_000,
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
            results.append(await grow_in_zookeeper(admin, snapshot, p, zookeeper, validate_only))
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
        async with zookeeper_extras(zookeeper) as zk:
            await audit.audited(
                admin,
                "partitions",
                [topic],
                {"partitions": total, "assignment": True, "via": "zookeeper"},
                zk.add_partitions(topic, new),
            )
        admin.expect_partitions(topic, total)
    return decorate(result, plan, validate_only)
