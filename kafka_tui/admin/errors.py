"""Kafka error codes as sentences an operator understands, and the admin layer's exceptions."""

from __future__ import annotations

from aiokafka import errors as kafka_errors

# Kafka's error codes (org.apache.kafka.common.protocol.Errors) that admin requests can
# return; aiokafka's own table misses several (17 is INVALID_TOPIC there, 73 and 89 unknown).
ERROR_NAMES: dict[int, str] = {
    -1: "UNKNOWN_SERVER_ERROR",
    1: "OFFSET_OUT_OF_RANGE",
    2: "CORRUPT_MESSAGE",
    3: "UNKNOWN_TOPIC_OR_PARTITION",
    4: "INVALID_FETCH_SIZE",
    5: "LEADER_NOT_AVAILABLE",
    6: "NOT_LEADER_OR_FOLLOWER",
    7: "REQUEST_TIMED_OUT",
    8: "BROKER_NOT_AVAILABLE",
    9: "REPLICA_NOT_AVAILABLE",
    10: "MESSAGE_TOO_LARGE",
    11: "STALE_CONTROLLER_EPOCH",
    12: "OFFSET_METADATA_TOO_LARGE",
    13: "NETWORK_EXCEPTION",
    14: "COORDINATOR_LOAD_IN_PROGRESS",
    15: "COORDINATOR_NOT_AVAILABLE",
    16: "NOT_COORDINATOR",
    17: "INVALID_TOPIC_EXCEPTION",
    18: "RECORD_LIST_TOO_LARGE",
    19: "NOT_ENOUGH_REPLICAS",
    20: "NOT_ENOUGH_REPLICAS_AFTER_APPEND",
    21: "INVALID_REQUIRED_ACKS",
    22: "ILLEGAL_GENERATION",
    23: "INCONSISTENT_GROUP_PROTOCOL",
    24: "INVALID_GROUP_ID",
    25: "UNKNOWN_MEMBER_ID",
    26: "INVALID_SESSION_TIMEOUT",
    27: "REBALANCE_IN_PROGRESS",
    28: "INVALID_COMMIT_OFFSET_SIZE",
    29: "TOPIC_AUTHORIZATION_FAILED",
    30: "GROUP_AUTHORIZATION_FAILED",
    31: "CLUSTER_AUTHORIZATION_FAILED",
    32: "INVALID_TIMESTAMP",
    33: "UNSUPPORTED_SASL_MECHANISM",
    34: "ILLEGAL_SASL_STATE",
    35: "UNSUPPORTED_VERSION",
    36: "TOPIC_ALREADY_EXISTS",
    37: "INVALID_PARTITIONS",
    38: "INVALID_REPLICATION_FACTOR",
    39: "INVALID_REPLICA_ASSIGNMENT",
    40: "INVALID_CONFIG",
    41: "NOT_CONTROLLER",
    42: "INVALID_REQUEST",
    43: "UNSUPPORTED_FOR_MESSAGE_FORMAT",
    44: "POLICY_VIOLATION",
    54: "SECURITY_DISABLED",
    55: "OPERATION_NOT_ATTEMPTED",
    56: "KAFKA_STORAGE_ERROR",
    57: "LOG_DIR_NOT_FOUND",
    58: "SASL_AUTHENTICATION_FAILED",
    60: "REASSIGNMENT_IN_PROGRESS",
    67: "INVALID_PRINCIPAL_TYPE",
    68: "NON_EMPTY_GROUP",
    69: "GROUP_ID_NOT_FOUND",
    72: "LISTENER_NOT_FOUND",
    73: "TOPIC_DELETION_DISABLED",
    76: "UNSUPPORTED_COMPRESSION_TYPE",
    80: "PREFERRED_LEADER_NOT_AVAILABLE",
    83: "ELIGIBLE_LEADERS_NOT_AVAILABLE",
    84: "ELECTION_NOT_NEEDED",
    85: "NO_REASSIGNMENT_IN_PROGRESS",
    86: "GROUP_SUBSCRIBED_TO_TOPIC",
    89: "THROTTLING_QUOTA_EXCEEDED",
    91: "RESOURCE_NOT_FOUND",
    92: "DUPLICATE_RESOURCE",
    100: "UNKNOWN_TOPIC_ID",
    101: "DUPLICATE_BROKER_REGISTRATION",
    102: "BROKER_ID_NOT_REGISTERED",
    103: "INCONSISTENT_TOPIC_ID",
    104: "INCONSISTENT_CLUSTER_ID",
    107: "INELIGIBLE_REPLICA",
}

