"""Real local Kafka clusters from Maven Central jars, for the demo and the tests."""

from .cluster import ClusterError, ClusterState, DevCluster, Mode, default_root
from .jars import KRAFT_VERSION, ZK_VERSION, JarFetchError, KafkaJars, ensure_kafka

__all__ = [
    "KRAFT_VERSION",
    "ZK_VERSION",
    "ClusterError",
    "ClusterState",
    "DevCluster",
    "JarFetchError",
    "KafkaJars",
    "Mode",
    "default_root",
    "ensure_kafka",
]
