"""Kafka answers described with aiokafka's generic Schema types: an encoder independent of
both kio (the product's wire) and the hand decoders of admin/metadata_v12.py, for answers of
shapes real brokers rarely send (tagged fields, long and null lists, multi-byte lengths).
Test code only."""

from __future__ import annotations

import base64
from io import BytesIO
from typing import Any

from aiokafka.protocol.api import Response
from aiokafka.protocol.types import (
    AbstractType,
    Array,
    Boolean,
    CompactArray,
    CompactString,
    Int8,
    Int16,
    Int32,
    Schema,
    String,
    TaggedFields,
    UnsignedVarInt32,
)

Field = tuple[str, Any]


class Uuid(AbstractType[str | None]):
    """Kafka's 16-byte Uuid, shown as Kafka shows it (URL-safe base64, no padding).

    The all-zero Uuid means "none" and decodes to None.
    """

    ZERO = b"\0" * 16

    @classmethod
    def encode(cls, value: str | None) -> bytes:
        if not value:
            return cls.ZERO
        return base64.urlsafe_b64decode(value + "==")

    @classmethod
    def decode(cls, data: BytesIO) -> str | None:
        raw = data.read(16)
        if len(raw) != 16:
            raise ValueError("Buffer underrun decoding Uuid")
        if raw == cls.ZERO:
            return None
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    @classmethod
    def repr(cls, value: str | None) -> str:
        return repr(value)


def _response(api_key: int, version: int, schema: Schema) -> type[Response]:
    attrs = {"API_KEY": api_key, "API_VERSION": version, "SCHEMA": schema}
    return type(f"Response{api_key}_v{version}", (Response,), attrs)


STRING = CompactString("utf-8")
TAGS: Field = ("tags", TaggedFields)
INT32_ARRAY = CompactArray(Int32)
_STR = String("utf-8")


def _array(*fields: Field) -> CompactArray:
    return CompactArray(Schema(*fields, TAGS))


def tag(value: bytes) -> bytes:
    """A tagged field's value: aiokafka's TaggedFields.encode writes no size before a value,
    so the size goes in it."""
    return UnsignedVarInt32.encode(len(value)) + value


METADATA_RESPONSE_SCHEMA = Schema(
    ("throttle_time_ms", Int32),
    (
        "brokers",
        _array(("node_id", Int32), ("host", STRING), ("port", Int32), ("rack", STRING)),
    ),
    ("cluster_id", STRING),
    ("controller_id", Int32),
    (
        "topics",
        _array(
            ("error_code", Int16),
            ("name", STRING),
            ("topic_id", Uuid),
            ("is_internal", Boolean),
            (
                "partitions",
                _array(
                    ("error_code", Int16),
                    ("partition_index", Int32),
                    ("leader_id", Int32),
                    ("leader_epoch", Int32),
                    ("replica_nodes", INT32_ARRAY),
                    ("isr_nodes", INT32_ARRAY),
                    ("offline_replicas", INT32_ARRAY),
                ),
            ),
            ("topic_authorized_operations", Int32),
        ),
    ),
    TAGS,
)

_CONFIG_RESULT = (
    ("name", STRING),
    ("value", STRING),
    ("read_only", Boolean),
    ("config_source", Int8),
    ("is_sensitive", Boolean),
)
CREATE_TOPICS_RESPONSE_SCHEMA = Schema(
    ("throttle_time_ms", Int32),
    (
        "topics",
        _array(
            ("name", STRING),
            ("topic_id", Uuid),
            ("error_code", Int16),
            ("error_message", STRING),
            ("num_partitions", Int32),
            ("replication_factor", Int16),
            ("configs", _array(*_CONFIG_RESULT)),
        ),
    ),
    TAGS,
)


DELETE_TOPICS_RESPONSE_SCHEMA = Schema(
    ("throttle_time_ms", Int32),
    (
        "responses",
        _array(
            ("name", STRING),
            ("topic_id", Uuid),
            ("error_code", Int16),
            ("error_message", STRING),
        ),
    ),
    TAGS,
)


CREATE_TOPICS_V4_RESPONSE_SCHEMA = Schema(
    ("throttle_time_ms", Int32),
    (
        "topics",
        Array(("name", _STR), ("error_code", Int16), ("error_message", _STR)),
    ),
)


def generic(api_key: int, version: int, schema: Schema, body: bytes) -> dict[str, Any]:
    """aiokafka's generic decoding of `body`, as to_object() gives it."""
    return _response(api_key, version, schema).decode(BytesIO(body)).to_object()  # type: ignore[no-any-return]
