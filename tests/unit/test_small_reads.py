"""The small reads that share `messages read`'s Fetch (record_fetch.py): the lag in time's
records at committed offsets (group_work._records_in) and the key-mapping warning's last
batches (sampling._keys_in), over record batches as a broker stores them, built with
aiokafka's own batch builders (no broker: v0/v1 message sets are covered here). Both read
what the log holds (read_uncommitted): an aborted transaction's records count, control
batches never; a cut last batch is no batch, and a batch that cannot be decoded ends the
read with what came before it."""

from __future__ import annotations

import pytest

from kafka_tui.admin.group_work import _records_in
from kafka_tui.admin.record_fetch import FetchRequest, TopicsFetchRequest
from kafka_tui.admin.sampling import _keys_in
from kafka_tui.admin.wire import encode

from .test_key_reader import GZIP, _legacy, _marker, _v2


def _undecodable(base: int) -> bytes:
    """A v2 batch whose attributes say gzip over bytes that are not gzip."""
    data = bytearray(_v2(base, [(b"k", b"v")]))
    data[22] |= GZIP
    return bytes(data)


def test_records_at_offsets_count_aborted_data_and_skip_control_batches() -> None:
    aborted = _v2(0, [(None, b"a"), (None, b"b")], producer=7, transactional=True)
    data = aborted + _marker(2, 7, abort=True) + _v2(3, [(b"k", b"c")], GZIP)
    # _v2 stamps record i of a batch at base 1000 + base + i.
    assert _records_in(data) == [(0, 1000), (1, 1001), (3, 1003)]
    assert _keys_in(data) is True
    assert _keys_in(aborted) is False  # an aborted transaction's records are read too
    assert _keys_in(_marker(0, 7, abort=False)) is None  # control batches tell nothing


@pytest.mark.parametrize("magic", [0, 1])
def test_legacy_message_sets(magic: int) -> None:
    data = _legacy(magic, 5, [None, None], 0) + _legacy(magic, 7, [b"k"], GZIP)
    stamps = [None] * 3 if magic == 0 else [1005, 1006, 1007]  # v0 has no timestamps
    assert _records_in(data) == list(zip([5, 6, 7], stamps, strict=True))
    assert _keys_in(data) is True
    assert _keys_in(_legacy(magic, 5, [None], 0)) is False


def test_a_cut_or_undecodable_batch_ends_the_read_with_what_came_before() -> None:
    whole = _v2(0, [(None, b"a")])
    cut = _v2(1, [(b"k", b"b")])[:-3]
    assert _records_in(whole + cut) == [(0, 1000)]
    assert _keys_in(whole + cut) is False
    assert _keys_in(cut) is None and _records_in(cut) == [] and _records_in(None) == []
    assert _records_in(whole + _undecodable(1) + _v2(2, [(b"k", b"c")])) == [(0, 1000)]
    assert _keys_in(_undecodable(0)) is None


def test_one_request_asks_several_topics_in_the_order_given() -> None:
    one = FetchRequest("a", {1: 10, 0: 4}, 0, wait_ms=0, partition_bytes=16, total_bytes=64)
    alike = TopicsFetchRequest(
        {"a": {1: 10, 0: 4}}, 0, wait_ms=0, partition_bytes=16, total_bytes=64
    )
    for version in (4, 12):
        assert encode(one.message(version)) == encode(alike.message(version))
    both = TopicsFetchRequest({"b": {2: 1}, "a": {0: 3}}, 0).message(12)
    assert [
        (t.topic, [(p.partition, p.fetch_offset) for p in t.partitions]) for t in both.topics
    ] == [
        ("b", [(2, 1)]),
        ("a", [(0, 3)]),
    ]
