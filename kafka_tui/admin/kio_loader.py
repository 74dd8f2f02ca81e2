"""kio, loaded without its Hypothesis strategies unless Hypothesis is already in use, and
one message schema at a time.

kio registers a Hypothesis strategy for each of its types at import when Hypothesis can be
imported (kio.static._phantom). Where Hypothesis is installed (any environment with the test
extras) that cost ~0.25 s of CPU at every kafka-tui start, a fifth of a 2,000-topic create
(bench/README, "Start-up imports"). A process that has not imported Hypothesis itself, i.e.
every kafka-tui run, loads kio as if Hypothesis were absent; a test session that uses
Hypothesis first gets kio's strategies as before.

A message's request and response are each a module of frozen dataclasses (~1-5 ms of CPU to
define), and kio's package of a version imports both. Where kafka-tui writes one side itself
(CreateTopics v4's request, every Metadata v12 answer) the other is all it needs:
`load_request_schema` / `load_response_schema` import the one module alone, and
`request_header` / `flexible_answer` tell a frame's headers from a table (hand_wire.py)
instead of from the schemas (bench/startup.py: a one-topic create loaded ~8 ms of schemas it
never used).
"""

import importlib
import importlib.util
import sys
import threading
from pathlib import Path
from types import ModuleType
from typing import Any

from .hand_wire import FLEXIBLE_FROM, flexible_request
from .hand_wire import flexible_answer as _flexible_answer

if "hypothesis" not in sys.modules:
    sys.modules["hypothesis"] = None  # type: ignore[assignment]  # an import of it fails
    try:
        import kio.static.primitive  # noqa: F401
    finally:
        del sys.modules["hypothesis"]

from kio.schema.index import api_key_map, schema_name_map
from kio.serial import entity_reader, entity_writer
from kio.static.constants import EntityType
from kio.static.primitive import i16, i32

__all__ = [
    "FLEXIBLE_FROM",
    "entity_reader",
    "entity_writer",
    "flexible_answer",
    "i16",
    "i32",
    "load_request_schema",
    "load_response_schema",
    "request_header",
]

_lock = threading.Lock()


def request_header(key: int, version: int) -> type[Any]:
    """The request header class a request of `key` at `version` carries."""
    if key not in FLEXIBLE_FROM:
        return load_request_schema(key, version).__header_schema__  # type: ignore[no-any-return]
    number = 2 if flexible_request(key, version) else 1
    header: type[Any] = _module(f"kio.schema.request_header.v{number}.header").RequestHeader
    return header


def flexible_answer(key: int, version: int) -> bool:
    """Whether the answer to `key` at `version` has a flexible (tagged) response header."""
    if key not in FLEXIBLE_FROM:
        return bool(load_response_schema(key, version).__header_schema__.__flexible__)
    return _flexible_answer(key, version)


def load_request_schema(key: int, version: int) -> type[Any]:
    """kio's request class of API `key` at `version` (its module only)."""
    return _entity(key, version, EntityType.request)


def load_response_schema(key: int, version: int) -> type[Any]:
    """kio's response class of API `key` at `version` (its module only)."""
    return _entity(key, version, EntityType.response)


def _entity(key: int, version: int, kind: EntityType) -> type[Any]:
    path = schema_name_map[api_key_map[key]][version][kind]  # type: ignore[index]
    module, _, name = path.partition(":")
    found: type[Any] = getattr(_module(module), name)
    return found


def _module(path: str) -> ModuleType:
    """The module at `path` ("kio.schema.metadata.v12.request"), imported without its
    package's __init__ when the package is not imported yet (kio's version packages import
    their request and their response: schema modules import only absolute names). A later
    import of the package finds the module in sys.modules, as its own import would have
    left it: one module, one class, either way."""
    found = sys.modules.get(path)
    if found is not None:
        return found
    package, _, leaf = path.rpartition(".")
    with _lock:
        found = sys.modules.get(path)
        if found is not None:
            return found
        if package in sys.modules:
            return importlib.import_module(path)
        spec = importlib.util.find_spec(package)  # its parent is imported, it is not
        if spec is None or not spec.submodule_search_locations:
            return importlib.import_module(path)
        location = Path(spec.submodule_search_locations[0]) / f"{leaf}.py"
        leaf_spec = importlib.util.spec_from_file_location(path, location)
        if leaf_spec is None or leaf_spec.loader is None:
            return importlib.import_module(path)
        module = importlib.util.module_from_spec(leaf_spec)
        sys.modules[path] = module
        try:
            leaf_spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[path]
            raise
        return module
