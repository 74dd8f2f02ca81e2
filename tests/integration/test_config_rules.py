"""Topic configs a broker's release refuses are refused before sending, in the broker's words
(admin/config_rules.py), and only where that release refuses them: Kafka 4.4 (KRaft) took
segment.bytes below 1 MiB and the message-format configs for errors, 3.9 (ZooKeeper mode)
takes both. Also pinned: 4.4 accepts an empty cleanup.policy."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from kafka_tui.admin import ConfigChange, ConfigOp, KafkaAdmin, TopicSpec
from kafka_tui.admin.protocol import CreateTopicsRequest, IncrementalAlterConfigsRequest

from ..conftest import Cluster, record_sends

REFUSED_BY_4 = {
    "segment.bytes": (
        "1000",
        "Invalid value 1000 for configuration segment.bytes: Value must be at least 1048576",
    ),
    "message.format.version": ("2.8", "Unknown topic config name: message.format.version"),
}


@pytest.mark.parametrize("key", sorted(REFUSED_BY_4))
async def test_what_the_release_refuses_is_refused_before_sending(
    admin: KafkaAdmin, cluster: Cluster, topic_name: Callable[[str], str], key: str
) -> None:
    value, words = REFUSED_BY_4[key]
    name = topic_name("rule")
    sent = record_sends(admin)
    (result,) = await admin.create_topics(
        [TopicSpec(name, 1, 1, configs={key: value})], validate_only=True
    )
    creates = [r for _, r in sent if isinstance(r, CreateTopicsRequest)]
    if cluster.mode == "zk":  # 3.9 takes it: sent, and the broker's validation passes
        assert result.ok, result
        assert len(creates) == 1
        return
    assert not result.ok and result.error == "INVALID_CONFIG", result
    assert result.message.endswith(f"Kafka would say: {words}"), result.message
    assert creates == [], "refused before sending"

    # The broker says the same when asked (the rule is its own words, not a guess).
    raw = KafkaAdmin(admin.settings, client_side_validation=False)
    async with raw:
        (answered,) = await raw.create_topics(
            [TopicSpec(name, 1, 1, configs={key: value})], validate_only=True
        )
    assert answered.error == "INVALID_CONFIG" and words in answered.message, answered

    # The same rule for a config change of an existing topic.
    (created,) = await admin.create_topics([TopicSpec(name, 1, 1)])
    assert created.ok, created
    sent.clear()
    (altered,) = await admin.alter_topic_configs({name: [ConfigChange(key, ConfigOp.SET, value)]})
    assert not altered.ok and altered.message.endswith(f"Kafka would say: {words}")
    assert not [r for _, r in sent if isinstance(r, IncrementalAlterConfigsRequest)]


async def test_an_empty_cleanup_policy_is_taken(
    admin: KafkaAdmin, topic_name: Callable[[str], str]
) -> None:
    (result,) = await admin.create_topics(
        [TopicSpec(topic_name("empty"), 1, 1, configs={"cleanup.policy": ""})],
        validate_only=True,
    )
    assert result.ok, result
