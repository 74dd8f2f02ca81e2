"""The one replica placer (KIP-409): every assignment kafka-tui sends is decided here.

Single creates, partition increases and bulk plans all call `place`, so a preview shows exactly
what will be sent. Pure and deterministic: sorted inputs, ties broken by broker id, no clock,
no randomness, no `hash()`.

Rules, in priority order:
0. a broker whose every log directory is cordoned (KIP-1066, Kafka 4.3+) takes no new replica
   (Kafka's own placer skips it, its controller refuses an assignment naming it): the call
   places as if it were not there, and names it in each Placement's `warning`;
1. the leader (first replica) is a live broker; a partition never holds a broker twice;
2. the mode decides which brokers may hold followers (see `Mode`), and enabled modes keep at
   least `min_live_replicas` replicas of every partition on live brokers;
3. a partition's replicas sit on distinct racks while the racks allow. Brokers without a rack
   form one rack together ("no rack"), as in Kafka's own StripedReplicaPlacer;
4. a topic's replicas spread over as many brokers as possible, except brokers already at
   their fair share of the call's end state (on a skewed cluster new topics fill the light
   brokers instead of topping up the heavy ones);
5. replicas balance across brokers, counting the cluster's current load and every earlier
   request of the same call (so 1,000 topics come out like one big topic); with uneven racks
   rule 3 wins, and a small rack's brokers carry more than the average;
6. among equally loaded brokers, the one that has shared fewest partitions with this
   partition's replicas so far (spreads replica pairs), then the lowest id;
7. the leader is the live member leading fewest (this topic first, then the cluster), then
   leadership shifts inside the topic's partitions until no broker leads two more than one
   it can hand a partition to (`leaders.py`). Replica counts never move for leaders.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Literal

from kafka_tui.fields import Field, Remedy
from kafka_tui.planning.balance import Balancer, PartitionChoice

Mode = Literal["disabled", "enabled", "enabled_prefer_observed"]
"""KIP-409's modes.

disabled: every replica on a live broker; a replication factor above the live brokers is refused.
enabled: live brokers first, then observed offline brokers, then placeholders.
enabled_prefer_observed: spread over every observed broker and rack, live or not.
"""
MODES: tuple[Mode, ...] = ("disabled", "enabled", "enabled_prefer_observed")

INVALID_REPLICATION_FACTOR = "INVALID_REPLICATION_FACTOR"
INVALID_PARTITIONS = "INVALID_PARTITIONS"
# The most replicas placed for one topic (partitions x replication factor). Beyond what
# either kind of cluster takes in one topic by default: a KRaft controller writes at most
# 10,000 records per request (QuorumController's MAX_RECORDS_PER_USER_OP), a ZooKeeper-mode
# topic's assignment is one znode of at most 1 MB (jute.maxbuffer): some 60,000-80,000
# partitions, ~13-17 bytes of JSON each. Placing this many takes ~1 s. Without a bound, a count
# typed by mistake (2,000,000,000 partitions) had the placer fill the memory until the
# process was killed, in the CLI and in the TUI's preview.
MAX_PLACED_REPLICAS = 250_000


@dataclass(frozen=True)
class Broker:
    id: int
    rack: str | None
    live: bool  # False: observed (registered / known to belong) but offline
    # Every log directory of it is cordoned (KIP-1066): it takes no new replica.
    cordoned: bool = False


@dataclass(frozen=True)
class Request:
    topic: str
    partitions: int  # how many partitions to place (for a grow: the new ones only)
    replication_factor: int
    # max(min required RF, min.insync.replicas); disabled mode ignores it (all replicas live).
    min_live_replicas: int = 1
    # For a grow: the topic's current partitions, so the new ones spread against them too.
    existing: tuple[tuple[int, ...], ...] = ()


@dataclass(frozen=True)
class Placement:
    topic: str
    # One replica list per placed partition, leader first (always live); placeholders are
    # negative, -1, -2, ... numbered within each partition, after the real replicas.
    assignment: tuple[tuple[int, ...], ...]
    # Per placed partition, the preferred rack of each placeholder (-1 first); () when none.
    placeholder_racks: tuple[tuple[str | None, ...], ...]
    # Indexes of placed partitions with fewer replicas on live brokers than the RF.
    under_replicated: tuple[int, ...]
    error: str | None = None  # Kafka error name when refused; the assignment is then empty
    message: str = ""  # the refusal reason, or a summary of the under-replication
    remedies: tuple[Remedy, ...] = ()  # what would let a refused request through
    warning: str = ""  # brokers left out of the placement (cordoned), named; "" when none


@dataclass
class Load:
    """Replicas and leaders per broker id. Placeholders (negative ids) are not load."""

    replicas: dict[int, int] = field(default_factory=dict)
    leaders: dict[int, int] = field(default_factory=dict)

    @classmethod
    def from_assignments(cls, assignments: Iterable[Sequence[int]]) -> Load:
        load = cls()
        load._add(assignments)
        return load

    def plus(self, placements: Iterable[Placement]) -> Load:
        """A new Load with the placements' replicas added (this one is left unchanged)."""
        return self.with_assignments(r for p in placements for r in p.assignment)

    def with_assignments(self, assignments: Iterable[Sequence[int]]) -> Load:
        """A new Load with these replica lists added (this one is left unchanged)."""
        load = Load(dict(self.replicas), dict(self.leaders))
        load._add(assignments)
        return load

    def _add(self, assignments: Iterable[Sequence[int]]) -> None:
        for replicas in assignments:
            for position, broker in enumerate(replicas):
                if broker < 0:
                    continue
                self.replicas[broker] = self.replicas.get(broker, 0) + 1
                if position == 0:
                    self.leaders[broker] = self.leaders.get(broker, 0) + 1


