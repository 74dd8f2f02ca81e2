"""Deleting a group's committed offsets on a topic (OffsetDelete, Kafka 2.4+): what
`groups offsets delete` and `topics delete --delete-group-offsets` share.

Kafka decides who may lose offsets, kafka-tui says it in a sentence: an Empty group loses
them; a group with members keeps those of the topics its members subscribe to
(GROUP_SUBSCRIBED_TO_TOPIC per partition); a group with members outside the consumer
protocol is refused whole (NON_EMPTY_GROUP).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..admin import AdminError
from ..admin.consumer_groups import OffsetDeletion
from ..admin.protocol_groups import SHARE
from .consumers import Readers
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
            f"partition(s) {','.join(map(str, missing))}: topic '{topic}' has partitions "
            f"0-{max(existing)}"
        )
    return await admin.delete_group_offsets(group, {topic: chosen})


@dataclass(frozen=True)
class GroupOffsetsDeleted:
    """One group's offsets on one topic, deleted before the topic (`topics delete
    --delete-group-offsets`)."""

    group: str
    topic: str
    ok: bool
    error: str | None
    message: str

    def to_json(self) -> dict[str, object]:
        return {"group": self.group, "ok": self.ok, "error": self.error, "message": self.message}


async def delete_readers_offsets(
    admin: AdminPort, names: Sequence[str], readers: Readers
) -> dict[str, list[GroupOffsetsDeleted]]:
    """Before `names` are deleted: each group with offsets on them loses its offsets on
    those topics only (OffsetDelete needs the topic to exist, so this goes first); its
    offsets on other topics, and the group, stay. A share group's start offsets are not
    committed offsets: it is reported, not changed (SHARE_GROUP). Never raises for one
    group."""
    found, _ = await admin.describe_topics(list(names), configs=False)
    partitions = {t.name: [p.partition for p in t.partitions] for t in found}
    done: dict[str, list[GroupOffsetsDeleted]] = {}
    for topic in names:
        for reader in readers.of(topic):
            if reader.type == SHARE:
                outcome = GroupOffsetsDeleted(
                    reader.group,
                    topic,
                    False,
                    "SHARE_GROUP",
                    f"Group '{reader.group}' is a share group: its offsets are not deleted "
                    "with OffsetDelete (Kafka's kafka-share-groups.sh deletes them).",
                )
            else:
                try:
                    results = await admin.delete_group_offsets(
                        reader.group, {topic: partitions.get(topic, [])}
                    )
                except AdminError as exc:
                    outcome = GroupOffsetsDeleted(reader.group, topic, False, exc.name, exc.message)
                else:
                    bad = [r for r in results if not r.ok]
                    outcome = (
                        GroupOffsetsDeleted(
                            reader.group, topic, False, bad[0].error, bad[0].message
                        )
                        if bad
                        else GroupOffsetsDeleted(
                            reader.group,
                            topic,
                            True,
                            None,
                            f"Group '{reader.group}': offsets on '{topic}' deleted.",
                        )
                    )
            done.setdefault(topic, []).append(outcome)
    return done
