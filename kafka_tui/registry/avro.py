"""Avro records with fastavro: a parsed schema (named types of its references first) reads
and writes schemaless payloads; values come out JSON-ready."""

from __future__ import annotations

import base64
import datetime
import decimal
import io
import json
import uuid
from collections.abc import Iterable
from typing import Any

from .errors import SchemaError


class AvroSchema:
    """One Avro schema, parsed once; `references` are the texts of the schemas it names
    types from, in an order where each comes after those it uses."""

    format = "avro"

    def __init__(self, text: str, references: Iterable[str] = (), *, where: str = "") -> None:
        import fastavro

        self._fastavro = fastavro
        named: dict[str, Any] = {}
        try:
            for ref in references:
                fastavro.parse_schema(json.loads(ref), named_schemas=named)
            self.parsed = fastavro.parse_schema(json.loads(text), named_schemas=named)
        except json.JSONDecodeError as exc:
            raise SchemaError(f"the Avro schema{where} is not JSON ({exc.msg})") from None
        except Exception as exc:  # fastavro's SchemaParseException, UnknownType, ...
            raise SchemaError(f"the Avro schema{where} is invalid: {_line(exc)}") from None

    def decode(self, payload: bytes | memoryview) -> Any:
        stream = io.BytesIO(payload)
        try:
            value = self._fastavro.schemaless_reader(stream, self.parsed, None)
        except Exception as exc:  # EOFError, UnicodeDecodeError, an index out of range
            raise SchemaError(
                f"the bytes are not an Avro record of the schema: {_line(exc)}"
            ) from None
        left = len(payload) - stream.tell()
        if left:
            raise SchemaError(
                f"the bytes are not an Avro record of the schema ({left} byte(s) left after it)"
            )
        return json_ready(value)

    def encode(self, value: Any) -> bytes:
        out = io.BytesIO()
        try:
            self._fastavro.schemaless_writer(out, self.parsed, value, strict=True)
        except Exception as exc:  # ValueError naming the field, TypeError, ...
            raise SchemaError(f"the value does not fit the Avro schema: {_line(exc)}") from None
        return out.getvalue()


def json_ready(value: Any) -> Any:
    """fastavro's values as JSON: bytes and fixed as base64, logical types as text."""
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_ready(v) for v in value]
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, decimal.Decimal | uuid.UUID):
        return str(value)
    return value


def _line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 200 else text[:197] + "..."
