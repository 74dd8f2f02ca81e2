"""Async admin layer over aiokafka: own dataclasses in and out, typed errors, no Textual."""

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
