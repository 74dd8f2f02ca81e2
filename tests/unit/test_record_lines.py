"""The shortcut of `messages read --output jsonl` (codecs.json_text_decoder): for each key or
value it answers, the JSON text and format it gives are what the Decoder's Decoded prints in a
record line (messages.record_line), and say the same value as the record object."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kafka_tui.admin.records import Record
from kafka_tui.services.codecs import decode, json_text_decoder, read_json, write_json
from kafka_tui.services.messages import document, record_line, records_from_file

SAMPLES = [
    None,
    b"",
    b"0",
    b"42",
    b"007",
    b"-3.5e2",
    b"123456789012345678901234567890",
    b'{"n": 123456789012345678901234567890}',  # beyond 64 bits: orjson reads a float
    b"1e400",  # Python's json: inf; orjson refuses
    b'"\\ud800"',  # a lone surrogate escape: Python's json takes it, orjson refuses
    b'{"a": [1, 2], "b": "\xc3\xa9"}',
    b'  {"a": 1}  ',
    b'{"a": 1,\n "b": 2}',  # over two lines: printed compact, from the value
    b"[1, 2]\r",
    b'"quoted \\u00e9"',
    b"true",
    b"falsehood",  # starts like JSON, is not
    b"NaN",  # Python's json takes it; JSON does not
    b"{oops",
    b"hello world",
    "café".encode(),
    b"tab\tand\r\nlines",
    b"\x00\x00\x00\x00\x07abc",  # UTF-8, not text
    b"\xff\x00\xfe",  # not UTF-8
    b"\x01",
]


@pytest.mark.parametrize("fmt", ["auto", "json", "string"])
@pytest.mark.parametrize("data", SAMPLES)
def test_the_shortcut_prints_what_the_decoder_says(data: bytes | None, fmt: str) -> None:
    shortcut = json_text_decoder(fmt)
    assert shortcut is not None
    said = shortcut(data)
    decoded = decode(data, fmt)
    record = Record("t", 0, 1, 2, "CreateTime", b"k", data, ())
    line = json.loads(record_line(record, decode(b"k", "string"), decoded, '"t"'))
    if said is None:  # the Decoder answers: an error, or text not on one line
        return
    text, taken = said
    assert taken == decoded.format
    assert decoded.error is None
    # byte for byte what record_line prints of the same value
    assert f'"value":{text},"headers"' in record_line(
        record, decode(b"k", "string"), decoded, '"t"'
    )
    assert json.loads(text) == decoded.value == line["value"]
    assert line == document(record, "string", fmt)


def test_the_shortcut_answers_the_common_cases() -> None:
    auto = json_text_decoder("auto")
    assert auto is not None
    assert auto(b'{"a": 1}') == ('{"a": 1}', "json")
    assert auto(b"42") == ("42", "json")
    assert auto(b"plain words") == ('"plain words"', "string")
    assert auto(None) == ("null", "auto")
    assert json_text_decoder("avro") is None
    # beside a registry, a leading zero byte may be its wire format: the Decoder decides
    beside = json_text_decoder("auto", object())  # type: ignore[arg-type]
    assert beside is not None
    assert beside(b"\x00\x00\x00\x00\x07{}") is None
    assert beside(b"42") == ("42", "json")


@pytest.mark.parametrize(
    "text",
    [
        '{"key": "1", "value": {"a": [1, 2.5, "\\u00e9"], "b": null}}',
        '{"value": {"n": 123456789012345678901234567890}}',  # orjson: a float
        '{"value": {"n": 1e400}}',  # Python's json: inf; orjson refuses
        '{"value": NaN}',  # Python's json takes it
        '{"value": "\\ud800"}',  # a lone surrogate escape
        '{"value": 18446744073709551615}',
    ],
)
def test_read_json_is_python_json(text: str) -> None:
    value, exact = read_json(text)
    expected = json.loads(text)
    assert repr(value) == repr(expected)  # NaN != NaN; repr says the same value
    assert {type(v) for v in value.values()} == {type(v) for v in expected.values()}
    if exact:
        assert json.loads(write_json(value)) == expected
    with pytest.raises(ValueError):
        read_json("{oops")


def test_a_file_of_record_objects_keeps_long_integers() -> None:
    lines = [
        '{"key": 12, "value": {"n": 123456789012345678901234567890, "f": 1e-05}}\n',
        '{"value": {"n": 1e400}}\n',
        '{"key": "k", "value": "text", "value_format": "json"}\n',
    ]
    records = list(records_from_file(Path("in.jsonl"), lines))
    assert [r.key for r in records] == [b"12", None, b"k"]
    assert json.loads(records[0].value or b"") == {"n": 123456789012345678901234567890, "f": 1e-05}
    assert records[1].value == b'{"n":Infinity}'  # as Python's json wrote it before
    assert records[2].value == b'"text"'
