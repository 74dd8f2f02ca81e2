"""messages search's pure parts (services/message_search.py): the progress words (rate, time
left), the one matching step both engines run (messages read's record object and filter), and
the schema recipe that rebuilds a read's schemas inside a Spark executor (an .avsc file and a
registry's settings travel pickled; the rebuilt schemas decode as the originals), and the
records screen's scan ending when cancelled."""

from __future__ import annotations

import asyncio
import io
import json
import pickle
import threading
from pathlib import Path
from typing import Any

import fastavro

from kafka_tui.admin.records import Record
from kafka_tui.registry import RegistrySettings
from kafka_tui.registry.client import RegistryClient
from kafka_tui.registry.codec import LocalSchema, RecordSchemas
from kafka_tui.services.codecs import decoder
from kafka_tui.services.message_search import SchemaRecipe, SearchProgress, matching
from kafka_tui.services.messages import compile_filter, document
from kafka_tui.tui.screens.record_search import _scan

AVSC = '{"type": "record", "name": "User", "fields": [{"name": "name", "type": "string"}]}'


def test_progress_says_scanned_rate_time_left_and_matches() -> None:
    p = SearchProgress(scanned=2_500, total=10_000, matches=1, elapsed_s=2.0)
    assert p.rate == 1_250 and p.seconds_left == 6.0
    assert p.words() == "2,500 of 10,000 records scanned · 1,250/s · 0:06 left · 1 match"
    done = SearchProgress(10_000, 10_000, 42, 4.0)
    assert done.words() == "10,000 of 10,000 records scanned · 2,500/s · 42 matches"
    assert SearchProgress(0, 10, 0, 0.0).seconds_left is None
    assert "starting Spark" in SearchProgress(0, 10, 0, 1.0, "session").words()


def test_matching_keeps_what_messages_read_s_filter_keeps() -> None:
    records = [
        Record("t", 0, n, 1_000 + n, "CreateTime", b"k", json.dumps({"n": n}).encode(), ())
        for n in range(6)
    ]
    records.append(Record("t", 0, 6, 1_006, "CreateTime", None, b"not json", ()))
    keep = compile_filter(".value.n % 2 == 0")
    found = matching(records, keep, decoder("auto"), decoder("auto"))
    assert found == [document(r) for r in records if r.offset in (0, 2, 4)]


def test_a_schema_recipe_travels_pickled_and_decodes_as_the_original(tmp_path: Path) -> None:
    path = tmp_path / "user.avsc"
    path.write_text(AVSC)
    out = io.BytesIO()
    fastavro.schemaless_writer(out, fastavro.parse_schema(json.loads(AVSC)), {"name": "ann"})
    plain = out.getvalue()
    registry = RegistrySettings("http://127.0.0.1:1")
    original = RecordSchemas(RegistryClient(registry), value_schema=LocalSchema.load(path))
    recipe = pickle.loads(pickle.dumps(SchemaRecipe.of(original)))
    assert recipe is not None and recipe.registry == registry
    elsewhere = tmp_path / "executor"
    elsewhere.mkdir()
    rebuilt = recipe.build(elsewhere)
    value = rebuilt.side("value")
    assert (
        value.decode(plain, "avro")
        == original.decode(plain, "avro")
        == ({"name": "ann"}, "avro", None)
    )
    assert rebuilt.side("key").local is None  # type: ignore[attr-defined]
    assert SchemaRecipe.of(None) is None


def test_the_records_screen_s_scan_stops_when_cancelled() -> None:
    """The screen's search runs on a thread's own loop (tui/screens/record_search.py): setting
    `cancelled` ends it within its 0.1 s look, also while no match comes."""
    running = threading.Event()

    class Endless:
        async def matches(self, show: Any) -> Any:
            while True:
                running.set()
                await asyncio.sleep(0.01)  # a fetch that brings nothing
                if False:
                    yield []

    cancelled = threading.Event()
    scan = threading.Thread(target=_scan, args=(Endless(), print, print, cancelled))
    scan.start()
    assert running.wait(10)
    cancelled.set()
    scan.join(10)
    assert not scan.is_alive()
