"""KIP-409 partition increases: as many brokers per new partition as the topic has in Kafka,
placeholders toward the factor a degraded topic was created with, the operator's lists held to
the mode, and ZooKeeper-mode writes for partitions on offline brokers (answered once led)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from ..admin import NewPartitions, TopicResult
from ..admin import audit_log as audit
from ..admin.connection import poll_until
from ..admin.model import DEFAULT_TIMEOUT_MS
from ..admin.placeholders import PlaceholderStore
from ..fields import Field, Remedy
from ..planning.explicit import INVALID_REPLICA_ASSIGNMENT, check_assignment
from ..planning.placement import INVALID_REPLICATION_FACTOR, Placement, Request, place
from .filling import FillResult, fill_placeholders
from .keys import KeyMapping, key_mappings, with_key_warning
from .placing import (
    PlacementOptions,
    Planned,
    decorate,
    has_placeholders,
    min_live_of,
    record_placeholders,
    refusal_of,
)
from .ports import AdminPort
from .snapshot import Snapshot, min_insync_replicas, zookeeper_extras

if TYPE_CHECKING:
    from ..admin.zookeeper import ZooKeeperExtras


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
        min_live = min_live_of(options, min_isr.get(r.topic, 1))
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
            plans[i] = Planned(r.topic, placement=p, refusal=refusal_of(r.topic, p))
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
                    f"Add brokers first. {p.warning}".strip(),
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
        return Planned(r.topic, placement=p, refusal=refusal_of(r.topic, p))
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
    admin: AdminPort,
    snapshot: Snapshot,
    requests: list[NewPartitions],
    options: PlacementOptions,
    store: PlaceholderStore,
    *,
    zookeeper: str | None = None,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    validate_only: bool = False,
    keys: Mapping[str, KeyMapping] | None = None,
) -> list[TopicResult]:
    """`keys`: the key-mapping check of the topics (`key_mapping_check`), whose results then
    warn KEY_MAPPING_CHANGES; None: not checked (bulk plans)."""
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
        results = await _fill_at_once(admin, snapshot, store, plans, results, zookeeper, timeout_ms)
    if keys is None:
        return results
    current = {t: len(d.partitions) for t, d in snapshot.topics.items()}
    return warn_key_mapping(results, requests, current, keys)


# -- key mapping: growing moves keys to other partitions (keys.py) ---------------------------


async def key_mapping_check(
    admin: AdminPort, requests: Sequence[NewPartitions], current: Mapping[str, int]
) -> dict[str, KeyMapping]:
    """Whether each grow moves keys that matter: compacted topics, and topics whose recent
    records carry keys. Only the topics that grow (`current`: their partition counts now)."""
    growing = [r.topic for r in requests if r.topic in current and r.total > current[r.topic]]
    return await key_mappings(admin, growing)


def warn_key_mapping(
    results: Sequence[TopicResult],
    requests: Sequence[NewPartitions],
    current: Mapping[str, int],
    keys: Mapping[str, KeyMapping],
) -> list[TopicResult]:
    """Successful grows (or validations) of topics whose keys move, with the warning."""
    totals = {r.topic: r.total for r in requests}
    return [
        with_key_warning(r, keys.get(r.topic), current.get(r.topic, 0), totals.get(r.topic, 0))
        if r.topic in current
        else r
        for r in results
    ]


async def _fill_at_once(
    admin: AdminPort,
    snapshot: Snapshot,
    store: PlaceholderStore,
    plans: list[Planned],
    results: list[TopicResult],
    zookeeper: str | None,
    timeout_ms: int,
) -> list[TopicResult]:
    """New partitions' placeholders that a live broker can take now (one joined since the
    topic was created under-replicated) are filled at once, as `placeholders fill` would;
    each result says which were."""
    live = set(snapshot.live)
    wanted: set[tuple[str, int]] = set()
    for plan, result in zip(plans, results, strict=True):
        if not result.ok or not has_placeholders(plan) or plan.placement is None:
            continue
        first = len(snapshot.topics[plan.topic].partitions)
        for i, replicas in enumerate(plan.placement.assignment):
            if any(b < 0 for b in replicas) and live - set(replicas):
                wanted.add((plan.topic, first + i))
    if not wanted:
        return results
    fills = await fill_placeholders(
        admin, store, zookeeper=zookeeper, timeout_ms=timeout_ms, only=wanted
    )
    done: dict[str, list[FillResult]] = {}
    for f in fills:
        done.setdefault(f.topic, []).append(f)
    return [_with_fills(r, done.get(r.topic, [])) for r in results]


def _with_fills(result: TopicResult, fills: list[FillResult]) -> TopicResult:
    if not fills:
        return result
    filled = [f for f in fills if f.ok]
    left = [f for f in fills if not f.ok]
    text = result.message
    if filled:
        brokers = sorted({b for f in filled for b in f.added})
        text += (
            f" Filled at once: broker(s) {', '.join(map(str, brokers))} took the placeholders "
            f"of partition(s) {', '.join(str(f.partition) for f in filled)}, now in sync."
        )
    if left:
        text += " Not filled yet: " + " ".join(f.message for f in left)
    return replace(result, message=text)


async def grow_in_zookeeper(
    admin: AdminPort,
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
            "ZooKeeper as Kafka's own tools do, which needs ZooKeeper's address (the profile's "
            "zookeeper_connect).",
            remedies=(Remedy(((Field.ZOOKEEPER, "HOST:PORT"),), "to give it here"),),
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
