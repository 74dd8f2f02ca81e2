"""Leader elections (ElectLeaders, API 43; KIP-460): preferred or unclean, per partition.

kafka-leader-election.sh's request. It goes to the controller: a ZooKeeper-mode broker
that is not the controller answers NOT_CONTROLLER for each partition (not for the request
as a whole); KRaft brokers forward it. Each partition gets its own answer:
ELECTION_NOT_NEEDED (the partition already has the leader the election would give it) is
no failure. A ZooKeeper-mode controller's broker answers once its own metadata shows the
new leaders (or the timeout passes: REQUEST_TIMED_OUT); a KRaft controller once the change
is committed. Other brokers may show the new leader a moment later.

In a module of its own, imported only where leaders are elected (see moves.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import TYPE_CHECKING

from . import audit_log as audit
from .errors import error_name, sentence
from .protocol_cluster import (
    ELECTION_PREFERRED,
    ELECTION_UNCLEAN,
    ElectLeadersRequest,
    PartitionAnswers,
)

if TYPE_CHECKING:
    from .connection import AdminConnection

NOT_CONTROLLER = 41
ELECTION_NOT_NEEDED = "ELECTION_NOT_NEEDED"
_ELECTION_NOT_NEEDED_CODE = 84
_NOT_CONTROLLER_RETRIES = 3


class ElectionType(Enum):
    """PREFERRED: the first replica leads again, if it is live and in sync. UNCLEAN: a
    partition without a leader takes any live replica, in sync or not (it may lose the
    messages that replica never got)."""

    PREFERRED = "preferred"
    UNCLEAN = "unclean"

    @property
    def wire(self) -> int:
        return ELECTION_PREFERRED if self is ElectionType.PREFERRED else ELECTION_UNCLEAN


@dataclass(frozen=True)
class ElectionResult:
    """One partition's answer. `ok`: the partition has the leader asked for — elected now,
    or already (`error` ELECTION_NOT_NEEDED, which is no failure)."""

    topic: str
    partition: int
    ok: bool
    error: str | None = None
    message: str = ""
    # False where the broker cannot say ELECTION_NOT_NEEDED: Kafka 2.2-2.3 (ElectLeaders v0,
    # before KIP-460) answers a partition already led by its preferred replica as elected.
    says_not_needed: bool = True


def _what(topic: str, partition: int) -> str:
    return f"Partition '{topic}'-{partition}"


def election_result(
    topic: str, partition: int, code: int, detail: str | None, election: ElectionType
) -> ElectionResult:
    what = _what(topic, partition)
    if not code:
        text = (
            f"{what}: its preferred replica was elected leader."
            if election is ElectionType.PREFERRED
            else f"{what}: a leader was elected (unclean: messages its old in-sync replicas "
            "had and this replica did not are lost)."
        )
        return ElectionResult(topic, partition, True, None, text)
    name = error_name(code)
    if name == ELECTION_NOT_NEEDED:
        detail = None  # Kafka's "Leader election not needed for topic partition." adds nothing
    text = sentence(name, topic, detail, subject=what)
    return ElectionResult(topic, partition, name == ELECTION_NOT_NEEDED, name, text)


def not_needed(topic: str, partition: int) -> ElectionResult:
    """The answer Kafka 2.4+ gives a partition already led as asked."""
    return election_result(
        topic, partition, _ELECTION_NOT_NEEDED_CODE, None, ElectionType.PREFERRED
    )


async def elect_leaders(
    admin: AdminConnection,
    partitions: Sequence[tuple[str, int]],
    election: ElectionType,
    timeout_ms: int,
) -> list[ElectionResult]:
    """One result per distinct (topic, partition), in the order given. Audited."""
    wanted = list(dict.fromkeys(partitions))
    return await audit.audited(
        admin,
        "leaders elect",
        list(dict.fromkeys(t for t, _ in wanted)),
        {"election": election.value, "partitions": len(wanted)},
        _elect(admin, wanted, election, timeout_ms),
        skip=not wanted,
    )


async def _elect(
    admin: AdminConnection,
    wanted: list[tuple[str, int]],
    election: ElectionType,
    timeout_ms: int,
) -> list[ElectionResult]:
    if not wanted:
        return []
    answers: dict[tuple[str, int], tuple[int, str | None]] = {}
    pending = wanted
    version = -1
    for attempt in range(_NOT_CONTROLLER_RETRIES):
        if attempt:
            # The controller moved: read the new one (ZooKeeper mode answers per partition).
            admin._controller_read = None
            await admin._refresh_brokers()
        response = await _send(admin, pending, election, timeout_ms)
        version = response.version
        top = response.error_code
        if top and top != NOT_CONTROLLER:
            # The whole request refused (e.g. CLUSTER_AUTHORIZATION_FAILED): every partition.
            answers.update(dict.fromkeys(pending, (top, None)))
            break
        bounced = set(pending) if top else set()
        for p in response.partitions:
            key = (p.topic, p.partition)
            if p.error_code == NOT_CONTROLLER:
                bounced.add(key)
            else:
                answers[key] = (p.error_code, p.error_message)
        pending = [k for k in pending if k in bounced]
        if not pending:
            break
    bounced_still = set(pending)
    says_not_needed = version != 0
    results = []
    for topic, partition in wanted:
        code, detail = answers.get(
            (topic, partition),
            (NOT_CONTROLLER, None)
            if (topic, partition) in bounced_still
            else (-1, "The controller did not answer for this partition."),
        )
        result = election_result(topic, partition, code, detail, election)
        results.append(replace(result, says_not_needed=says_not_needed))
    return results


async def _send(
    admin: AdminConnection,
    partitions: list[tuple[str, int]],
    election: ElectionType,
    timeout_ms: int,
) -> PartitionAnswers:
    by_topic: dict[str, list[int]] = {}
    for topic, partition in partitions:
        by_topic.setdefault(topic, []).append(partition)
    request = ElectLeadersRequest(election.wire, sorted(by_topic.items()), timeout_ms)
    # Sent again after a lost link: a second election of a partition already elected
    # answers ELECTION_NOT_NEEDED, which reads as done.
    return request.answer(await admin._send(request, await admin._controller(), timeout_ms))
