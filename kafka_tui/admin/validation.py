"""Client-side checks that refuse what the cluster would refuse, with the cluster's own words.

Each check returns None or a ValidationError carrying the Kafka error name the broker would
answer with, so a refused topic reads the same whether it was stopped here or by the broker.
The messages follow Kafka's (Topic.validate, ReplicationControlManager, TopicCommand).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

from .config_rules import Release, refusal
from .errors import ValidationError, sentence
from .model import NewPartitions, TopicSpec

MAX_NAME_LENGTH = 249
_LEGAL = re.compile(r"[a-zA-Z0-9._-]+")
MAX_REPLICATION_FACTOR = 32767
# Partition counts and broker ids are INT32 on the wire; a larger number cannot be sent.
MAX_INT32 = 2**31 - 1

COLLISION_WARNING = (
    "Due to limitations in metric names, topics with a period ('.') or underscore ('_') "
    "could collide. To avoid issues it is best to use either, but not both."
)


def _error(name: str, topic: str, detail: str) -> ValidationError:
    return ValidationError(name, sentence(name, topic, detail, checked_here=True), topic)


def topic_name_problem(topic: str) -> str | None:
    """Kafka's own message for an illegal topic name, or None when the name is legal."""
    if not topic:
        return "Topic name is illegal, it can't be empty"
    if topic in (".", ".."):
        return 'Topic name cannot be "." or ".."'
    if len(topic) > MAX_NAME_LENGTH:
        return (
            f"Topic name is illegal, it can't be longer than {MAX_NAME_LENGTH} characters, "
            f"topic name: {topic}"
        )
    if not _LEGAL.fullmatch(topic):
        return (
            f'Topic name "{topic}" is illegal, it contains a character other than ASCII '
            "alphanumerics, '.', '_' and '-'"
        )
    return None


def collision_warning(topic: str) -> str | None:
    return COLLISION_WARNING if "." in topic and "_" in topic else None


def check_name(topic: str) -> ValidationError | None:
    problem = topic_name_problem(topic)
    return _error("INVALID_TOPIC_EXCEPTION", topic, problem) if problem else None


def duplicates(names: Iterable[str]) -> set[str]:
    return {name for name, n in Counter(names).items() if n > 1}


def duplicate_error(topic: str, operation: str) -> ValidationError:
    return _error(
        "INVALID_REQUEST",
        topic,
        f"the {operation} request names topic '{topic}' more than once; each topic may "
        "appear once per request",
    )


def _check_replica_lists(
    topic: str, lists: list[list[int]], first_partition: int
) -> ValidationError | None:
    # The usual case first, in one pass of builtins (2,000 placed topics: 7 ms -> 2 ms);
    # any doubt goes through the checks below, which name the problem.
    n = len(lists[0]) if lists else 0
    for r in lists:
        if not n or len(r) != n or len(set(r)) != n or min(r) < 0 or max(r) > MAX_INT32:
            break
    else:
        return None
    lengths = {len(replicas) for replicas in lists}
    for offset, replicas in enumerate(lists):
        partition = first_partition + offset
        if not replicas:
            return _error(
                "INVALID_REPLICA_ASSIGNMENT",
                topic,
                f"The replica assignment for partition {partition} is empty.",
            )
        if len(set(replicas)) != len(replicas):
            return _error(
                "INVALID_REPLICA_ASSIGNMENT",
                topic,
                f"Duplicate brokers not allowed in replica assignment: "
                f"{', '.join(map(str, replicas))} for partition id {partition}.",
            )
        if any(b < 0 for b in replicas):
            return _error(
                "INVALID_REPLICA_ASSIGNMENT",
                topic,
                f"Partition {partition} names a negative broker id: {replicas}.",
            )
        if any(b > MAX_INT32 for b in replicas):
            return _error(
                "INVALID_REPLICA_ASSIGNMENT",
                topic,
                f"Partition {partition} names a broker id above {MAX_INT32}: {replicas}.",
            )
    if len(lengths) > 1:
        return _error(
            "INVALID_REPLICA_ASSIGNMENT",
            topic,
            "All partitions must have the same number of replicas "
            f"(found lists of {', '.join(map(str, sorted(lengths)))} replicas).",
        )
    return None


