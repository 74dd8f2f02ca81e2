"""Loaded first (`-p tests.bytecode` in pyproject's addopts): lets pytest keep the modules it
rewrites for its assertions (every test module, and hypothesis, syrupy and xdist, which come in
as plugins) as `.pyc` files, also where PYTHONDONTWRITEBYTECODE is set, as on this kind of
machine. Without them each pytest process, and each of its xdist workers, parses and compiles
them all again: ~2 CPU-s per process, ~10 of the no-JVM tier's ~100 CPU-s (2026-11-27).
kafka-tui's own modules and site-packages are compiled by .ci/setup; nothing else changes."""

from __future__ import annotations

import sys

sys.dont_write_bytecode = False
