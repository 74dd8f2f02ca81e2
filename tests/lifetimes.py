"""How long a pytest-xdist worker keeps each real cluster running.

A session-scoped cluster used to run until its worker's session ended: a worker that had
finished its KRaft group kept three idle brokers ticking (6.5% of a core for a KRaft cluster,
2.2% for a ZooKeeper-mode one, measured here) beside the clusters of the groups it ran next,
on a 2-core machine the whole suite keeps busy. Now a cluster stops as soon as the next test's
group (tests/conftest.py, `_worker_group`) uses none of it, and starts again in place (new
ports, the same fixture object) should a later group on the worker need it. Only on xdist
workers: a run in one process goes through the groups' tests interleaved.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import pytest

CLUSTER_FIXTURES = (
    "kraft_cluster",
    "zk_cluster",
    "secured_kraft_cluster",
    "secured_zk_cluster",
    "spark_cluster",
)


@dataclass
class _Lifetime:
    start: Callable[[], None]
    stop: Callable[[], None]
    running: bool = True


_LIVE: dict[str, _Lifetime] = {}
# Per group, the cluster fixtures any of its tests uses.
_NEEDS: dict[str | None, frozenset[str]] = {}


def keep_all() -> bool:
    return bool(os.environ.get("KAFKA_TUI_TEST_KEEP_CLUSTERS")) or not os.environ.get(
        "PYTEST_XDIST_WORKER"
    )


def clusters_of(item: pytest.Item) -> set[str]:
    """The cluster fixtures a test uses, also those `cluster` / `secured_cluster` pick by
    their parameter."""
    names = set(getattr(item, "fixturenames", ()))
    callspec = getattr(item, "callspec", None)
    params = callspec.params if callspec is not None else {}
    found = {name for name in CLUSTER_FIXTURES if name in names}
    if "cluster" in params:
        found.add(f"{params['cluster']}_cluster")
    if "secured_cluster" in params:
        found.add(f"secured_{params['secured_cluster']}_cluster")
    return found


def plan(groups: Iterable[tuple[str | None, pytest.Item]]) -> None:
    needs: dict[str | None, set[str]] = {}
    for group, item in groups:
        needs.setdefault(group, set()).update(clusters_of(item))
    _NEEDS.clear()
    _NEEDS.update({group: frozenset(names) for group, names in needs.items()})


def started(name: str, start: Callable[[], None], stop: Callable[[], None]) -> None:
    """A cluster fixture has started its cluster; `start` starts it again in place."""
    _LIVE[name] = _Lifetime(start, stop)


def ended(name: str) -> None:
    """The fixture's own teardown stops it at the session's end."""
    _LIVE.pop(name, None)


def stop_unneeded(next_group: str | None) -> None:
    if keep_all():
        return
    needed = _NEEDS.get(next_group, frozenset())
    for name, live in _LIVE.items():
        if live.running and name not in needed:
            live.stop()
            live.running = False


def start_needed(group: str | None) -> None:
    for name in _NEEDS.get(group, frozenset()):
        live = _LIVE.get(name)
        if live is not None and not live.running:
            live.start()
            live.running = True
