"""A file of record objects read by forked processes (services/record_file.py) gives the
records one process reads, in the file's order, and refuses the same first bad line with
its number in the whole file."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafka_tui.admin.records import OutgoingRecord
from kafka_tui.services import record_file
from kafka_tui.services.messages import BadLine, records_from_file

LINES = [
    '{"key": "k%d", "value": {"n": %d}, "headers": [["h", "v"]], "timestamp": 5}\n',
    '{"key": null, "value": "/w==", "value_format": "bytes", "partition": 1}\n',
    "\n",  # blank lines are skipped
    '{"key": "x", "value": "text %d", "value_format": "string"}\r\n',
    '{"value": null}\n',
    # read by Python's json, not orjson: a long integer; ended by a lone CR (a line end too)
    '{"key": [%d], "value": {"big": 123456789012345678901234567890}}\r',
]


def _file(tmp_path: Path, count: int, bad: bytes | None = None, at: int = 0) -> Path:
    lines = [(LINES[i % len(LINES)].replace("%d", str(i))).encode() for i in range(count)]
    if bad is not None:
        lines[at] = bad
    path = tmp_path / "records.jsonl"
    path.write_bytes(b"".join(lines))
    return path


@pytest.fixture
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forked readers even for a small file, cut into many ~300-byte pieces."""
    monkeypatch.setattr(record_file, "_FORK_FROM_BYTES", 0)
    monkeypatch.setattr(record_file, "_PIECE_BYTES", 300)


def _forked(path: Path, **options: bool) -> list[OutgoingRecord]:
    """The records `record_chunks` gives from forked readers (2), in order."""
    chunks = record_file.record_chunks(path, topic="t", processes=2, **options)
    return [r for columns in chunks for r in map(OutgoingRecord, *columns)]


def _serial(path: Path) -> list[object]:
    with path.open(encoding="utf-8", errors="surrogateescape") as handle:
        return list(records_from_file(path, handle, topic="t"))


@pytest.mark.usefixtures("small_pieces")
def test_forked_readers_give_the_records_of_one_process_in_order(tmp_path: Path) -> None:
    path = _file(tmp_path, 399, bad=b'{"value": "last"}', at=398)  # no line end at the end
    forked = _forked(path)
    assert len(record_file._pieces(path, path.stat().st_size)) > 20
    assert forked == _serial(path)
    assert len(forked) == 333  # 399 lines less 66 blank ones
    assert forked[-1].value == b"last"
    assert forked[4].key == b"[5]" and forked[4].value == b'{"big":123456789012345678901234567890}'
    assert forked[0].headers == (("h", b"v"),) and forked[0].timestamp == 5
    assert forked[1].value == b"\xff" and forked[1].partition == 1
    kept = _forked(path, keep_partitions=False)
    assert {r.partition for r in kept} == {None}


@pytest.mark.usefixtures("small_pieces")
@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        (b"{oops\n", "not JSON: "),
        (b'{"value": "\xff\xfe"}\n', "not UTF-8 text"),
        (b'{"value": "x", "partition": -1}\n', '"partition" must be a whole number >= 0'),
    ],
)
def test_the_first_bad_line_is_refused_with_its_number_in_the_whole_file(
    tmp_path: Path, bad: bytes, reason: str
) -> None:
    path = _file(tmp_path, 400, bad=bad, at=337)
    with pytest.raises(BadLine) as forked:
        _forked(path)
    with pytest.raises(BadLine) as serial:
        _serial(path)
    assert forked.value.number == serial.value.number == 338
    assert str(forked.value) == str(serial.value)
    assert str(forked.value).startswith(f"{path}, line 338: {reason}")
