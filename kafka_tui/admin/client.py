"""The async admin client: KIP-4 / KIP-195 operations over aiokafka's connections.

Every batch operation returns one TopicResult per topic, in the order given; one topic's
failure never hides another's. Changes are followed by polling metadata until the cluster
shows them (or the caller's timeout ends), never by sleeping a fixed time.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from aiokafka.client import AIOKafkaClient
from aiokafka.errors import (
    IncompatibleBrokerVersion,
    KafkaConnectionError,
    KafkaError,
    NodeNotReadyError,
    RequestTimedOutError,
)
from aiokafka.helpers import create_ssl_context

from . import protocol, validation
from .errors import AdminError, ConnectionFailed, KafkaRequestError, ValidationError, sentence
from .model import (
    BrokerInfo,
    ClusterInfo,
    ConfigChange,
    ConfigEntry,
    ConfigOp,
    ConfigSource,
    ConnectionSettings,
    NewPartitions,
    PartitionInfo,
    TopicDescription,
    TopicResult,
    TopicSpec,
)

log = logging.getLogger(__name__)

T = TypeVar("T")

UNKNOWN_TOPIC = 3
NOT_CONTROLLER = 41
# KRaft refuses one user operation that would write more than this many metadata records
# (QuorumController's MAX_RECORDS_PER_USER_OP); a topic costs 1 + partitions + configs.
MAX_RECORDS_PER_REQUEST = 10_000
_NOT_CONTROLLER_RETRIES = 3
# Refused for deletion even before they exist (Kafka creates some of them on first use).
KNOWN_INTERNAL_TOPICS = frozenset(
    {"__consumer_offsets", "__transaction_state", "__share_group_state", "__remote_log_metadata"}
)


def _failed(err: AdminError, topic: str) -> TopicResult:
    return TopicResult(topic, ok=False, error=err.name, message=err.message)


def _from_code(topic: str, code: int, detail: str | None) -> TopicResult:
    err = KafkaRequestError.from_code(code, topic, detail)
    return _failed(err, topic)


async def poll_until(
    check: Callable[[], Awaitable[T | None]], deadline: float, first_delay: float = 0.05
) -> T | None:
    """Call `check` until it returns a value or `deadline` (monotonic) passes; back off to 1s."""
    delay = first_delay
    while True:
        value = await check()
        if value is not None:
            return value
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return None
        await asyncio.sleep(min(delay, remaining))
        delay = min(delay * 1.5, 1.0)


class KafkaAdmin:
    """Async admin operations. Use as `async with KafkaAdmin(settings) as admin:`.

    `client_side_validation=False` sends requests as given, so tests can compare the
    broker's verdict with the one given here before sending.
    """

    def __init__(self, settings: ConnectionSettings, *, client_side_validation: bool = True):
        self.settings = settings
        self.client_side_validation = client_side_validation
        self._client: AIOKafkaClient | None = None

    # -- connection ------------------------------------------------------------------------

    async def __aenter__(self) -> KafkaAdmin:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def connect(self) -> None:
        s = self.settings
        ssl_context = None
        if s.security_protocol in ("SSL", "SASL_SSL"):
            ssl_context = create_ssl_context(
                cafile=s.ssl_cafile,
                certfile=s.ssl_certfile,
                keyfile=s.ssl_keyfile,
                password=s.ssl_password,
            )
            ssl_context.check_hostname = s.ssl_check_hostname
        sasl: dict[str, Any] = {}
        if s.security_protocol.startswith("SASL"):
            sasl = {
                "sasl_mechanism": s.sasl_mechanism or "PLAIN",
                "sasl_plain_username": s.sasl_username,
                "sasl_plain_password": s.sasl_password,
            }
        client = AIOKafkaClient(
            bootstrap_servers=s.bootstrap_servers,
            client_id=s.client_id,
            # Per-request deadlines are ours (_send); this only bounds a stuck connection.
            request_timeout_ms=max(s.request_timeout_ms, 600_000),
            security_protocol=s.security_protocol,
            ssl_context=ssl_context,
            **sasl,
        )
        try:
            await asyncio.wait_for(client.bootstrap(), s.request_timeout_ms / 1000)
        except (KafkaError, OSError, TimeoutError) as exc:
            await client.close()
            reason = "no bootstrap server answered" if isinstance(exc, KafkaError) else exc
            raise ConnectionFailed(
                f"Cannot connect to Kafka at {s.bootstrap_servers} ({s.security_protocol}): "
                f"{reason or 'timed out'}. Check the address, that the brokers are up, and "
                "the security settings."
            ) from None
        self._client = client

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    @property
    def client(self) -> AIOKafkaClient:
        if self._client is None:
            raise ConnectionFailed("The admin client is not connected.")
        return self._client

    def _any_node(self) -> int:
        node = self.client.get_random_node()
        if node is None:
            raise ConnectionFailed(
                f"No broker of {self.settings.bootstrap_servers} is reachable right now."
            )
        return int(node)

    async def _send(self, request: Any, node_id: int | None = None, extra_ms: int = 0) -> Any:
        """Send to `node_id` (or any broker); one retry on another node if the link breaks."""
        timeout = (self.settings.request_timeout_ms + max(extra_ms, 0)) / 1000
        for attempt in range(2):
            node = node_id if node_id is not None and attempt == 0 else self._any_node()
            try:
                return await asyncio.wait_for(self.client.send(node, request), timeout)
            except (IncompatibleBrokerVersion, NotImplementedError) as exc:
                raise AdminError(
                    "UNSUPPORTED_VERSION",
                    f"The broker does not support {type(request).__name__} at the version "
                    f"kafka-tui speaks (Kafka 3.1 or newer is needed): {exc}",
                ) from None
            except (KafkaConnectionError, NodeNotReadyError, RequestTimedOutError, TimeoutError):
                if attempt == 1:
                    raise ConnectionFailed(
                        f"Lost the connection to broker {node} of "
                        f"{self.settings.bootstrap_servers} (or it did not answer within "
                        f"{timeout:.0f}s)."
                    ) from None
                await self.client.force_metadata_update()
        raise AssertionError("unreachable")

    # -- reading ---------------------------------------------------------------------------

    async def describe_cluster(self) -> ClusterInfo:
        response = (await self._send(protocol.DescribeClusterRequest())).to_object()
        if response["error_code"]:
            raise KafkaRequestError.from_code(
                response["error_code"], "(cluster)", response["error_message"]
            )
        brokers = sorted(
            (
                BrokerInfo(
                    id=b["broker_id"],
                    host=b["host"],
                    port=b["port"],
                    rack=b["rack"],
                    fenced=bool(b.get("is_fenced", False)),
                )
                for b in response["brokers"]
            ),
            key=lambda b: b.id,
        )
        controller = response["controller_id"]
        return ClusterInfo(
            cluster_id=response["cluster_id"],
            controller_id=controller if controller >= 0 else None,
            brokers=brokers,
            lists_fenced_brokers="is_fenced" in (response["brokers"] or [{}])[0],
        )

    async def _metadata(
        self, topics: Sequence[str] | None, node_id: int | None = None
    ) -> dict[str, Any]:
        request = protocol.MetadataRequest(None if topics is None else list(topics))
        return (await self._send(request, node_id)).to_object()  # type: ignore[no-any-return]

    async def _metadata_everywhere(self, topics: Sequence[str]) -> list[dict[str, Any]]:
        """The same Metadata request to every live broker: a change is visible to clients only
        once each broker has it (ZooKeeper-mode brokers learn of it one by one)."""
        nodes = sorted(b.nodeId for b in self.client.cluster.brokers())
        if not nodes:
            return [await self._metadata(topics)]
        return list(await asyncio.gather(*(self._metadata(topics, n) for n in nodes)))

    @staticmethod
    def _description(topic: dict[str, Any]) -> TopicDescription:
        partitions = sorted(
            (
                PartitionInfo(
                    partition=p["partition_index"],
                    leader=p["leader_id"],
                    replicas=list(p["replica_nodes"]),
                    isr=list(p["isr_nodes"]),
                    offline_replicas=list(p["offline_replicas"]),
                )
                for p in topic["partitions"]
            ),
            key=lambda p: p.partition,
        )
        return TopicDescription(
            name=topic["name"],
            topic_id=topic["topic_id"],
            internal=topic["is_internal"],
            partitions=partitions,
        )

    async def list_topics(self) -> list[TopicDescription]:
        """Every topic with its partitions (one Metadata request; no configs)."""
        metadata = await self._metadata(None)
        topics = [self._description(t) for t in metadata["topics"] if not t["error_code"]]
        return sorted(topics, key=lambda t: t.name)

    async def describe_topics(
        self, names: Sequence[str] | None = None, *, configs: bool = True
    ) -> tuple[list[TopicDescription], list[TopicResult]]:
        """Describe `names` (None: all). Never creates a topic. Returns (found, errors)."""
        metadata = await self._metadata(None if names is None else list(dict.fromkeys(names)))
        found: dict[str, TopicDescription] = {}
        errors: list[TopicResult] = []
        for topic in metadata["topics"]:
            if topic["error_code"]:
                errors.append(_from_code(topic["name"], topic["error_code"], None))
            else:
                found[topic["name"]] = self._description(topic)
        if configs and found:
            topic_configs, config_errors = await self._topic_configs(list(found))
            errors += config_errors
            for name, entries in topic_configs.items():
                d = found[name]
                found[name] = TopicDescription(
                    d.name, d.topic_id, d.internal, d.partitions, entries
                )
        order = list(names) if names is not None else sorted(found)
        return [found[n] for n in dict.fromkeys(order) if n in found], errors

    async def _topic_configs(
        self, topics: list[str]
    ) -> tuple[dict[str, dict[str, ConfigEntry]], list[TopicResult]]:
        request = protocol.DescribeConfigsRequest([(protocol.RESOURCE_TOPIC, t) for t in topics])
        response = (await self._send(request)).to_object()
        configs: dict[str, dict[str, ConfigEntry]] = {}
        errors: list[TopicResult] = []
        for result in response["results"]:
            name = result["resource_name"]
            if result["error_code"]:
                errors.append(_from_code(name, result["error_code"], result["error_message"]))
                continue
            configs[name] = {
                c["name"]: ConfigEntry(
                    name=c["name"],
                    value=c["value"],
                    source=ConfigSource(c["config_source"])
                    if c["config_source"] in ConfigSource._value2member_map_
                    else ConfigSource.UNKNOWN,
                    read_only=c["read_only"],
                    sensitive=c["is_sensitive"],
                )
                for c in result["configs"]
            }
        return configs, errors

    # -- waiting for the cluster to show a change -----------------------------------------------

    async def _leaders_ready(
        self, topics: Sequence[str], min_partitions: dict[str, int]
    ) -> set[str]:
        """Those of `topics` whose partitions (at least the expected count) all have leaders,
        as every live broker sees them."""
        ready = set(topics)
        for metadata in await self._metadata_everywhere(topics):
            seen = set()
            for t in metadata["topics"]:
                parts = t["partitions"]
                if (
                    not t["error_code"]
                    and len(parts) >= min_partitions.get(t["name"], 1)
                    and all(p["leader_id"] >= 0 for p in parts)
                ):
                    seen.add(t["name"])
            ready &= seen
        return ready

    async def _wait_for_leaders(self, expected: dict[str, int], deadline: float) -> set[str]:
        """Poll until every topic in `expected` has its partitions led; returns those that do."""
        pending = set(expected)
        done: set[str] = set()

        async def check() -> bool | None:
            done.update(await self._leaders_ready(sorted(pending), expected))
            pending.difference_update(done)
            return True if not pending else None

        await poll_until(check, deadline)
        return done

    async def check_topics(self, names: Sequence[str]) -> list[TopicResult]:
        """ "Check again" after a timeout: does each topic exist with a leader everywhere?"""
        metadata = await self._metadata(list(dict.fromkeys(names)))
        by_name = {t["name"]: t for t in metadata["topics"]}
        results = []
        for name in dict.fromkeys(names):
            t = by_name.get(name)
            if t is None or t["error_code"]:
                code = t["error_code"] if t else UNKNOWN_TOPIC
                results.append(_from_code(name, code, None))
                continue
            parts = t["partitions"]
            leaderless = [p["partition_index"] for p in parts if p["leader_id"] < 0]
            if leaderless:
                results.append(
                    TopicResult(
                        name,
                        ok=False,
                        error="LEADER_NOT_AVAILABLE",
                        message=sentence("LEADER_NOT_AVAILABLE", name)
                        + f" Partitions without a leader: {leaderless}.",
                        topic_id=t["topic_id"],
                        partitions=len(parts),
                    )
                )
            else:
                results.append(
                    TopicResult(
                        name,
                        ok=True,
                        message=f"Topic '{name}' exists; all {len(parts)} partitions have "
                        "a leader.",
                        topic_id=t["topic_id"],
                        partitions=len(parts),
                        replication_factor=max((len(p["replica_nodes"]) for p in parts), default=0),
                    )
                )
        return results

    def _timed_out(self, result: TopicResult, what: str) -> TopicResult:
        return TopicResult(
            result.topic,
            ok=False,
            error="REQUEST_TIMED_OUT",
            message=f"Topic '{result.topic}': {what} was accepted, but not every partition had "
            "a leader before the timeout. It may still complete; check again "
            "(kafka-tui topics describe) before retrying.",
            topic_id=result.topic_id,
            partitions=result.partitions,
            replication_factor=result.replication_factor,
        )

    # -- controller-bound batches ------------------------------------------------------------

    async def _controller(self) -> int:
        metadata = await self._metadata([])
        controller = metadata["controller_id"]
        known = {b["node_id"] for b in metadata["brokers"]}
        return int(controller) if controller in known else self._any_node()

    async def _to_controller(
        self,
        make_request: Callable[[list[Any]], Any],
        items: list[Any],
        name_of: Callable[[Any], str],
        results_of: Callable[[dict[str, Any]], list[dict[str, Any]]],
        extra_ms: int,
    ) -> dict[str, dict[str, Any]]:
        """Send to the controller (ZooKeeper mode needs it; KRaft brokers forward), retrying the
        items the controller bounced with NOT_CONTROLLER after it moved."""
        answers: dict[str, dict[str, Any]] = {}
        pending = items
        for _ in range(_NOT_CONTROLLER_RETRIES):
            response = (
                await self._send(make_request(pending), await self._controller(), extra_ms)
            ).to_object()
            bounced = set()
            for r in results_of(response):
                if r["error_code"] == NOT_CONTROLLER:
                    bounced.add(r["name"])
                else:
                    answers[r["name"]] = r
            pending = [i for i in pending if name_of(i) in bounced]
            if not pending:
                break
            await self.client.force_metadata_update()
        for item in pending:
            answers[name_of(item)] = {
                "name": name_of(item),
                "error_code": NOT_CONTROLLER,
                "error_message": None,
            }
        return answers

    def _validated(
        self, names: list[str], check: Callable[[int], ValidationError | None], operation: str
    ) -> dict[int, TopicResult]:
        """Results for the items refused before sending, by position."""
        refused: dict[int, TopicResult] = {}
        if not self.client_side_validation:
            return refused
        repeated = validation.duplicates(names)
        for i, name in enumerate(names):
            err = validation.duplicate_error(name, operation) if name in repeated else check(i)
            if err is not None:
                refused[i] = _failed(err, name)
        return refused

    def _broker_timeout(self, timeout_ms: int) -> int:
        """The TimeoutMs sent to the broker. KIP-4 says timeout <= 0 only triggers the change,
        and ZooKeeper-mode brokers do that, but a KRaft 4.x controller drops an operation
        whose deadline has already passed, creating nothing. So "return once accepted" sends
        the request timeout instead and skips the wait for leaders."""
        return timeout_ms if timeout_ms > 0 else self.settings.request_timeout_ms

    # -- create topics -------------------------------------------------------------------------

    async def create_topics(
        self, specs: Sequence[TopicSpec], *, timeout_ms: int = 30_000, validate_only: bool = False
    ) -> list[TopicResult]:
        names = [s.name for s in specs]
        refused = self._validated(names, lambda i: validation.check_spec(specs[i]), "create")
        to_send = [s for i, s in enumerate(specs) if i not in refused]
        started = time.monotonic()
        answers: dict[str, dict[str, Any]] = {}
        for chunk in _chunks(to_send, _create_cost):
            answers.update(
                await self._to_controller(
                    lambda items: protocol.CreateTopicsRequest(
                        [_creatable(s) for s in items],
                        self._broker_timeout(timeout_ms),
                        validate_only,
                    ),
                    chunk,
                    lambda s: s.name,
                    lambda r: r["topics"],
                    timeout_ms,
                )
            )
        results: dict[int, TopicResult] = dict(refused)
        for i, spec in enumerate(specs):
            if i not in results:
                results[i] = self._create_result(spec, answers.get(spec.name), validate_only)
        if timeout_ms > 0 and not validate_only:
            await self._await_created(results, started + timeout_ms / 1000, "the creation")
        return [results[i] for i in range(len(specs))]

    def _create_result(
        self, spec: TopicSpec, answer: dict[str, Any] | None, validate_only: bool
    ) -> TopicResult:
        if answer is None:
            return _from_code(spec.name, -1, "the broker's answer did not mention this topic")
        if answer["error_code"]:
            return _from_code(spec.name, answer["error_code"], answer["error_message"])
        partitions = answer.get("num_partitions")
        rf = answer.get("replication_factor")
        verb = "would be created" if validate_only else "created"
        return TopicResult(
            spec.name,
            ok=True,
            message=f"Topic '{spec.name}' {verb} with {partitions} partition(s), "
            f"replication factor {rf}.",
            topic_id=answer.get("topic_id"),
            partitions=partitions if partitions is not None and partitions >= 0 else None,
            replication_factor=rf if rf is not None and rf >= 0 else None,
            warning=validation.collision_warning(spec.name),
        )

    async def _await_created(
        self, results: dict[int, TopicResult], deadline: float, what: str
    ) -> None:
        expected = {r.topic: r.partitions or 1 for r in results.values() if r.ok}
        if not expected:
            return
        ready = await self._wait_for_leaders(expected, deadline)
        for i, r in list(results.items()):
            if r.ok and r.topic not in ready:
                results[i] = self._timed_out(r, what)

    # -- increase partitions (KIP-195) ---------------------------------------------------------

    async def create_partitions(
        self,
        requests: Sequence[NewPartitions],
        *,
        timeout_ms: int = 30_000,
        validate_only: bool = False,
    ) -> list[TopicResult]:
        names = [r.topic for r in requests]
        current: dict[str, TopicDescription] = {}
        missing: dict[str, TopicResult] = {}
        if self.client_side_validation:
            found, errors = await self.describe_topics(list(dict.fromkeys(names)), configs=False)
            current = {d.name: d for d in found}
            missing = {e.topic: e for e in errors}

        def check(i: int) -> ValidationError | None:
            r = requests[i]
            if r.topic in missing:
                m = missing[r.topic]
                return ValidationError(m.error or "UNKNOWN_TOPIC_OR_PARTITION", m.message, r.topic)
            d = current[r.topic]
            return validation.check_new_partitions(r, len(d.partitions), d.replication_factor)

        refused = self._validated(names, check, "create partitions")
        to_send = [r for i, r in enumerate(requests) if i not in refused]
        started = time.monotonic()
        answers = (
            await self._to_controller(
                lambda items: protocol.CreatePartitionsRequest(
                    [(r.topic, r.total, r.assignment) for r in items],
                    self._broker_timeout(timeout_ms),
                    validate_only,
                ),
                to_send,
                lambda r: r.topic,
                lambda resp: resp["results"],
                timeout_ms,
            )
            if to_send
            else {}
        )
        results: dict[int, TopicResult] = dict(refused)
        verb = "would have" if validate_only else "now has"
        for i, r in enumerate(requests):
            if i in results:
                continue
            answer = answers.get(r.topic)
            if answer is None or answer["error_code"]:
                code = answer["error_code"] if answer else -1
                results[i] = _from_code(r.topic, code, answer["error_message"] if answer else None)
            else:
                results[i] = TopicResult(
                    r.topic,
                    ok=True,
                    message=f"Topic '{r.topic}' {verb} {r.total} partitions.",
                    partitions=r.total,
                )
        if timeout_ms > 0 and not validate_only:
            await self._await_created(results, started + timeout_ms / 1000, "the increase")
        return [results[i] for i in range(len(requests))]

    # -- delete topics ---------------------------------------------------------------------------

    async def delete_topics(
        self, names: Sequence[str], *, timeout_ms: int = 30_000, allow_internal: bool = False
    ) -> list[TopicResult]:
        internal: set[str] = set()
        if not allow_internal:
            metadata = await self._metadata(list(dict.fromkeys(names)))
            internal = {t["name"] for t in metadata["topics"] if t["is_internal"]}
            internal |= KNOWN_INTERNAL_TOPICS.intersection(names)

        refused = self._validated(list(names), lambda i: validation.check_name(names[i]), "delete")
        for i, name in enumerate(names):
            # A safety rule, not a validation: it holds even when validation is off.
            if name in internal and i not in refused:
                refused[i] = TopicResult(
                    name,
                    ok=False,
                    error="INVALID_REQUEST",
                    message=f"Topic '{name}' is one of Kafka's internal topics; kafka-tui does "
                    "not delete it (the cluster needs it for consumer groups, transactions or "
                    "share groups).",
                )
        to_send = [n for i, n in enumerate(names) if i not in refused]
        started = time.monotonic()
        answers = (
            await self._to_controller(
                lambda items: protocol.DeleteTopicsRequest(
                    list(items), self._broker_timeout(timeout_ms)
                ),
                to_send,
                lambda n: n,
                lambda resp: resp["responses"],
                timeout_ms,
            )
            if to_send
            else {}
        )
        results: dict[int, TopicResult] = dict(refused)
        for i, name in enumerate(names):
            if i in results:
                continue
            answer = answers.get(name)
            if answer is None or answer["error_code"]:
                code = answer["error_code"] if answer else -1
                results[i] = _from_code(name, code, answer["error_message"] if answer else None)
            else:
                results[i] = TopicResult(name, ok=True, message=f"Topic '{name}' deleted.")
        if timeout_ms > 0:
            await self._await_deleted(results, started + timeout_ms / 1000)
        return [results[i] for i in range(len(names))]

    async def _await_deleted(self, results: dict[int, TopicResult], deadline: float) -> None:
        pending = {r.topic for r in results.values() if r.ok}

        async def check() -> bool | None:
            if pending:
                still_listed: set[str] = set()
                for metadata in await self._metadata_everywhere(sorted(pending)):
                    still_listed.update(
                        t["name"] for t in metadata["topics"] if t["error_code"] != UNKNOWN_TOPIC
                    )
                pending.intersection_update(still_listed)
            return True if not pending else None

        await poll_until(check, deadline)
        for i, r in list(results.items()):
            if r.topic in pending:
                results[i] = TopicResult(
                    r.topic,
                    ok=False,
                    error="REQUEST_TIMED_OUT",
                    message=f"Topic '{r.topic}': the deletion was accepted but the topic was "
                    "still listed when the timeout ended. It may still disappear; check again.",
                )

    # -- configs -----------------------------------------------------------------------------

    async def alter_topic_configs(
        self, changes: dict[str, list[ConfigChange]], *, validate_only: bool = False
    ) -> list[TopicResult]:
        """Incremental: only the named keys change; every other override is kept."""
        names = list(changes)

        def check(i: int) -> ValidationError | None:
            topic = names[i]
            if (err := validation.check_name(topic)) is not None:
                return err
            keys = [c.name for c in changes[topic]]
            if not keys:
                return ValidationError(
                    "INVALID_REQUEST", f"Topic '{topic}': no config change was given.", topic
                )
            if dup := validation.duplicates(keys):
                return ValidationError(
                    "INVALID_REQUEST",
                    sentence(
                        "INVALID_REQUEST",
                        topic,
                        f"config key(s) given twice: {sorted(dup)}",
                        checked_here=True,
                    ),
                    topic,
                )
            for c in changes[topic]:
                if not c.name.strip() or (c.op is ConfigOp.SET and c.value is None):
                    return ValidationError(
                        "INVALID_CONFIG",
                        sentence(
                            "INVALID_CONFIG",
                            topic,
                            f"'{c.name}' needs a key and a value",
                            checked_here=True,
                        ),
                        topic,
                    )
            return None

        refused = self._validated(names, check, "alter configs")
        ops = [
            (
                t,
                [
                    (
                        c.name,
                        protocol.OP_SET if c.op is ConfigOp.SET else protocol.OP_DELETE,
                        c.value,
                    )
                    for c in changes[t]
                ],
            )
            for i, t in enumerate(names)
            if i not in refused
        ]
        answers: dict[str, dict[str, Any]] = {}
        if ops:
            response = (
                await self._send(protocol.IncrementalAlterConfigsRequest(ops, validate_only))
            ).to_object()
            answers = {r["resource_name"]: r for r in response["responses"]}
        results: dict[int, TopicResult] = dict(refused)
        for i, topic in enumerate(names):
            if i in results:
                continue
            answer = answers.get(topic)
            if answer is None or answer["error_code"]:
                code = answer["error_code"] if answer else -1
                results[i] = _from_code(topic, code, answer["error_message"] if answer else None)
            else:
                summary = ", ".join(
                    f"{c.name}={c.value}" if c.op is ConfigOp.SET else f"-{c.name}"
                    for c in changes[topic]
                )
                verb = "would be updated" if validate_only else "updated"
                results[i] = TopicResult(
                    topic, ok=True, message=f"Topic '{topic}' configs {verb}: {summary}."
                )
        return [results[i] for i in range(len(names))]


def _creatable(spec: TopicSpec) -> protocol.CreatableTopic:
    # -1 asks for the broker's default (or, with an assignment, its size). A spec with both
    # counts and an assignment is sent as given, for the broker to refuse.
    return protocol.CreatableTopic(
        name=spec.name,
        num_partitions=-1 if spec.partitions is None else spec.partitions,
        replication_factor=-1 if spec.replication_factor is None else spec.replication_factor,
        assignments=dict(spec.assignment or {}),
        configs=dict(spec.configs),
    )


def _create_cost(spec: TopicSpec) -> int:
    partitions = len(spec.assignment) if spec.assignment else (spec.partitions or 1)
    return 1 + partitions + len(spec.configs)


def _chunks(items: Sequence[T], cost: Callable[[T], int]) -> list[list[T]]:
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
