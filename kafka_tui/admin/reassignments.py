"""Moving replicas (AlterPartitionReassignments / ListPartitionReassignments) and retiring
brokers (UnregisterBroker): what filling KIP-409 placeholders and `remove-broker` need.

Both reassignment requests go to the controller: a ZooKeeper-mode broker that is not the
controller answers NOT_CONTROLLER for the whole request (KRaft brokers forward them).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from . import audit_log as audit
from . import protocol
from .batches import batched
from .connection import AdminConnection, poll_until
from .errors import AdminError, KafkaRequestError, ValidationError, error_name
from .model import DEFAULT_TIMEOUT_MS
from .protocol_cluster import (
    AlterPartitionReassignmentsRequest,
    DescribeLogDirsRequest,
    ListPartitionReassignmentsRequest,
    UnregisterBrokerRequest,
)


class _Answer(Protocol):
    @property
    def error_code(self) -> int: ...


A = TypeVar("A", bound=_Answer)
A_co = TypeVar("A_co", bound=_Answer, covariant=True)


class _ControllerRequest(Protocol[A_co]):
    def answer(self, response: Any) -> A_co: ...


if TYPE_CHECKING:
    from .partition_moves import MoveResult, OngoingReassignment, PartitionMove, ReplicationThrottle

NOT_CONTROLLER = 41
_CONTROLLER_RETRIES = 3

# Codes errors.ERROR_NAMES does not know yet (aiokafka's table misses them too).
# `{what}` is "Partition 'orders'-3" or "Broker 4"; the broker's detail follows the sentence.
_SENTENCES: dict[str, str] = {
    "NO_REASSIGNMENT_IN_PROGRESS": "{what} has no reassignment in progress, so there is "
    "nothing to cancel.",
    "INVALID_REPLICA_ASSIGNMENT": "{what}: the target replica list is invalid. It needs "
    "distinct, non-negative ids of brokers known to the cluster (KRaft: registered brokers, "
    "stopped ones included; ZooKeeper mode: every added replica must be on a live broker).",
    "UNKNOWN_TOPIC_OR_PARTITION": "{what} does not exist. Check the topic name (names are "
    "case-sensitive) and the partition number.",
    "INVALID_REQUEST": "{what}: the request is invalid.",
    "INVALID_REPLICATION_FACTOR": "{what}: the cluster refused to change the partition's "
    "replication factor.",
    "REASSIGNMENT_IN_PROGRESS": "{what} is already being reassigned. Wait for it to finish "
    "or cancel it, then try again.",
    "BROKER_ID_NOT_REGISTERED": "{what} is not registered with the controller: it was "
    "already unregistered, or never belonged to this cluster.",
    "CLUSTER_AUTHORIZATION_FAILED": "{what}: not authorized. Moving replicas and "
    "unregistering brokers need ALTER on the cluster; listing reassignments needs DESCRIBE "
    "on the cluster.",
    "REQUEST_TIMED_OUT": "{what}: the controller did not finish in time. The change may "
    "still happen; list the reassignments (or describe the cluster) before retrying.",
    "NOT_CONTROLLER": "{what}: the controller moved while the request was in flight. Retry.",
    "UNSUPPORTED_VERSION": "{what}: the cluster does not support this request (Kafka 2.4 or "
    "newer is needed for reassignments; UnregisterBroker exists only on KRaft clusters).",
    "UNKNOWN_SERVER_ERROR": "{what}: the controller failed with an unexpected error. See "
    "the controller's log.",
    "THROTTLING_QUOTA_EXCEEDED": "{what}: the cluster's mutation quota is used up. Wait a "
    "moment and retry.",
}


def _name(code: int) -> str:
    return error_name(code)


def _sentence(name: str, what: str, detail: str | None, *, checked_here: bool = False) -> str:
    template = _SENTENCES.get(name)
    text = template.format(what=what) if template else f"{what}: Kafka returned {name}."
    if detail and detail.strip() and detail.strip() not in text:
        text += f" {'Kafka would say' if checked_here else 'Kafka said'}: {detail.strip()}"
    return text


def _partition(topic: str, partition: int) -> str:
    return f"Partition '{topic}'-{partition}"


# Kafka's replication throttles: rates are dynamic broker configs, the throttled replicas
# ("partition:broker,...") topic configs; kafka-reassign-partitions sets the same four.
LEADER_RATE = "leader.replication.throttled.rate"
FOLLOWER_RATE = "follower.replication.throttled.rate"
LEADER_REPLICAS = "leader.replication.throttled.replicas"
FOLLOWER_REPLICAS = "follower.replication.throttled.replicas"
THROTTLE_RATES = (LEADER_RATE, FOLLOWER_RATE)
THROTTLED_REPLICAS = (LEADER_REPLICAS, FOLLOWER_REPLICAS)
# KIP-1066 (Kafka 4.3+): a dynamic broker config, `*` or log directories taking no new replica.
CORDONED_LOG_DIRS = "cordoned.log.dirs"


class BrokerStillLive(ValidationError):
    """Refused before sending: unregistering a running broker would pull it out from under
    its partitions; it has to be stopped first."""


def _check_move(move: PartitionMove) -> str | None:
    """What the controller would answer (INVALID_REPLICA_ASSIGNMENT) for an invalid list."""
    if move.partition < 0:
        return f"Invalid partition index {move.partition}."
    if move.replicas is None:
        return None
    if not move.replicas:
        return "Empty replica list specified in partition reassignment."
    if len(set(move.replicas)) != len(move.replicas):
        return f"Duplicate replica ids in partition reassignment replica list: {move.replicas}"
    negative = [r for r in move.replicas if r < 0]
    if negative:
        return f"Invalid broker id(s) {negative} in replica list {move.replicas}."
    return None


class AdminReassignments(AdminConnection):
    async def _send_to_controller(
        self, make: Callable[[], _ControllerRequest[A]], extra_ms: int
    ) -> A:
        """Send to the controller; resend after a top-level NOT_CONTROLLER (it moved)."""
        for _ in range(_CONTROLLER_RETRIES):
            node = await self._controller()
            request = make()
            answer = request.answer(await self._send(request, node, extra_ms))
            if answer.error_code != NOT_CONTROLLER:
                break
            await self._refresh_brokers()
        return answer

    async def alter_partition_reassignments(
        self, moves: Sequence[PartitionMove], *, timeout_ms: int = DEFAULT_TIMEOUT_MS
    ) -> list[MoveResult]:
        """Start (or cancel, replicas None) reassignments; one result per move, in order.

        A success means the controller accepted the target: the data still has to be copied.
        Use `wait_for_reassignments` to wait for the moves to finish.
        """
        cancels = sum(1 for m in moves if m.replicas is None)
        return await audit.audited(
            self,
            "reassign cancel" if moves and cancels == len(moves) else "reassign",
            list(dict.fromkeys(m.topic for m in moves)),
            {
                "partitions": len(moves),
                "cancel": cancels,
                "brokers": sorted({b for m in moves for b in m.replicas or []}),
            },
            self._alter_partition_reassignments(moves, timeout_ms),
            skip=not moves,
        )

    async def _alter_partition_reassignments(
        self, moves: Sequence[PartitionMove], timeout_ms: int
    ) -> list[MoveResult]:
        from .partition_moves import MoveResult

        refused: dict[int, MoveResult] = {}
        if self.client_side_validation:
            seen: set[tuple[str, int]] = set()
            for i, m in enumerate(moves):
                problem = _check_move(m)
                name = "INVALID_REPLICA_ASSIGNMENT"
                if problem is None and (m.topic, m.partition) in seen:
                    name = "INVALID_REQUEST"
                    problem = "The same partition appears twice in one request."
                seen.add((m.topic, m.partition))
                if problem is not None:
                    text = _sentence(
                        name, _partition(m.topic, m.partition), problem, checked_here=True
                    )
                    refused[i] = MoveResult(m.topic, m.partition, False, name, text)
        to_send = [m for i, m in enumerate(moves) if i not in refused]
        answers: dict[tuple[str, int], tuple[int, str | None]] = {}
        top_code, top_message = 0, None
        if to_send:
            by_topic: dict[str, list[tuple[int, list[int] | None]]] = {}
            for m in to_send:
                by_topic.setdefault(m.topic, []).append((m.partition, m.replicas))
            response = await self._send_to_controller(
                lambda: AlterPartitionReassignmentsRequest(
                    list(by_topic.items()),
                    timeout_ms,
                    allow_rf_change=not all(m.keeps_replication_factor for m in to_send),
                ),
                timeout_ms,
            )
            top_code, top_message = response.error_code, response.error_message
            for p in response.partitions:
                answers[(p.topic, p.partition)] = (p.error_code, p.error_message)
        results = []
        for i, m in enumerate(moves):
            if i in refused:
                results.append(refused[i])
                continue
            code, message = (
                (top_code, top_message)
                if top_code
                else answers.get(
                    (m.topic, m.partition),
                    (-1, "The controller did not answer for this partition."),
                )
            )
            results.append(self._move_result(m, code, message))
        return results

    @staticmethod
    def _move_result(move: PartitionMove, code: int, detail: str | None) -> MoveResult:
        from .partition_moves import MoveResult

        what = _partition(move.topic, move.partition)
        if code:
            name = _name(code)
            return MoveResult(
                move.topic, move.partition, False, name, _sentence(name, what, detail)
            )
        if move.replicas is None:
            text = f"{what}: reassignment cancelled; the partition returns to its replicas."
        else:
            text = f"{what}: moving to replicas {move.replicas} (started)."
        return MoveResult(move.topic, move.partition, True, None, text)

    async def list_partition_reassignments(
        self, topics: Sequence[str] | None = None
    ) -> list[OngoingReassignment]:
        """Reassignments in progress (for `topics`, or all), sorted by topic and partition.
        Topics that do not exist have none. Named topics are asked about in batches."""
        if topics is not None and not topics:
            return []
        if topics is None:
            return await self._list_partition_reassignments(None)
        ongoing: list[OngoingReassignment] = []
        # Named topics in batches: the request names every partition, and Metadata says
        # which partitions each topic has.
        for batch in batched(list(dict.fromkeys(topics))):
            query = await self._partitions_of(batch)
            if query:
                ongoing += await self._list_partition_reassignments(query)
        return sorted(ongoing, key=lambda r: (r.topic, r.partition))

    async def _partitions_of(self, topics: list[str]) -> list[tuple[str, list[int]]]:
        metadata = await self._metadata(topics)
        return [
            (t.name, sorted(p.partition_index for p in t.partitions))
            for t in metadata.topics
            if not t.error_code
        ]

    async def _list_partition_reassignments(
        self, query: list[tuple[str, list[int]]] | None
    ) -> list[OngoingReassignment]:
        from .partition_moves import OngoingReassignment

        timeout_ms = self.settings.request_timeout_ms
        response = await self._send_to_controller(
            lambda: ListPartitionReassignmentsRequest(query, timeout_ms), 0
        )
        if response.error_code:
            name = _name(response.error_code)
            raise KafkaRequestError(
                name, _sentence(name, "Listing reassignments", response.error_message)
            )
        ongoing = [
            OngoingReassignment(
                topic=p.topic,
                partition=p.partition,
                replicas=p.replicas,
                adding=p.adding_replicas,
                removing=p.removing_replicas,
            )
            for p in response.partitions
        ]
        return sorted(ongoing, key=lambda r: (r.topic, r.partition))

    async def wait_for_reassignments(
        self, partitions: Sequence[tuple[str, int]], deadline: float
    ) -> set[tuple[str, int]]:
        """Poll until none of `partitions` is being reassigned, or `deadline` (monotonic)
        passes; return those still in progress then (empty: all done)."""
        wanted = set(partitions)
        if not wanted:
            return set()
        topics = sorted({t for t, _ in wanted})
        pending: set[tuple[str, int]] = set(wanted)

        async def done() -> bool | None:
            nonlocal pending
            ongoing = await self.list_partition_reassignments(topics)
            pending = {(r.topic, r.partition) for r in ongoing} & wanted
            return True if not pending else None

        await poll_until(done, deadline)
        return pending

    async def unregister_broker(self, broker_id: int) -> None:
        """Forget a stopped KRaft broker for good (it no longer counts as observed). Raises
        BrokerStillLive for a running broker, KafkaRequestError for the controller's errors,
        AdminError UNSUPPORTED_VERSION on ZooKeeper-mode clusters."""
        await audit.audited(
            self, "broker forget", [], {"broker": broker_id}, self._unregister_broker(broker_id)
        )

    async def _unregister_broker(self, broker_id: int) -> None:
        what = f"Broker {broker_id}"
        if broker_id < 0:
            raise ValidationError(
                "INVALID_REQUEST", f"{what}: broker ids are never negative.", None
            )
        if self.client_side_validation:
            live = await self._live_brokers()
            if broker_id in live:
                raise BrokerStillLive(
                    "BROKER_STILL_LIVE",
                    f"{what} is running ({live[broker_id]}): stop it before unregistering "
                    "it. A running broker keeps serving its partitions, and unregistering it "
                    "would take it out of their in-sync replicas.",
                    None,
                )
        try:
            request = UnregisterBrokerRequest(broker_id)
            response = request.answer(await self._send(request))
        except AdminError as exc:
            if exc.name != "UNSUPPORTED_VERSION":
                raise
            raise AdminError(
                "UNSUPPORTED_VERSION",
                f"{what} cannot be unregistered: this cluster has no UnregisterBroker request "
                "(ZooKeeper mode). A stopped broker leaves /brokers/ids by itself; remove "
                "it from kafka-tui's observed brokers instead (/brokers/observed_ids).",
            ) from None
        if response.error_code:
            name = _name(response.error_code)
            raise KafkaRequestError(name, _sentence(name, what, response.error_message))
        # Brokers apply the controller's record after it answers: wait until no live broker
        # lists it, so a `brokers list` right after agrees (seen: broker 4 listed after the
        # forget returned, read from a broker that had not applied it yet).
        request = protocol.DescribeClusterRequest()

        async def unlisted() -> bool | None:
            answers = await self._ask_each(request, list(await self._live_brokers()))
            listed = (request.answer(a).brokers for a in answers.values())
            return None if any(b.broker_id == broker_id for bs in listed for b in bs) else True

        await poll_until(unlisted, time.monotonic() + self.settings.request_timeout_ms / 1000)

    async def _live_brokers(self) -> dict[int, str]:
        """Running (unfenced) brokers: id -> host:port, from DescribeCluster."""
        response = await self._cluster()
        if response.error_code:
            name = _name(response.error_code)
            raise KafkaRequestError(
                name, _sentence(name, "Describing the cluster", response.error_message)
            )
        self.cluster_id = response.cluster_id or self.cluster_id
        return {b.broker_id: f"{b.host}:{b.port}" for b in response.brokers if not b.is_fenced}

    # -- sizes and throttles (what a reassignment preview and run need) ---------------------

    async def partition_sizes(
        self, topics: Sequence[str], brokers: Sequence[int]
    ) -> dict[tuple[str, int], int]:
        """(topic, partition) -> bytes of its largest replica on `brokers` (live ones; each
        broker answers DescribeLogDirs for its own disks only). Missing: no live replica."""
        if not topics or not brokers:
            return {}
        sizes: dict[tuple[str, int], int] = {}
        for batch in batched(list(dict.fromkeys(topics))):
            query = await self._partitions_of(batch)
            if not query:
                continue
            request = DescribeLogDirsRequest(query)
            answers = await asyncio.gather(
                *(self._send(request, b) for b in brokers), return_exceptions=True
            )
            for answer in answers:
                if isinstance(answer, BaseException):
                    continue  # a broker that went away has no size to give
                response = request.answer(answer)
                for log_dir in response.dirs if not response.error_code else []:
                    for r in log_dir.replicas if not log_dir.error_code else []:
                        if r.is_future_key:
                            continue
                        key = (r.topic, r.partition)
                        sizes[key] = max(sizes.get(key, 0), r.size)
        return sizes

    async def set_replication_throttle(self, throttle: ReplicationThrottle) -> None:
        """Set the throttle rates on the brokers, then the throttled replicas on the topics.
        Raises KafkaRequestError on the first refusal."""
        await audit.audited(
            self,
            "throttle",
            sorted(set(throttle.leaders) | set(throttle.followers)),
            {"rate": throttle.rate, "brokers": sorted(set(throttle.brokers))},
            self._set_replication_throttle(throttle),
        )

    async def _set_replication_throttle(self, throttle: ReplicationThrottle) -> None:
        rate = str(throttle.rate)
        await self._alter_broker_configs(
            throttle.brokers,
            [(LEADER_RATE, protocol.OP_SET, rate), (FOLLOWER_RATE, protocol.OP_SET, rate)],
        )
        topics = sorted(set(throttle.leaders) | set(throttle.followers))
        resources: list[tuple[int, str, list[tuple[str, int, str | None]]]] = [
            (
                protocol.RESOURCE_TOPIC,
                topic,
                [
                    (key, protocol.OP_SET, ",".join(items))
                    for key, items in (
                        (LEADER_REPLICAS, throttle.leaders.get(topic, [])),
                        (FOLLOWER_REPLICAS, throttle.followers.get(topic, [])),
                    )
                    if items
                ],
            )
            for topic in topics
        ]
        if resources:
            await self._alter_configs(resources)

    async def set_throttle_rate(self, brokers: Sequence[int], rate: int) -> None:
        """Set both replication throttle rates of `brokers` (the live ones) to `rate` bytes
        per second, leaving the topics' throttled replica lists as they are; returns once
        each broker describes the new rate (bounded by the request timeout)."""
        value = str(rate)
        await audit.audited(
            self,
            "throttle rate",
            [],
            {"rate": rate, "brokers": sorted(set(brokers))},
            self._alter_broker_configs(
                brokers,
                [(LEADER_RATE, protocol.OP_SET, value), (FOLLOWER_RATE, protocol.OP_SET, value)],
            ),
        )

    async def clear_replication_throttle(
        self, brokers: Sequence[int], topics: Sequence[str]
    ) -> None:
        """Remove the throttle rates from `brokers` (the live ones; a stopped broker keeps its
        dynamic config until it is cleared again) and the throttled replicas from `topics`."""
        await audit.audited(
            self,
            "throttle clear",
            list(topics),
            {"brokers": sorted(set(brokers))},
            self._clear_replication_throttle(brokers, topics),
            skip=not brokers and not topics,
        )

    async def _clear_replication_throttle(
        self, brokers: Sequence[int], topics: Sequence[str]
    ) -> None:
        await self._alter_broker_configs(
            brokers, [(key, protocol.OP_DELETE, None) for key in THROTTLE_RATES]
        )
        if topics:
            await self._alter_configs(
                [
                    (
                        protocol.RESOURCE_TOPIC,
                        topic,
                        [(key, protocol.OP_DELETE, None) for key in THROTTLED_REPLICAS],
                    )
                    for topic in topics
                ]
            )

    async def set_cordon(self, broker: int, value: str | None) -> None:
        """Set a broker's `cordoned.log.dirs` (KIP-1066, Kafka 4.3+: `*` or paths; None
        removes it) and wait until the broker describes its directories so (DescribeLogDirs
        v5), for at most the request timeout. Audited."""
        await audit.audited(
            self,
            "broker cordon" if value else "broker uncordon",
            [],
            {"broker": broker, "cordoned.log.dirs": value},
            self._set_cordon(broker, value),
        )

    async def _set_cordon(self, broker: int, value: str | None) -> None:
        op = (CORDONED_LOG_DIRS, protocol.OP_SET, value) if value else None
        # Not `_alter_broker_configs`: once removed, the broker describes the default (an
        # empty list, not nothing), so its wait would last the whole timeout. What counts is
        # what DescribeLogDirs says, waited for below.
        await self._alter_configs(
            [
                (
                    protocol.RESOURCE_BROKER,
                    str(broker),
                    [op or (CORDONED_LOG_DIRS, protocol.OP_DELETE, None)],
                )
            ],
            broker,
        )

        async def shows() -> bool | None:
            dirs = (await self.log_dirs([broker])).get(broker)  # type: ignore[attr-defined]
            if dirs is None:
                return True  # gone: nothing to wait for
            return True if dirs.all_cordoned == (value == "*") else None

        if value in ("*", None):
            await poll_until(shows, time.monotonic() + self.settings.request_timeout_ms / 1000)

    async def _alter_broker_configs(
        self, brokers: Sequence[int], ops: list[tuple[str, int, str | None]]
    ) -> None:
        # A broker's own dynamic config goes to that broker (ZooKeeper mode insists).
        live = await self._live_brokers()
        targets = [b for b in sorted(set(brokers)) if b in live]
        await asyncio.gather(
            *(self._alter_configs([(protocol.RESOURCE_BROKER, str(b), ops)], b) for b in targets)
        )
        await self._until_brokers_show(targets, {key: value for key, _, value in ops})

    async def _until_brokers_show(
        self, brokers: Sequence[int], wanted: dict[str, str | None]
    ) -> None:
        """Wait until each broker shows `wanted` (None: unset) as its own config. A broker
        applies a dynamic config of its own a moment after the answer (ZooKeeper mode: when
        ZooKeeper's change notification reaches it; KRaft: when its metadata log does), and
        until then it still replicates at the old rate and describes the old value. Bounded
        by the request timeout: a broker still behind then is no error, the change is
        stored and it will apply it."""
        pending = set(brokers)

        async def shows(broker: int) -> bool:
            request = protocol.DescribeConfigsRequest(
                [(protocol.RESOURCE_BROKER, str(broker))], list(wanted)
            )
            try:
                response = request.answer(await self._send(request, broker, retry=False))
            except AdminError:
                return True  # gone: nothing left to wait for
            if any(r.error_code for r in response):
                return True  # it cannot tell: nothing to wait for
            values = {c.name: c.value for r in response for c in r.configs}
            return all(values.get(key) == value for key, value in wanted.items())

        async def check() -> bool | None:
            order = sorted(pending)
            for broker, done in zip(order, await asyncio.gather(*map(shows, order)), strict=True):
                if done:
                    pending.discard(broker)
            return True if not pending else None

        await poll_until(check, time.monotonic() + self.settings.request_timeout_ms / 1000)

    async def _alter_configs(
        self,
        resources: list[tuple[int, str, list[tuple[str, int, str | None]]]],
        node: int | None = None,
    ) -> None:
        """`node`: the broker whose own config changes; without it (topic configs), a broker
        that knows the topics (`_send_about`)."""
        request = protocol.IncrementalAlterConfigsRequest(resources)
        if node is None:
            sent = await self._send_about(request, [name for _, name, _ in resources])
        else:
            sent = await self._send_to_itself(request, node)
        for r in request.answer(sent):
            if r.error_code:
                if r.resource_type == protocol.RESOURCE_BROKER:
                    raise KafkaRequestError.about_broker(
                        r.error_code, r.resource_name, r.error_message
                    )
                code, message = self._lag_answer(r.resource_name, r.error_code, r.error_message)
                raise KafkaRequestError.from_code(code, r.resource_name, message)

    # -- leader elections (admin/elections.py, imported only when leaders are elected) ---------

    async def elect_leaders(
        self,
        partitions: Sequence[tuple[str, int]],
        election: ElectionType | None = None,
        *,
        timeout_ms: int = DEFAULT_TIMEOUT_MS,
    ) -> list[ElectionResult]:
        """Elect leaders (ElectLeaders, at the controller): preferred (default) or unclean.
        One result per distinct (topic, partition), in order; ELECTION_NOT_NEEDED is `ok`.
        Success means the controller elected the leader; other brokers may show it a moment
        later."""
        from .elections import ElectionType, elect_leaders

        kind = ElectionType.PREFERRED if election is None else election
        return await elect_leaders(self, partitions, kind, timeout_ms)


if TYPE_CHECKING:
    from .elections import ElectionResult, ElectionType