def place(
    brokers: Sequence[Broker],
    load: Load,
    requests: Sequence[Request],
    mode: Mode = "disabled",
    fair_share: int | None = None,
) -> list[Placement]:
    """One Placement per request, in order. Refused requests add no load for later ones.

    `fair_share`: replicas per broker past which a broker no longer draws a topic's spread
    (default: the even share of this call's end state). A job that places groups of topics
    apart passes the whole plan's share, so every group judges "overloaded" alike.
    """
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; expected one of {', '.join(MODES)}")
    every = sorted(brokers, key=lambda broker: broker.id)
    for before, after in pairwise(every):
        if before.id == after.id:
            raise ValueError(f"broker {after.id} is listed twice")
    if every and every[0].id < 0:
        raise ValueError(f"broker ids are never negative (got {every[0].id})")
    ordered = [broker for broker in every if not broker.cordoned]
    warning = cordon_warning(every)
    rack_names = sorted({broker.rack for broker in ordered}, key=_rack_order)
    rack_index = {name: index for index, name in enumerate(rack_names)}
    balancer = Balancer(
        ids=[broker.id for broker in ordered],
        racks=[rack_index[broker.rack] for broker in ordered],
        live=[broker.live for broker in ordered],
        replicas=[load.replicas.get(broker.id, 0) for broker in ordered],
        leaders=[load.leaders.get(broker.id, 0) for broker in ordered],
        rack_count=len(rack_names),
        full_at=_fair_share(ordered, load, requests, mode) if fair_share is None else fair_share,
    )
    # A placeholder's rack helps only when there are racks to choose between.
    placeholder_rack_names: list[str | None] = (
        list(rack_names) if len(rack_names) > 1 else [None] * len(rack_names)
    )
    live = [broker.id for broker in ordered if broker.live]
    offline = [broker.id for broker in ordered if not broker.live]
    results = []
    # The Placement made from each remembered state (see Balancer.place_topic): a topic
    # starting from a state met before in this call was replayed, and shares its tuples,
    # under its own name.
    made: dict[tuple[int, ...], Placement] = {}
    for request in requests:
        refusal = _refusal(request, live, offline, mode)
        if refusal is not None:
            error, why, remedies = refusal
            if warning and error == INVALID_REPLICATION_FACTOR:
                why = f"{why} {warning}"
            results.append(Placement(request.topic, (), (), (), error, why, remedies, warning))
            continue
        choices = balancer.place_topic(
            request.partitions,
            request.replication_factor,
            mode,
            max(1, request.min_live_replicas),
            request.existing,
        )
        key = balancer.last_key
        same = made.get(key) if key is not None else None
        if same is not None:
            results.append(
                Placement(
                    request.topic,
                    same.assignment,
                    same.placeholder_racks,
                    same.under_replicated,
                    None,
                    same.message,
                    warning=warning,
                )
            )
            continue
        placement = _placement(request, choices, placeholder_rack_names, offline, warning)
        if key is not None:
            made[key] = placement
        results.append(placement)
    return results


