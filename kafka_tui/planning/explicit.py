"""KIP-409 for an assignment the operator gives (`--replica-assignment`, the forms' manual
assignment): it obeys the mode like a placed one. Pure, like the placer.

- Placeholders are written as the KIP's drafts write them, negative ids: `1:2:-1,2:3:-1`.
  They come after the partition's brokers (the first replica, the preferred leader, is a
  broker) and are numbered -1, -2, ... within the partition, as the placer numbers them.
- disabled: every replica on a live broker, no placeholder.
- enabled modes: brokers must be observed (live, or known while offline), and each partition
  keeps at least `min_live_replicas` replicas on live brokers.
- Kafka needs the same number of (real) replicas in every partition of a manual create, and
  as many as the topic has in every new partition of a grow: placeholders make up the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from kafka_tui.fields import Field, Remedy
from kafka_tui.planning.balance import PartitionChoice
from kafka_tui.planning.placement import (
    MINIMUM_WORDS,
    Broker,
    Mode,
    Placement,
    Request,
    _offline_phrase,
    _placement,
    _rack_order,
)

INVALID_REPLICA_ASSIGNMENT = "INVALID_REPLICA_ASSIGNMENT"


def check_assignment(
    brokers: Sequence[Broker],
    topic: str,
    assignment: Sequence[Sequence[int]],
    mode: Mode,
    min_live_replicas: int = 1,
    *,
    kafka_replicas: int | None = None,
    intended: int | None = None,
) -> Placement:
    """The Placement an explicit assignment amounts to, or its refusal (INVALID_REPLICA_
    ASSIGNMENT, naming the partitions and brokers concerned). For a grow: `kafka_replicas`,
    the replicas per partition the topic has in Kafka (each new partition must have as many
    real ones), and `intended`, the replication factor the topic was created with: the
    placeholders that make up the difference are the topic's own, in every mode."""
    by_id = {b.id: b for b in brokers}
    problem = _shape(assignment, by_id, kafka_replicas)
    if problem is not None:
        return _refused(topic, problem)
    real = [[b for b in replicas if b >= 0] for replicas in assignment]
    holes = [sum(1 for b in replicas if b < 0) for replicas in assignment]
    offline = sorted({b for replicas in real for b in replicas if not by_id[b].live})
    own = max(0, (intended or 0) - (kafka_replicas or 0))
    if mode == "disabled" and (offline or any(n > own for n in holes)):
        where = []
        if offline:
            where.append(_offline_phrase(offline))
        if any(holes):
            where.append("placeholders (negative ids) stand for replicas no broker holds yet")
        return _refused(
            topic,
            f"Every replica must be on a live broker in the disabled mode: {'; '.join(where)}.",
            Remedy(
                ((Field.UNDER_REPLICATED_MODE, "enabled"),),
                "to accept it under-replicated",
            ),
        )
    needed = max(1, min_live_replicas)
    short = [
        (i, n)
        for i, replicas in enumerate(real)
        if (n := sum(1 for b in replicas if by_id[b].live)) < needed
    ]
    if short:
        listed = ", ".join(f"partition {i} has {n}" for i, n in short[:5])
        more = f" (and {len(short) - 5} more)" if len(short) > 5 else ""
        return _refused(
            topic,
            f"Each partition needs at least {needed} replica(s) on live brokers "
            f"{MINIMUM_WORDS}: {listed}{more}.",
        )
    rack_names = sorted({b.rack for b in brokers}, key=_rack_order)
    rack_index = {name: i for i, name in enumerate(rack_names)}
    choices = [
        PartitionChoice(
            list(replicas),
            sum(1 for b in replicas if by_id[b].live),
            _placeholder_racks(replicas, n, by_id, rack_names, rack_index),
        )
        for replicas, n in zip(real, holes, strict=True)
    ]
    factor = len(assignment[0])
    request = Request(topic, len(assignment), factor, needed)
    names: list[str | None] = list(rack_names) if len(rack_names) > 1 else [None] * len(rack_names)
    return _placement(request, choices, names, [b.id for b in brokers if not b.live])


def _shape(
    assignment: Sequence[Sequence[int]], by_id: dict[int, Broker], kafka_replicas: int | None
) -> str | None:
    """Why the assignment cannot be sent whatever the mode, or None."""
    if not assignment or any(not replicas for replicas in assignment):
        return "Every partition needs at least one replica."
    for i, replicas in enumerate(assignment):
        twice = sorted({b for b in replicas if replicas.count(b) > 1})
        if twice:
            return f"Partition {i} names {', '.join(map(str, twice))} more than once."
        if replicas[0] < 0:
            return (
                f"Partition {i} starts with placeholder {replicas[0]}: the first replica "
                "(the preferred leader) must be a broker; placeholders come after."
            )
        if any(b < 0 <= later for b, later in pairwise(replicas)):
            return f"Partition {i}: placeholders come after the partition's brokers."
    unknown = sorted({b for replicas in assignment for b in replicas if b >= 0} - by_id.keys())
    if unknown:
        known = ", ".join(map(str, sorted(by_id))) or "none"
        return (
            f"Broker(s) {', '.join(map(str, unknown))} are not part of the cluster (known "
            f"brokers: {known}). A replica no broker can take yet is written as a "
            "placeholder, -1."
        )
    totals = {len(replicas) for replicas in assignment}
    if len(totals) > 1:
        return (
            "Every partition needs the same number of replicas, placeholders included "
            f"(found {', '.join(map(str, sorted(totals)))})."
        )
    reals = [sum(1 for b in replicas if b >= 0) for replicas in assignment]
    if kafka_replicas is not None and any(n != kafka_replicas for n in reals):
        return (
            f"Kafka needs {kafka_replicas} broker(s) in each new partition, as many as the "
            "topic's partitions have now; write the rest of the intended replication factor "
            "as placeholders (-1, ...)."
        )
    if len(set(reals)) > 1:
        return (
            "Kafka needs the same number of brokers in every partition of a manual create "
            f"(found {', '.join(map(str, sorted(set(reals))))}); give every partition as many "
            "placeholders as the others."
        )
    return None


def _placeholder_racks(
    replicas: Sequence[int],
    holes: int,
    by_id: dict[int, Broker],
    rack_names: list[str | None],
    rack_index: dict[str | None, int],
) -> list[int]:
    """Each placeholder's preferred rack: those the partition does not use yet, in order."""
    used = {by_id[b].rack for b in replicas}
    free = [r for r in rack_names if r not in used] or rack_names
    return [rack_index[free[k % len(free)]] for k in range(holes)]


def _refused(topic: str, message: str, *remedies: Remedy) -> Placement:
    return Placement(
        topic, (), (), (), INVALID_REPLICA_ASSIGNMENT, f"Topic '{topic}': {message}", remedies
    )
