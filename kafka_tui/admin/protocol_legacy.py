"""aiokafka-schema helpers still used by protocol_groups.py until it moves to wire.py."""

from __future__ import annotations

from typing import Any

from aiokafka.protocol.api import RequestStruct, Response
from aiokafka.protocol.types import CompactArray, CompactString, Int32, Schema, TaggedFields

Field = tuple[str, Any]


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
TAGS: Field = ("tags", TaggedFields)
INT32_ARRAY = CompactArray(Int32)


def _array(*fields: Field) -> CompactArray:
    """A compact array of structs; every flexible struct ends in its tagged fields."""
    return CompactArray(Schema(*fields, TAGS))
