"""CreatePartitions (KIP-195), DeleteTopics and IncrementalAlterConfigs on both clusters."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pytest

from kafka_tui.admin import (
    ConfigChange,
    ConfigOp,
    ConfigSource,
    ConnectionSettings,
    KafkaAdmin,
    NewPartitions,
    TopicSpec,
    connection,
    protocol,
)
from kafka_tui.admin.connection import poll_until

from ..conftest import Cluster, record_sends

Names = Callable[[str], str]


async def _topic(admin: KafkaAdmin, name: str, partitions: int = 2, rf: int = 2) -> str:
    result = (await admin.create_topics([TopicSpec(name, partitions, rf)]))[0]
    assert result.ok, result.message
    return name


async def test_partitions_grow_with_and_without_assignments(
    admin: KafkaAdmin, topic_name: Names
) -> None:
    plain, placed = await _topic(admin, topic_name("a")), await _topic(admin, topic_name("b"))
    results = await admin.create_partitions(
        [NewPartitions(plain, 4), NewPartitions(placed, 4, [[3, 1], [1, 2]])]
    )
    assert [r.ok for r in results] == [True, True], [r.message for r in results]
    found, _ = await admin.describe_topics([plain, placed], configs=False)
    assert [len(t.partitions) for t in found] == [4, 4]
    assert [p.replicas for p in found[1].partitions[2:]] == [(3, 1), (1, 2)]
    assert all(p.leader >= 0 for t in found for p in t.partitions)


async def test_validate_only_increase_changes_nothing(admin: KafkaAdmin, topic_name: Names) -> None:
    name = await _topic(admin, topic_name())
    result = (await admin.create_partitions([NewPartitions(name, 5)], validate_only=True))[0]
    assert result.ok and "would have 5" in result.message
    found, _ = await admin.describe_topics([name], configs=False)
    assert len(found[0].partitions) == 2


BAD_INCREASES: list[tuple[Callable[[str], NewPartitions], str]] = [
    (lambda t: NewPartitions(t, 2), "INVALID_PARTITIONS"),
    (lambda t: NewPartitions(t, 1), "INVALID_PARTITIONS"),
    (lambda t: NewPartitions(t, 4, [[1, 2]]), "INVALID_REPLICA_ASSIGNMENT"),
    (lambda t: NewPartitions(t, 3, [[1, 1]]), "INVALID_REPLICA_ASSIGNMENT"),
    (lambda t: NewPartitions(t, 3, [[1, 2, 3]]), "INVALID_REPLICA_ASSIGNMENT"),
    (lambda t: NewPartitions(t, 3, [[1, 42]]), "INVALID_REPLICA_ASSIGNMENT"),
]


@pytest.mark.parametrize(
    ("make", "error"),
    BAD_INCREASES,
    ids=["same", "fewer", "wrong-count", "dup-broker", "wrong-rf", "unknown-broker"],
)
async def test_bad_increases_get_the_brokers_error_before_and_after_sending(
    make: Callable[[str], NewPartitions],
    error: str,
    admin: KafkaAdmin,
    raw_admin: KafkaAdmin,
    topic_name: Names,
) -> None:
    name = await _topic(admin, topic_name())
    ours = (await admin.create_partitions([make(name)], validate_only=True))[0]
    broker = (await raw_admin.create_partitions([make(name)], validate_only=True))[0]
    assert broker.error == error, broker.message
    if "42" in str(make(name).assignment):
        # Which ids exist is the broker's knowledge, not a client-side rule.
        assert ours.error == error
    else:
        assert (ours.error, "Kafka would say" in ours.message) == (error, True), ours.message


async def test_increasing_a_missing_topic_or_naming_it_twice(
    admin: KafkaAdmin, topic_name: Names
) -> None:
    name = await _topic(admin, topic_name())
    results = await admin.create_partitions(
        [NewPartitions("no-such-topic-here", 3), NewPartitions(name, 3), NewPartitions(name, 4)]
    )
    assert [r.error for r in results] == [
        "UNKNOWN_TOPIC_OR_PARTITION",
        "INVALID_REQUEST",
        "INVALID_REQUEST",
    ]


async def test_an_increase_may_name_an_offline_broker_on_kraft_but_not_on_zookeeper(
    cluster: Cluster, admin: KafkaAdmin, topic_name: Names
) -> None:
    name = await _topic(admin, topic_name(), partitions=1, rf=2)
    await asyncio.to_thread(cluster.dev.stop_broker, 3)
    try:
        result = (await admin.create_partitions([NewPartitions(name, 2, [[3, 1]])]))[0]
        if cluster.mode == "kraft":
            # Fenced brokers stay registered: the replica is placed, the leader is the
            # first active replica, and broker 3 shows as offline.
            assert result.ok, result.message
            found, _ = await admin.describe_topics([name], configs=False)
            new = found[0].partitions[1]
            assert (new.replicas, new.leader, new.isr) == ((3, 1), 1, (1,))
            assert new.offline_replicas == (3,)
        else:
            assert result.error == "INVALID_REPLICA_ASSIGNMENT", result.message
    finally:
        await asyncio.to_thread(cluster.restore)


async def test_delete_a_batch_each_with_its_own_result(
    admin: KafkaAdmin, topic_name: Names
) -> None:
    a, b = await _topic(admin, topic_name("a")), await _topic(admin, topic_name("b"))
    results = await admin.delete_topics([a, "missing-topic-x", b, "__consumer_offsets"])
    assert [(r.topic, r.ok, r.error) for r in results] == [
        (a, True, None),
        ("missing-topic-x", False, "UNKNOWN_TOPIC_OR_PARTITION"),
        (b, True, None),
        ("__consumer_offsets", False, "INVALID_REQUEST"),
    ]
    assert "internal" in results[3].message
    # deleted means: no broker lists it any more (the call polled until then)
    found, errors = await admin.describe_topics([a, b], configs=False)
    assert found == []
    assert [(e.topic, e.error) for e in errors] == [
        (a, "UNKNOWN_TOPIC_OR_PARTITION"),
        (b, "UNKNOWN_TOPIC_OR_PARTITION"),
    ]


async def test_a_deletion_names_each_deleted_topics_id(
    admin: KafkaAdmin, topic_name: Names, cluster: Cluster
) -> None:
    """KRaft answers DeleteTopics with the topic id; ZooKeeper-mode 3.9 answers with none
    (pinned here), and kafka-tui reads the ids before the request instead. The id lets a
    later read tell the deleted topic from a new one of the same name. Which kind of
    cluster it is comes from ApiVersions: only KRaft brokers list UnregisterBroker (pinned)."""
    assert await admin._answers_deletions_with_ids() == (cluster.mode == "kraft")
    a, b = await _topic(admin, topic_name("a")), await _topic(admin, topic_name("b"))
    found, _ = await admin.describe_topics([a, b], configs=False)
    ids = {t.name: t.topic_id for t in found}
    request = protocol.DeleteTopicsRequest([a], 30_000)
    answer = request.topic_answers(await admin._send(request, await admin._controller()))
    answered_id = answer[0].topic_id
    assert bool(answered_id) == (cluster.mode == "kraft"), answer
    results = await admin.delete_topics([b])
    assert [(r.topic, r.ok, r.topic_id) for r in results] == [(b, True, ids[b])]
    assert all(ids.values())


async def test_a_deletion_right_after_connecting_asks_no_broker_first_and_reads_stay_true(
    admin: KafkaAdmin, topic_name: Names, cluster: Cluster
) -> None:
    """A fresh connection knows the cluster's id and its controller from the metadata read
    on connecting: a KRaft deletion is its first request (reading the controller again cost
    a round trip); ZooKeeper mode reads the ids first. The journal, keyed by the cluster's
    id, still records the deletion: the next read does not list the topic."""
    name = await _topic(admin, topic_name())
    async with KafkaAdmin(ConnectionSettings(cluster.bootstrap_servers)) as fresh:
        assert fresh.cluster_id == admin.cluster_id is not None
        sent = record_sends(fresh)
        results = await fresh.delete_topics([name])
        assert [(r.topic, r.ok) for r in results] == [(name, True)]
        kinds = [type(r).__name__ for _, r in sent]
        first = ["DeleteTopicsRequest"]
        if cluster.mode == "zk":
            first = ["MetadataRequest", *first]
        assert kinds[: len(first)] == first, kinds
        found, _ = await fresh.describe_topics([name], configs=False)
        assert found == []


async def test_a_deletion_on_a_connection_idle_for_a_while_reads_the_controller_once(
    admin: KafkaAdmin, topic_name: Names, cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A TUI connected a while ago, with no connection open: the deletion first opens the
    connection to the controller (to know the kind of cluster), reading who it is; sending
    the deletion then uses that read instead of reading again."""
    name = await _topic(admin, topic_name())
    monkeypatch.setattr(connection, "CONTROLLER_FRESH_S", 0.5)
    async with KafkaAdmin(ConnectionSettings(cluster.bootstrap_servers)) as idle:
        await asyncio.sleep(0.6)  # aiokafka's metadata from connecting is no longer fresh
        sent = record_sends(idle)
        results = await idle.delete_topics([name])
        assert [(r.topic, r.ok) for r in results] == [(name, True)]
        kinds = [type(r).__name__ for _, r in sent]
        before = kinds[: kinds.index("DeleteTopicsRequest")]
        controller_reads = [
            r
            for _, r in sent[: len(before)]
            if type(r).__name__ == "MetadataRequest" and r.topics == []
        ]
        assert len(controller_reads) == 1, kinds


