"""CreateTopics (KIP-4) against both real clusters: batches, validation, timeouts."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from kafka_tui.admin import (
    ConnectionSettings,
    KafkaAdmin,
    NewPartitions,
    TopicSpec,
)
from kafka_tui.admin import (
    audit_log as audit,
)
from kafka_tui.admin.model import TopicDescription
from kafka_tui.admin.protocol import TopicAnswer
from kafka_tui.admin.validation import COLLISION_WARNING

from ..conftest import Cluster

Names = Callable[[str], str]


async def test_a_batch_reports_each_topic_and_one_failure_hides_nothing(
    admin: KafkaAdmin, topic_name: Names
) -> None:
    good1, good2, taken = topic_name("a"), topic_name("b"), topic_name("taken")
    assert (await admin.create_topics([TopicSpec(taken, 1, 1)]))[0].ok
    results = await admin.create_topics(
        [
            TopicSpec(good1, 3, 3, configs={"retention.ms": "60000"}),
            TopicSpec(taken, 1, 1),
            TopicSpec(good2, assignment={0: [1, 2], 1: [2, 3], 2: [3, 1]}),
            TopicSpec("no spaces allowed", 1, 1),
        ]
    )
    assert [(r.topic, r.ok, r.error) for r in results] == [
        (good1, True, None),
        (taken, False, "TOPIC_ALREADY_EXISTS"),
        (good2, True, None),
        ("no spaces allowed", False, "INVALID_TOPIC_EXCEPTION"),
    ]
    assert results[0].partitions == 3 and results[0].replication_factor == 3
    assert results[0].topic_id
    assert f"'{taken}' already exists" in results[1].message
    found, errors = await admin.describe_topics([good1, good2])
    assert errors == []
    by_name = {t.name: t for t in found}
    assert by_name[good1].configs["retention.ms"].value == "60000"
    assert by_name[good1].configs["retention.ms"].is_override
    assert [p.replicas for p in by_name[good2].partitions] == [(1, 2), (2, 3), (3, 1)]
    # timeout > 0: the controller answered once every partition had a leader.
    assert all(p.leader >= 0 for t in found for p in t.partitions)


async def test_validate_only_checks_and_creates_nothing(
    admin: KafkaAdmin, topic_name: Names
) -> None:
    name = topic_name()
    results = await admin.create_topics([TopicSpec(name, 2, 2)], validate_only=True)
    assert results[0].ok and "would be created" in results[0].message
    too_big = await admin.create_topics([TopicSpec(topic_name(), 1, 9)], validate_only=True)
    assert too_big[0].error == "INVALID_REPLICATION_FACTOR"
    found, errors = await admin.describe_topics([name])
    assert found == [] and [e.error for e in errors] == ["UNKNOWN_TOPIC_OR_PARTITION"]


async def test_broker_defaults_apply_when_partitions_and_rf_are_left_out(
    admin: KafkaAdmin, topic_name: Names
) -> None:
    name = topic_name()
    result = (await admin.create_topics([TopicSpec(name)]))[0]
    # Kafka's production defaults: num.partitions=1, default.replication.factor=1.
    assert (result.ok, result.partitions, result.replication_factor) == (True, 1, 1)


async def _led(admin: KafkaAdmin, names: list[str]) -> list[TopicDescription] | None:
    """`names` described, each found with a leader on every partition; None otherwise."""
    found, errors = await admin.describe_topics(names, configs=False)
    if errors or any(p.leader < 0 for t in found for p in t.partitions):
        return None
    return found


async def test_zero_timeout_returns_once_accepted_and_check_again_finds_the_topic(
    admin: KafkaAdmin, topic_name: Names
) -> None:
    name = topic_name()
    result = (await admin.create_topics([TopicSpec(name, 6, 3)], timeout_ms=0))[0]
    assert result.ok
    # "Check again": the topic exists, every partition with a leader and 3 replicas.
    found = await _led(admin, [name])
    assert found is not None, "the topic is not shown with every partition led"
    (topic,) = found
    assert len(topic.partitions) == 6 and topic.replication_factor == 3


async def test_reads_after_a_change_never_go_backwards_whichever_broker_answers(
    cluster: Cluster, admin: KafkaAdmin, topic_name: Names
) -> None:
    """The result follows the controller's answer; brokers apply the change afterwards (on
    ZooKeeper mode one by one). Every later read, starting at any broker, in this client or
    a new one (another process), must still show it."""
    names = [topic_name(str(i)) for i in range(20)]
    results = await admin.create_topics([TopicSpec(n, 3, 2) for n in names], timeout_ms=0)
    assert all(r.ok for r in results)
    grown = await admin.create_partitions([NewPartitions(names[0], 5)])
    assert grown[0].ok, grown[0].message
    deleted = await admin.delete_topics([names[1]])
    assert deleted[0].ok and deleted[0].topic_id == results[1].topic_id
    async with KafkaAdmin(ConnectionSettings(cluster.bootstrap_servers)) as fresh:
        for client in (admin, fresh):
            for broker in (1, 2, 3):
                client._read_node = broker
                found, errors = await client.describe_topics(names, configs=False)
                assert [t.name for t in found] == [n for n in names if n != names[1]]
                assert [e.topic for e in errors] == [names[1]]
                assert len(found[0].partitions) == 5
                led = await _led(client, names[2:])
                assert led is not None, "a topic shown without a leader on some partition"


async def test_the_same_topic_twice_is_invalid_request_for_that_topic_only(
    admin: KafkaAdmin, raw_admin: KafkaAdmin, topic_name: Names
) -> None:
    twice, once = topic_name("twice"), topic_name("once")
    specs = [TopicSpec(twice, 1, 1), TopicSpec(once, 1, 1), TopicSpec(twice, 2, 1)]
    ours = await admin.create_topics(specs, validate_only=True)
    assert [(r.topic, r.error) for r in ours] == [
        (twice, "INVALID_REQUEST"),
        (once, None),
        (twice, "INVALID_REQUEST"),
    ]
    broker = await raw_admin.create_topics(specs, validate_only=True)
    assert [r.error for r in broker] == [r.error for r in ours]


INVALID_SPECS = [
    (TopicSpec("", 1, 1), "INVALID_TOPIC_EXCEPTION"),
    (TopicSpec(".", 1, 1), "INVALID_TOPIC_EXCEPTION"),
    (TopicSpec("..", 1, 1), "INVALID_TOPIC_EXCEPTION"),
    (TopicSpec("x" * 250, 1, 1), "INVALID_TOPIC_EXCEPTION"),
    (TopicSpec("bad/name", 1, 1), "INVALID_TOPIC_EXCEPTION"),
    (TopicSpec("v-both", 2, 1, assignment={0: [1]}), "INVALID_REQUEST"),
    (TopicSpec("v-zero-partitions", 0, 1), "INVALID_PARTITIONS"),
    (TopicSpec("v-negative-rf", 1, -3), "INVALID_REPLICATION_FACTOR"),
    (TopicSpec("v-zero-rf", 1, 0), "INVALID_REPLICATION_FACTOR"),
    (TopicSpec("v-dup-broker", assignment={0: [1, 1]}), "INVALID_REPLICA_ASSIGNMENT"),
    (TopicSpec("v-uneven", assignment={0: [1, 2], 1: [2]}), "INVALID_REPLICA_ASSIGNMENT"),
    (TopicSpec("v-gap", assignment={0: [1], 2: [2]}), "INVALID_REPLICA_ASSIGNMENT"),
    (TopicSpec("v-empty-list", assignment={0: []}), "INVALID_REPLICA_ASSIGNMENT"),
]
# Where a broker's own verdict differs from Kafka's rule, the client-side check is what
# protects the operator. ZooKeeper-mode 3.9 accepts an empty replica list in validate-only
# mode ("would be created with replication factor 0").
BROKER_ACCEPTS = {("zk", "v-empty-list")}


@pytest.mark.parametrize(("spec", "error"), INVALID_SPECS, ids=lambda v: getattr(v, "name", v)[:20])
async def test_client_side_validation_gives_the_brokers_verdict(
    spec: TopicSpec, error: str, admin: KafkaAdmin, raw_admin: KafkaAdmin, cluster: Cluster
) -> None:
    ours = (await admin.create_topics([spec], validate_only=True))[0]
    assert (ours.ok, ours.error) == (False, error)
    assert "Kafka would say" in ours.message
    broker = (await raw_admin.create_topics([spec], validate_only=True))[0]
    if (cluster.mode, spec.name) in BROKER_ACCEPTS:
        assert broker.ok, "the broker now refuses it: drop the BROKER_ACCEPTS entry"
    else:
        assert (broker.ok, broker.error) == (False, error), broker.message


async def test_an_assignment_naming_an_unknown_broker_is_refused_by_kraft(
    kraft_cluster: Cluster, topic_name: Names
) -> None:
    from kafka_tui.admin import ConnectionSettings

    async with KafkaAdmin(ConnectionSettings(kraft_cluster.bootstrap_servers)) as admin:
        result = (await admin.create_topics([TopicSpec(topic_name(), assignment={0: [1, 42]})]))[0]
    assert result.error == "INVALID_REPLICA_ASSIGNMENT"
    assert "42" in result.message


async def test_a_name_mixing_period_and_underscore_is_created_with_a_warning(
    admin: KafkaAdmin, topic_name: Names
) -> None:
    name = topic_name().replace("-", "_") + ".x"
    result = (await admin.create_topics([TopicSpec(name, 1, 1)]))[0]
    assert result.ok and result.warning == COLLISION_WARNING
    colliding = name.replace(".", "_")
    clash = (await admin.create_topics([TopicSpec(colliding, 1, 1)]))[0]
    assert clash.error == "INVALID_TOPIC_EXCEPTION" and "collides" in clash.message


async def test_describing_a_missing_topic_never_creates_it(
    admin: KafkaAdmin, topic_name: Names
) -> None:
    # Both clusters run with Kafka's default auto.create.topics.enable=true.
    name = topic_name("ghost")
    for _ in range(3):
        found, errors = await admin.describe_topics([name])
        assert found == [] and errors[0].error == "UNKNOWN_TOPIC_OR_PARTITION"
    assert name not in {t.name for t in await admin.list_topics()}


async def test_large_batches_go_in_as_few_requests_as_the_controller_allows(
    admin: KafkaAdmin, topic_name: Names
) -> None:
    from kafka_tui.admin.batches import MAX_RECORDS_PER_REQUEST, chunks, create_cost

    specs = [TopicSpec(f"{topic_name()}-{i}", 3, 1) for i in range(3000)]
    chunks = chunks(specs, create_cost)
    assert len(chunks) == -(-sum(map(create_cost, specs)) // MAX_RECORDS_PER_REQUEST)
    results = await admin.create_topics(specs, validate_only=True)
    assert all(r.ok for r in results), [r for r in results if not r.ok][:3]


async def test_a_plain_bulk_create_journals_and_audits_what_its_results_say(
    admin: KafkaAdmin, topic_name: Names
) -> None:
    """Every topic created plainly: the journal line and the audit outcomes are what the
    results say (a later read waits for these)."""
    specs = [
        TopicSpec(topic_name("plain-a"), 2, 1),
        TopicSpec(topic_name("plain-b"), 1, 1),
        TopicSpec(topic_name("plain-c"), assignment={0: [1, 2], 1: [2, 1], 2: [1, 2]}),
    ]
    results = await admin.create_topics(specs, topic_ids=False)
    assert [r.ok for r in results] == [True] * 3
    line = json.loads(admin.journal.path.read_text().splitlines()[-1])
    assert (line["c"], line["x"]) == (admin.cluster_id, True)
    counts = list(zip(specs, (2, 1, 3), strict=True))
    assert sorted(line["e"]) == sorted([[s.name, n, None] for s, n in counts])
    held = admin.journal.expectations(admin.cluster_id, [s.name for s in specs])
    assert sorted((e.topic, e.partitions, e.at) for e in held) == sorted(
        (s.name, n, line["at"]) for s, n in counts
    )
    entry = json.loads(audit.log_path().read_text().splitlines()[-1])
    assert entry["topics"] == [s.name for s in specs]
    assert entry["result"]["status"] == "ok"
    assert entry["result"]["topics"] == [
        {"topic": r.topic, "ok": True, "error": None, "message": r.message} for r in results
    ]


async def test_a_bulk_create_without_ids_reports_each_topic_from_its_own_answer(
    admin: KafkaAdmin, topic_name: Names
) -> None:
    """A bulk create (no topic ids asked: CreateTopics v4's bare answers) gives each topic
    the result its own answer makes, counts from the spec — one topic of the batch is
    refused by the broker, so the batch mixes both."""
    taken = topic_name("taken")
    assert (await admin.create_topics([TopicSpec(taken, 1, 1)]))[0].ok
    specs = [
        TopicSpec(topic_name("counts"), 2, 2),
        TopicSpec(topic_name("dot.and_under"), 1, 1),  # carries the collision warning
        TopicSpec(topic_name("placed"), assignment={0: [1, 2], 1: [2, 3]}),
        TopicSpec(taken, 1, 1),
    ]
    results = await admin.create_topics(specs, topic_ids=False)
    assert [(r.ok, r.error) for r in results] == [(True, None)] * 3 + [
        (False, "TOPIC_ALREADY_EXISTS")
    ]
    for spec, result in zip(specs[:3], results, strict=False):
        plain = TopicAnswer(spec.name, 0, None)
        assert result == admin._create_result(spec, plain, False)
    assert results[1].warning == COLLISION_WARNING
    assert (results[2].partitions, results[2].replication_factor) == (2, 2)
