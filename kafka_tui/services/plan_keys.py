"""A plan's grows with what they move (issue 51 point 3): for each topic a plan grows, the
numbers of its fresh `topics keys` count for the planned partition count (key_reports_saved),
or why there are none, added to the document as `key_moves` after the topics are placed (the
placer is pure; kept counts are files). Only a plan that grows a topic gets the field; its
entries are `key_reports_saved.grow_json`'s, in the order of the document's topics."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping
from typing import Any

from .key_reports_saved import GrowKeys, grow_json, grow_keys
from .plan_documents import PlanDocument
from .snapshot import Snapshot

KEY_MOVES = "key_moves"


def key_moves(
    cluster_id: str | None, topics: list[dict[str, Any]], current: Mapping[str, int], now_ms: int
) -> list[dict[str, object]]:
    """`key_moves` of a document's `topics`: one entry per topic grown (not refused)."""
    return [
        grow_json(grow_keys(cluster_id, t["topic"], current[t["topic"]], t["partitions"], now_ms))
        for t in topics
        if t["action"] == "grow" and not t["error"] and t["topic"] in current
    ]


async def with_key_moves(
    document: PlanDocument, snapshot: Snapshot, cluster_id: str | None
) -> PlanDocument:
    """`document` with `key_moves` when it grows a topic: the field is added at the end of
    its text (the rest byte for byte as the engine wrote it) and of its data."""
    current = {name: len(t.partitions) for name, t in snapshot.topics.items()}
    if not any(t["action"] == "grow" and not t["error"] for t in document.topics):
        return document
    moves = await asyncio.to_thread(
        key_moves, cluster_id, document.topics, current, int(time.time() * 1000)
    )
    head = document.text.rstrip()
    assert head.endswith("}"), "a plan document is a JSON object"
    field = json.dumps(moves, separators=(",", ":"))
    text = f'{head[:-1].rstrip()},\n"{KEY_MOVES}": {field}\n}}\n'
    return PlanDocument(text, {**document.data, KEY_MOVES: moves}, document.saved_path)


def moves_of(document: PlanDocument) -> dict[str, GrowKeys]:
    """The document's `key_moves` by topic, as the front ends word them (a saved plan's
    numbers are those of its preview)."""
    from .key_reports_saved import from_json

    return {m["topic"]: from_json(m) for m in document.data.get(KEY_MOVES) or []}
