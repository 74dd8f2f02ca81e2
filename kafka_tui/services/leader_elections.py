"""Leader elections, kafka-leader-election.sh's job: the preview (which partitions would
change leader, and the leaders per broker before -> after) and the run (ElectLeaders at the
controller, then Metadata read until it shows the new leaders).

Preferred: a partition changes leader when its leader is not its first replica while that
replica is live and in the ISR. Unclean: a partition without a live leader takes the first
live replica (an in-sync one first), as both Kafka 3.9's and 4.x's controllers choose. Every
partition of the chosen topics is sent: Kafka answers ELECTION_NOT_NEEDED for those already
led as asked, which is no failure.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..admin import TopicDescription
from ..admin.connection import poll_until
from ..admin.elections import (
    ELECTION_NOT_NEEDED,
    ElectionResult,
    ElectionType,
    not_needed,
)
from ..admin.model import DEFAULT_TIMEOUT_MS
from .ports import AdminPort

__all__ = [
    "ELECTION_NOT_NEEDED",
    "ElectionOutcome",
    "ElectionPreview",
    "ElectionType",
    "LeaderResult",
    "PartitionLeadership",
    "TopicSelection",
    "preview_election",
    "run_election",
]

PREFERRED_LEADER_NOT_AVAILABLE = "PREFERRED_LEADER_NOT_AVAILABLE"
ELIGIBLE_LEADERS_NOT_AVAILABLE = "ELIGIBLE_LEADERS_NOT_AVAILABLE"
UNKNOWN_TOPIC = "UNKNOWN_TOPIC_OR_PARTITION"


@dataclass(frozen=True)
class TopicSelection:
    """The topics an election covers: `names`, those whose whole name `pattern` matches,
    or every topic (internal ones included, as kafka-leader-election.sh's
    --all-topic-partitions)."""

    names: Sequence[str] = ()
    pattern: re.Pattern[str] | None = None
    every_topic: bool = False

    @property
    def empty(self) -> bool:
        return not self.names and self.pattern is None and not self.every_topic


@dataclass(frozen=True)
class PartitionLeadership:
    topic: str
    partition: int
    replicas: list[int]
    isr: list[int]
    leader: int | None  # None: no live leader


@dataclass(frozen=True)
class LeaderResult:
    """One partition's outcome (or prediction, in a preview). `partition` None: the topic
    itself was not found. `ok`: the partition is (or would be) led as asked, elected now or
    already (`error` ELECTION_NOT_NEEDED)."""

    topic: str
    partition: int | None
    leader_before: int | None
    leader_after: int | None
    ok: bool
    error: str | None = None
    message: str = ""

    @property
    def elected(self) -> bool:
        """The leader changed (or would change)."""
        return self.ok and self.error is None

    def to_json(self) -> dict[str, object]:
        return {
            "topic": self.topic,
            "partition": self.partition,
            "leader_before": self.leader_before,
            "leader_after": self.leader_after,
            "ok": self.ok,
            "error": self.error,
            "message": self.message,
        }


@dataclass(frozen=True)
class ElectionPreview:
    election: ElectionType
    partitions: list[PartitionLeadership]  # every partition of the chosen topics
    results: list[LeaderResult]  # what each partition would get; then the topics not found
    leaders_before: dict[int, int]  # live broker -> partitions it leads (chosen topics)
    leaders_after: dict[int, int]
    topics: list[str] = field(default_factory=list)  # the chosen topics that exist

    @property
    def changes(self) -> list[LeaderResult]:
        return [r for r in self.results if r.elected]


@dataclass(frozen=True)
class ElectionOutcome:
    results: list[LeaderResult]
    leaders_before: dict[int, int]
    leaders_after: dict[int, int]  # as Metadata shows them after the election

    def counts(self) -> tuple[int, int, int]:
        """(elected, not needed, failed)."""
        elected = sum(1 for r in self.results if r.elected)
        not_needed = sum(1 for r in self.results if r.error == ELECTION_NOT_NEEDED)
        return elected, not_needed, len(self.results) - elected - not_needed


def _what(topic: str, partition: int) -> str:
    return f"Partition '{topic}'-{partition}"


def _leader(leader: int | None) -> str:
    return "none" if leader is None else str(leader)


def _leaderships(topics: Sequence[TopicDescription], live: set[int]) -> list[PartitionLeadership]:
    return [
        PartitionLeadership(
            t.name,
            p.partition,
            list(p.replicas),
            list(p.isr),
            p.leader if p.leader >= 0 and p.leader in live else None,
        )
        for t in topics
        for p in t.partitions
    ]


def _predict(p: PartitionLeadership, election: ElectionType, live: set[int]) -> LeaderResult:
    what = _what(p.topic, p.partition)
    if election is ElectionType.PREFERRED:
        preferred = p.replicas[0] if p.replicas else None
        if p.leader is not None and p.leader == preferred:
            return LeaderResult(
                p.topic,
                p.partition,
                p.leader,
                p.leader,
                True,
                ELECTION_NOT_NEEDED,
                f"{what} is led by its preferred replica {p.leader} already.",
            )
        if preferred is not None and preferred in live and preferred in p.isr:
            return LeaderResult(
                p.topic,
                p.partition,
                p.leader,
                preferred,
                True,
                None,
                f"{what}: would elect its preferred replica {preferred} "
                f"(leader now: {_leader(p.leader)}).",
            )
        return LeaderResult(
            p.topic,
            p.partition,
            p.leader,
            p.leader,
            False,
            PREFERRED_LEADER_NOT_AVAILABLE,
            f"{what}: its preferred replica {_leader(preferred)} cannot lead now: "
            f"{'its broker is offline' if preferred not in live else 'it is not in sync'}.",
        )
    if p.leader is not None:
        return LeaderResult(
            p.topic,
            p.partition,
            p.leader,
            p.leader,
            True,
            ELECTION_NOT_NEEDED,
            f"{what} has a leader ({p.leader}): no unclean election needed.",
        )
    candidates = [r for r in p.replicas if r in live]
    in_sync = [r for r in candidates if r in p.isr]
    if not candidates:
        return LeaderResult(
            p.topic,
            p.partition,
            None,
            None,
            False,
            ELIGIBLE_LEADERS_NOT_AVAILABLE,
            f"{what}: none of its replicas {p.replicas} is on a live broker.",
        )
    chosen = (in_sync or candidates)[0]
    return LeaderResult(
        p.topic,
        p.partition,
        None,
        chosen,
        True,
        None,
        f"{what}: would elect replica {chosen} without a leader now"
        + ("" if chosen in p.isr else " (not in sync: messages only the old ISR had are lost)")
        + ".",
    )


def _counts(leaders: Sequence[int | None], brokers: set[int]) -> dict[int, int]:
    """Partitions led per broker: every broker of `brokers` (0 if it leads none), and any
    other that leads."""
    counted = Counter(leader for leader in leaders if leader is not None)
    return {b: counted.get(b, 0) for b in sorted(brokers | set(counted))}


async def _read(
    admin: AdminPort, selection: TopicSelection
) -> tuple[list[TopicDescription], list[LeaderResult], set[int]]:
    """The chosen topics (in the order named, then the matches, sorted), results for the
    named topics that do not exist (and for a pattern nothing matched), the live brokers."""
    cluster = await admin.describe_cluster()
    live = set(cluster.live_broker_ids)
    missing: list[LeaderResult] = []
    if selection.pattern is None and not selection.every_topic:
        found, errors = await admin.describe_topics(list(selection.names), configs=False)
        missing = [
            LeaderResult(e.topic, None, None, None, False, e.error, e.message) for e in errors
        ]
        return found, missing, live
    every = {t.name: t for t in await admin.list_topics()}
    names = list(dict.fromkeys(selection.names))
    missing = [
        LeaderResult(
            n,
            None,
            None,
            None,
            False,
            UNKNOWN_TOPIC,
            f"Topic '{n}' does not exist. Check the name (topic names are case-sensitive).",
        )
        for n in names
        if n not in every
    ]
    chosen = [every[n] for n in names if n in every]
    pattern = selection.pattern
    named = set(names)
    matched = sorted(
        t
        for t in every
        if t not in named and (selection.every_topic or (pattern and pattern.fullmatch(t)))
    )
    if pattern is not None and not selection.every_topic and not matched and not names:
        missing.append(
            LeaderResult(
                pattern.pattern,
                None,
                None,
                None,
                False,
                UNKNOWN_TOPIC,
                f"No topic matches the regular expression '{pattern.pattern}'.",
            )
        )
    return chosen + [every[t] for t in matched], missing, live


async def preview_election(
    admin: AdminPort, election: ElectionType, selection: TopicSelection
) -> ElectionPreview:
    """What an election of `selection`'s partitions would do now; sends nothing."""
    topics, missing, live = await _read(admin, selection)
    partitions = _leaderships(topics, live)
    predicted = [_predict(p, election, live) for p in partitions]
    return ElectionPreview(
        election,
        partitions,
        predicted + missing,
        _counts([p.leader for p in partitions], live),
        _counts([r.leader_after for r in predicted], live),
        [t.name for t in topics],
    )


