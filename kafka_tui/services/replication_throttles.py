"""Replication throttles that never stay behind: which are set on brokers (the two rates,
dynamic broker configs) and topics (the throttled replica lists), whether a reassignment
in progress still needs each, and removing those none needs.

A broker's rates are needed while any reassignment in progress has a replica on it (adding,
removing or staying: the leader sends from it, the followers fetch to it); a topic's lists
while any of its partitions is being reassigned. The same rule decides what goes after a
reassignment finishes or is cancelled (`release_throttles`), so one reassignment's end
never lifts the rate another one still relies on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from ..admin import AdminError
from ..admin import audit_log as audit
from ..admin.reassignments import (
    FOLLOWER_RATE,
    FOLLOWER_REPLICAS,
    LEADER_RATE,
    LEADER_REPLICAS,
)
from .parsing import UsageError
from .ports import AdminPort

RATES = (LEADER_RATE, FOLLOWER_RATE)
REPLICA_LISTS = (LEADER_REPLICAS, FOLLOWER_REPLICAS)
BROKER = "broker"
TOPIC = "topic"


@dataclass(frozen=True)
class Throttle:
    """One throttle config set on a broker (`name`: its id) or a topic."""

    kind: str  # BROKER or TOPIC
    name: str
    config: str
    value: str
    needed: bool  # a reassignment in progress relies on it

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "name": self.name,
            "config": self.config,
            "value": self.value,
            "needed": self.needed,
        }


@dataclass(frozen=True)
class ThrottleReport:
    throttles: list[Throttle]
    unread: list[int]  # brokers whose rates could not be read (offline: only a broker
    # describes its own dynamic configs)
    reassigning: int  # partitions with a reassignment in progress

    @property
    def orphaned(self) -> list[Throttle]:
        return [t for t in self.throttles if not t.needed]


@dataclass(frozen=True)
class Busy:
    """What the reassignments in progress use."""

    brokers: frozenset[int]
    topics: frozenset[str]
    partitions: int


async def busy(admin: AdminPort) -> Busy:
    ongoing = await admin.list_partition_reassignments(None)
    return Busy(
        frozenset(b for r in ongoing for b in r.replicas),
        frozenset(r.topic for r in ongoing),
        len(ongoing),
    )


async def list_throttles(admin: AdminPort) -> ThrottleReport:
    """Every throttle set on the live brokers and on the topics, brokers first (by id),
    then topics (by name)."""
    cluster = await admin.describe_cluster()
    live = sorted(cluster.live_broker_ids)
    topics = [t.name for t in await admin.list_topics()]
    in_use = await busy(admin)

    async def rates(broker: int) -> dict[str, str | None] | None:
        try:
            return await admin.broker_configs(broker, list(RATES))
        except AdminError:
            return None

    per_broker = await asyncio.gather(*(rates(b) for b in live))
    lists = (
        await asyncio.gather(*(admin.topic_config_value(key, topics) for key in REPLICA_LISTS))
        if topics
        else [{} for _ in REPLICA_LISTS]
    )
    found: list[Throttle] = []
    for broker, values in zip(live, per_broker, strict=True):
        for key in RATES:
            # An unset rate is not described at all (it has no default value).
            value = (values or {}).get(key)
            if value:
                found.append(Throttle(BROKER, str(broker), key, value, broker in in_use.brokers))
    for topic in sorted(topics):
        for key, values in zip(REPLICA_LISTS, lists, strict=True):
            value = values.get(topic)
            if value:  # the default is an empty list
                found.append(Throttle(TOPIC, topic, key, value, topic in in_use.topics))
    offline = sorted({b.id for b in cluster.brokers} - set(live))
    unread = offline + [b for b, v in zip(live, per_broker, strict=True) if v is None]
    return ThrottleReport(found, sorted(unread), in_use.partitions)


@dataclass(frozen=True)
class Released:
    """What `release_throttles` removed, and what it kept for reassignments in progress."""

    brokers: list[int]
    topics: list[str]
    kept_brokers: list[int]
    kept_topics: list[str]


async def release_throttles(
    admin: AdminPort, brokers: Sequence[int], topics: Sequence[str]
) -> Released:
    """Remove the throttles a finished or cancelled reassignment set on `brokers` and
    `topics`, except those a reassignment still in progress (any, not only kafka-tui's)
    needs."""
    in_use = await busy(admin)
    chosen_brokers = sorted(set(brokers))
    chosen_topics = sorted(set(topics))
    released = Released(
        [b for b in chosen_brokers if b not in in_use.brokers],
        [t for t in chosen_topics if t not in in_use.topics],
        [b for b in chosen_brokers if b in in_use.brokers],
        [t for t in chosen_topics if t in in_use.topics],
    )
    await admin.clear_replication_throttle(released.brokers, released.topics)
    return released


@dataclass(frozen=True)
class Cleared:
    """One broker's or topic's throttles removed (or not): the per-entry result."""

    kind: str
    name: str
    configs: list[str]
    ok: bool
    needed: bool
    error: str | None = None
    message: str = ""

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "name": self.name,
            "configs": self.configs,
            "needed": self.needed,
            "ok": self.ok,
            "error": self.error,
            "message": self.message,
        }


async def clear_throttles(
    admin: AdminPort, report: ThrottleReport, *, orphaned: bool
) -> list[Cleared]:
    """Remove the throttles of `report` (just read: `list_throttles`), only those no
    reassignment needs when `orphaned`. One audited operation; one result per broker or
    topic, in the report's order. A throttle that became needed since the report was read
    is kept when `orphaned`."""
    chosen = report.orphaned if orphaned else report.throttles
    groups: dict[tuple[str, str], list[Throttle]] = {}
    for t in chosen:
        groups.setdefault((t.kind, t.name), []).append(t)
    in_use = await busy(admin) if orphaned and groups else None

    async def clear(kind: str, name: str, items: list[Throttle]) -> Cleared:
        configs = [t.config for t in items]
        needed = any(t.needed for t in items)
        what = f"Broker {name}" if kind == BROKER else f"Topic '{name}'"
        if in_use is not None and (
            int(name) in in_use.brokers if kind == BROKER else name in in_use.topics
        ):
            return Cleared(
                kind,
                name,
                configs,
                False,
                True,
                "REASSIGNMENT_IN_PROGRESS",
                f"{what}: kept: a reassignment started since the list was read needs it.",
            )
        try:
            if kind == BROKER:
                await admin.clear_replication_throttle([int(name)], [])
            else:
                await admin.clear_replication_throttle([], [name])
        except AdminError as exc:
            return Cleared(kind, name, configs, False, needed, exc.name, exc.message)
        why = (
            "a reassignment in progress used it: it now copies unthrottled"
            if needed
            else "no reassignment in progress used it"
        )
        return Cleared(
            kind,
            name,
            configs,
            True,
            needed,
            None,
            f"{what}: removed {', '.join(configs)} ({why}).",
        )

    with audit.operation("throttles clear"):
        return list(await asyncio.gather(*(clear(k, n, items) for (k, n), items in groups.items())))


# -- changing the rate of a running reassignment ----------------------------------------------


@dataclass(frozen=True)
class RateChange:
    """What `change_throttle_rate` did: the brokers of the reassignments in progress, the
    rate asked for, and each broker's two rates as read back from the broker afterwards
    (None: not set; a broker missing: offline, it could not be read)."""

    rate: int
    brokers: list[int]
    shown: dict[int, dict[str, str | None]]

    @property
    def verified(self) -> bool:
        """Every involved broker describes the new rate for both keys."""
        return bool(self.brokers) and all(
            self.shown.get(b, {}).get(key) == str(self.rate) for b in self.brokers for key in RATES
        )

    def to_json(self) -> dict[str, object]:
        return {
            "rate": self.rate,
            "brokers": [
                {
                    "broker": b,
                    "leader_rate": self.shown.get(b, {}).get(LEADER_RATE),
                    "follower_rate": self.shown.get(b, {}).get(FOLLOWER_RATE),
                    "ok": all(self.shown.get(b, {}).get(k) == str(self.rate) for k in RATES),
                }
                for b in self.brokers
            ],
            "ok": self.verified,
        }


async def read_rates(admin: AdminPort, brokers: Sequence[int]) -> dict[int, dict[str, str | None]]:
    """Each broker's two throttle rates, from the broker itself (it describes only its own);
    a broker that cannot be read is left out."""

    async def rates(broker: int) -> dict[str, str | None] | None:
        try:
            return await admin.broker_configs(broker, list(RATES))
        except AdminError:
            return None

    found = await asyncio.gather(*(rates(b) for b in brokers))
    return {b: v for b, v in zip(brokers, found, strict=True) if v is not None}


async def change_throttle_rate(
    admin: AdminPort, rate: int, brokers: Sequence[int] | None = None
) -> RateChange:
    """Change the replication throttle rate (leader and follower) of a running move: on
    `brokers`, default every broker a reassignment in progress uses (the replicas, adding,
    removing and staying). The topics' throttled replica lists are left as they are. One
    audit line ("throttle rate"); the rates are read back from every broker involved
    (`RateChange.verified`). Raises `NothingToThrottle` when no reassignment is in progress
    and no broker is named."""
    if rate < 1:
        raise UsageError("a replication throttle must be at least 1 byte per second")
    chosen = sorted(set(brokers)) if brokers is not None else sorted((await busy(admin)).brokers)
    if not chosen:
        raise NothingToThrottle()
    await admin.set_throttle_rate(chosen, rate)
    return RateChange(rate, chosen, await read_rates(admin, chosen))


class NothingToThrottle(AdminError):
    def __init__(self) -> None:
        super().__init__(
            "NO_REASSIGNMENT_IN_PROGRESS",
            "No reassignment is in progress: there is no running move whose throttle to change.",
        )