# Sentences for the errors an operator meets when administering topics. `{subject}` is
# "Topic 'orders'" (or "Broker 3", "The cluster" for errors about those), `{topic}` the bare
# name; the broker's own detail, when it gives one, follows the sentence.
_SENTENCES: dict[str, str] = {
    "TOPIC_ALREADY_EXISTS": "{subject} already exists. Choose another name, or skip "
    "the topics that exist already.",
    "INVALID_TOPIC_EXCEPTION": "'{topic}' is not a valid topic name.",
    "INVALID_PARTITIONS": "{subject}: invalid partition count. A topic needs at least "
    "one partition, and partitions can only be added (the new total must be above the "
    "current count).",
    "INVALID_REPLICATION_FACTOR": "{subject}: the replication factor cannot be met. It "
    "must be at least 1 and at most the number of brokers available.",
    "INVALID_REPLICA_ASSIGNMENT": "{subject}: the replica assignment is invalid. Every "
    "partition needs the same number of distinct broker ids, all of them brokers of this "
    "cluster.",
    "INVALID_CONFIG": "{subject}: a config is invalid. Check the key and value.",
    "INVALID_REQUEST": "{subject}: the request is invalid.",
    "REASSIGNMENT_IN_PROGRESS": "{subject} is being reassigned. Wait for the "
    "reassignment to finish, then try again.",
    "UNKNOWN_TOPIC_OR_PARTITION": "{subject} does not exist. Check the name (topic "
    "names are case-sensitive).",
    "UNKNOWN_TOPIC_ID": "{subject} does not exist any more (its id is unknown).",
    "TOPIC_AUTHORIZATION_FAILED": "Not authorized for topic '{topic}'. Ask for the ACL this "
    "operation needs on the topic (CREATE, ALTER, DELETE, DESCRIBE or DESCRIBE_CONFIGS).",
    "CLUSTER_AUTHORIZATION_FAILED": "Not authorized on this cluster for '{topic}'. Ask for "
    "the cluster-level ACL this operation needs (e.g. CREATE or ALTER_CONFIGS on the "
    "cluster).",
    "REQUEST_TIMED_OUT": "{subject}: the cluster did not finish in time. The change "
    "may still complete later; check again before retrying.",
    "POLICY_VIOLATION": "{subject} was rejected by the cluster's topic policy.",
    "TOPIC_DELETION_DISABLED": "{subject} cannot be deleted: deletion is disabled on "
    "this cluster (delete.topic.enable=false).",
    "THROTTLING_QUOTA_EXCEEDED": "{subject}: the cluster's topic-mutation quota is "
    "used up. Wait a moment and retry.",
    "NOT_CONTROLLER": "{subject}: the controller moved while the request was in flight. Retry.",
    "UNSUPPORTED_VERSION": "{subject}: the broker does not support this request "
    "version (kafka-tui needs Kafka 3.1 or newer).",
    "LEADER_NOT_AVAILABLE": "{subject}: a partition has no leader yet. Retry in a moment.",
    "UNKNOWN_SERVER_ERROR": "{subject}: the broker failed with an unexpected error. "
    "See the broker's log.",
    "INCONSISTENT_TOPIC_ID": "{subject} was recreated while the request was in flight. Retry.",
    "NOT_ENOUGH_REPLICAS": "{subject}: not enough in-sync replicas are available.",
    # Produce (messages produce, the records screen's form)
    "MESSAGE_TOO_LARGE": "{subject}: a record is larger than the topic accepts "
    "(max.message.bytes, or the broker's message.max.bytes). Send a smaller record, or raise "
    "the topic's max.message.bytes.",
    "RECORD_LIST_TOO_LARGE": "{subject}: a batch of records is larger than the broker accepts "
    "(message.max.bytes). Send fewer or smaller records at a time.",
    "INVALID_TIMESTAMP": "{subject}: a record's timestamp is too far from the broker's clock "
    "(message.timestamp.before.max.ms / after.max.ms).",
    # OffsetDelete (KIP-496); `{subject}` is "Group 'billing'", `{topic}` the topic.
    "GROUP_SUBSCRIBED_TO_TOPIC": "{subject} keeps its offsets on '{topic}': Kafka deletes a "
    "group's offsets only for topics none of its active members subscribes to. Stop its "
    "consumers (the group becomes Empty), then delete them.",
    "NON_EMPTY_GROUP": "{subject} has active members: Kafka deletes the offsets of a group "
    "with members only when they use the consumer protocol and do not subscribe to the "
    "topic. Stop its members first.",
    "GROUP_ID_NOT_FOUND": "{subject} does not exist (no member and no committed offset).",
    "GROUP_AUTHORIZATION_FAILED": "{subject}: not authorized for this group (reading its "
    "offsets needs DESCRIBE on the group, deleting them DELETE).",
    # Leader elections (ElectLeaders); `{subject}` is "Partition 'orders'-3".
    "ELECTION_NOT_NEEDED": "{subject} already has the leader this election would give it; "
    "nothing to do.",
    "PREFERRED_LEADER_NOT_AVAILABLE": "{subject}: its preferred leader (the first replica) "
    "cannot lead now: its broker is offline or it is not in sync. Start the broker, wait "
    "until the replica is back in the ISR, then elect again.",
    "ELIGIBLE_LEADERS_NOT_AVAILABLE": "{subject}: no replica can become leader: none is on a "
    "live broker (an unclean election takes any live replica, a clean one only an in-sync "
    "one). Start a broker that holds a replica.",
}