async def run_election(
    admin: AdminPort, preview: ElectionPreview, *, timeout_ms: int = DEFAULT_TIMEOUT_MS
) -> ElectionOutcome:
    """Elect the leaders of every partition the preview covers; then read Metadata until it
    shows each new leader (a ZooKeeper-mode broker other than the controller's learns of it
    a moment later), for at most the request timeout."""
    missing = [r for r in preview.results if r.partition is None]
    partitions = preview.partitions
    answers = await admin.elect_leaders(
        [(p.topic, p.partition) for p in partitions], preview.election, timeout_ms=timeout_ms
    )
    by_key = {(p.topic, p.partition): p for p in partitions}
    # Elected now, and those the controller says need none: they are led as asked already,
    # whatever the broker read for the preview showed (a ZooKeeper-mode broker learns of a
    # new leader a moment after the controller; a read from it can show the one before).
    expected = {
        (a.topic, a.partition): by_key[(a.topic, a.partition)]
        for a in answers
        if a.ok and a.error in (None, ELECTION_NOT_NEEDED)
    }
    after = await _leaders_after(admin, preview, expected)
    results = [_result(by_key[(a.topic, a.partition)], a, after) for a in answers]
    return ElectionOutcome(
        results + missing,
        preview.leaders_before,
        # The brokers counted before (every live one) and any other that leads now.
        _counts(list(after.values()), set(preview.leaders_before)),
    )