async def test_a_name_starting_with_two_underscores_is_deleted_unless_kafka_calls_it_internal(
    admin: KafkaAdmin, topic_name: Names
) -> None:
    name = await _topic(admin, "__" + topic_name("not-internal"))
    results = await admin.delete_topics([name, "__transaction_state"])
    assert [(r.topic, r.ok, r.error) for r in results] == [
        (name, True, None),
        ("__transaction_state", False, "INVALID_REQUEST"),
    ]


async def test_configs_change_incrementally_and_keep_other_overrides(
    admin: KafkaAdmin, topic_name: Names
) -> None:
    name = topic_name()
    created = await admin.create_topics(
        [TopicSpec(name, 1, 1, configs={"retention.ms": "3600000", "segment.ms": "600000"})]
    )
    assert created[0].ok
    results = await admin.alter_topic_configs(
        {
            name: [
                ConfigChange("cleanup.policy", ConfigOp.SET, "compact,delete"),
                ConfigChange("segment.ms", ConfigOp.DELETE),
            ]
        }
    )
    assert results[0].ok, results[0].message
    found, _ = await admin.describe_topics([name])
    configs = found[0].configs
    overrides = {k: c.value for k, c in configs.items() if c.is_override}
    assert overrides == {"retention.ms": "3600000", "cleanup.policy": "compact,delete"}
    assert configs["segment.ms"].source is ConfigSource.DEFAULT_CONFIG
    assert configs["segment.ms"].value == "604800000"


