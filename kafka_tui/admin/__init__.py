"""Async admin layer over aiokafka: own dataclasses in and out, typed errors, no Textual."""

from .lean_aiokafka import install as _install_lean_aiokafka

_install_lean_aiokafka()  # before aiokafka is first imported

from .client import KafkaAdmin  # noqa: E402
from .errors import (  # noqa: E402
    AdminError,
    ConnectionFailed,
    KafkaRequestError,
    ReadOnlyProfile,
    ValidationError,
)
from .model import (  # noqa: E402
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
