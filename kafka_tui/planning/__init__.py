"""Pure, deterministic replica-assignment planning (no I/O)."""

from kafka_tui.planning import _native

# The placer's modules compiled by mypyc, when a build of exactly these sources exists.
NATIVE = _native.enable(__path__)

from kafka_tui.planning.placement import (  # noqa: E402 (after the build is enabled)
    INVALID_PARTITIONS,
    INVALID_REPLICATION_FACTOR,
    MODES,
    Broker,
    Load,
    Mode,
    Placement,
    Request,
    place,
)

__all__ = [
    "INVALID_PARTITIONS",
    "INVALID_REPLICATION_FACTOR",
    "MODES",
    "NATIVE",
    "Broker",
    "Load",
    "Mode",
    "Placement",
    "Request",
    "place",
]
