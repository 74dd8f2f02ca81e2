"""Deleting a group's committed offsets on a topic (OffsetDelete, Kafka 2.4+): what
`groups offsets delete` and `topics delete --delete-group-offsets` share.

Kafka decides who may lose offsets, kafka-tui says it in a sentence: an Empty group loses
them; a group with members keeps those of the topics its members subscribe to
(GROUP_SUBSCRIBED_TO_TOPIC per partition); a group with members outside the consumer
protocol is refused whole (NON_EMPTY_GROUP).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..admin import AdminError
from ..admin.groups import OffsetDeletion
from .parsing import UsageError
from .ports import AdminPort


async def delete_offsets(
    admin: AdminPort, group: str, topic: str, partitions: Sequence[int] | None = None
) -> list[OffsetDeletion]:
    """Delete `group`'s offsets on `topic` (every partition, or `partitions`): one result
    per partition. An unknown topic or partition is refused before sending."""
    found, errors = await admin.describe_topics([topic], configs=False)
    if errors or not found:
        message = errors[0].message if errors else f"Topic '{topic}' does not exist."
        raise AdminError(errors[0].error or "UNKNOWN_TOPIC_OR_PARTITION", message)
    existing = [p.partition for p in found[0].partitions]
    chosen = sorted(set(partitions)) if partitions else existing
    missing = [p for p in chosen if p not in existing]
    if missing:
        raise UsageError(
            f"--partition {','.join(map(str, missing))}: topic '{topic}' has partitions "
            f"0-{max(existing)}"
        )
    return await admin.delete_group_offsets(group, {topic: chosen})
