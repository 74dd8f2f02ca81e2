"""Metadata v12 answers decoded by hand, kept because bench/load_decode.py shows them buying
figures a user sees at 1,000,000 partitions (STYLE 19): the answer counted as per-broker load
(a placement's read: ~4x kio's generated decoder), names and counts without partitions (a
deletion's check, a listing: ~2x), and the full decode. Every other version and request is
read by kio (wire.py); tests/unit/test_metadata_v12.py holds each decoder here to kio's
reading of the same bytes, random and recorded answers alike.

The records are the admin layer's own, whichever decoder made them.
"""

from __future__ import annotations

import base64
import struct
from collections import Counter
from collections.abc import Callable
from typing import NamedTuple, cast

_ZERO_ID = b"\0" * 16
_INT16 = struct.Struct(">h")
_INT32 = struct.Struct(">i")
_PARTITION_HEAD = struct.Struct(">hiii")  # error code, index, leader, leader epoch
_INT32_RUNS = [struct.Struct(f">{n}i") for n in range(16)]


def _uvarint(buf: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
        if shift > 28:
            raise ValueError(f"Invalid unsigned varint {value}")


def _compact_string(buf: bytes, pos: int) -> tuple[str | None, int]:
    size, pos = _uvarint(buf, pos)
    if size == 0:
        return None, pos
    end = pos + size - 1
    if end > len(buf):
        raise ValueError("Buffer underrun decoding string")
    return buf[pos:end].decode(), end


def _uuid(buf: bytes, pos: int) -> tuple[str | None, int]:
    raw = buf[pos : pos + 16]
    if len(raw) != 16:
        raise ValueError("Buffer underrun decoding Uuid")
    return (None if raw == _ZERO_ID else base64.urlsafe_b64encode(raw)[:22].decode()), pos + 16


def _int32_tuple(buf: bytes, pos: int) -> tuple[tuple[int, ...], int]:
    """A compact array of int32 (null reads as empty)."""
    count = buf[pos] - 1
    if 0 <= count < len(_INT32_RUNS):
        run, pos = _INT32_RUNS[count], pos + 1
    else:  # null, long, or a length of more than one byte
        count, pos = _uvarint(buf, pos)
        if count == 0:
            return (), pos
        count -= 1
        run = struct.Struct(f">{count}i")
    return run.unpack_from(buf, pos), pos + 4 * count


def _tagged_fields(buf: bytes, pos: int) -> tuple[dict[int, bytes], int]:
    count, pos = _uvarint(buf, pos)
    tags: dict[int, bytes] = {}
    previous = -1
    for _ in range(count):
        tag, pos = _uvarint(buf, pos)
        if tag <= previous:
            raise ValueError(f"Invalid or out-of-order tag {tag}")
        previous = tag
        size, pos = _uvarint(buf, pos)
        tags[tag] = buf[pos : pos + size]
        pos += size
    return tags, pos


class MetadataPartition(NamedTuple):
    error_code: int
    partition_index: int
    leader_id: int  # -1: no leader
    leader_epoch: int
    # Tuples: tuples of ints leave the garbage collector's view (a list stays in it), which
    # makes a full collection at 1,000,000 partitions ~3x cheaper (bench/README.md).
    replica_nodes: tuple[int, ...]
    isr_nodes: tuple[int, ...]
    offline_replicas: tuple[int, ...]
    tags: dict[int, bytes]


class MetadataTopic(NamedTuple):
    error_code: int
    name: str
    topic_id: str | None
    is_internal: bool
    # Empty when the partitions were counted, not decoded (`partitions=False`).
    partitions: list[MetadataPartition]
    partition_count: int
    topic_authorized_operations: int
    tags: dict[int, bytes]


class MetadataBroker(NamedTuple):
    node_id: int
    host: str
    port: int
    rack: str | None
    tags: dict[int, bytes]


class Metadata(NamedTuple):
    """A Metadata v12 answer. Tuples, built with tuple.__new__: 30,000 partitions' records
    cost what their dicts did (a NamedTuple's own constructor took ~2x as long)."""

    throttle_time_ms: int
    brokers: list[MetadataBroker]
    cluster_id: str | None
    controller_id: int
    topics: list[MetadataTopic]
    tags: dict[int, bytes]


class MetadataLoad(NamedTuple):
    """A Metadata (all topics) answer counted per broker: replicas, and preferred leaders
    (each partition's first replica), of the topics without an error. No partition record
    and no topic name is made (see decode_metadata_load)."""

    throttle_time_ms: int
    brokers: list[MetadataBroker]
    cluster_id: str | None
    controller_id: int
    replicas: dict[int, int]
    leaders: dict[int, int]
    topics: int
    partitions: int


_new = tuple.__new__


_Interned = Callable[[tuple[int, ...], tuple[int, ...]], tuple[int, ...]]


def _metadata_partitions(
    buf: bytes, pos: int, intern: _Interned
) -> tuple[list[MetadataPartition], int]:
    """`intern`: a dict's setdefault for the whole answer. A cluster has few distinct replica
    lists and ISRs (one per broker set), so its 2,000,000 partitions share a few thousand
    tuples instead of holding 4,000,000 (~250 MB; issue 52)."""
    count, pos = _uvarint(buf, pos)
    partitions: list[MetadataPartition] = []
    head, int32s = _PARTITION_HEAD.unpack_from, _int32_tuple
    add = partitions.append
    for _ in range(count - 1):
        error_code, index, leader, epoch = head(buf, pos)
        replicas, pos = int32s(buf, pos + 14)
        isr, pos = int32s(buf, pos)
        offline, pos = int32s(buf, pos)
        replicas = intern(replicas, replicas)
        isr = intern(isr, isr)
        if buf[pos]:
            tags, pos = _tagged_fields(buf, pos)
        else:
            tags, pos = {}, pos + 1
        add(
            _new(
                MetadataPartition, (error_code, index, leader, epoch, replicas, isr, offline, tags)
            )
        )
    return partitions, pos


def _skip_int32_arrays(buf: bytes, pos: int, arrays: int) -> int:
    for _array in range(arrays):
        size = buf[pos]
        if size < 0x80:
            pos += 1
        else:
            size, pos = _uvarint(buf, pos)
        pos += 4 * max(size - 1, 0)
    return pos


def _skip_partitions(
    buf: bytes, pos: int, intern: _Interned
) -> tuple[list[MetadataPartition], int]:
    """Step over a topic's partitions: none is decoded (only their count is read)."""
    count, pos = _uvarint(buf, pos)
    for _ in range(count - 1):
        # error code, index, leader, leader epoch; replicas, ISR, offline replicas
        pos = _skip_int32_arrays(buf, pos + 14, 3)
        pos = pos + 1 if buf[pos] == 0 else _tagged_fields(buf, pos)[1]
    return [], pos


def _partition_count(buf: bytes, pos: int) -> int:
    count = buf[pos]
    return count - 1 if 0 < count < 0x80 else max(_uvarint(buf, pos)[0] - 1, 0)


def _metadata_topics(
    buf: bytes, pos: int, partitions: bool = True
) -> tuple[list[MetadataTopic], int]:
    count, pos = _uvarint(buf, pos)
    topics: list[MetadataTopic] = []
    read_partitions = _metadata_partitions if partitions else _skip_partitions
    intern = cast(_Interned, {}.setdefault)
    for _ in range(count - 1):
        (error_code,) = _INT16.unpack_from(buf, pos)
        name, pos = _compact_string(buf, pos + 2)
        topic_id, pos = _uuid(buf, pos)
        internal = buf[pos] != 0
        listed = _partition_count(buf, pos + 1)
        decoded, pos = read_partitions(buf, pos + 1, intern)
        (operations,) = _INT32.unpack_from(buf, pos)
        tags, pos = _tagged_fields(buf, pos + 4)
        topics.append(
            _new(
                MetadataTopic,
                (error_code, name or "", topic_id, internal, decoded, listed, operations, tags),
            )
        )
    return topics, pos


def _metadata_brokers(buf: bytes, pos: int) -> tuple[list[MetadataBroker], int]:
    count, pos = _uvarint(buf, pos)
    brokers: list[MetadataBroker] = []
    for _ in range(count - 1):
        (node_id,) = _INT32.unpack_from(buf, pos)
        host, pos = _compact_string(buf, pos + 4)
        (port,) = _INT32.unpack_from(buf, pos)
        rack, pos = _compact_string(buf, pos + 4)
        tags, pos = _tagged_fields(buf, pos)
        brokers.append(MetadataBroker(node_id, host or "", port, rack, tags))
    return brokers, pos


def decode_metadata_response(
    buf: bytes, pos: int = 0, partitions: bool = True
) -> tuple[Metadata, int]:
    """A Metadata v12 response body (after the response header), and the position after
    it. `partitions=False`: each topic's partitions are counted (`partition_count`), not
    decoded (a deletion's check of 2,000 topics needs their names and ids, not 6,000
    replica lists). A null array (brokers never send one here) reads as empty, a null name
    or host as ""."""
    try:
        (throttle,) = _INT32.unpack_from(buf, pos)
        brokers, pos = _metadata_brokers(buf, pos + 4)
        cluster_id, pos = _compact_string(buf, pos)
        (controller,) = _INT32.unpack_from(buf, pos)
        topics, pos = _metadata_topics(buf, pos + 4, partitions)
        tags, pos = _tagged_fields(buf, pos)
    except (IndexError, struct.error) as exc:
        raise ValueError(f"Buffer underrun decoding the Metadata response: {exc}") from None
    if pos > len(buf):
        raise ValueError("Buffer underrun decoding the Metadata response")
    return Metadata(throttle, brokers, cluster_id, controller, topics, tags), pos


def decode_metadata_load(buf: bytes, pos: int = 0) -> tuple[MetadataLoad, int]:
    """A Metadata v12 answer counted as load, in one pass: per broker, its replicas and the
    partitions it is the first replica of (what the placer balances against), over the
    topics without an error. Topic names, ids and ISR / offline lists are stepped over; per
    partition, one replica-list unpack appended to one flat list, counted once at the end
    (collections.Counter counts in C). A placement needs only this of the topics it does not
    touch (issue 30)."""
    nodes: list[int] = []
    firsts: list[int] = []
    extend, first = nodes.extend, firsts.append
    runs, last_run = _INT32_RUNS, len(_INT32_RUNS)
    partitions = topics = 0
    try:
        (throttle,) = _INT32.unpack_from(buf, pos)
        brokers, pos = _metadata_brokers(buf, pos + 4)
        cluster_id, pos = _compact_string(buf, pos)
        (controller,) = _INT32.unpack_from(buf, pos)
        count, pos = _uvarint(buf, pos + 4)
        for _ in range(count - 1):
            failed = buf[pos] or buf[pos + 1]  # the int16 error code
            size = buf[pos + 2]  # the name: a compact string, 1 + its length
            if size < 0x80:
                pos += 3 + max(size - 1, 0)
            else:
                size, pos = _uvarint(buf, pos + 2)
                pos += size - 1
            listed, pos = _uvarint(buf, pos + 17)  # after the topic id and is_internal
            if failed:  # left out, as `list_topics` leaves it out
                for _partition in range(listed - 1):
                    pos = _skip_int32_arrays(buf, pos + 14, 3)
                    pos = pos + 1 if buf[pos] == 0 else _tagged_fields(buf, pos)[1]
            else:
                topics += 1
                partitions += max(listed - 1, 0)
                for _partition in range(listed - 1):
                    # error code, index, leader, leader epoch: 14 bytes; then the replicas
                    size = buf[pos + 14]
                    if 1 < size < last_run:
                        replicas = runs[size - 1].unpack_from(buf, pos + 15)
                        pos += 4 * size + 11
                        extend(replicas)
                        first(replicas[0])
                    else:
                        replicas, pos = _int32_tuple(buf, pos + 14)
                        if replicas:
                            extend(replicas)
                            first(replicas[0])
                    # ISR and offline replicas, stepped over; then the tagged fields
                    size = buf[pos]
                    if size < 0x80:
                        pos += 4 * size - 3 if size else 1
                    else:
                        pos = _skip_int32_arrays(buf, pos, 1)
                    size = buf[pos]
                    if size < 0x80:
                        pos += 4 * size - 3 if size else 1
                    else:
                        pos = _skip_int32_arrays(buf, pos, 1)
                    pos = pos + 1 if buf[pos] == 0 else _tagged_fields(buf, pos)[1]
            pos += 4  # topic authorized operations
            pos = pos + 1 if buf[pos] == 0 else _tagged_fields(buf, pos)[1]
        _, pos = _tagged_fields(buf, pos)
    except (IndexError, struct.error) as exc:
        raise ValueError(f"Buffer underrun decoding the Metadata response: {exc}") from None
    if pos > len(buf):
        raise ValueError("Buffer underrun decoding the Metadata response")
    # Placeholders (negative ids) are not load; brokers never send them.
    replica_counts = {b: n for b, n in Counter(nodes).items() if b >= 0}
    leader_counts = {b: n for b, n in Counter(firsts).items() if b >= 0}
    load = MetadataLoad(
        throttle, brokers, cluster_id, controller, replica_counts, leader_counts, topics, partitions
    )
    return load, pos
