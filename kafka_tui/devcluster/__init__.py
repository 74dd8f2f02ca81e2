"""Real local Kafka clusters from Maven Central jars, for the demo and the tests."""

from .cluster import ClusterError, ClusterState, DevCluster, Mode, default_root
from .jars import KRAFT_VERSION, ZK_VERSION, JarFetchError, KafkaJars, ensure_kafka
from .security import SECURITIES, USERS, Security, SecurityState

__all__ = [
    "KRAFT_VERSION",
    "SECURITIES",
    "USERS",
    "ZK_VERSION",
    "ClusterError",
    "ClusterState",
    "DevCluster",
    "JarFetchError",
    "KafkaJars",
    "Mode",
    "Security",
    "SecurityState",
    "default_root",
    "ensure_kafka",
]
