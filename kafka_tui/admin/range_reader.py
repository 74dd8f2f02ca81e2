"""Whole records over offset ranges, for `messages search` (issue 51 point 4): the ranges are
taken once, at the start (`search_ranges`), so the in-process scan and Spark's executors (each
reading its own ranges) read exactly the same records.

The ranges' offsets and the records both through `messages read`'s own requests (ListOffsets
with the isolation, record_fetch.RecordConnection.ranges; records.read_ranges' Fetch reader:
nothing joined or committed), under the isolation asked for (read_committed by default:
aborted transactions and control batches skipped), with the profile's security settings: the
same `records.Record`, so the record object printed is the same.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .key_reader import OffsetRange
from .model import ConnectionSettings
from .records import Isolation, Record
from .records import read_ranges as records_in_ranges


async def search_ranges(
    settings: ConnectionSettings,
    topic: str,
    partitions: Sequence[int],
    isolation: Isolation = "read_committed",
    from_ms: int | None = None,
    until_ms: int | None = None,
) -> list[OffsetRange]:
    """Each partition's range: from its log start (or the first record at or after
    `from_ms`) to its end now (read_committed: the last stable offset), cut at the first
    record newer than `until_ms` (ListOffsets by time for `until_ms + 1`: Kafka answers the
    first offset whose timestamp is at least that, as `messages read --until-time` stops)."""
    from .record_fetch import ISOLATION, RecordConnection

    async with RecordConnection(settings) as connection:
        found = await connection.ranges(topic, partitions, ISOLATION[isolation], from_ms, until_ms)
    return [OffsetRange(p, *found[p]) for p in partitions]


async def read_ranges(
    settings: ConnectionSettings,
    topic: str,
    ranges: Sequence[OffsetRange],
    take: Callable[[list[Record], int], bool],
    isolation: Isolation = "read_committed",
) -> None:
    """Read `ranges`, every partition at once (several ranges of one partition one after
    another), handing each fetch's records to `take` with the offsets passed over (records
    plus what read_committed skipped); `take` returns False to stop. `messages read`'s
    Fetch reader (records.read_ranges): the same records, leader epochs included."""
    by_partition: dict[int, list[tuple[int, int]]] = {}
    for r in ranges:
        if r.records:
            by_partition.setdefault(r.partition, []).append((r.start, r.end))
    if not by_partition:
        return
    reading = records_in_ranges(settings, topic, by_partition, isolation)
    try:
        async for out, passed in reading:
            if (out or passed) and not take(out, passed):
                return
    finally:
        await reading.aclose()
