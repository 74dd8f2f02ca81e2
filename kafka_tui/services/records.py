"""KIP-409 placeholder records around reads and deletions: the records of the topics shown,
and a deletion that removes the deleted topics' records.

Apart from the placer (services/placing.py), so that a deletion or a describe does not load
the placer and its records (~15 ms of a command's start).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping

from ..admin import AdminError, TopicDescription, TopicResult
from ..admin.model import DEFAULT_TIMEOUT_MS
from ..admin.placeholders import PlaceholderEntry, PlaceholderStore
from .ports import AdminPort


def current_entries(
    stored: Mapping[str, PlaceholderEntry], topics: Mapping[str, TopicDescription]
) -> tuple[dict[str, PlaceholderEntry], list[PlaceholderEntry]]:
    """The records that still hold: of topics that exist (the same topic id: not one deleted
    and created again), reconciled with the partitions' real replicas (a slot filled by any
    tool is gone), and not fully filled. Second: the stored records that reconciling
    changed, as they should be stored now (without slots: to be removed)."""
    entries = {}
    stale = []
    for name, stored_entry in stored.items():
        topic = topics.get(name)
        if topic is None or stored_entry.topic_id not in (None, topic.topic_id):
            continue
        e = stored_entry.reconciled({p.partition: len(p.replicas) for p in topic.partitions})
        if e is not stored_entry:
            stale.append(e)
        if e.slots:
            entries[name] = e
    return entries, stale


async def load_placeholders(
    admin: AdminPort,
    store: PlaceholderStore,
    topics: list[TopicDescription],
    *,
    tidy: bool = False,
) -> dict[str, dict[int, list[int]]]:
    """topic -> partition -> placeholder slots (-1, ...), for the topics shown, reconciled
    with their partitions' real replicas; {} when the placeholder topic does not exist
    (nothing was ever created under-replicated). `tidy`: also store the records as they
    reconcile (a slot filled by another tool removed), where the profile may write; a
    failed write changes nothing of the answer."""
    if not topics:
        return {}
    entries, stale = current_entries(
        await stored_placeholders(admin, store), {t.name: t for t in topics}
    )
    if tidy and stale:
        with contextlib.suppress(AdminError):
            await store.write(stale)
    return {
        name: {p: [s.slot for s in slots] for p, slots in e.slots.items()}
        for name, e in entries.items()
    }


async def stored_placeholders(
    admin: AdminPort, store: PlaceholderStore
) -> dict[str, PlaceholderEntry]:
    """Every placeholder record; {} when the placeholder topic does not exist. Its partition
    count comes from kafka-tui's consistent metadata (see PlaceholderStore.load)."""
    found, _ = await admin.describe_topics([store.topic], configs=False)
    return await store.load(len(found[0].partitions)) if found else {}


async def forget_placeholders(
    admin: AdminPort,
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
    admin: AdminPort,
    store: PlaceholderStore | None,
    names: list[str],
    *,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
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
