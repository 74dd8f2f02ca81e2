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
            # JSON-ready already unless bytes, fixed or a logical type can occur (bench/
            # registry_decode.py: the walk over each value was ~half of a record's decode)
            self._convert = _has_non_json(self.parsed, named)
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
        return json_ready(value) if self._convert else value

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


def _has_non_json(schema: Any, named: dict[str, Any], seen: set[str] | None = None) -> bool:
    """Whether values of `schema` (a parsed schema: named types by name) can hold bytes, a
    fixed or a logical type (dates, decimals, uuids), which fastavro gives as Python
    objects."""
    seen = set() if seen is None else seen
    if isinstance(schema, str):
        if schema in ("bytes", "fixed"):
            return True
        if schema in named and schema not in seen:
            seen.add(schema)
            return _has_non_json(named[schema], named, seen)
        return False
    if isinstance(schema, list):
        return any(_has_non_json(s, named, seen) for s in schema)
    if not isinstance(schema, dict):
        return False
    if "logicalType" in schema or schema.get("type") in ("bytes", "fixed"):
        return True
    inner = [f["type"] for f in schema.get("fields", ())]
    inner += [schema[k] for k in ("items", "values") if k in schema]
    if isinstance(schema.get("type"), dict | list):
        inner.append(schema["type"])
    return any(_has_non_json(s, named, seen) for s in inner)


def _line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 200 else text[:197] + "..."
