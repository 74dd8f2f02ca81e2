"""The audit log's hash chain (admin/audit_log.py) and `kafka-tui audit verify`: each line
carries the SHA-256 of the line before it; an edited, removed or inserted line is named;
real processes writing at once keep the chain whole."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from itertools import pairwise
from pathlib import Path

import pytest

from kafka_tui.admin import audit_log as audit
from kafka_tui.cli import main


@pytest.fixture
def log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "state" / "audit.jsonl"
    monkeypatch.setenv("KAFKA_TUI_AUDIT_LOG", str(path))
    return path


def write(count: int) -> None:
    for n in range(count):
        audit.append({"operation": "topics create", "topics": [f"t{n}"], "n": n})


def lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines()


def check(path: Path) -> audit.ChainCheck:
    return audit.verify_chain(audit.read_lines(path))


def test_each_line_carries_the_hash_of_the_line_before_and_keeps_its_fields(log: Path) -> None:
    write(5)
    raw = lines(log)
    entries = [json.loads(r) for r in raw]
    assert [e["n"] for e in entries] == list(range(5))  # the entry's own fields stay
    assert entries[0]["topics"] == ["t0"] and entries[0]["operation"] == "topics create"
    assert [e["seq"] for e in entries] == [1, 2, 3, 4, 5]
    assert entries[0]["prev"] is None  # no rotation: a file's first line has no predecessor
    for before, entry in zip(raw, entries[1:], strict=False):
        assert entry["prev"] == hashlib.sha256(before).hexdigest()
    result = check(log)
    assert result.problem is None and result.lines == 5
    assert result.head == hashlib.sha256(raw[-1]).hexdigest()


def test_an_entry_with_no_fields_is_chained_too(log: Path) -> None:
    audit.append({})
    audit.append({})
    assert [json.loads(r) for r in lines(log)][1]["seq"] == 2
    assert check(log).problem is None


def edit(path: Path, change: list[bytes]) -> None:
    path.write_bytes(b"".join(r + b"\n" for r in change))


def test_an_edited_line_is_named(log: Path) -> None:
    write(6)
    raw = lines(log)
    raw[2] = raw[2].replace(b'"t2"', b'"t2-renamed"')
    edit(log, raw)
    problem = check(log).problem
    assert problem is not None
    assert (problem.line, problem.kind) == (3, "changed")


def test_an_edit_that_breaks_the_json_is_named(log: Path) -> None:
    write(4)
    raw = lines(log)
    raw[1] = raw[1][:-5]
    edit(log, raw)
    problem = check(log).problem
    assert problem is not None and (problem.line, problem.kind) == (2, "changed")


def test_an_edited_first_line_is_named(log: Path) -> None:
    write(3)
    raw = lines(log)
    raw[0] = raw[0].replace(b'"n":0', b'"n":9')
    edit(log, raw)
    problem = check(log).problem
    assert problem is not None and (problem.line, problem.kind) == (1, "changed")


def test_a_removed_line_is_named(log: Path) -> None:
    write(6)
    raw = lines(log)
    del raw[3]  # seq 4
    edit(log, raw)
    problem = check(log).problem
    assert problem is not None
    assert (problem.line, problem.kind, problem.removed) == (4, "removed", 1)
    assert "after line 3" in problem.message


def test_removed_first_lines_are_named(log: Path) -> None:
    write(5)
    edit(log, lines(log)[2:])
    problem = check(log).problem
    assert problem is not None
    assert (problem.line, problem.kind, problem.removed) == (1, "removed", 2)


def test_an_inserted_line_is_named(log: Path) -> None:
    write(5)
    raw = lines(log)
    forged = json.loads(raw[2])
    forged["topics"] = ["forged"]
    raw.insert(3, json.dumps(forged).encode())  # a plausible line, its seq and prev copied
    edit(log, raw)
    problem = check(log).problem
    assert problem is not None and (problem.line, problem.kind) == (4, "inserted")


def test_a_duplicated_line_is_named_as_inserted(log: Path) -> None:
    write(4)
    raw = lines(log)
    raw.insert(2, raw[1])
    edit(log, raw)
    problem = check(log).problem
    assert problem is not None and (problem.line, problem.kind) == (3, "inserted")


def test_lines_from_before_the_chain_are_counted_and_the_chain_starts_after(log: Path) -> None:
    log.parent.mkdir(parents=True)
    log.write_text('{"operation": "old", "topics": []}\n{"operation": "old", "topics": []}\n')
    write(3)
    entries = [json.loads(r) for r in lines(log)]
    assert entries[2]["seq"] == 1
    assert entries[2]["prev"] == hashlib.sha256(lines(log)[1]).hexdigest()
    result = check(log)
    assert result.problem is None and result.unchained == 2


def test_verify_command_exit_codes_and_words(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "verify"]) == 0
    assert capsys.readouterr().out == f"no audit log yet at {log}\n"
    write(4)
    assert main(["audit", "verify"]) == 0
    out = capsys.readouterr().out
    assert f"{log}: 4 line(s), chain intact." in out
    raw = lines(log)
    del raw[1]
    edit(log, raw)
    assert main(["audit", "verify"]) == 1
    err = capsys.readouterr().err
    assert "chain broken: 1 line(s) were removed after line 1" in err
    assert main(["--output", "json", "audit", "verify"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["intact"] is False and document["lines"] == 3
    assert document["problem"]["line"] == 2 and document["problem"]["kind"] == "removed"


_WRITER = """
import os, sys, time
from kafka_tui.admin import audit_log as audit
writer, go = int(sys.argv[1]), sys.argv[2]
open(f"{go}-ready-{writer}", "w").close()
while not os.path.exists(go):  # every process ready: write at once
    time.sleep(0.01)
for n in range(150):
    audit.append({"writer": writer, "n": n, "padding": "x" * (n * 97 % 9000)})
    if n % 10 == 9:  # let the others in now and then, so the writers interleave
        time.sleep(0.002)
"""


def test_processes_writing_at_once_keep_the_chain(log: Path) -> None:
    env = {**os.environ, "KAFKA_TUI_AUDIT_LOG": str(log)}
    go = log.with_name("go")
    log.parent.mkdir(parents=True, exist_ok=True)
    writers = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(w), str(go)], env=env)
        for w in range(4)
    ]
    deadline = time.monotonic() + 60
    while not all(Path(f"{go}-ready-{w}").exists() for w in range(4)):
        assert time.monotonic() < deadline, "the writers did not start"
        time.sleep(0.01)
    go.touch()
    assert [w.wait(timeout=120) for w in writers] == [0] * 4
    entries = [json.loads(r) for r in lines(log)]
    assert [e["seq"] for e in entries] == list(range(1, 601))
    for w in range(4):
        assert [e["n"] for e in entries if e["writer"] == w] == list(range(150))
    switches = sum(1 for a, b in pairwise(entries) if a["writer"] != b["writer"])
    assert switches > 3  # they did write at the same time
    result = check(log)
    assert result.problem is None and result.lines == 600