def _fair_share(
    brokers: Sequence[Broker], load: Load, requests: Sequence[Request], mode: Mode
) -> int:
    """Replicas per broker once the call is done, if it spread evenly (rounded up)."""
    holders = [b.id for b in brokers if b.live or mode == "enabled_prefer_observed"]
    if not holders:
        return 0
    live = [b.id for b in brokers if b.live]
    offline = [b.id for b in brokers if not b.live]
    new = sum(
        request.partitions * request.replication_factor
        for request in requests
        if _refusal(request, live, offline, mode) is None
    )
    total = new + sum(load.replicas.get(broker, 0) for broker in holders)
    return -(-total // len(holders))


def cordon_warning(brokers: Sequence[Broker]) -> str:
    """The sentence naming the brokers that take no new replica because every log directory
    of theirs is cordoned (KIP-1066); "" when none is."""
    cordoned = sorted(broker.id for broker in brokers if broker.cordoned)
    if not cordoned:
        return ""
    if len(cordoned) == 1:
        return (
            f"Broker {cordoned[0]} takes no new replica: every log directory of it is "
            "cordoned (cordoned.log.dirs, KIP-1066)."
        )
    return (
        f"Brokers {_join(cordoned)} take no new replica: every log directory of theirs is "
        "cordoned (cordoned.log.dirs, KIP-1066)."
    )


def _rack_order(rack: str | None) -> tuple[bool, str]:
    return (rack is not None, rack or "")


MINIMUM_WORDS = "(the larger of the minimum required replication factor and min.insync.replicas)"


def _refusal(
    request: Request, live: Sequence[int], offline: Sequence[int], mode: Mode
) -> tuple[str, str, tuple[Remedy, ...]] | None:
    factor = request.replication_factor
    if request.partitions < 1:
        return (
            INVALID_PARTITIONS,
            (f"The number of partitions must be at least 1, not {request.partitions}."),
            (),
        )
    if factor < 1:
        return (
            INVALID_REPLICATION_FACTOR,
            (f"The replication factor must be at least 1, not {factor}."),
            (),
        )
    if request.partitions * factor > MAX_PLACED_REPLICAS:
        return (
            INVALID_PARTITIONS,
            (
                f"{request.partitions:,} partitions x replication factor {factor} is "
                f"{request.partitions * factor:,} replicas to place; kafka-tui places at most "
                f"{MAX_PLACED_REPLICAS:,} for one topic, more than either kind of cluster "
                "takes in one topic by default (KRaft: 10,000 metadata records per request; "
                "ZooKeeper mode: the topic's assignment in one znode of 1 MB). Check the counts."
            ),
            (),
        )
    if not live:
        known = f" ({_offline_phrase(offline)})" if offline else ""
        return (
            INVALID_REPLICATION_FACTOR,
            (f"No broker is live{known}: a partition's leader must be a live broker."),
            (),
        )
    if mode == "disabled":
        if factor <= len(live):
            return None
        why = f" ({_offline_phrase(offline)})" if offline else ""
        return (
            INVALID_REPLICATION_FACTOR,
            f"Replication factor {factor} needs {factor} live brokers, but only "
            f"{_count(len(live), 'is', 'are')} live{why}.",
            (under_replicated_remedy(len(live)),),
        )
    needed = max(1, request.min_live_replicas)
    if needed > factor:
        return (
            INVALID_REPLICATION_FACTOR,
            (
                f"Replication factor {factor} cannot keep {needed} replicas on live brokers "
                f"{MINIMUM_WORDS}: lower that minimum or raise the replication factor."
            ),
            (),
        )
    if len(live) < needed:
        return (
            INVALID_REPLICATION_FACTOR,
            (
                f"Replication factor {factor} needs at least {needed} replicas on live brokers "
                f"{MINIMUM_WORDS}, but only {_count(len(live), 'broker is', 'brokers are')} live: "
                f"{', '.join(map(str, live))}."
            ),
            (),
        )
    return None


def under_replicated_remedy(live: int, purpose: str = "to create it under-replicated") -> Remedy:
    """An enabled mode, or a minimum of live replicas (which implies it)."""
    return Remedy(
        ((Field.UNDER_REPLICATED_MODE, "enabled"), (Field.MIN_REQUIRED_RF, str(max(1, live)))),
        purpose,
    )


def _placement(
    request: Request,
    choices: list[PartitionChoice],
    rack_names: list[str | None],
    offline: list[int],
    warning: str = "",
) -> Placement:
    factor = request.replication_factor
    assignment = []
    placeholder_racks = []
    under_replicated = []
    for position, choice in enumerate(choices):
        placeholders = tuple(-slot for slot in range(1, len(choice.placeholder_racks) + 1))
        assignment.append(tuple(choice.brokers) + placeholders)
        placeholder_racks.append(tuple(rack_names[rack] for rack in choice.placeholder_racks))
        if choice.live < factor:
            under_replicated.append(position)
    message = ""
    if under_replicated:
        used = {broker for choice in choices for broker in choice.brokers}
        reasons = []
        offline_used = [broker for broker in offline if broker in used]
        if offline_used:
            reasons.append(_offline_phrase(offline_used))
        missing = max(len(choice.placeholder_racks) for choice in choices)
        if missing:
            slots = ", ".join(str(-slot) for slot in range(1, missing + 1))
            reasons.append(
                f"{missing} replica per partition is a placeholder ({slots}), "
                "filled when a broker joins"
                if missing == 1
                else f"{missing} replicas per partition are placeholders ({slots}), "
                "filled when brokers join"
            )
        share = (
            f"All {len(choices)} partitions"
            if len(under_replicated) == len(choices) > 1
            else f"{len(under_replicated)} of {len(choices)} partitions"
            if len(choices) > 1
            else "The partition"
        )
        message = f"{share} will be under-replicated: {'; '.join(reasons)}."
    return Placement(
        topic=request.topic,
        assignment=tuple(assignment),
        placeholder_racks=tuple(placeholder_racks),
        under_replicated=tuple(under_replicated),
        message=message,
        warning=warning,
    )


def _join(ids: Sequence[int]) -> str:
    words = [str(broker) for broker in ids]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def _offline_phrase(ids: Sequence[int]) -> str:
    if len(ids) == 1:
        return f"broker {ids[0]} is offline"
    return f"brokers {_join(ids)} are offline"


def _count(number: int, singular: str, plural: str) -> str:
    return f"{number} {singular if number == 1 else plural}"
