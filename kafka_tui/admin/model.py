"""The admin layer's own language: what goes in and what comes out. No aiokafka types here."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Literal, NamedTuple

from ..fields import Remedy
from .oauth_settings import OAuthSettings

# How long a change may take at the controller, and a request at a broker, unless told:
# Kafka's own tools' default (kafka-topics.sh, AdminClient's default.api.timeout.ms).
DEFAULT_TIMEOUT_MS = 30_000

SecurityProtocol = Literal["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"]
SaslMechanism = Literal["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "GSSAPI", "OAUTHBEARER"]


class Secret(str):
    """A password or private key: the string itself to the code that uses it, masked in
    every repr — a traceback with locals (Textual prints one when the app crashes) shows the
    dicts and arguments that carry it."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "'******'"


@dataclass(frozen=True)
class ConnectionSettings:
    bootstrap_servers: str
    client_id: str = "kafka-tui"
    request_timeout_ms: int = DEFAULT_TIMEOUT_MS
    security_protocol: SecurityProtocol = "PLAINTEXT"
    sasl_mechanism: SaslMechanism | None = None
    sasl_username: str | None = None
    sasl_password: str | None = field(default=None, repr=False)
    ssl_cafile: str | None = None
    ssl_certfile: str | None = None
    ssl_keyfile: str | None = None
    ssl_password: str | None = field(default=None, repr=False)
    ssl_check_hostname: bool = True
    # From a client.properties file (client_properties.py): certificates to trust given as
    # PEM text, and a client certificate chain + key held in memory (PKCS12 / inline PEM).
    ssl_cadata: str | None = None
    ssl_cert_pem: str | None = field(default=None, repr=False)
    ssl_key_pem: str | None = field(default=None, repr=False)
    # SASL/GSSAPI (Kerberos, admin/kerberos_login.py): the broker's service name, and the client's
    # principal with its keytab, or a ticket cache (neither: the default ticket cache).
    sasl_kerberos_service_name: str = "kafka"
    sasl_kerberos_principal: str | None = None
    sasl_kerberos_keytab: str | None = None
    sasl_kerberos_ccache: str | None = None
    krb5_config: str | None = None
    # OAUTHBEARER (sasl_mechanism): where its tokens come from (OIDC, a command, MSK IAM).
    sasl_oauth: OAuthSettings | None = None

    def __post_init__(self) -> None:
        for name in ("sasl_password", "ssl_password", "ssl_key_pem"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, Secret):
                object.__setattr__(self, name, Secret(value))
        oauth = self.sasl_oauth
        for name in ("client_secret", "static_token"):
            value = getattr(oauth, name, None)
            if value is not None and not isinstance(value, Secret):
                object.__setattr__(oauth, name, Secret(value))


# TopicSpec and TopicResult are not frozen: a bulk create makes 4,000 of each, and a frozen
# dataclass's __init__ (object.__setattr__ per field) took ~7x as long as a plain one's
# (~7 ms per 4,000 results). Nothing changes one after it is made.
@dataclass
class TopicSpec:
    """A topic to create: partitions + replication factor (None: the broker's default),
    or an explicit replica assignment (partition -> broker ids, first = preferred leader)."""

    name: str
    partitions: int | None = None
    replication_factor: int | None = None
    assignment: dict[int, list[int]] | None = None
    configs: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class NewPartitions:
    """Grow `topic` to `total` partitions; `assignment` has one replica list per new partition."""

    topic: str
    total: int
    assignment: list[list[int]] | None = None


class ConfigOp(Enum):
    SET = "set"
    DELETE = "delete"


@dataclass(frozen=True)
class ConfigChange:
    name: str
    op: ConfigOp
    value: str | None = None


@dataclass
class TopicResult:
    """One topic's outcome in a batch. `error` is the Kafka error name, `message` a sentence."""

    topic: str
    ok: bool
    error: str | None = None
    message: str = ""
    topic_id: str | None = None
    partitions: int | None = None
    replication_factor: int | None = None
    warning: str | None = None
    # KIP-409: the replica lists placed (a grow: the new partitions only), placeholders < 0.
    assignment: Sequence[Sequence[int]] | None = None
    under_replicated_partitions: int | None = None
    # What would let a refused topic through, for each front end to word (fields.py).
    remedies: tuple[Remedy, ...] = ()
    # Every warning, `warning` first, when a result has more than one (a grow placed
    # under-replicated that also moves keys); `warning` alone otherwise.
    warnings: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {
            "topic": self.topic,
            "ok": self.ok,
            "error": self.error,
            "message": self.message,
        }
        for key in (
            "topic_id",
            "partitions",
            "replication_factor",
            "warning",
            "assignment",
            "under_replicated_partitions",
        ):
            value = getattr(self, key)
            if value is not None:
                data[key] = value
        if self.warnings:
            data["warnings"] = list(self.warnings)
        return data


@dataclass(frozen=True)
class BrokerInfo:
    id: int
    host: str
    port: int
    rack: str | None
    fenced: bool = False


@dataclass(frozen=True)
class BrokerLogDirs:
    """One live broker's log directories as it describes them (DescribeLogDirs, about no
    topic); `cordoned`: those taking no new replica (KIP-1066, Kafka 4.3+)."""

    dirs: tuple[str, ...]
    cordoned: tuple[str, ...] = ()

    @property
    def all_cordoned(self) -> bool:
        """No directory can take a new replica: the controller places none on the broker
        and refuses an assignment naming it."""
        return bool(self.dirs) and set(self.dirs) <= set(self.cordoned)