async def test_config_errors_are_per_topic(admin: KafkaAdmin, topic_name: Names) -> None:
    name = await _topic(admin, topic_name())
    results = await admin.alter_topic_configs(
        {
            name: [ConfigChange("retention.ms", ConfigOp.SET, "not-a-number")],
            "missing-topic-y": [ConfigChange("retention.ms", ConfigOp.SET, "1")],
            "bad name": [ConfigChange("retention.ms", ConfigOp.SET, "1")],
        },
        validate_only=True,
    )
    assert [r.error for r in results] == [
        "INVALID_CONFIG",
        "UNKNOWN_TOPIC_OR_PARTITION",
        "INVALID_TOPIC_EXCEPTION",
    ]


async def test_cluster_description_lists_fenced_brokers_on_kraft(
    cluster: Cluster, admin: KafkaAdmin
) -> None:
    info = await admin.describe_cluster()
    assert [(b.id, b.rack, b.fenced) for b in info.brokers] == [
        (1, "rack-a", False),
        (2, "rack-b", False),
        (3, "rack-c", False),
    ]
    # KRaft: the quorum's leader, the dev cluster's controller node 1000 (DescribeQuorum);
    # ZooKeeper mode: the broker that controls.
    assert info.cluster_id
    assert info.controller_id in ({1000} if cluster.mode == "kraft" else {1, 2, 3})
    await asyncio.to_thread(cluster.dev.stop_broker, 2)
    try:
        info = await admin.describe_cluster()
        if cluster.mode == "kraft":
            assert info.lists_fenced_brokers
            assert [(b.id, b.fenced) for b in info.brokers] == [(1, False), (2, True), (3, False)]
        else:
            assert not info.lists_fenced_brokers
            assert [b.id for b in info.brokers] == [1, 3]
        assert info.live_broker_ids == [1, 3]
    finally:
        await asyncio.to_thread(cluster.restore)