def error_name(code: int) -> str:
    """Kafka's name for an error code, e.g. 36 -> TOPIC_ALREADY_EXISTS."""
    if code in ERROR_NAMES:
        return ERROR_NAMES[code]
    cls = kafka_errors.for_code(code)
    name = getattr(cls, "message", None)
    if cls is kafka_errors.UnknownError or not name:
        return f"ERROR_CODE_{code}"
    return str(name)


def sentence(
    name: str,
    topic: str,
    detail: str | None = None,
    *,
    checked_here: bool = False,
    subject: str | None = None,
) -> str:
    """One readable sentence for `name` about `topic`, with the broker's detail if useful.

    `checked_here`: the detail comes from kafka-tui's own check before sending, worded as
    the broker would word it. `subject`: what the error is about when it is not a topic
    ("Broker 3", "The cluster"); it replaces "Topic '<topic>'".
    """
    subject = subject or f"Topic '{topic}'"
    template = _SENTENCES.get(name)
    if template is None:
        description = _description(name)
        text = f"{subject}: Kafka returned {name}" + (f" ({description})." if description else ".")
    else:
        text = template.format(topic=topic, subject=subject)
    if detail and detail.strip() and detail.strip() not in text:
        said = "Kafka would say" if checked_here else "Kafka said"
        text += f" {said}: {detail.strip()}"
    return text


def _description(name: str) -> str:
    for cls in vars(kafka_errors).values():
        if isinstance(cls, type) and getattr(cls, "message", None) == name:
            return str(getattr(cls, "description", "") or "")
    return ""


class AdminError(Exception):
    """Base of the admin layer's errors; `str()` is a sentence for humans."""

    def __init__(self, name: str, message: str, topic: str | None = None) -> None:
        super().__init__(message)
        self.name = name
        self.message = message
        self.topic = topic


class KafkaRequestError(AdminError):
    """The cluster answered with an error code."""

    @classmethod
    def from_code(
        cls, code: int, topic: str, detail: str | None = None, *, subject: str | None = None
    ) -> KafkaRequestError:
        """`subject`: see `sentence`; errors about a broker or the cluster pass it."""
        name = error_name(code)
        return cls(name, sentence(name, topic, detail, subject=subject), topic)

    @classmethod
    def about_broker(cls, code: int, broker: int | str, detail: str | None) -> KafkaRequestError:
        """An error about broker `broker` itself (its configs), worded about the broker."""
        return cls.from_code(code, f"broker {broker}", detail, subject=f"Broker {broker}")


class ValidationError(AdminError):
    """Refused before sending: the cluster would reject it with error `name`."""


class ConnectionFailed(AdminError):
    """The cluster could not be reached or refused the connection (auth, TLS)."""

    def __init__(self, message: str) -> None:
        super().__init__("CONNECTION_FAILED", message)


class ReadOnlyProfile(AdminError):
    def __init__(self, profile: str) -> None:
        super().__init__(
            "READ_ONLY_PROFILE",
            f"Profile '{profile}' is read-only: changes are refused. Use another profile to "
            "create, alter or delete topics.",
        )
