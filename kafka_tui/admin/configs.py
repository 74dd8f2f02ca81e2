"""Topic configs for plans as desired state (issue 32): each config with the value it would
have without the topic's override (DescribeConfigs' synonyms), and a wait until every live
broker shows a config change.

Why the wait: in KRaft a broker answers DescribeConfigs about a topic from its own copy of
the metadata log, which applies a committed IncrementalAlterConfigs some time after the
controller answered; a read that lands on another broker (the next command connects
afresh) could still show the old overrides. ZooKeeper-mode brokers read topic configs from
ZooKeeper itself, so there the first poll already agrees.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from . import protocol
from .batches import batched, from_code, pipelined
from .connection import AdminConnection, poll_until
from .errors import ConnectionFailed
from .model import ConfigEntry, ConfigSource, TopicResult

# Topics per DescribeConfigs request: every config with its synonyms is ~6 KB a topic.
CONFIG_BATCH = 100


class ConfigWithDefault(NamedTuple):
    entry: ConfigEntry
    default: str | None  # the value underneath an override (its next synonym); None: unknown


def _source(code: int) -> ConfigSource:
    return ConfigSource(code) if code in ConfigSource._value2member_map_ else ConfigSource.UNKNOWN


class AdminConfigs(AdminConnection):
    async def topic_configs_with_defaults(
        self, names: Sequence[str]
    ) -> tuple[dict[str, dict[str, ConfigWithDefault]], list[TopicResult]]:
        """Every config of each topic, with the value underneath an override."""
        found: dict[str, dict[str, ConfigWithDefault]] = {}
        errors: list[TopicResult] = []

        async def read(batch: list[str]) -> Any:
            request = protocol.DescribeConfigsRequest(
                [(protocol.RESOURCE_TOPIC, t) for t in batch], synonyms=True
            )
            return await self._send_about(request, batch)

        # READS_IN_FLIGHT batches at once: 100 topics with synonyms take the broker ~0.6 s.
        batches = batched(list(dict.fromkeys(names)), CONFIG_BATCH)
        async for response in pipelined(batches, read):
            for result in protocol.DescribeConfigsRequest.answer(response):
                name = result.resource_name
                if result.error_code:
                    errors.append(
                        from_code(
                            name, *self._lag_answer(name, result.error_code, result.error_message)
                        )
                    )
                    continue
                found[name] = {c.name: _with_default(c) for c in result.configs}
        return found, errors

    async def wait_for_topic_configs(
        self, expected: Mapping[str, Mapping[str, str | None]], deadline: float
    ) -> set[str]:
        """Poll every live broker until each shows `expected` (topic -> key -> override
        value; None: no override); returns the topics some broker still shows otherwise
        when `deadline` (monotonic) passes. A broker whose link was just lost, or that does
        not answer, is left out: no read reaches it either until it is back, and then it
        has caught up before it serves."""
        pending = {t: dict(keys) for t, keys in expected.items() if keys}
        behind: set[str] = set(pending)
        unreachable = {self._lost_node} if self._lost_node is not None else set()

        async def check() -> bool | None:
            behind.clear()
            nodes = sorted(b.nodeId for b in self.client.cluster.brokers())
            for node, names in ((n, b) for n in nodes for b in batched(sorted(pending), 500)):
                if node in unreachable:
                    continue
                keys = sorted({k for t in names for k in pending[t]})
                request = protocol.DescribeConfigsRequest(
                    [(protocol.RESOURCE_TOPIC, t) for t in names], keys
                )
                try:
                    response = await self._send(request, node, retry=False)
                except ConnectionFailed:
                    unreachable.add(node)
                    continue
                for result in protocol.DescribeConfigsRequest.answer(response):
                    name = result.resource_name
                    shown = {
                        c.name: c.value
                        for c in result.configs
                        if c.config_source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value
                    }
                    if result.error_code or any(
                        shown.get(k) != v for k, v in pending.get(name, {}).items()
                    ):
                        behind.add(name)
                if behind:
                    return None
            return True

        if pending and await poll_until(check, deadline) is None:
            return behind
        return set()


def _with_default(config: protocol.ConfigValue) -> ConfigWithDefault:
    entry = ConfigEntry(
        name=config.name,
        value=config.value,
        source=_source(config.config_source),
        read_only=config.read_only,
        sensitive=config.is_sensitive,
    )
    underneath = [
        s.value for s in config.synonyms if s.source != ConfigSource.DYNAMIC_TOPIC_CONFIG.value
    ]
    return ConfigWithDefault(entry, underneath[0] if underneath else None)