async def test_a_topic_with_an_offline_replica_is_described_as_such(
    cluster: Cluster, admin: KafkaAdmin, topic_name: Names
) -> None:
    name = topic_name()
    assert (await admin.create_topics([TopicSpec(name, assignment={0: [2, 1], 1: [1, 2]})]))[0].ok
    await asyncio.to_thread(cluster.dev.stop_broker, 2)
    try:
        found, _ = await admin.describe_topics([name], configs=False)
        p0, p1 = found[0].partitions
        assert p0.leader == 1 and p1.leader == 1
        assert p0.isr == (1,) and p0.under_replicated
        assert p0.offline_replicas == (2,) and p1.offline_replicas == (2,)
    finally:
        await asyncio.to_thread(cluster.restore)


async def test_an_unreachable_cluster_is_a_clear_connection_error() -> None:
    from kafka_tui.admin import ConnectionFailed

    with pytest.raises(ConnectionFailed) as failure:
        async with KafkaAdmin(ConnectionSettings("127.0.0.1:1", request_timeout_ms=3000)):
            pass
    assert "Cannot connect to Kafka at 127.0.0.1:1" in failure.value.message


async def _listed_by_all(admin: KafkaAdmin, name: str, listed: bool) -> bool | None:
    """True once every live broker's metadata lists `name` (`listed`), or none does; None
    until then."""
    nodes = sorted(b.nodeId for b in admin.client.cluster.brokers())
    for node in nodes:
        answer = await admin._metadata_from([name], node, partitions=False, retry=False)
        if any(t.name == name and t.error_code == 0 for t in answer.topics) != listed:
            return None
    return True


async def _delete_elsewhere(bootstrap_servers: str, name: str) -> None:
    """Delete `name` with another tool (aiokafka's admin client): kafka-tui's journal does not
    hear of it."""
    from aiokafka.admin import AIOKafkaAdminClient

    other = AIOKafkaAdminClient(bootstrap_servers=bootstrap_servers)
    await other.start()
    try:
        await other.delete_topics([name], timeout_ms=30_000)
    finally:
        await other.close()


async def test_a_topic_another_tool_deleted_does_not_hold_later_reads(
    cluster: Cluster, topic_name: Names
) -> None:
    """kafka-tui's next reads wait for a broker that shows its own recent changes (journal.py);
    a topic deleted since by another tool (here aiokafka's admin client) is found out at the
    controller instead of holding the read for the whole request timeout.

    Kafka fact, both kinds of cluster: a validate-only CreateTopics answers
    TOPIC_ALREADY_EXISTS for a topic the controller has and no error once it is deleted.

    Kafka fact, ZooKeeper mode 3.9: the controller answers a creation and a deletion without
    waiting for the other brokers, and a broker that has applied neither answers
    UNKNOWN_TOPIC_OR_PARTITION, as after the deletion. Measured with a broker paused
    (SIGSTOP) while the controller answered both: once resumed it answered "unknown", then
    listed the topic for 1-15 ms, then "unknown" again. So "listed by no broker" proves the
    deletion only after every broker has listed the topic; this test once read it too soon
    and a broker listed the topic in the middle of the read (see the next test)."""
    settings = ConnectionSettings(cluster.bootstrap_servers, request_timeout_ms=60_000)
    name = topic_name()
    async with KafkaAdmin(settings) as ours:
        assert (await ours.create_topics([TopicSpec(name, 1, 1)]))[0].ok
        assert await ours._absent_at_controller([name]) == set()
        assert await poll_until(lambda: _listed_by_all(ours, name, True), time.monotonic() + 60)
    await _delete_elsewhere(cluster.bootstrap_servers, name)
    # "Deleted since" means gone from every broker: the delete's answer only says the
    # broker that took it (ZooKeeper mode) or the controller (KRaft) has applied it, and a
    # read that reaches a broker still applying it rightly lists the topic.
    async with KafkaAdmin(settings) as probe:
        assert await poll_until(lambda: _listed_by_all(probe, name, False), time.monotonic() + 60)
    async with KafkaAdmin(settings) as later:
        started = asyncio.get_running_loop().time()
        found, missing = await later.describe_topics([name], configs=False)
        waited = asyncio.get_running_loop().time() - started
        assert found == []
        assert [(m.topic, m.error) for m in missing] == [(name, "UNKNOWN_TOPIC_OR_PARTITION")]
        assert later.journal.expectations(later.cluster_id, [name]) == []
        assert await later._absent_at_controller([name]) == {name}
    # The request timeout is 60 s; the controller is asked once the expectation is 2 s old.
    assert waited < 30, waited


