"""The async admin client: KIP-4 / KIP-195 changes, as batches.

Every batch operation returns one TopicResult per topic, in the order given; one topic's
failure never hides another's. A result follows the controller's answer (KIP-4): with a
timeout > 0 the controller answers once the change is committed with leaders for every
partition, and REQUEST_TIMED_OUT (only when the controller itself says so) means "may
still complete; check again". Brokers apply a committed change afterwards; kafka-tui's own
later reads wait for a broker that has it (journal.py), so they never go backwards.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from . import audit_log as audit
from . import protocol, validation
from .batches import (
    KNOWN_INTERNAL_TOPICS,
    as_requested,
    chunks,
    creatable,
    create_cost,
    failed,
    merge,
)
from .config_rules import refusal
from .configs import AdminConfigs
from .connection import UNKNOWN_TOPIC, Settle, poll_until
from .errors import AdminError, ValidationError, sentence
from .journal import Expectation
from .model import (
    DEFAULT_TIMEOUT_MS,
    ConfigChange,
    ConfigOp,
    ConfigSource,
    NewPartitions,
    TopicDescription,
    TopicResult,
    TopicSpec,
)
from .protocol import MetadataTopic, TopicAnswer
from .reading import AdminReads
from .reassignments import AdminReassignments
from .wire import UnsupportedByBroker

ALREADY_EXISTS = 36
INVALID_PARTITIONS = 37


def _lost_note(answer: TopicAnswer) -> str:
    lost = answer.recovered
    return f" (The answer was lost: {lost}.)" if lost else ""


if TYPE_CHECKING:
    from .group_work import AdminGroupWork
    from .producers import AdminProducers

    class _GroupsAndProducers(AdminProducers, AdminGroupWork):
        """The type checker sees the group and producer operations as KafkaAdmin's own."""

else:

    class _GroupsAndProducers:
        """The group and producer operations (group_work.py, producers.py and the requests
        they send: ~25 ms of imports) load when one is first used, not with the client: a
        topic create, a describe or the TUI's first frame use none (bench/startup.py,
        bench/first_frame.py). The first use of one of their names makes the admin an
        instance of a subclass with those mixins added (`_with_groups`), the class the
        client had before; a name neither has stays an AttributeError."""

        _groups_loaded = False

        def __getattr__(self, name: str) -> Any:
            cls = type(self)
            if name.startswith("__") or cls._groups_loaded:
                raise AttributeError(f"{cls.__name__!r} object has no attribute {name!r}")
            full = _with_groups(cls)
            if not hasattr(full, name):
                raise AttributeError(f"{cls.__name__!r} object has no attribute {name!r}")
            self.__class__ = full
            return getattr(self, name)

    _WITH_GROUPS: dict[type, type] = {}

    def _with_groups(cls: type) -> type:
        """`cls` with the group and producer mixins after it (one class per `cls`)."""
        if cls not in _WITH_GROUPS:
            from .group_work import AdminGroupWork
            from .producers import AdminProducers

            _WITH_GROUPS[cls] = type(
                cls.__name__,
                (cls, AdminProducers, AdminGroupWork),
                {
                    "_groups_loaded": True,
                    "__module__": cls.__module__,
                    "__qualname__": cls.__qualname__,
                },
            )
        return _WITH_GROUPS[cls]


