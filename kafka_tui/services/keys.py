"""Whether growing a topic changes where its keys go.

Kafka's default partitioner sends a keyed record to murmur2(key) mod the partition count, so
adding partitions sends keys to other partitions: a key's records before and after the change
sit in different partitions (per-key order holds only on each side of it), and on a compacted
topic compaction keeps a record per key *per partition*, so the old value of a moved key
survives beside the new one. The check: the topic's cleanup.policy, and, for a topic not
compacted, whether the last batch of each partition carries keys (admin/sampling.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from ..admin import AdminError, TopicResult
from .ports import AdminPort

KEY_MAPPING_WARNING = "KEY_MAPPING_CHANGES"
CLEANUP_POLICY = "cleanup.policy"


@dataclass(frozen=True)
class KeyMapping:
    """`compacted`: cleanup.policy contains compact; `keyed`: a recent record carries a key
    (None: not sampled, or nothing could be read); `unknown`: why the check is incomplete."""

    topic: str
    compacted: bool
    keyed: bool | None
    unknown: str | None = None

    @property
    def changes(self) -> bool:
        return self.compacted or bool(self.keyed)

    def sentence(self, current: int, total: int | None = None) -> str:
        """Why growing from `current` to `total` partitions (None: not chosen yet) matters,
        for a warning."""
        if total is None or total <= current:
            grow = "adding partitions sends keys to other partitions"
        else:
            moved = moved_share(current, total)
            share = f"about {moved:.0%} of keys" if moved < 1 else "keys"
            grow = (
                f"growing it from {current} to {total} partitions sends {share} to another "
                "partition"
            )
        if self.compacted:
            return (
                f"Topic '{self.topic}' is compacted: {grow}, so a moved key's old record "
                "stays in its old partition beside the new one (compaction keeps one record "
                "per key per partition), and consumers see its records out of order across "
                "the change."
            )
        return (
            f"Recent records of topic '{self.topic}' carry keys: {grow}; each key's order "
            "holds only on either side of the change."
        )


def moved_share(current: int, total: int) -> float:
    """The share of keys whose partition changes from murmur2(key) mod `current` to mod
    `total`, hashes spread evenly: a hash h keeps its partition iff h mod current == h mod
    total, true for min(current, total) residues in every lcm(current, total)."""
    if current <= 0 or total <= 0 or current == total:
        return 0.0
    return 1 - min(current, total) / math.lcm(current, total)


async def key_mappings(admin: AdminPort, topics: Sequence[str]) -> dict[str, KeyMapping]:
    """Each topic's key-mapping risk: its cleanup.policy (one DescribeConfigs), and for the
    topics not compacted, the last batch of each partition (bounded, see sampling.py). A
    read that fails leaves the topic `unknown`, never raises: it only decides a warning."""
    names = list(dict.fromkeys(topics))
    if not names:
        return {}
    unknown: str | None = None
    try:
        policies = await admin.topic_config_value(CLEANUP_POLICY, names)
    except AdminError as exc:
        policies, unknown = {}, f"cleanup.policy not read: {exc.message}"
    compacted = {t for t in names if "compact" in (policies.get(t) or "")}
    to_sample = [t for t in names if t not in compacted]
    samples = {}
    if to_sample:
        try:
            samples = await admin.sample_last_batches(to_sample)
        except AdminError as exc:
            unknown = unknown or f"recent records not sampled: {exc.message}"
    mappings = {}
    for t in names:
        sample = samples.get(t)
        why = unknown
        if sample is not None and sample.error and not sample.keyed:
            why = why or f"recent records not sampled: {sample.error}"
        mappings[t] = KeyMapping(t, t in compacted, sample.keyed if sample else None, why)
    return mappings


def with_key_warning(
    result: TopicResult, mapping: KeyMapping | None, current: int, total: int
) -> TopicResult:
    """A successful grow's result with the key-mapping warning: `warning` when it had none;
    a result that already warns (CREATED_UNDER_REPLICATED) keeps that warning first and
    lists both in `warnings`. The message gains the sentence either way."""
    if mapping is None or not mapping.changes or not result.ok:
        return result
    message = f"{result.message} {mapping.sentence(current, total)}".strip()
    if result.warning is None:
        return replace(result, message=message, warning=KEY_MAPPING_WARNING)
    others = result.warnings or (result.warning,)
    return replace(result, message=message, warnings=(*others, KEY_MAPPING_WARNING))


def needs_confirmation(mappings: Mapping[str, KeyMapping]) -> list[str]:
    """The compacted topics among those to grow: each front end asks before growing them."""
    return sorted(t for t, m in mappings.items() if m.compacted)
