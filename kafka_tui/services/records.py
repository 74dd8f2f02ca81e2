"""KIP-409 placeholder records around reads and deletions: the records of the topics shown,
and a deletion that removes the deleted topics' records.

Apart from the placer (services/placing.py), so that a deletion or a describe does not load
the placer and its records (~15 ms of a command's start).
"""

from __future__ import annotations

import asyncio

from ..admin import AdminError, KafkaAdmin, TopicDescription, TopicResult
from ..admin.placeholders import PlaceholderEntry, PlaceholderStore


async def load_placeholders(
    admin: KafkaAdmin, store: PlaceholderStore, topics: list[TopicDescription]
) -> dict[str, dict[int, list[int]]]:
    """topic -> partition -> placeholder slots (-1, ...), for the topics shown; {} when the
    placeholder topic does not exist (nothing was ever created under-replicated)."""
    if not topics:
        return {}
    ids = {t.name: t.topic_id for t in topics}
    return {
        name: {p: [s.slot for s in slots] for p, slots in e.slots.items()}
        for name, e in (await stored_placeholders(admin, store)).items()
        if name in ids and e.topic_id in (None, ids[name])
    }


async def stored_placeholders(
    admin: KafkaAdmin, store: PlaceholderStore
) -> dict[str, PlaceholderEntry]:
    """Every placeholder record; {} when the placeholder topic does not exist. Its partition
    count comes from kafka-tui's consistent metadata (see PlaceholderStore.load)."""
    found, _ = await admin.describe_topics([store.topic], configs=False)
    return await store.load(len(found[0].partitions)) if found else {}


async def forget_placeholders(
    admin: KafkaAdmin,
    store: PlaceholderStore,
    deleted: list[str],
    stored: dict[str, PlaceholderEntry] | None = None,
) -> None:
    """Deleting a topic removes its placeholder record. `stored`: the records, when read
    already (alongside the deletion)."""
    if not deleted:
        return
    entries = stored if stored is not None else await stored_placeholders(admin, store)
    gone = set(deleted)
    await store.write([], removed=[t for t in entries if t in gone])


async def delete_topics(
    admin: KafkaAdmin,
    store: PlaceholderStore | None,
    names: list[str],
    *,
    timeout_ms: int = 30_000,
) -> tuple[list[TopicResult], str | None]:
    """Delete `names` and, with a `store`, the deleted topics' placeholder records (read
    while the deletion runs: it does not change them). The CLI and the TUI both delete so.
    Second value: why the records stayed, when they could not be removed; the deletions
    and each topic's result stand either way."""
    if store is None:
        return await admin.delete_topics(names, timeout_ms=timeout_ms), None
    stored = asyncio.create_task(stored_placeholders(admin, store))
    try:
        results = await admin.delete_topics(names, timeout_ms=timeout_ms)
        deleted = [r.topic for r in results if r.ok]
        try:
            if deleted:
                await forget_placeholders(admin, store, deleted, await stored)
        except AdminError as exc:
            return results, (
                "The topics were deleted, but their KIP-409 placeholder records were not "
                f"removed: {exc.message}"
            )
        return results, None
    finally:
        stored.cancel()
        if stored.done() and not stored.cancelled():
            stored.exception()  # retrieved: a failed read was reported above, or is moot