async def _leaders_after(
    admin: AdminPort,
    preview: ElectionPreview,
    expected: dict[tuple[str, int], PartitionLeadership],
) -> dict[tuple[str, int], int | None]:
    """Every covered partition's leader as Metadata shows it, once the elected ones show
    their new leader (or the request timeout passed: then as last read)."""
    seen: dict[tuple[str, int], int | None] = {}
    if not preview.topics:
        return seen

    async def shown() -> bool | None:
        found, _ = await admin.describe_topics(preview.topics, configs=False)
        seen.clear()
        for t in found:
            for p in t.partitions:
                seen[(t.name, p.partition)] = p.leader if p.leader >= 0 else None
        for key, before in expected.items():
            leader = seen.get(key)
            if preview.election is ElectionType.PREFERRED:
                if before.replicas and leader != before.replicas[0]:
                    return None
            elif leader is None:
                return None
        return True

    deadline = time.monotonic() + admin.settings.request_timeout_ms / 1000
    await poll_until(shown, deadline)
    return seen


def _result(
    before: PartitionLeadership,
    answer: ElectionResult,
    after: dict[tuple[str, int], int | None],
) -> LeaderResult:
    leader_after = after.get((answer.topic, answer.partition), before.leader)
    preferred = before.replicas[0] if before.replicas else None
    if (
        answer.ok
        and answer.error is None
        and not answer.says_not_needed
        and before.leader == preferred == leader_after
    ):
        # Kafka 2.2-2.3 answer success for a partition its preferred replica led already.
        answer = not_needed(answer.topic, answer.partition)
    # Not needed: the controller changed nothing, so the leader before is the one after.
    leader_before = leader_after if answer.error == ELECTION_NOT_NEEDED else before.leader
    message = answer.message
    if answer.ok and answer.error is None:
        message += f" Leader: {_leader(before.leader)} -> {_leader(leader_after)}."
    elif answer.ok:
        message += f" Leader: {_leader(leader_after)}."
    return LeaderResult(
        answer.topic,
        answer.partition,
        leader_before,
        leader_after,
        answer.ok,
        answer.error,
        message,
    )
