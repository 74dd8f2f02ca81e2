"""Record keys and values as bytes <-> as read (services/codecs.py): pure, no broker."""

from __future__ import annotations

import base64
import json
from typing import Any

import msgpack
import pytest

from kafka_tui.admin.records import Record
from kafka_tui.services.codecs import (
    NEEDS_SCHEMA,
    Decoded,
    EncodeError,
    decode,
    encode,
    header_value,
)
from kafka_tui.services.messages import document, record_line

BINARY = b"\xff\x00\xfe"
B64 = base64.b64encode(BINARY).decode()


class FakeRegistry:
    """A SchemaCodec of the test's own: schema id 7 says {"id": <payload as text>}."""

    def decode(self, data: bytes, expected: str | None) -> tuple[Any, str, int | None]:
        schema_id = int.from_bytes(data[1:5], "big")
        if schema_id != 7:
            raise ValueError(f"Schema {schema_id} is not in the registry.")
        return {"id": data[5:].decode()}, expected or "avro", schema_id

    def encode(
        self,
        value: Any,
        fmt: str,
        *,
        subject: str,
        schema_id: int | None = None,
        register: bool = False,
    ) -> bytes:
        return b"\x00\x00\x00\x00\x07" + str(value["id"]).encode()


@pytest.mark.parametrize(
    ("data", "taken"),
    [
        (b'{"a": [1, 2]}', Decoded({"a": [1, 2]}, "json")),
        (b"42", Decoded(42, "json")),
        (b'"quoted"', Decoded("quoted", "json")),
        (b"hello world", Decoded("hello world", "string")),
        (b"falsehood", Decoded("falsehood", "string")),  # starts like JSON, is not
        ("café".encode(), Decoded("café", "string")),
        (b"", Decoded("", "string")),
        (BINARY, Decoded(B64, "bytes")),
        (b"tab\tand\r\nlines", Decoded("tab\tand\r\nlines", "string")),
        (b"\x00\x00\x00\x00\x07abc", Decoded("AAAAAAdhYmM=", "bytes")),  # UTF-8, not text
    ],
)
def test_auto_takes_json_then_text_then_bytes(data: bytes, taken: Decoded) -> None:
    assert decode(data, "auto") == taken


def test_auto_takes_the_registry_wire_format_when_a_registry_is_configured() -> None:
    registry = FakeRegistry()
    assert decode(b"\x00\x00\x00\x00\x07abc", "auto", registry) == Decoded({"id": "abc"}, "avro", 7)
    # magic byte 0 but an id the registry does not know: the next formats are tried
    unknown = b"\x00\x00\x00\x00\x08{}"
    assert decode(unknown, "auto", registry) == Decoded(base64.b64encode(unknown).decode(), "bytes")


def test_each_format_decodes_or_keeps_the_bytes_with_an_error() -> None:
    assert decode(None, "json") == Decoded(None, "json")
    assert decode(b"abc", "bytes") == Decoded("YWJj", "bytes")
    assert decode(BINARY, "hex") == Decoded("ff00fe", "hex")
    assert decode(b"text", "string") == Decoded("text", "string")
    assert decode(msgpack.packb({"a": b"\x01", 1: [True]}), "msgpack") == Decoded(
        {"a": "AQ==", "1": [True]}, "msgpack"
    )
    for fmt, why in (
        ("string", "not UTF-8 text"),
        ("json", "not JSON"),
        ("msgpack", "not MessagePack"),
    ):
        kept = decode(BINARY if fmt != "msgpack" else b"\xc1", fmt)
        assert kept.value == base64.b64encode(BINARY if fmt != "msgpack" else b"\xc1").decode()
        assert kept.format == "bytes" and kept.error is not None and kept.error.startswith(why)
    for fmt in ("avro", "protobuf", "jsonschema"):
        kept = decode(b"\x00\x00\x00\x00\x01x", fmt)
        assert kept.error == f"not {fmt}: {NEEDS_SCHEMA}" and kept.format == "bytes"
    found = decode(b"\x00\x00\x00\x00\x09x", "avro", FakeRegistry())
    assert found.error == "not avro: Schema 9 is not in the registry."