async def test_a_read_forgets_a_change_the_broker_it_waited_for_has_moved_past(
    cluster: Cluster, topic_name: Names
) -> None:
    """A read that waits for a broker showing kafka-tui's recent changes asks each broker about
    them, then reads from the first that shows them all: two answers. Between them the broker
    can apply a later change made with another tool (in ZooKeeper mode a broker behind a
    creation lists the topic for a few ms, then applies its deletion: see the test above).
    A broker's metadata only moves forward, so the read returns the newer state and forgets
    the expectation that state contradicts, instead of keeping it to hold later reads.

    Here the deletion is made to land between the two answers: the broker's first answer
    comes from before the creation, every broker then lists the topic, and the read that
    follows the wait is sent once no broker lists it any more."""
    settings = ConnectionSettings(cluster.bootstrap_servers, request_timeout_ms=60_000)
    name = topic_name()
    async with KafkaAdmin(settings) as admin:
        before = await admin._metadata_from([name], admin._reader(), partitions=False)
        assert (await admin.create_topics([TopicSpec(name, 1, 1)]))[0].ok
        assert await poll_until(lambda: _listed_by_all(admin, name, True), time.monotonic() + 60)
        expected = admin.journal.expectations(admin.cluster_id, [name])
        assert [(e.topic, e.exists) for e in expected] == [(name, True)]
        read = admin._metadata_from
        reads_after_the_wait: list[int] = []

        async def deleted_first(
            topics: list[str] | None, node: int, partitions: bool = True, retry: bool = True
        ) -> protocol.Metadata:
            if partitions:  # the wait asks without partitions; the read after it with them
                reads_after_the_wait.append(node)
                await _delete_elsewhere(cluster.bootstrap_servers, name)
                assert await poll_until(
                    lambda: _listed_by_all(admin, name, False), time.monotonic() + 60
                )
            return await read(topics, node, partitions, retry)

        admin._metadata_from = deleted_first  # type: ignore[method-assign]
        answer = await admin._caught_up([name], expected, before)
        assert len(reads_after_the_wait) == 1
        assert [(t.name, t.error_code) for t in answer.topics] == [(name, 3)]
        assert admin.journal.expectations(admin.cluster_id, [name]) == []


async def test_reads_before_the_connection_share_one_connect_and_none_after_close(
    kraft_cluster: Cluster,
) -> None:
    """A screen's first read can come while the app still connects (the brokers screen pushed
    before the topics screen's first load): it waits for that connection instead of failing
    with "not connected", and reads at the same moment share one attempt."""
    admin = KafkaAdmin(ConnectionSettings(kraft_cluster.bootstrap_servers))
    attempts = 0
    connect = admin.connect

    async def counted() -> None:
        nonlocal attempts
        attempts += 1
        await connect()

    admin.connect = counted  # type: ignore[method-assign]
    try:
        cluster, names = await asyncio.gather(admin.describe_cluster(), admin.topic_names())
        assert attempts == 1
        assert len(cluster.brokers) == 3
        assert isinstance(names, list)
    finally:
        await admin.close()
    # closed: a late read (a screen's worker outliving its profile) does not open it again
    with pytest.raises(connection.ConnectionFailed, match="closed"):
        await admin.describe_cluster()
    assert attempts == 1
