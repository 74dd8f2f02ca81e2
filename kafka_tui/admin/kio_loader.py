"""kio, loaded without its Hypothesis strategies unless Hypothesis is already in use.

kio registers a Hypothesis strategy for each of its types at import when Hypothesis can be
imported (kio.static._phantom). Where Hypothesis is installed (any environment with the test
extras) that cost ~0.25 s of CPU at every kafka-tui start, a fifth of a 2,000-topic create
(bench/README, "Start-up imports"). A process that has not imported Hypothesis itself, i.e.
every kafka-tui run, loads kio as if Hypothesis were absent; a test session that uses
Hypothesis first gets kio's strategies as before.
"""

import sys

if "hypothesis" not in sys.modules:
    sys.modules["hypothesis"] = None  # type: ignore[assignment]  # an import of it fails
    try:
        import kio.static.primitive  # noqa: F401
    finally:
        del sys.modules["hypothesis"]

from kio.index import load_request_schema, load_response_schema
from kio.serial import entity_reader, entity_writer
from kio.static.primitive import i16, i32

__all__ = [
    "entity_reader",
    "entity_writer",
    "i16",
    "i32",
    "load_request_schema",
    "load_response_schema",
]
