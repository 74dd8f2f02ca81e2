"""Pure helpers for batch operations: per-topic results, request splitting, wire specs."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import TypeVar

from . import protocol
from .errors import AdminError, KafkaRequestError, sentence
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
    answers: dict[str, protocol.TopicAnswer],
    success: Callable[[int, protocol.TopicAnswer], TopicResult],
) -> dict[int, TopicResult]:
    """One result per position: refused before sending, the broker's error, or `success`."""
    results = dict(refused)
    for i, name in enumerate(names):
        if i in results:
            continue
        answer = answers.get(name)
        if answer is None:
            results[i] = from_code(name, -1, "the broker's answer did not mention this topic")
        elif answer.error_code:
            results[i] = from_code(name, answer.error_code, answer.error_message)
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


def as_requested(spec: TopicSpec, topic: protocol.MetadataTopic) -> bool:
    """Whether a topic's Metadata entry is what `spec` asked for (its assignment exactly, or
    its counts): how a create whose answer was lost is recognised as done."""
    parts = sorted(topic.partitions, key=lambda p: p.partition_index)
    if spec.assignment:
        return [list(p.replica_nodes) for p in parts] == [
            list(spec.assignment[i]) for i in sorted(spec.assignment)
        ]
    return (spec.partitions is None or len(parts) == spec.partitions) and (
        spec.replication_factor is None
        or all(len(p.replica_nodes) == spec.replication_factor for p in parts)
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


# -- reads about many topics (issue 30) ----------------------------------------------------

# Topics per read request (Metadata by name, DescribeConfigs, DescribeLogDirs,
# ListPartitionReassignments): a broker answers bigger requests more slowly per topic
# (bench/README.md, "Figures behind constants").
READ_BATCH = 500
# Batches in flight at once (the same section: 4 reads 10,000 topics' configs 2.4x faster).
READS_IN_FLIGHT = 4
# Worth asking again within the request timeout: the broker was busy (e.g. still loading
# thousands of new topics) or the link broke; a topic's own error (missing, not authorized)
# is not.
RETRIABLE_READ_ERRORS = frozenset(
    {
        "UNKNOWN_SERVER_ERROR",
        "REQUEST_TIMED_OUT",
        "NETWORK_EXCEPTION",
        "LEADER_NOT_AVAILABLE",
        "COORDINATOR_LOAD_IN_PROGRESS",
        "NOT_CONTROLLER",
        "KAFKA_STORAGE_ERROR",
        "THROTTLING_QUOTA_EXCEEDED",
        "CONNECTION_FAILED",
    }
)
# Errors that say something about each topic itself: reported one line per topic even when
# every topic of a batch has them (each named topic that does not exist is worth a line).
_TOPIC_OWN_ERRORS = frozenset(
    {
        "UNKNOWN_TOPIC_OR_PARTITION",
        "UNKNOWN_TOPIC_ID",
        "INVALID_TOPIC_EXCEPTION",
        "TOPIC_AUTHORIZATION_FAILED",
    }
)


def batched(items: Sequence[T], size: int = READ_BATCH) -> list[list[T]]:
    """`items` in order, `size` at a time (the last batch may be smaller)."""
    return [list(items[i : i + size]) for i in range(0, len(items), size)]


def batch_report(batch: Sequence[str], errors: Sequence[TopicResult]) -> list[TopicResult]:
    """The errors of one batch as the operator reads them: ONE result when every topic of
    a batch of several failed for one reason that is not about each topic (the request
    failed, not the topics), else one per topic, in the batch's order."""
    if (
        len(batch) > 1
        and len(errors) == len(batch)
        and len({e.error for e in errors}) == 1
        and errors[0].error not in _TOPIC_OWN_ERRORS
    ):
        name = errors[0].error or "UNKNOWN_SERVER_ERROR"
        subject = f"{len(batch)} topics ({batch[0]} ... {batch[-1]})"
        messages = {e.message for e in errors}
        if len(messages) == 1 and f"'{batch[0]}'" not in errors[0].message:
            message = f"{subject}: {errors[0].message}"  # e.g. a lost connection
        else:
            message = sentence(name, batch[0], subject=subject)
        return [TopicResult(f"{batch[0]} ... {batch[-1]}", ok=False, error=name, message=message)]
    order = {name: i for i, name in enumerate(batch)}
    return sorted(errors, key=lambda e: order.get(e.topic, len(order)))


V = TypeVar("V")


async def pipelined(
    batches: list[list[str]], read: Callable[[list[str]], Awaitable[V]]
) -> AsyncIterator[V]:
    """`read` each batch, READS_IN_FLIGHT at once, yielding the answers in order."""
    waiting = iter(batches)
    in_flight: deque[asyncio.Future[V]] = deque()

    def launch() -> None:
        batch = next(waiting, None)
        if batch is not None:
            in_flight.append(asyncio.ensure_future(read(batch)))

    for _ in range(READS_IN_FLIGHT):
        launch()
    try:
        while in_flight:
            answer = await in_flight.popleft()
            launch()
            yield answer
    finally:
        for future in in_flight:
            future.cancel()
