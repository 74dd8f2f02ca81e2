"""Pure, deterministic replica-assignment planning (no I/O)."""

from kafka_tui.planning.placement import (
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
    "Broker",
    "Load",
    "Mode",
    "Placement",
    "Request",
    "place",
]