def check_spec(
    spec: TopicSpec, *, lists: bool = True, releases: Sequence[Release] = ()
) -> ValidationError | None:
    """`lists=False`: the replica lists are not checked (the placer made them). `releases`:
    the Kafka releases of the brokers asked (config_rules.py refuses what they refuse)."""
    if (err := check_name(spec.name)) is not None:
        return err
    if spec.assignment is not None and (
        spec.partitions is not None or spec.replication_factor is not None
    ):
        return _error(
            "INVALID_REQUEST",
            spec.name,
            "Both numPartitions or replicationFactor and replicasAssignments were set. "
            "Both cannot be used at the same time.",
        )
    if spec.assignment is not None and lists:
        if not spec.assignment:
            return _error("INVALID_REPLICA_ASSIGNMENT", spec.name, "The assignment is empty.")
        partitions = sorted(spec.assignment)
        if partitions != list(range(len(partitions))):
            return _error(
                "INVALID_REPLICA_ASSIGNMENT",
                spec.name,
                f"Partitions should be a consecutive 0-based integer sequence, got {partitions}.",
            )
        replicas = [spec.assignment[p] for p in partitions]
        if (err := _check_replica_lists(spec.name, replicas, 0)) is not None:
            return err
    if spec.partitions is not None and spec.partitions <= 0:
        return _error(
            "INVALID_PARTITIONS",
            spec.name,
            f"Number of partitions was set to an invalid non-positive value ({spec.partitions}).",
        )
    if spec.partitions is not None and spec.partitions > MAX_INT32:
        return _error(
            "INVALID_PARTITIONS",
            spec.name,
            f"Number of partitions ({spec.partitions}) is above the maximum, {MAX_INT32}.",
        )
    if (
        spec.replication_factor is not None
        and not 0 < spec.replication_factor <= MAX_REPLICATION_FACTOR
    ):
        return _error(
            "INVALID_REPLICATION_FACTOR",
            spec.name,
            "Replication factor must be larger than 0 and at most "
            f"{MAX_REPLICATION_FACTOR} (was {spec.replication_factor}).",
        )
    for key, value in spec.configs.items():
        if not key.strip():
            return _error("INVALID_CONFIG", spec.name, "A config key is empty.")
        if (words := refusal(key, value, releases)) is not None:
            return _error("INVALID_CONFIG", spec.name, words)
    return None


def check_new_partitions(
    request: NewPartitions, current: int, replication_factor: int
) -> ValidationError | None:
    """Validate a KIP-195 increase against the topic's current partition count and RF."""
    topic = request.topic
    if request.total <= current:
        detail = (
            f"Topic already has {current} partition(s)."
            if request.total == current
            else f"The topic has {current} partition(s), which is more than the requested "
            f"{request.total}; partitions can only be added."
        )
        return _error("INVALID_PARTITIONS", topic, detail)
    if request.total > MAX_INT32:
        return _error(
            "INVALID_PARTITIONS",
            topic,
            f"The new partition count ({request.total}) is above the maximum, {MAX_INT32}.",
        )
    if request.assignment is None:
        return None
    added = request.total - current
    if len(request.assignment) != added:
        return _error(
            "INVALID_REPLICA_ASSIGNMENT",
            topic,
            f"Attempted to add {added} additional partition(s), but "
            f"{len(request.assignment)} assignment(s) were specified.",
        )
    if (err := _check_replica_lists(topic, request.assignment, current)) is not None:
        return err
    lengths = {len(replicas) for replicas in request.assignment}
    if lengths != {replication_factor}:
        return _error(
            "INVALID_REPLICA_ASSIGNMENT",
            topic,
            f"The new partitions need {replication_factor} replica(s) each, the topic's "
            f"replication factor; got {', '.join(map(str, sorted(lengths)))}.",
        )
    return None