def test_encode_is_decodes_inverse_for_each_format() -> None:
    registry = FakeRegistry()
    values = [
        ({"a": [1, "é"]}, "json"),
        ("plain", "string"),
        (B64, "bytes"),
        ("ff00fe", "hex"),
        ({"a": "AQ=="}, "msgpack"),
        ({"id": "abc"}, "avro"),
    ]
    for value, fmt in values:
        data = encode(value, fmt, registry, "t-value")
        assert data is not None
        assert decode(data, fmt, registry).value == value, fmt
    assert encode(None, "json") is None
    assert encode({"n": 1}, "auto") == b'{"n":1}'
    assert encode("text", "auto") == b"text"


def test_encode_from_command_line_text() -> None:
    assert encode('{"a": 1}', "json", text=True) == b'{"a": 1}'  # kept as typed
    assert encode("[1, 2]", "msgpack", text=True) == msgpack.packb([1, 2])
    with pytest.raises(EncodeError, match="is not JSON"):
        encode("{oops", "json", text=True)
    with pytest.raises(EncodeError, match="is not base64"):
        encode("not base64!", "bytes", text=True)
    with pytest.raises(EncodeError, match="is not hexadecimal"):
        encode("zz", "hex", text=True)
    with pytest.raises(EncodeError, match="needs a schema registry"):
        encode("{}", "avro", text=True)


def test_header_values_are_text_where_valid_utf8_else_base64() -> None:
    assert header_value(b"trace-1") == "trace-1"
    assert header_value(BINARY) == B64
    assert header_value(None) is None


@pytest.mark.parametrize(
    ("key", "value", "formats"),
    [
        (b"42", b'{"a": 1,\n "b": [true, null]}', ("auto", "auto")),  # JSON over two lines
        (b"007", b'"quoted \\u00e9"', ("auto", "auto")),
        (None, None, ("auto", "auto")),
        (BINARY, "tab\t and é".encode(), ("auto", "string")),
        (b"k", BINARY, ("hex", "json")),  # not JSON: kept with an error
        (b"k", msgpack.packb({"x": [1, 2]}), ("string", "msgpack")),
        (b"k", b"NaN", ("auto", "auto")),  # Python's json takes NaN; JSON does not
    ],
)
def test_a_record_line_is_the_record_object_as_json(
    key: bytes | None, value: bytes | None, formats: tuple[str, str]
) -> None:
    """The fast line of `messages read --output jsonl` says exactly what the record object
    (the TUI's and --filter's) says."""
    record = Record(
        't"1', 2, 3, 4, "LogAppendTime", key, value, (("h", b"v"), ("b", BINARY), ("n", None))
    )
    kf, vf = formats
    expected = document(record, kf, vf)
    line = record_line(record, decode(key, kf), decode(value, vf), json.dumps(record.topic))
    assert "\n" not in line
    assert json.loads(line) == expected


def test_a_file_of_record_objects_is_read_back_or_refused_naming_the_line() -> None:
    from pathlib import Path

    from kafka_tui.services.messages import records_from_file
    from kafka_tui.services.parsing import UsageError

    path = Path("in.jsonl")
    good = [
        '{"key": "k", "value": {"a": 1}, "headers": [["h", "v"]], "partition": 1, '
        '"timestamp": 5}\n',
        "\n",
        '{"key": null, "value": "/w==", "value_format": "bytes"}\n',
    ]
    first, second = records_from_file(path, good)
    assert (first.key, first.value, first.headers) == (b"k", b'{"a":1}', (("h", b"v"),))
    assert (first.partition, first.timestamp) == (1, 5)
    assert (second.key, second.value) == (None, b"\xff")
    assert next(records_from_file(path, good[:1], keep_partitions=False)).partition is None
    for line, said in (
        ("{oops", "in.jsonl, line 2: not JSON: "),
        ("[1]", 'in.jsonl, line 2: expected a record object ({"value": ...})'),
        (
            '{"value": "x", "partition": -1}',
            'in.jsonl, line 2: "partition" must be a whole number >= 0',
        ),
        ('{"value": "!!", "value_format": "bytes"}', "in.jsonl, line 2: '!!' is not base64"),
    ):
        with pytest.raises(UsageError, match="^" + said.replace("(", r"\(").replace(")", r"\)")):
            list(records_from_file(path, [good[0], line]))
