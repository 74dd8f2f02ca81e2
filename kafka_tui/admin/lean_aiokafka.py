"""aiokafka's package without its clients until they are used.

`import aiokafka.conn` first runs aiokafka/__init__.py, and that imports the consumer and the
producer: 35 more modules (record formats, fetcher, group coordination), ~35 ms of CPU at
every kafka-tui start. A create, a deletion or a read uses neither. `install` makes the
package's module without running its __init__; the first use of a name the __init__ defines
(`from aiokafka import AIOKafkaConsumer`) runs it then, in that same module object, so every
importer sees aiokafka as it always is. Submodules import as usual.
"""

from __future__ import annotations

import importlib.util
import re
import sys

_VERSION = re.compile(r'^__version__ = "([^"]+)"$', re.MULTILINE)


def install() -> bool:
    """True when the package's __init__ is deferred; False when aiokafka is already loaded
    or does not look as expected (then it loads as usual)."""
    if "aiokafka" in sys.modules:
        return False
    spec = importlib.util.find_spec("aiokafka")
    if spec is None or spec.loader is None or spec.origin is None:
        return False
    try:
        with open(spec.origin, encoding="utf-8") as f:
            found = _VERSION.search(f.read())
    except OSError:
        return False
    if found is None or not spec.submodule_search_locations:
        return False
    module = importlib.util.module_from_spec(spec)
    loader = spec.loader
    # aiokafka.client reads it at import (`from aiokafka import __version__`).
    module.__version__ = found[1]  # type: ignore[attr-defined]

    def __getattr__(name: str) -> object:
        submodule = not name.startswith("__") and (
            importlib.util.find_spec(f"aiokafka.{name}") is not None
        )
        if submodule or (name.startswith("__") and name != "__all__"):
            raise AttributeError(name)  # the import system then imports the submodule
        del module.__dict__["__getattr__"]
        loader.exec_module(module)
        return getattr(module, name)

    module.__dict__["__getattr__"] = __getattr__
    sys.modules["aiokafka"] = module
    return True
