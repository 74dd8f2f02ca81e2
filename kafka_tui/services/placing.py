"""KIP-409 creates: the placer (or the operator's assignment, held to the mode), then the send.

The CLI and the TUI both call these, so a preview (`plan_creates`) is exactly what
`create_topics` sends; growing.py does the same for partition increases.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..admin import AdminError, NewPartitions, TopicResult, TopicSpec
from ..admin.model import DEFAULT_TIMEOUT_MS
from ..admin.placeholders import PlaceholderEntry, PlaceholderStore, Slot
from ..fields import Field, FieldError
from ..planning.explicit import check_assignment
from ..planning.placement import MODES, Mode, Placement, Request, place
from .ports import AdminPort
from .snapshot import Snapshot

Where = Literal["client", "broker"]
UNDER_REPLICATED_WARNING = "CREATED_UNDER_REPLICATED"


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
                "only with mode disabled",
                conflict=(Field.UNDER_REPLICATED_MODE, chosen),
            )
        return cls(chosen, min_required, where)  # type: ignore[arg-type]


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


def min_live_of(options: PlacementOptions, min_isr: int) -> int:
    return max(options.min_required or 1, min_isr)


def refusal_of(topic: str, placement: Placement) -> TopicResult:
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
            min_live_of(options, _min_isr_of(s, min_isr)),
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
            planned.append(Planned(s.name, placement=p, refusal=refusal_of(s.name, p)))
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
        snapshot.brokers, spec.name, lists, options.mode, min_live_of(options, min_isr)
    )
    if p.error:
        return Planned(spec.name, placement=p, refusal=refusal_of(spec.name, p))
    sent = {i: [r for r in rs if r >= 0] for i, rs in enumerate(p.assignment)}
    return Planned(spec.name, TopicSpec(spec.name, None, None, sent, spec.configs), None, p)


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
    if p.warning:  # brokers the placer left out (cordoned), named
        message = f"{message} {p.warning}".strip()
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
    admin: AdminPort, store: PlaceholderStore, snapshot: Snapshot
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
    admin: AdminPort,
    snapshot: Snapshot,
    specs: list[TopicSpec],
    options: PlacementOptions,
    store: PlaceholderStore,
    *,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    validate_only: bool = False,
    topic_ids: bool = True,
) -> list[TopicResult]:
    """`topic_ids=False`: bulk creates skip the ids (KafkaAdmin.create_topics) unless a
    placeholder record needs them (a record outlives a topic deleted and created again)."""
    plans = plan_creates(snapshot, specs, options)
    to_send = [p.spec for p in plans if p.spec is not None]
    topic_ids = topic_ids or any(has_placeholders(p) for p in plans)
    sent = iter(
        await admin.create_topics(
            to_send,
            timeout_ms=timeout_ms,
            validate_only=validate_only,
            topic_ids=topic_ids,
            placed=all(p.placement is not None for p in plans if p.spec is not None),
        )
    )
    results = [
        p.refusal if p.refusal is not None else decorate(next(sent), p, validate_only)
        for p in plans
    ]
    if not validate_only:
        await record_placeholders(admin, store, snapshot, plans, results)
    return results


def has_placeholders(plan: Planned) -> bool:
    return plan.placement is not None and any(plan.placement.placeholder_racks)


async def record_placeholders(
    admin: AdminPort,
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
