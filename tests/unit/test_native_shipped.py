"""Spark's executors import the planning code from the job's zip (spark_job.package_zip), with
no build beside it: the zip names the driver's build, and an executor that sees that folder
holding a build of exactly the zipped sources places with it (a standalone worker on this
machine placed ~2.9x slower than local[N] without it); a zip whose named build is of other
sources runs as Python."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from kafka_tui import planning
from kafka_tui.planning import _native
from kafka_tui.planning.spark_job import _PLAN_MEMBERS, package_zip

_IMPORT = (
    "import sys; sys.path.insert(0, sys.argv[1]); import kafka_tui.planning as p, "
    "kafka_tui.planning.placement as m; print(p.NATIVE, p.__file__, m.__file__)"
)

pytestmark = pytest.mark.skipif(
    not planning.NATIVE, reason="no native build here (.ci/setup makes one)"
)


def _imported(archive: Path) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", _IMPORT, str(archive)],
        capture_output=True, text=True, check=True, cwd=archive.parent,
    )  # fmt: skip
    return done.stdout.split()


def test_an_executor_importing_the_zip_uses_the_build_it_names(tmp_path: Path) -> None:
    archive = package_zip(tmp_path, "planning.zip", _PLAN_MEMBERS)
    native, package, placement = _imported(archive)
    assert package.startswith(str(archive))  # the zip's sources, not this checkout's
    assert (native, Path(placement).parent) == ("True", _native.BUILD / "kafka_tui" / "planning")


def test_a_zip_naming_a_build_of_other_sources_runs_as_python(tmp_path: Path) -> None:
    archive = package_zip(tmp_path, "planning.zip", _PLAN_MEMBERS)
    edited = tmp_path / "edited.zip"
    with zipfile.ZipFile(archive) as source, zipfile.ZipFile(edited, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            if item.filename.endswith(_native.SHIPPED):
                shipped = json.loads(data)
                shipped["stamp"]["balance"] = "0" * 64  # balance.py changed since the build
                data = json.dumps(shipped).encode()
            target.writestr(item, data)
    native, _, placement = _imported(edited)
    assert native == "False"
    assert placement.startswith(str(edited))