class KafkaAdmin(_GroupsAndProducers, AdminReads, AdminReassignments, AdminConfigs):
    """Async admin operations. Use as `async with KafkaAdmin(settings) as admin:`.

    `client_side_validation=False` sends requests as given, so tests can compare the
    broker's verdict with the one given here before sending.
    """

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
                refused[i] = failed(err, name)
        return refused

    def _broker_timeout(self, timeout_ms: int) -> int:
        """The TimeoutMs sent to the broker. KIP-4 says timeout <= 0 only triggers the change,
        and ZooKeeper-mode brokers do that, but a KRaft 4.x controller drops an operation
        whose deadline has already passed, creating nothing. So "return once accepted" sends
        the request timeout instead and skips the wait for leaders."""
        return timeout_ms if timeout_ms > 0 else self.settings.request_timeout_ms

    # -- create topics -------------------------------------------------------------------------

    async def create_topics(
        self,
        specs: Sequence[TopicSpec],
        *,
        timeout_ms: int = DEFAULT_TIMEOUT_MS,
        validate_only: bool = False,
        topic_ids: bool = True,
        placed: bool = False,
    ) -> list[TopicResult]:
        """`placed`: the specs' replica lists were made by kafka-tui's placer, valid by
        construction (tests/test_placement.py), so only names, counts and configs are checked
        (the lists' checks cost ~5 ms per 2,000 topics, on the way to the request).
        `topic_ids=False`: results without topic ids, for bulk creates (see
        protocol.CreateTopicsRequest: the answer that carries them costs ~0.5 s per 2,000
        topics); counts the specs leave to the broker's defaults still come back."""
        return await audit.audited(
            self,
            "topics create",
            [s.name for s in specs],
            lambda: audit.creates(specs),
            self._create_topics(specs, timeout_ms, validate_only, topic_ids, placed),
            skip=validate_only,
        )

    async def _create_topics(
        self,
        specs: Sequence[TopicSpec],
        timeout_ms: int,
        validate_only: bool,
        topic_ids: bool,
        placed: bool,
    ) -> list[TopicResult]:
        names = [s.name for s in specs]
        lists = not placed
        releases = await self.broker_releases()
        refused = self._validated(
            names,
            lambda i: validation.check_spec(specs[i], lists=lists, releases=releases),
            "create",
        )
        to_send = [s for i, s in enumerate(specs) if i not in refused]
        details = topic_ids or validate_only or not all(map(_counts_given, to_send))

        def result(i: int, answer: TopicAnswer) -> TopicResult:
            return self._create_result(specs[i], answer, validate_only)

        answers: dict[str, TopicAnswer] = {}
        for chunk in chunks(to_send, create_cost):
            answers.update(
                await self._to_controller(
                    lambda items: protocol.CreateTopicsRequest(
                        [creatable(s) for s in items],
                        self._broker_timeout(timeout_ms),
                        validate_only,
                        details=details,
                    ),
                    chunk,
                    lambda s: s.name,
                    timeout_ms,
                    None if validate_only else Settle(self._created, frozenset({ALREADY_EXISTS})),
                )
            )
        results = merge(names, refused, answers, result)
        if not validate_only:
            self._expect(map(_expected, (r for r in results.values() if r.ok)))
        return [results[i] for i in range(len(specs))]

    def _expect(self, expectations: Iterable[Expectation]) -> None:
        self.journal.record(self.cluster_id, expectations)

    def expect_partitions(self, topic: str, total: int) -> None:
        """A change made outside these requests (e.g. new partitions written to ZooKeeper):
        later reads wait for a broker that shows `total` partitions."""
        self._expect([Expectation(topic, True, total)])

    def _create_result(
        self, spec: TopicSpec, answer: TopicAnswer | None, validate_only: bool
    ) -> TopicResult:
        # Positional: a bulk create builds 2,000 of these (keyword arguments cost ~40%).
        partitions: int | None
        rf: int | None
        if answer is not None:
            partitions, rf = answer.num_partitions, answer.replication_factor
            topic_id, note = answer.topic_id, _lost_note(answer)
        else:
            partitions = rf = topic_id = None
            note = ""
        if partitions is None and _counts_given(spec):
            partitions, rf = _counts(spec)
        name = spec.name
        verb = "would be created" if validate_only else "created"
        return TopicResult(
            name,
            True,
            None,
            f"Topic '{name}' {verb} with {partitions} partition(s), replication factor {rf}."
            + note,
            topic_id,
            partitions if partitions is not None and partitions >= 0 else None,
            rf if rf is not None and rf >= 0 else None,
            validation.collision_warning(name),
        )

    # -- finding out what a request whose answer was lost did ---------------------------------

    async def _settled(
        self,
        names: list[str],
        wait: bool,
        state: Callable[[str, MetadataTopic | None], TopicAnswer | None],
    ) -> dict[str, TopicAnswer]:
        """Answers for the topics whose metadata is already in the state asked for (`state`
        gives the answer, or None). `wait`: the controller said so; poll until it shows."""
        found: dict[str, TopicAnswer] = {}

        async def check() -> bool | None:
            metadata = await self._metadata(names)
            listed = {t.name: t for t in metadata.topics if not t.error_code}
            for name in names:
                answer = state(name, listed.get(name))
                if answer is not None:
                    found[name] = answer
            return True if not wait or len(found) == len(names) else None

        await poll_until(check, time.monotonic() + self.settings.request_timeout_ms / 1000)
        return found

    async def _created(self, specs: list[TopicSpec], wait: bool) -> dict[str, TopicAnswer]:
        by_name = {s.name: s for s in specs}

        def state(name: str, topic: MetadataTopic | None) -> TopicAnswer | None:
            if topic is None or not as_requested(by_name[name], topic):
                return None
            parts = topic.partitions
            return TopicAnswer(
                name,
                0,
                None,
                topic.topic_id,
                len(parts),
                max((len(p.replica_nodes) for p in parts), default=0),
            )

        return await self._settled(list(by_name), wait, state)

    async def _grown(self, requests: list[NewPartitions], wait: bool) -> dict[str, TopicAnswer]:
        totals = {r.topic: r.total for r in requests}

        def state(name: str, topic: MetadataTopic | None) -> TopicAnswer | None:
            if topic is None or topic.partition_count < totals[name]:
                return None
            return TopicAnswer(name, 0, None)

        return await self._settled(list(totals), wait, state)

    async def _deleted(self, names: list[str], wait: bool) -> dict[str, TopicAnswer]:
        def state(name: str, topic: MetadataTopic | None) -> TopicAnswer | None:
            if topic is not None:
                return None
            return TopicAnswer(name, 0, None)

        return await self._settled(names, wait, state)

    # -- increase partitions (KIP-195) ---------------------------------------------------------

    async def create_partitions(
        self,
        requests: Sequence[NewPartitions],
        *,
        timeout_ms: int = DEFAULT_TIMEOUT_MS,
        validate_only: bool = False,
    ) -> list[TopicResult]:
        return await audit.audited(
            self,
            "partitions",
            [r.topic for r in requests],
            audit.grows(requests),
            self._create_partitions(requests, timeout_ms, validate_only),
            skip=validate_only,
        )

    async def _create_partitions(
        self, requests: Sequence[NewPartitions], timeout_ms: int, validate_only: bool
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
        answers = (
            await self._to_controller(
                lambda items: protocol.CreatePartitionsRequest(
                    [(r.topic, r.total, r.assignment) for r in items],
                    self._broker_timeout(timeout_ms),
                    validate_only,
                ),
                to_send,
                lambda r: r.topic,
                timeout_ms,
                None if validate_only else Settle(self._grown, frozenset({INVALID_PARTITIONS})),
            )
            if to_send
            else {}
        )
        verb = "would have" if validate_only else "now has"
        results = merge(
            names,
            refused,
            answers,
            lambda i, a: TopicResult(
                requests[i].topic,
                ok=True,
                message=f"Topic '{requests[i].topic}' {verb} {requests[i].total} partitions."
                + _lost_note(a),
                partitions=requests[i].total,
            ),
        )
        if not validate_only:
            self._expect(
                Expectation(r.topic, True, r.partitions or 1) for r in results.values() if r.ok
            )
        return [results[i] for i in range(len(requests))]

    # -- delete topics ---------------------------------------------------------------------------

    async def delete_topics(
        self,
        names: Sequence[str],
        *,
        timeout_ms: int = DEFAULT_TIMEOUT_MS,
        allow_internal: bool = False,
    ) -> list[TopicResult]:
        return await audit.audited(
            self,
            "topics delete",
            list(names),
            {"allow_internal": True} if allow_internal else {},
            self._delete_topics(names, timeout_ms, allow_internal),
        )

    async def _delete_topics(
        self, names: Sequence[str], timeout_ms: int, allow_internal: bool
    ) -> list[TopicResult]:
        unique = list(dict.fromkeys(names))
        internal: set[str] = set()
        if not allow_internal:
            internal = set(KNOWN_INTERNAL_TOPICS.intersection(unique))
            # Kafka's internal topics are known by name; a newer one would start with "__"
            # too, and the broker's own flag decides for those (one small read, before).
            doubtful = [n for n in unique if n.startswith("__") and n not in internal]
            if doubtful:
                metadata = await self._metadata(doubtful, partitions=False)
                internal |= {t.name for t in metadata.topics if t.is_internal}
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
        if not to_send:
            return [refused[i] for i in range(len(names))]
        # KRaft answers a deletion with the topic's id; ZooKeeper-mode 3.9 does not. The id
        # tells a later read whether a topic listed under the same name is the deleted one or
        # a new one. On ZooKeeper mode the ids are read before the deletion is sent (a read
        # racing it may find the topics gone; the deletion itself takes seconds there). On
        # KRaft a read alongside only took CPU from brokers busy deleting: it is made only if
        # an answer lacks an id (one recovered after a lost connection), after the answer.
        by_answer = await self._answers_deletions_with_ids()
        ids = {} if by_answer else await self._ids(list(dict.fromkeys(to_send)))
        answers = await self._to_controller(
            lambda items: protocol.DeleteTopicsRequest(
                list(items), self._broker_timeout(timeout_ms)
            ),
            to_send,
            lambda n: n,
            timeout_ms,
            Settle(self._deleted, frozenset({UNKNOWN_TOPIC})),
        )
        if by_answer:
            missing = [n for n, a in answers.items() if not a.error_code and not a.topic_id]
            ids = await self._ids(missing) if missing else {}
        # Positional: 2,000 of these are made after the controller's answer.
        results = merge(
            names,
            refused,
            answers,
            lambda i, a: TopicResult(
                names[i],
                True,
                None,
                f"Topic '{names[i]}' deleted." + _lost_note(a),
                a.topic_id or ids.get(names[i]),
            ),
        )
        self._expect(
            Expectation(r.topic, False, topic_id=r.topic_id) for r in results.values() if r.ok
        )
        return [results[i] for i in range(len(names))]

    async def _ids(self, names: list[str]) -> dict[str, str | None]:
        """The ids of `names` as the read broker lists them now, else as kafka-tui's own
        recent changes left them (a broker behind a create it made); a failed read gives no
        ids: the deletion's result does not depend on them."""
        try:
            answer = await self._metadata_from(names, self._reader(), partitions=False)
            listed = {t.name: t.topic_id for t in answer.topics if not t.error_code}
        except AdminError:
            listed = {}
        for e in self.journal.expectations(self.cluster_id, names):
            if e.exists and e.topic_id and not listed.get(e.topic):
                listed[e.topic] = e.topic_id
        return listed

    # -- configs -----------------------------------------------------------------------------

    async def alter_topic_configs(
        self, changes: dict[str, list[ConfigChange]], *, validate_only: bool = False
    ) -> list[TopicResult]:
        """Incremental: only the named keys change; every other override is kept."""
        return await audit.audited(
            self,
            "configs alter",
            list(changes),
            audit.config_changes(changes),
            self._alter_topic_configs(changes, validate_only),
            skip=validate_only,
        )

    async def _alter_topic_configs(
        self, changes: dict[str, list[ConfigChange]], validate_only: bool
    ) -> list[TopicResult]:
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
                words = refusal(c.name, c.value, releases) if c.op is ConfigOp.SET else None
                if words is not None:
                    return ValidationError(
                        "INVALID_CONFIG",
                        sentence("INVALID_CONFIG", topic, words, checked_here=True),
                        topic,
                    )
            return None

        releases = await self.broker_releases()
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
        answers: dict[str, TopicAnswer] = {}
        if ops:
            try:
                request: Any = protocol.IncrementalAlterConfigsRequest.for_topics(
                    ops, validate_only
                )
                response = await self._send_about(request, [t for t, _ in ops])
            except UnsupportedByBroker:
                request, response = await self._alter_whole_configs(ops, validate_only)
            for r in request.topic_answers(response):
                code, message = self._lag_answer(r.name, r.error_code, r.error_message)
                answers[r.name] = r._replace(error_code=code, error_message=message)
        verb = "would be updated" if validate_only else "updated"

        def updated(i: int, _: TopicAnswer) -> TopicResult:
            topic = names[i]
            summary = ", ".join(
                f"{c.name}={c.value}" if c.op is ConfigOp.SET else f"-{c.name}"
                for c in changes[topic]
            )
            return TopicResult(
                topic, ok=True, message=f"Topic '{topic}' configs {verb}: {summary}."
            )

        results = merge(names, refused, answers, updated)
        if not validate_only:
            # A read right after, in this process or the next, must show the change: every
            # live broker is polled until it does (KRaft brokers apply it a moment after the
            # controller; measured on 3.3.2, a describe from a new connection read the
            # overrides from before).
            expected = {
                r.topic: {
                    c.name: c.value if c.op is ConfigOp.SET else None for c in changes[r.topic]
                }
                for r in results.values()
                if r.ok
            }
            late = await self.wait_for_topic_configs(
                expected, time.monotonic() + self.settings.request_timeout_ms / 1000
            )
            for i, r in results.items():
                if r.topic in late:
                    results[i] = TopicResult(
                        r.topic,
                        ok=False,
                        error="REQUEST_TIMED_OUT",
                        message=f"Topic '{r.topic}': the config change was accepted, but not "
                        "every broker shows it yet; check again.",
                    )
        return [results[i] for i in range(len(names))]

    async def _alter_whole_configs(
        self, ops: list[tuple[str, list[tuple[str, int, str | None]]]], validate_only: bool
    ) -> tuple[protocol.AlterConfigsRequest, Any]:
        """Before Kafka 2.3 (no IncrementalAlterConfigs) a topic's overrides are replaced as a
        whole, as kafka-configs.sh did then: its current overrides are read, the changes
        applied to them, and the whole set sent, so the other overrides are kept. (Another
        tool's change between the read and the write would be lost, as it was then.) A
        sensitive override is never readable, so such a topic is refused."""
        topics = [t for t, _ in ops]
        read = protocol.DescribeConfigsRequest([(protocol.RESOURCE_TOPIC, t) for t in topics])
        current: dict[str, dict[str, str]] = {}
        for result in read.answer(await self._send_about(read, topics)):
            overrides = [
                c
                for c in result.configs
                if c.config_source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value
            ]
            if any(c.value is None for c in overrides):
                raise AdminError(
                    "UNSUPPORTED_VERSION",
                    f"Topic '{result.resource_name}' has a sensitive override that cannot be "
                    "read back, and this broker (before Kafka 2.3) can only replace all of a "
                    "topic's overrides at once; change it with Kafka 2.3 or newer.",
                    result.resource_name,
                )
            current[result.resource_name] = {c.name: c.value or "" for c in overrides}
        wanted: list[tuple[int, str, dict[str, str]]] = []
        for topic, changes in ops:
            values = dict(current.get(topic, {}))
            for key, op, value in changes:
                if op == protocol.OP_SET and value is not None:
                    values[key] = value
                else:
                    values.pop(key, None)
            wanted.append((protocol.RESOURCE_TOPIC, topic, values))
        request = protocol.AlterConfigsRequest(wanted, validate_only)
        return request, await self._send_about(request, topics)


def _expected(created: TopicResult) -> Expectation:
    return Expectation(created.topic, True, created.partitions or 1, created.topic_id)


def _counts_given(spec: TopicSpec) -> bool:
    return bool(spec.assignment) or (
        spec.partitions is not None and spec.replication_factor is not None
    )


def _counts(spec: TopicSpec) -> tuple[int | None, int | None]:
    if spec.assignment:
        return len(spec.assignment), len(next(iter(spec.assignment.values())))
    return spec.partitions, spec.replication_factor
