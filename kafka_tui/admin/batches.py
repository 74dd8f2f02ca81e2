"""Pure helpers for batch operations: per-topic results, request splitting, wire specs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from . import protocol
from .errors import AdminError, KafkaRequestError
from .model import TopicResult, TopicSpec

T = TypeVar("T")

# KRaft refuses one user operation that would write more than this many metadata records
# (QuorumController's MAX_RECORDS_PER_USER_OP); a topic costs 1 + partitions + configs.
MAX_RECORDS_PER_REQUEST = 10_000
# Refused for deletion even before they exist (Kafka creates some of them on first use).
KNOWN_INTERNAL_TOPICS = frozenset(
    {"__consumer_offsets", "__transaction_state", "__share_group_state", "__remote_log_metadata"}
)


def failed(err: AdminError, topic: str) -> TopicResult:
    return TopicResult(topic, ok=False, error=err.name, message=err.message)


def from_code(topic: str, code: int, detail: str | None) -> TopicResult:
    err = KafkaRequestError.from_code(code, topic, detail)
    return failed(err, topic)


def merge(
    names: Sequence[str],
    refused: dict[int, TopicResult],
    answers: dict[str, dict[str, Any]],
    success: Callable[[int, dict[str, Any]], TopicResult],
) -> dict[int, TopicResult]:
    """One result per position: refused before sending, the broker's error, or `success`."""
    results = dict(refused)
    for i, name in enumerate(names):
        if i in results:
            continue
        answer = answers.get(name)
        if answer is None:
            results[i] = from_code(name, -1, "the broker's answer did not mention this topic")
        elif answer["error_code"]:
            results[i] = from_code(name, answer["error_code"], answer.get("error_message"))
        else:
            results[i] = success(i, answer)
    return results


def creatable(spec: TopicSpec) -> protocol.CreatableTopic:
    # -1 asks for the broker's default (or, with an assignment, its size). A spec with both
    # counts and an assignment is sent as given, for the broker to refuse.
    return protocol.CreatableTopic(
        spec.name,
        -1 if spec.partitions is None else spec.partitions,
        -1 if spec.replication_factor is None else spec.replication_factor,
        # Not copied: the request is built from them at once (copies cost ~3 ms per 2,000).
        spec.assignment or {},
        spec.configs,
    )


def as_requested(spec: TopicSpec, topic: dict[str, Any]) -> bool:
    """Whether a topic's Metadata entry is what `spec` asked for (its assignment exactly, or
    its counts): how a create whose answer was lost is recognised as done."""
    parts = sorted(topic["partitions"], key=lambda p: p["partition_index"])
    if spec.assignment:
        return [list(p["replica_nodes"]) for p in parts] == [
            list(spec.assignment[i]) for i in sorted(spec.assignment)
        ]
    return (spec.partitions is None or len(parts) == spec.partitions) and (
        spec.replication_factor is None
        or all(len(p["replica_nodes"]) == spec.replication_factor for p in parts)
    )


def create_cost(spec: TopicSpec) -> int:
    partitions = len(spec.assignment) if spec.assignment else (spec.partitions or 1)
    return 1 + partitions + len(spec.configs)


def chunks(items: Sequence[T], cost: Callable[[T], int]) -> list[list[T]]:
    """Split into as few requests as the controller accepts (records per request)."""
    chunks: list[list[T]] = []
    current: list[T] = []
    budget = 0
    for item in items:
        c = cost(item)
        if current and budget + c > MAX_RECORDS_PER_REQUEST:
            chunks.append(current)
            current, budget = [], 0
        current.append(item)
        budget += c
    if current:
        chunks.append(current)
    return chunks
