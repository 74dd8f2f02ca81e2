"""The placer compiled by mypyc (.ci/setup builds it) places exactly as its Python source,
and a build that does not match the sources is never used."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kafka_tui.planning import _native

# Random clusters and requests (every mode, racks or none, offline brokers, grows, refusals);
# prints whether the build was used and a digest of every placement.
_CORPUS = """
import hashlib, random
import kafka_tui.planning as planning
from kafka_tui.planning import Broker, Load, Request, place
digest = hashlib.sha256()
rng = random.Random(409)
for case in range(300):
    count = rng.randint(1, 14)
    racks = rng.choice([None, 2, 3, 4])
    brokers = [
        Broker(b, None if racks is None else f"rack-{b % racks}", rng.random() > 0.2)
        for b in rng.sample(range(1, 40), count)
    ]
    ids = [b.id for b in brokers]
    load = Load.from_assignments(
        rng.sample(ids, min(len(ids), rng.randint(1, 3))) for _ in range(rng.randint(0, 60))
    )
    requests = []
    for t in range(rng.randint(1, 8)):
        existing = tuple(
            tuple(rng.sample(ids, min(len(ids), 2))) for _ in range(rng.choice([0, 0, 3]))
        )
        requests.append(
            Request(f"t{t}", rng.randint(0, 12), rng.randint(0, 5), rng.randint(0, 3), existing)
        )
    mode = rng.choice(["disabled", "enabled", "enabled_prefer_observed"])
    digest.update(repr(place(brokers, load, requests, mode)).encode())
print(planning.NATIVE, digest.hexdigest())
"""


def _run_corpus(pure: bool) -> tuple[bool, str]:
    env = {k: v for k, v in os.environ.items() if k != "KAFKA_TUI_PURE_PYTHON"}
    if pure:
        env["KAFKA_TUI_PURE_PYTHON"] = "1"
    out = subprocess.run(
        [sys.executable, "-c", _CORPUS], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    return out[0] == "True", out[1]


def test_the_compiled_placer_places_exactly_as_the_python_source() -> None:
    if not (_native.BUILD / "stamp.json").exists():
        pytest.skip("no native build here (.ci/setup makes one where a C compiler exists)")
    native, compiled = _run_corpus(pure=False)
    pure, python = _run_corpus(pure=True)
    # The build matches the sources (setup made it from them), so it is the one used.
    assert (native, pure) == (True, False)
    assert compiled == python


def test_a_build_made_from_other_sources_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))  # enable() adds the build's runtime
    monkeypatch.delenv("KAFKA_TUI_PURE_PYTHON", raising=False)
    path: list[str] = ["/the/sources"]
    (tmp_path / "stamp.json").write_text(json.dumps(_native.stamp()))
    assert _native.enable(path, tmp_path)
    assert path[0] == str(tmp_path / "kafka_tui" / "planning")

    edited = {**_native.stamp(), "balance": "0" * 64}  # balance.py changed since the build
    (tmp_path / "stamp.json").write_text(json.dumps(edited))
    path = ["/the/sources"]
    assert not _native.enable(path, tmp_path)
    assert path == ["/the/sources"]

    other_python = {**_native.stamp(), "python": "cpython-399 3.99.0"}
    (tmp_path / "stamp.json").write_text(json.dumps(other_python))
    assert not _native.enable(path, tmp_path)
    (tmp_path / "stamp.json").write_text("{not json")
    assert not _native.enable(path, tmp_path)
    assert not _native.enable(path, tmp_path / "missing")
    assert path == ["/the/sources"]


def test_pure_python_can_be_asked_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "stamp.json").write_text(json.dumps(_native.stamp()))
    monkeypatch.setenv("KAFKA_TUI_PURE_PYTHON", "1")
    path: list[str] = []
    assert not _native.enable(path, tmp_path)
    assert path == []
