"""Kafka protocol messages that aiokafka 0.14 lacks, sent through aiokafka's own client.

aiokafka stops at Metadata v5 / CreateTopics v3 and has no DescribeCluster. The structs here
follow the JSON schemas under Kafka's clients/src/main/resources/common/message/; every
version listed is flexible (compact strings and arrays, tagged fields). aiokafka picks the
highest version both sides support, per connection.
"""

from __future__ import annotations

import base64
from io import BytesIO
from typing import Any

from aiokafka.protocol.api import Request, RequestStruct, Response
from aiokafka.protocol.types import (
    AbstractType,
    Boolean,
    CompactArray,
    CompactString,
    Int8,
    Int16,
    Int32,
    Schema,
    TaggedFields,
)


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


def _flexible_request(
    api_key: int, version: int, schema: Schema, response: type[Response]
) -> type[RequestStruct]:
    attrs: dict[str, Any] = {
        "API_KEY": api_key,
        "API_VERSION": version,
        "SCHEMA": schema,
        "RESPONSE_TYPE": response,
        "FLEXIBLE_VERSION": True,
    }
    return type(f"Request{api_key}_v{version}", (RequestStruct,), attrs)


def _response(api_key: int, version: int, schema: Schema) -> type[Response]:
    attrs = {"API_KEY": api_key, "API_VERSION": version, "SCHEMA": schema}
    return type(f"Response{api_key}_v{version}", (Response,), attrs)


STRING = CompactString("utf-8")
TAGS = ("tags", TaggedFields)

# -- DescribeCluster (60): v2 (Kafka 3.9+) lists registered-but-fenced brokers --------------

_DESCRIBE_CLUSTER_KEY = 60


def _describe_cluster_response(version: int) -> type[Response]:
    broker: list[tuple[str, Any]] = [
        ("broker_id", Int32),
        ("host", STRING),
        ("port", Int32),
        ("rack", STRING),
    ]
    if version >= 2:
        broker.append(("is_fenced", Boolean))
    fields: list[tuple[str, Any]] = [
        ("throttle_time_ms", Int32),
        ("error_code", Int16),
        ("error_message", STRING),
    ]
    if version >= 1:
        fields.append(("endpoint_type", Int8))
    fields += [
        ("cluster_id", STRING),
        ("controller_id", Int32),
        ("brokers", CompactArray(Schema(*broker, TAGS))),
        ("cluster_authorized_operations", Int32),
        TAGS,
    ]
    return _response(_DESCRIBE_CLUSTER_KEY, version, Schema(*fields))


def _describe_cluster_request(version: int) -> type[RequestStruct]:
    fields: list[tuple[str, Any]] = [("include_cluster_authorized_operations", Boolean)]
    if version >= 1:
        fields.append(("endpoint_type", Int8))
    if version >= 2:
        fields.append(("include_fenced_brokers", Boolean))
    return _flexible_request(
        _DESCRIBE_CLUSTER_KEY,
        version,
        Schema(*fields, TAGS),
        _describe_cluster_response(version),
    )


DescribeClusterStructs = tuple(_describe_cluster_request(v) for v in range(3))


class DescribeClusterRequest(Request[RequestStruct]):
    API_KEY = _DESCRIBE_CLUSTER_KEY

    def __init__(self, include_fenced_brokers: bool = True) -> None:
        self.include_fenced_brokers = include_fenced_brokers

    def build(self, request_struct_class: type[RequestStruct]) -> RequestStruct:
        version = request_struct_class.API_VERSION
        args: list[Any] = [False]
        if version >= 1:
            args.append(1)  # endpoint type: brokers
        if version >= 2:
            args.append(self.include_fenced_brokers)
        return request_struct_class(*args, {})


# Request.__init_subclass__ derives _CLASSES from the generic parameter; ours are built at
# import time, so they are set after the class exists.
DescribeClusterRequest._CLASSES = DescribeClusterStructs
