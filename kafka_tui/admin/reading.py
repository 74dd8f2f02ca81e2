"""Reading the cluster: brokers, topics, partitions, configs; and waiting for a change to show.

Describing uses Metadata v12 with AllowAutoTopicCreation=false, so it never creates a topic.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import protocol
from .batches import from_code
from .connection import AdminConnection
from .errors import ConnectionFailed, KafkaRequestError, sentence
from .model import (
    BrokerInfo,
    ClusterInfo,
    ConfigEntry,
    ConfigSource,
    PartitionInfo,
    TopicDescription,
    TopicResult,
)

UNKNOWN_TOPIC = 3


class AdminReads(AdminConnection):
    async def describe_cluster(self) -> ClusterInfo:
        response = (await self._send(protocol.DescribeClusterRequest())).to_object()
        if response["error_code"]:
            raise KafkaRequestError.from_code(
                response["error_code"],
                "(cluster)",
                response["error_message"],
                subject="The cluster",
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

    async def list_topics(
        self, *, consistent_for: Sequence[str] | None = None
    ) -> list[TopicDescription]:
        """Every topic with its partitions (one Metadata request; no configs). By default a
        broker that has kafka-tui's recent changes answers; with `consistent_for`, only the
        changes to those topics are waited for."""
        metadata = await self._metadata(None, consistent_for=consistent_for)
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
                errors.append(from_code(topic["name"], topic["error_code"], None))
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

    async def topic_config_value(self, key: str, topics: Sequence[str]) -> dict[str, str | None]:
        """One config's effective value for many topics, in one small DescribeConfigs request
        (the TUI's min.insync.replicas filters on thousands of topics)."""
        configs, _ = await self._topic_configs(list(topics), keys=[key])
        return {topic: entries[key].value for topic, entries in configs.items() if key in entries}

    async def broker_configs(
        self, broker_id: int | None, keys: Sequence[str]
    ) -> dict[str, str | None]:
        """Effective values of `keys` on one broker (e.g. num.partitions,
        default.replication.factor, min.insync.replicas: what a create leaves out); None:
        the broker reads go to, which needs no cluster description first — or, if the link
        to it breaks, another live broker.

        A broker describes only its own configs: asked about another id it answers
        INVALID_REQUEST ("Unexpected broker id"), so the request is rebuilt for the broker
        it goes to (`_send_to_itself`)."""
        if broker_id is not None:
            return await self._broker_configs(broker_id, keys)
        first = self._reader()
        try:
            return await self._broker_configs(first, keys, retry=False)
        except ConnectionFailed:
            return await self._broker_configs(self._reader(avoid=first), keys)

    async def _broker_configs(
        self, broker_id: int, keys: Sequence[str], retry: bool = True
    ) -> dict[str, str | None]:
        request = protocol.DescribeConfigsRequest(
            [(protocol.RESOURCE_BROKER, str(broker_id))], list(keys)
        )
        response = (await self._send_to_itself(request, broker_id, retry=retry)).to_object()
        values: dict[str, str | None] = {}
        for result in response["results"]:
            if result["error_code"]:
                raise KafkaRequestError.about_broker(
                    result["error_code"], broker_id, result["error_message"]
                )
            values |= {c["name"]: c["value"] for c in result["configs"]}
        return values

    async def _topic_configs(
        self, topics: list[str], keys: list[str] | None = None
    ) -> tuple[dict[str, dict[str, ConfigEntry]], list[TopicResult]]:
        request = protocol.DescribeConfigsRequest(
            [(protocol.RESOURCE_TOPIC, t) for t in topics], keys
        )
        response = (await self._send_about(request, topics)).to_object()
        configs: dict[str, dict[str, ConfigEntry]] = {}
        errors: list[TopicResult] = []
        for result in response["results"]:
            name = result["resource_name"]
            if result["error_code"]:
                errors.append(from_code(name, result["error_code"], result["error_message"]))
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

    async def check_topics(self, names: Sequence[str]) -> list[TopicResult]:
        """ "Check again" after a timeout: does each topic exist with a leader everywhere?"""
        metadata = await self._metadata(list(dict.fromkeys(names)))
        by_name = {t["name"]: t for t in metadata["topics"]}
        results = []
        for name in dict.fromkeys(names):
            t = by_name.get(name)
            if t is None or t["error_code"]:
                code = t["error_code"] if t else UNKNOWN_TOPIC
                results.append(from_code(name, code, None))
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
