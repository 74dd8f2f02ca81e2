"""The placer's hot modules compiled with mypyc, used only when built from these sources.

`_native.build()` (.ci/setup runs it) compiles `COMPILED` with mypyc
(installed with mypy) into `build/native/` at the repository's root: the same typed code as
a C extension, about 2.9x faster (6,000 partitions placed one by one in ~35 ms instead of
~120; a bulk plan's local engine gains the same). Nothing else changes: same module names,
same results (tests compare both on a corpus of random clusters).

A build is used only when its stamp matches the sources beside this file and this Python,
so an edited module runs as Python until the next build, never as a stale binary; a machine
without a C compiler runs Python. KAFKA_TUI_PURE_PYTHON=1 turns the build off.

Spark's executors import these sources from a zip (spark_job.package_zip), where no build
sits beside them: the zip names the driver's build (`SHIPPED`, written only when the driver
places with it), and an executor that finds that folder holding a build of exactly the zipped
sources for its own Python uses it (a worker on the driver's machine, or one sharing its
folder). Without it the plan job's placement ran as Python on a standalone cluster and ~2.9x
slower than on local[N] (bench/README.md, plans_scale.py).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

COMPILED = ("leader_balance", "balance", "placement")
HERE = Path(__file__).resolve().parent
BUILD = HERE.parents[1] / "build" / "native"
_STAMP = "stamp.json"
_RUNTIME = "runtime"  # mypyc's shared library for the group (a top-level module)
SHIPPED = "_native_build.json"  # in a zip of these sources: {"build": folder, "stamp": ...}


def stamp(sources: Path = HERE) -> dict[str, str]:
    """What a build was made from: each compiled module's source hash, and the Python."""
    made = {"python": f"{sys.implementation.cache_tag} {sys.version}"}
    for name in COMPILED:
        made[name] = hashlib.sha256((sources / f"{name}.py").read_bytes()).hexdigest()
    return made


def enable(package_path: list[str], build: Path = BUILD) -> bool:
    """Put a matching build first on the planning package's path; True when it is used."""
    if os.environ.get("KAFKA_TUI_PURE_PYTHON"):
        return False
    if not current(build):
        shipped = shipped_build()
        if shipped is None:
            return False
        build = shipped
    package_path.insert(0, str(build / "kafka_tui" / "planning"))
    sys.path.append(str(build / _RUNTIME))
    return True


def current(build: Path = BUILD) -> bool:
    """Whether `build` holds a build of the sources beside this file, for this Python."""
    try:
        return bool(json.loads((build / _STAMP).read_text()) == stamp())
    except (OSError, ValueError):
        return False


def shipped(build: Path = BUILD) -> str:
    """What a zip of these sources carries as SHIPPED: the build and its stamp."""
    return json.dumps({"build": str(build), "stamp": stamp()})


def shipped_build() -> Path | None:
    """The build a zip of these sources names (SHIPPED beside this module), when that folder
    holds a build of exactly those sources for this Python; None otherwise (and from a
    folder of sources, which has no SHIPPED)."""
    import pkgutil

    try:
        data = json.loads(pkgutil.get_data(__name__.rpartition(".")[0], SHIPPED) or b"")
        build = Path(data["build"])
        made = json.loads((build / _STAMP).read_text())
    except (OSError, ValueError, KeyError, TypeError):
        return None
    python = f"{sys.implementation.cache_tag} {sys.version}"
    return build if made == data["stamp"] and made.get("python") == python else None


def build(target: Path = BUILD) -> None:
    """Compile the sources beside this file into `target` (replacing an older build)."""
    # Here, not at the top: every kafka-tui start imports this module (~2 ms for these).
    import shutil
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        package = work / "kafka_tui" / "planning"
        package.mkdir(parents=True)
        (work / "kafka_tui" / "__init__.py").write_text("")
        (package / "__init__.py").write_text("")
        for name in COMPILED:
            shutil.copy2(HERE / f"{name}.py", package / f"{name}.py")
        # Imported by the compiled modules, type-checked with them, not compiled.
        shutil.copy2(HERE.parent / "fields.py", work / "kafka_tui" / "fields.py")
        made = stamp(package)
        mypyc = Path(sys.executable).with_name("mypyc")
        sources = [f"kafka_tui/planning/{name}.py" for name in COMPILED]
        subprocess.run([str(mypyc), *sources], cwd=work, check=True, stdout=subprocess.DEVNULL)
        shutil.rmtree(target, ignore_errors=True)
        (target / "kafka_tui" / "planning").mkdir(parents=True)
        (target / _RUNTIME).mkdir()
        for library in work.glob("*.so"):
            shutil.copy2(library, target / _RUNTIME / library.name)
        for library in package.glob("*.so"):
            shutil.copy2(library, target / "kafka_tui" / "planning" / library.name)
        (target / _STAMP).write_text(json.dumps(made))
