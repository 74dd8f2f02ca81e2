"""Async admin layer over aiokafka: own dataclasses in and out, typed errors, no Textual.

Each name is imported from its module on first use: `from kafka_tui.admin import TopicSpec`
(the config file's checks, `kafka-tui audit`) loads the model, not aiokafka; `KafkaAdmin`
loads the client (bench/startup.py: `audit tail`).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .client import KafkaAdmin
    from .errors import (
        AdminError,
        ConnectionFailed,
        KafkaRequestError,
        ReadOnlyProfile,
        ValidationError,
    )
    from .model import (
        BrokerInfo,
        ClusterInfo,
        ConfigChange,
        ConfigEntry,
        ConfigOp,
        ConfigSource,
        ConnectionSettings,
        NewPartitions,
        PartitionInfo,
        TopicDescription,
        TopicResult,
        TopicSpec,
    )

__all__ = [
    "AdminError",
    "BrokerInfo",
    "ClusterInfo",
    "ConfigChange",
    "ConfigEntry",
    "ConfigOp",
    "ConfigSource",
    "ConnectionFailed",
    "ConnectionSettings",
    "KafkaAdmin",
    "KafkaRequestError",
    "NewPartitions",
    "PartitionInfo",
    "ReadOnlyProfile",
    "TopicDescription",
    "TopicResult",
    "TopicSpec",
    "ValidationError",
]


def __getattr__(name: str) -> Any:
    """The name from the first of model, errors, client that has it (the client last: it is
    the one that loads aiokafka)."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    for module in ("model", "errors", "client"):
        __import__(f"{__name__}.{module}")  # not importlib's: -X importtime shows this one
        loaded = sys.modules[f"{__name__}.{module}"]
        if hasattr(loaded, name):
            value = getattr(loaded, name)
            globals()[name] = value
            return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
