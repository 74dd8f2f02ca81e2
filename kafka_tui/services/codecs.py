"""A record's key or value as bytes <-> as a person (or jq) reads it.

Formats: `auto string json bytes hex msgpack avro protobuf jsonschema`. `auto` takes the
Schema Registry wire format (magic byte 0, then a 4-byte schema id) when a registry is
configured, then JSON, then UTF-8 text, then bytes (base64), and says which it took. Avro,
Protobuf and JSON Schema need a `SchemaCodec` (kafka_tui/registry: a Schema Registry or
schema files). Bytes that cannot be decoded as asked are kept, as base64 with an error; a
record is never dropped.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from json.scanner import make_scanner
from typing import Any, Final, Protocol

import orjson

FORMATS: Final = (
    "auto",
    "string",
    "json",
    "bytes",
    "hex",
    "msgpack",
    "avro",
    "protobuf",
    "jsonschema",
)
SCHEMA_FORMATS: Final = ("avro", "protobuf", "jsonschema")
NEEDS_SCHEMA = "needs a schema registry or a schema file"

_json_loads = json.loads
_orjson_loads = orjson.loads
_orjson_dumps = orjson.dumps
_quote = json.encoder.encode_basestring  # ensure_ascii=False's string quoting, in C


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # Python's json takes NaN and Infinity


# typeshed types make_scanner's argument as itself; it takes a JSONDecoder
_scan = make_scanner(json.JSONDecoder(parse_constant=_no_constant))  # type: ignore[arg-type]
_JSON_STARTS = frozenset('{["-0123456789tfn \t\r\n')
_BLANK = frozenset(" \t\r\n")
_NOT_JSON = object()
# Text, for `auto`, is UTF-8 without control characters other than tab and line breaks:
# binary payloads (a Schema Registry id, small integers) are often valid UTF-8.
_control = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]").search
_b64 = base64.b64encode


class SchemaCodec(Protocol):
    """One side (key or value) of what kafka_tui/registry offers (its RecordSchemas):
    `decode` and `encode` raise its SchemaError with a sentence; `expected` is one of
    SCHEMA_FORMATS or None (whatever the schema says)."""

    def decode(self, data: bytes, expected: str | None) -> tuple[Any, str, int | None]: ...

    def encode(
        self,
        value: Any,
        fmt: str,
        *,
        subject: str,
        schema_id: int | None = None,
        register: bool = False,
    ) -> bytes: ...


class SchemaSource(Protocol):
    """The registry and schema files of both sides: `side("key")`, `side("value")`."""

    def side(self, which: str) -> SchemaCodec: ...

    def with_proto_message(self, name: str | None) -> SchemaSource:
        """The same schemas, writing Protobuf with the message `name` (None: the first)."""
        ...


def sides(schemas: SchemaSource | None) -> tuple[SchemaCodec | None, SchemaCodec | None]:
    """The key's and the value's SchemaCodec (None, None without a registry or file)."""
    if schemas is None:
        return None, None
    return schemas.side("key"), schemas.side("value")


@dataclass(slots=True)  # not frozen: see admin/records.py's Record
class Decoded:
    """`value`: a JSON value (str for string/bytes/hex); `format`: the format taken (for
    `auto`, the one it found; "bytes" when `error` says why the one asked failed). Equal
    when value, format, schema id and error are."""

    value: Any
    format: str
    schema_id: int | None = None
    error: str | None = None
    # The value's JSON text when the bytes were it, on one line: printed as it came, not
    # encoded again.
    text: str | None = field(default=None, compare=False)


def as_base64(data: bytes) -> str:
    return _b64(data).decode("ascii")


def _kept(data: bytes, asked: str, why: str) -> Decoded:
    return Decoded(as_base64(data), "bytes", None, f"not {asked}: {why}")


Decoder = Callable[[bytes | None], Decoded]


def decoder(fmt: str, schemas: SchemaCodec | None = None) -> Decoder:
    """The function that decodes bytes in format `fmt` (one of FORMATS), chosen once per
    read rather than per record; None (a null key, a tombstone) stays None."""
    if fmt == "auto":
        if schemas is None:
            return _auto
        return lambda data: _auto(data, schemas)
    if fmt in SCHEMA_FORMATS:
        return lambda data: _null(fmt) if data is None else _schema_format(data, fmt, schemas)
    if fmt not in _DECODERS:
        raise ValueError(f"unknown format {fmt!r}")
    return _DECODERS[fmt]


# What a record line prints of a key or value: its JSON text and the format taken; None where
# only the Decoder can say (an error, a schema id, JSON text over several lines).
JsonText = Callable[[bytes | None], tuple[str, str] | None]


def json_text_decoder(fmt: str, schemas: SchemaCodec | None = None) -> JsonText | None:
    """For `messages read --output jsonl`: the function giving, in one call and without a
    Decoded, the JSON text `decoder(fmt, schemas)`'s Decoded prints in a record line and its
    format (None where that function must be asked); None for the formats without one.

    JSON is checked with orjson (~3x Python's scanner, bench/records.py) and printed as it came;
    orjson reads integers beyond 64 bits as floats, a value this text never uses. Where orjson
    refuses (1e400, a lone surrogate escape), None: Python's json, as `decoder`, says."""
    if fmt == "auto":
        return _auto_text if schemas is None else _auto_text_beside_registry
    if fmt == "json":
        return _json_text
    if fmt == "string":
        return _string_text
    return None


def _auto_text(data: bytes | None) -> tuple[str, str] | None:
    if data is None:
        return "null", "auto"
    try:
        text = data.decode()
    except UnicodeDecodeError:
        return None
    if text.isdigit() and (text[0] != "0" or len(text) == 1) and text.isascii():
        return text, "json"
    if text[:1] in _JSON_STARTS:
        try:
            _orjson_loads(data)
        except ValueError:
            return None
        return (text, "json") if "\n" not in text and "\r" not in text else None
    if _control(data):
        return None
    return _quote(text), "string"


def _auto_text_beside_registry(data: bytes | None) -> tuple[str, str] | None:
    if data is not None and data[:1] == b"\x00":
        return None  # the registry's wire format, perhaps
    return _auto_text(data)


def _json_text(data: bytes | None) -> tuple[str, str] | None:
    if data is None:
        return "null", "json"
    try:
        _orjson_loads(data)  # UTF-8 checked too
    except ValueError:
        return None
    text = data.decode()
    return (text, "json") if "\n" not in text and "\r" not in text else None


def _string_text(data: bytes | None) -> tuple[str, str] | None:
    if data is None:
        return "null", "string"
    try:
        return _quote(data.decode()), "string"
    except UnicodeDecodeError:
        return None


def decode(data: bytes | None, fmt: str, schemas: SchemaCodec | None = None) -> Decoded:
    """`data` in format `fmt` (see `decoder`)."""
    return decoder(fmt, schemas)(data)


def _null(fmt: str) -> Decoded:
    return Decoded(None, fmt)


def _string(data: bytes | None) -> Decoded:
    if data is None:
        return Decoded(None, "string")
    try:
        return Decoded(data.decode(), "string")
    except UnicodeDecodeError as exc:
        return _kept(data, "UTF-8 text", str(exc))


def _json(data: bytes | None) -> Decoded:
    if data is None:
        return Decoded(None, "json")
    try:
        text = data.decode()
        value = _json_value(text) if text else _NOT_JSON
        if value is _NOT_JSON:
            value = _json_loads(text)  # not JSON: for json's own message
    except ValueError as exc:  # UnicodeDecodeError is one
        return _kept(data, "JSON", str(exc))
    return Decoded(value, "json", None, None, _one_line(text))


def _bytes(data: bytes | None) -> Decoded:
    return Decoded(None if data is None else as_base64(data), "bytes")


def _hex(data: bytes | None) -> Decoded:
    return Decoded(None if data is None else data.hex(), "hex")


def _schema_format(data: bytes, fmt: str, schemas: SchemaCodec | None) -> Decoded:
    if schemas is None:
        return _kept(data, fmt, NEEDS_SCHEMA)
    return _schema(data, fmt, schemas)


def _auto(data: bytes | None, schemas: SchemaCodec | None = None) -> Decoded:
    if data is None:
        return Decoded(None, "auto")
    if schemas is not None and len(data) > 4 and data[0] == 0:
        found = _schema(data, None, schemas)
        if found.error is None:
            return found
    try:
        text = data.decode()
    except UnicodeDecodeError:
        return Decoded(as_base64(data), "bytes")
    if text.isdigit() and (text[0] != "0" or len(text) == 1) and text.isascii():
        return Decoded(int(text), "json", None, None, text)  # a number: the commonest key
    # Only text that can start a JSON document is parsed: a plain word costs no exception.
    if text[:1] in _JSON_STARTS:
        value = _json_value(text)
        if value is not _NOT_JSON:
            return Decoded(value, "json", None, None, _one_line(text))
    if _control(data):
        return Decoded(as_base64(data), "bytes")
    return Decoded(text, "string")


def _json_value(text: str) -> Any:
    """The JSON value of `text`, or _NOT_JSON. Python's C scanner without json.loads' two
    Python frames: the auto format's hot path (bench/records.py)."""
    if text[0] in _BLANK:
        try:
            return _json_loads(text)
        except ValueError:
            return _NOT_JSON
    try:
        value, end = _scan(text, 0)
    except (StopIteration, ValueError):
        return _NOT_JSON
    if end != len(text) and not text[end:].isspace():
        return _NOT_JSON
    return value


def _one_line(text: str) -> str | None:
    return None if "\n" in text or "\r" in text else text


def _schema(data: bytes, fmt: str | None, schemas: SchemaCodec) -> Decoded:
    try:
        value, taken, schema_id = schemas.decode(data, fmt)
    except Exception as exc:  # the registry's SchemaError, or a schema that cannot read it
        return _kept(data, fmt or "Schema Registry wire format", str(exc))
    return Decoded(value, taken, schema_id)


def _msgpack(data: bytes | None) -> Decoded:
    if data is None:
        return Decoded(None, "msgpack")
    import msgpack

    try:
        value = msgpack.unpackb(data, raw=False, strict_map_key=False)
    except (ValueError, msgpack.UnpackException) as exc:
        return _kept(data, "MessagePack", str(exc) or type(exc).__name__)
    return Decoded(_jsonable(value), "msgpack")


def _jsonable(value: Any) -> Any:
    """MessagePack's bin (bytes) and non-string map keys, as JSON can hold them."""
    if isinstance(value, bytes):
        return as_base64(value)
    if isinstance(value, dict):
        return {k if isinstance(k, str) else json.dumps(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


_DECODERS: dict[str, Decoder] = {
    "string": _string,
    "json": _json,
    "bytes": _bytes,
    "hex": _hex,
    "msgpack": _msgpack,
}


class EncodeError(ValueError):
    """A value that cannot be written in the format asked; the message is a sentence."""


def encode(
    value: Any,
    fmt: str,
    schemas: SchemaCodec | None = None,
    subject: str | None = None,
    *,
    text: bool = False,
    schema_id: int | None = None,
) -> bytes | None:
    """`value` as bytes in format `fmt`. `text`: `value` is text as typed on a command line
    (JSON text for json/msgpack/avro/protobuf/jsonschema); otherwise it is the decoded value
    of a record object (`messages read --output jsonl`). None stays None (a tombstone).
    avro/protobuf/jsonschema: the schema `schema_id` names, else the subject's (see
    SchemaCodec)."""
    if value is None:
        return None
    if fmt in ("auto", "string"):
        if isinstance(value, str):
            return value.encode()
        if fmt == "string":
            raise EncodeError(f"a string format needs text, not {json.dumps(value)}")
        return _compact(value)
    if fmt == "bytes":
        return _unbase64(value)
    if fmt == "hex":
        try:
            return bytes.fromhex(_text(value, fmt))
        except ValueError:
            raise EncodeError(f"'{value}' is not hexadecimal") from None
    parsed = _parsed(value) if text else value
    if fmt == "json":
        return _compact(parsed) if not text else _text(value, fmt).encode()
    if fmt == "msgpack":
        import msgpack

        return bytes(msgpack.packb(parsed, use_bin_type=True))
    if fmt in SCHEMA_FORMATS:
        if schemas is None or subject is None:
            raise EncodeError(f"{fmt} {NEEDS_SCHEMA}")
        try:
            return schemas.encode(parsed, fmt, subject=subject, schema_id=schema_id)
        except Exception as exc:  # the registry's SchemaError (a sentence)
            raise EncodeError(str(exc)) from None
    raise EncodeError(f"unknown format {fmt!r}")


def _text(value: Any, fmt: str) -> str:
    if not isinstance(value, str):
        raise EncodeError(f"a {fmt} value must be a string, not {json.dumps(value)}")
    return value


def _unbase64(value: Any) -> bytes:
    try:
        return base64.b64decode(_text(value, "bytes"), validate=True)
    except binascii.Error:
        raise EncodeError(f"'{value}' is not base64") from None


def _parsed(text: Any) -> Any:
    try:
        return json.loads(_text(text, "JSON"))
    except ValueError as exc:
        raise EncodeError(f"'{text}' is not JSON: {exc}") from None


# A run of 19 digits (>= 10**18) may be an integer beyond 64 bits, which orjson reads as a float.
_DIGITS = bytes(48 if 48 <= i <= 57 else 32 for i in range(256))
_LONG_NUMBER = b"0" * 19


def read_json(text: str) -> tuple[Any, bool]:
    """`json.loads(text)` (Python's json: NaN, Infinity and long integers as they are) and
    whether orjson read it: a value orjson read is the same value, and `write_json` writes
    it again ~4x faster than Python's json (bench/records.py). A ValueError as json.loads."""
    try:
        data = text.encode()
    except UnicodeEncodeError:  # a lone surrogate (stdin's surrogateescape)
        return _json_loads(text), False
    if _LONG_NUMBER not in data.translate(_DIGITS):
        try:
            return _orjson_loads(data), True
        except ValueError:  # 1e400, NaN, a lone surrogate escape: Python's json says
            pass
    return _json_loads(text), False


def write_json(value: Any) -> bytes:
    """A value `read_json` read with orjson, as compact JSON (what `encode` writes of it in
    the auto and json formats; floats in their shortest form, e.g. 0.00001 for 1e-05).
    Copied: orjson's bytes keep the ~4 KB it wrote them into (1.2 GB for 300,000 records)."""
    return bytes(memoryview(_orjson_dumps(value)))


_compact_text = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _compact(value: Any) -> bytes:
    return _compact_text(value).encode()


def header_value(data: bytes | None) -> str | None:
    """A header's value: UTF-8 text where it is valid UTF-8, else base64."""
    if data is None:
        return None
    try:
        return data.decode()
    except UnicodeDecodeError:
        return as_base64(data)