@dataclass(frozen=True)
class ClusterInfo:
    cluster_id: str | None
    # KRaft: the quorum's leader (DescribeQuorum), the active controller; a Metadata answer
    # names a random broker there. ZooKeeper mode: the controller broker.
    controller_id: int | None
    brokers: list[BrokerInfo]
    # KRaft 4.x lists registered-but-fenced brokers; ZooKeeper mode only the live ones.
    lists_fenced_brokers: bool
    quorum: QuorumInfo | None = None  # KRaft only

    @property
    def live_broker_ids(self) -> list[int]:
        return [b.id for b in self.brokers if not b.fenced]


@dataclass(frozen=True)
class QuorumMember:
    id: int
    log_end_offset: int  # -1: not known
    lag: int  # the leader's log end offset minus this member's; -1: not known


@dataclass(frozen=True)
class QuorumInfo:
    """The KRaft controller quorum: its leader (the active controller), voters, observers."""

    leader: int | None
    epoch: int
    voters: list[QuorumMember]
    observers: list[QuorumMember]  # brokers, and controllers that do not vote


class PartitionInfo(NamedTuple):
    """One partition as Metadata describes it. A NamedTuple, not a dataclass: 2,000,000
    partitions are held at once on the largest clusters (issue 52). With the replica lists
    of one read shared between the partitions that have the same one (the decoder interns
    them), the topics of bench/big_cluster.py's 2,000,000-partition replay take 311 MB
    instead of 538 (tracemalloc). Each is still an object the garbage collector visits
    (only exact tuples leave its view), as a dataclass instance was: a full collection
    over them costs ~1 s at 2,000,000 partitions."""

    partition: int
    leader: int  # -1: no leader (unavailable)
    # Tuples, as decoded (protocol.MetadataPartition): a full garbage collection skips them.
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    offline_replicas: tuple[int, ...]
    # Eligible leader replicas and the last known ones (KIP-966), where the broker says
    # (DescribeTopicPartitions, Kafka 3.8+); None: not known.
    elr: tuple[int, ...] | None = None
    last_known_elr: tuple[int, ...] | None = None

    @property
    def under_replicated(self) -> bool:
        return len(self.isr) < len(self.replicas)


@dataclass(frozen=True)
class BrokerLoad:
    """Per broker id: replicas, and partitions it is the first (preferred leader) replica
    of, over every topic; `topics` and `partitions` counted. Placeholders never appear."""

    replicas: dict[int, int]
    leaders: dict[int, int]
    topics: int
    partitions: int


class ConfigSource(Enum):
    UNKNOWN = 0
    DYNAMIC_TOPIC_CONFIG = 1
    DYNAMIC_BROKER_CONFIG = 2
    DYNAMIC_DEFAULT_BROKER_CONFIG = 3
    STATIC_BROKER_CONFIG = 4
    DEFAULT_CONFIG = 5
    DYNAMIC_BROKER_LOGGER_CONFIG = 6
    CLIENT_METRICS_CONFIG = 7
    GROUP_CONFIG = 8

    @property
    def label(self) -> str:
        return _SOURCE_LABELS[self]


_SOURCE_LABELS = {
    ConfigSource.UNKNOWN: "unknown",
    ConfigSource.DYNAMIC_TOPIC_CONFIG: "topic override",
    ConfigSource.DYNAMIC_BROKER_CONFIG: "broker (dynamic)",
    ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG: "cluster default (dynamic)",
    ConfigSource.STATIC_BROKER_CONFIG: "broker (server.properties)",
    ConfigSource.DEFAULT_CONFIG: "Kafka default",
    ConfigSource.DYNAMIC_BROKER_LOGGER_CONFIG: "broker logger",
    ConfigSource.CLIENT_METRICS_CONFIG: "client metrics",
    ConfigSource.GROUP_CONFIG: "group",
}


@dataclass(frozen=True)
class ConfigEntry:
    name: str
    value: str | None  # None for sensitive values
    source: ConfigSource
    read_only: bool = False
    sensitive: bool = False

    @property
    def is_override(self) -> bool:
        return self.source is ConfigSource.DYNAMIC_TOPIC_CONFIG


@dataclass(frozen=True)
class TopicDescription:
    name: str
    topic_id: str | None
    internal: bool
    partitions: list[PartitionInfo]
    configs: dict[str, ConfigEntry] = field(default_factory=dict)

    @property
    def replication_factor(self) -> int:
        return max((len(p.replicas) for p in self.partitions), default=0)

    def min_insync_replicas(self) -> int | None:
        entry = self.configs.get("min.insync.replicas")
        return int(entry.value) if entry and entry.value else None

    def to_json(self) -> dict[str, object]:
        return {
            "topic": self.name,
            "topic_id": self.topic_id,
            "internal": self.internal,
            "partitions": [
                {
                    "partition": p.partition,
                    "leader": p.leader,
                    "replicas": p.replicas,
                    "isr": p.isr,
                    "offline_replicas": p.offline_replicas,
                    "elr": p.elr,
                    "last_known_elr": p.last_known_elr,
                }
                for p in self.partitions
            ],
            "configs": {
                name: {"value": c.value, "source": c.source.name, "read_only": c.read_only}
                for name, c in sorted(self.configs.items())
            },
        }
