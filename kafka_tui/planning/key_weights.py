"""What a grow moves, weighed again and again on one kept tally (issue 51 point 3): the
partitions form recomputes at every count the operator types, so the parts of
`key_stats._grow` that do not depend on the count (each key's murmur2, its distinct-key code,
the keyed mask) are computed once here, and a count costs a modulo and two bincounts.

The numbers are `key_stats.report`'s for the same tally and count (a test holds them equal),
a compacted topic's too: its latest record per key (`key_stats.latest_only`).
Pure, like the rest of `planning/`.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .key_stats import Grow, latest_only, murmur2

_POSITIVE = np.uint32(0x7FFFFFFF)


class KeyWeights:
    """A merged tally (key_stats.TALLY_SCHEMA) ready to weigh any partition count;
    `compacted`: a tally counted `latest`, weighed by each (partition, key)'s latest record."""

    def __init__(self, tally: pa.Table, compacted: bool = False) -> None:
        if compacted:
            tally, _ = latest_only(tally)
        keys = tally["key"].combine_chunks() if tally.num_rows else pa.array([], pa.binary())
        self.rows = tally.num_rows
        self.partition = tally["partition"].to_numpy(zero_copy_only=False).astype(np.int64)
        self.records = tally["records"].to_numpy(zero_copy_only=False).astype(np.int64)
        self.sizes = tally["bytes"].to_numpy(zero_copy_only=False).astype(np.int64)
        self.keyed = ~np.asarray(keys.is_null().to_numpy(zero_copy_only=False), dtype=bool)
        self.hashes = murmur2(keys) & _POSITIVE
        # A key's code, the same in every partition it has records in (nulls: unused).
        codes = pc.dictionary_encode(keys).indices.fill_null(-1)
        self.codes = codes.to_numpy(zero_copy_only=False).astype(np.int64)
        self.distinct = len(np.unique(self.codes[self.keyed]))
        self.keyed_records = int(self.records[self.keyed].sum())

    def grow(self, n: int) -> Grow:
        """The tally's records as if produced to `n` partitions (as key_stats.report's grow)."""
        target = np.where(self.keyed, (self.hashes % np.uint32(n)).astype(np.int64), self.partition)
        moving = self.keyed & (target != self.partition)
        # A key counts once however many partitions it moves from (a bincount, not a sort).
        moved_keys = int(np.count_nonzero(np.bincount(self.codes[moving], minlength=1)))
        width = max(n, int(target.max()) + 1 if len(target) else n)
        return Grow(
            partitions=n,
            keys_moving=round(moved_keys / self.distinct, 6) if self.distinct else 0.0,
            records_moving=round(int(self.records[moving].sum()) / self.keyed_records, 6)
            if self.keyed_records
            else 0.0,
            records_per_partition=[
                int(v) for v in np.bincount(target, weights=self.records, minlength=width)
            ],
            bytes_per_partition=[
                int(v) for v in np.bincount(target, weights=self.sizes, minlength=width)
            ],
        )
