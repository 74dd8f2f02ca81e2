"""Confluent's wire format: byte 0 the magic 0, bytes 1-4 the schema id (big-endian), then the
payload; a Protobuf payload starts with the message indexes (the path of the message in its
.proto file: a count and each index as zigzag varints, and `[0]`, the first message, as the
single byte 0)."""

from __future__ import annotations

import struct

from .errors import SchemaError

MAGIC = 0
HEADER_SIZE = 5
_HEADER = struct.Struct(">bI")


def is_framed(data: bytes) -> bool:
    """Whether `data` can be a registry-framed record (magic byte 0 and a schema id)."""
    return len(data) >= HEADER_SIZE and data[0] == MAGIC


def frame(schema_id: int, payload: bytes) -> bytes:
    if not 0 <= schema_id <= 0xFFFFFFFF:
        raise SchemaError(f"schema id {schema_id} does not fit the wire format's 4 bytes")
    return _HEADER.pack(MAGIC, schema_id) + payload


def unframe(data: bytes) -> tuple[int, memoryview]:
    """The schema id and the payload after the header."""
    if not is_framed(data):
        raise SchemaError(
            "the bytes are not in the schema registry's wire format (magic byte 0 and a "
            "4-byte schema id)"
        )
    return int.from_bytes(data[1:HEADER_SIZE], "big"), memoryview(data)[HEADER_SIZE:]


def _zigzag_varint(value: int) -> bytes:
    n = (value << 1) ^ (value >> 63)
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _read_zigzag_varint(data: memoryview, at: int) -> tuple[int, int]:
    n = shift = 0
    while True:
        if at >= len(data):
            raise SchemaError("the Protobuf message indexes end before their last byte")
        byte = data[at]
        at += 1
        n |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return (n >> 1) ^ -(n & 1), at
        shift += 7
        if shift > 63:
            raise SchemaError("a Protobuf message index is longer than 10 bytes")


def encode_indexes(indexes: tuple[int, ...]) -> bytes:
    if indexes == (0,):
        return b"\x00"
    return _zigzag_varint(len(indexes)) + b"".join(_zigzag_varint(i) for i in indexes)


def decode_indexes(data: memoryview) -> tuple[tuple[int, ...], memoryview]:
    """The message indexes at the start of a Protobuf payload, and the message bytes after."""
    count, at = _read_zigzag_varint(data, 0)
    if count == 0:
        return (0,), data[at:]
    if count < 0 or count > len(data):
        raise SchemaError(f"the Protobuf payload names {count} message indexes")
    indexes = []
    for _ in range(count):
        index, at = _read_zigzag_varint(data, at)
        if index < 0:
            raise SchemaError(f"a Protobuf message index is negative ({index})")
        indexes.append(index)
    return tuple(indexes), data[at:]
