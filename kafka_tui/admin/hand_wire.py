"""The messages of a one-topic create's path, written and read by hand, so that a create
(and a describe, a listing) loads no kio (issue 52.1): request headers, Metadata v12's
request, DescribeCluster v2, DescribeLogDirs v5 and DescribeConfigs v4 both ways, CreateTopics
v4's answer.
kio's core and these messages' schemas cost a one-topic create ~30 ms of CPU, a tenth of the
whole process beside a raw aiokafka request's (bench/startup.py). Other versions go through
kio (wire.py); tests/unit/test_hand_wire.py holds each of these to kio's bytes.

The answers are the admin layer's own records, as the kio-read answers are turned into.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import NamedTuple, TypeVar

from .metadata_v12 import _compact_string, _tagged_fields, _uvarint

# Each API key -> the first version of its messages in the flexible format (KIP-482; None:
# none is), from kio's schemas (Kafka's `flexibleVersions`). A flexible request carries
# request header v2 (else v1), a flexible answer response header v1 (else v0), except
# ApiVersions, whose answer keeps header v0 at every version. tests/unit/test_kio_loader.py
# holds the table to kio's own schemas for every version kafka-tui sends.
FLEXIBLE_FROM: dict[int, int | None] = {
    0: 9, 1: 12, 2: 6, 3: 9, 8: 8, 9: 6, 10: 3, 11: 6, 12: 4, 13: 4, 14: 4, 15: 5, 16: 3,
    17: None, 18: 3, 19: 5, 20: 4, 21: 2, 22: 2, 23: 4, 24: 3, 25: 3, 26: 3, 27: 1, 28: 3,
    29: 2, 30: 2, 31: 2, 32: 4, 33: 2, 34: 2, 35: 2, 36: 2, 37: 2, 38: 2, 39: 2, 40: 2,
    41: 2, 42: 2, 43: 2, 44: 1, 45: 0, 46: 0, 47: None, 48: 1, 49: 1, 50: 0, 51: 0, 52: 0,
    53: 1, 54: 1, 55: 0, 56: 2, 57: 0, 58: 0, 59: 0, 60: 0, 61: 0, 62: 0, 63: 0, 64: 0,
    65: 0, 66: 0, 67: 0, 68: 0, 69: 0, 70: 0, 71: 0, 72: 0, 73: 0, 74: 0, 75: 0, 76: 1,
    77: 1, 78: 1, 79: 1, 80: 0, 81: 0, 82: 0, 83: 0, 84: 0, 85: 0, 86: 0, 87: 0, 88: 0,
    89: 0, 90: 0, 91: 0, 92: 0,
}  # fmt: skip
_API_VERSIONS = 18


def flexible_request(key: int, version: int) -> bool:
    """Whether a request of API `key` at `version` is in the flexible format (header v2)."""
    since = FLEXIBLE_FROM[key]
    return since is not None and version >= since


def flexible_answer(key: int, version: int) -> bool:
    """Whether its answer has a flexible response header (v1)."""
    return key != _API_VERSIONS and flexible_request(key, version)


_HEAD = struct.Struct(">hhi")  # api key, api version, correlation id
_INT8 = struct.Struct(">b")
_INT16 = struct.Struct(">h")
_INT32 = struct.Struct(">i")
_INT64 = struct.Struct(">q")
_ERROR = struct.Struct(">ih")  # throttle time, error code


def request_header(api_key: int, version: int, correlation_id: int, client_id: str | None,
                   flexible: bool) -> bytes:  # fmt: skip
    """Request header v1 (v2 with `flexible`: an empty tagged-field section after it; the
    client id stays a classic nullable string in both)."""
    if client_id is None:
        client = b"\xff\xff"
    else:
        data = client_id.encode()
        client = _INT16.pack(len(data)) + data
    return _HEAD.pack(api_key, version, correlation_id) + client + (b"\0" if flexible else b"")


def _uvarint_bytes(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _compact(text: str) -> bytes:
    data = text.encode()
    return _uvarint_bytes(len(data) + 1) + data


def metadata_v12_request(topics: list[str] | None) -> bytes:
    """Metadata v12 for `topics` by name (None: every topic), never creating one, without
    authorized operations."""
    if topics is None:
        listed = b"\0"
    else:
        listed = _uvarint_bytes(len(topics) + 1) + b"".join(
            b"\0" * 16 + _compact(name) + b"\0" for name in topics
        )
    return listed + b"\0\0\0"  # allow auto creation, authorized operations, tagged fields


def describe_cluster_v2_request(include_fenced_brokers: bool) -> bytes:
    """DescribeCluster v2 about brokers (endpoint type 1), without authorized operations."""
    return b"\0\x01" + (b"\x01" if include_fenced_brokers else b"\0") + b"\0"


def describe_log_dirs_v5_request(topics: list[tuple[str, list[int]]] | None) -> bytes:
    if topics is None:
        return b"\0\0"
    out = [_uvarint_bytes(len(topics) + 1)]
    for name, partitions in topics:
        out.append(_compact(name))
        out.append(_uvarint_bytes(len(partitions) + 1))
        out.append(struct.pack(f">{len(partitions)}i", *partitions))
        out.append(b"\0")
    out.append(b"\0")
    return b"".join(out)


def describe_configs_v4_request(
    resources: list[tuple[int, str]], keys: list[str] | None, synonyms: bool
) -> bytes:
    """DescribeConfigs v4 about `resources` (type, name), `keys` of each (None: every
    config), without documentation."""
    if keys is None:
        asked = b"\0"
    else:
        asked = _uvarint_bytes(len(keys) + 1) + b"".join(_compact(k) for k in keys)
    out = [_uvarint_bytes(len(resources) + 1)]
    for kind, name in resources:
        out += [_INT8.pack(kind), _compact(name), asked, b"\0"]
    out.append(b"\1\0\0" if synonyms else b"\0\0\0")  # synonyms, documentation, tags
    return b"".join(out)


_A = TypeVar("_A")


def _checked(
    read: Callable[[bytes, int], tuple[_A, int]],
) -> Callable[[bytes, int], tuple[_A, int]]:
    """`read`, a cut or malformed answer a ValueError (as kio's readers raise), never a
    struct.error or an answer read past the buffer's end (a slice is silently shorter)."""

    def checked(buf: bytes, pos: int) -> tuple[_A, int]:
        try:
            answer, end = read(buf, pos)
        except (struct.error, IndexError) as exc:
            raise ValueError(f"a cut or malformed answer: {exc}") from None
        if end > len(buf):
            raise ValueError("a cut answer: it ends past the bytes received")
        return answer, end

    checked.__doc__ = read.__doc__
    return checked


class Broker(NamedTuple):
    broker_id: int
    host: str
    port: int
    rack: str | None
    is_fenced: bool


class Cluster(NamedTuple):
    """DescribeCluster v2's answer."""

    error_code: int
    error_message: str | None
    cluster_id: str | None
    controller_id: int
    brokers: list[Broker]


@_checked
def read_describe_cluster_v2(buf: bytes, pos: int) -> tuple[Cluster, int]:
    _, error_code = _ERROR.unpack_from(buf, pos)
    message, pos = _compact_string(buf, pos + 6)
    pos += 1  # endpoint type
    cluster_id, pos = _compact_string(buf, pos)
    (controller,) = _INT32.unpack_from(buf, pos)
    count, pos = _uvarint(buf, pos + 4)
    brokers = []
    for _ in range(max(count - 1, 0)):
        (broker_id,) = _INT32.unpack_from(buf, pos)
        host, pos = _compact_string(buf, pos + 4)
        (port,) = _INT32.unpack_from(buf, pos)
        rack, pos = _compact_string(buf, pos + 4)
        fenced = buf[pos] != 0
        _, pos = _tagged_fields(buf, pos + 1)
        brokers.append(Broker(broker_id, host or "", port, rack, fenced))
    _, pos = _tagged_fields(buf, pos + 4)  # after the cluster's authorized operations
    return Cluster(error_code, message, cluster_id, controller, brokers), pos


class LogDirPartition(NamedTuple):
    partition_index: int
    partition_size: int
    is_future_key: bool


class LogDirTopic(NamedTuple):
    name: str
    partitions: list[LogDirPartition]


class LogDirResult(NamedTuple):
    error_code: int
    log_dir: str
    topics: list[LogDirTopic]
    is_cordoned: bool


class LogDirsAnswer(NamedTuple):
    """DescribeLogDirs v5's answer."""

    error_code: int
    results: list[LogDirResult]


@_checked
def read_describe_log_dirs_v5(buf: bytes, pos: int) -> tuple[LogDirsAnswer, int]:
    _, error_code = _ERROR.unpack_from(buf, pos)
    count, pos = _uvarint(buf, pos + 6)
    results = []
    for _ in range(max(count - 1, 0)):
        (code,) = _INT16.unpack_from(buf, pos)
        log_dir, pos = _compact_string(buf, pos + 2)
        topics_count, pos = _uvarint(buf, pos)
        topics = []
        for _ in range(max(topics_count - 1, 0)):
            name, pos = _compact_string(buf, pos)
            partitions_count, pos = _uvarint(buf, pos)
            partitions = []
            for _ in range(max(partitions_count - 1, 0)):
                (index,) = _INT32.unpack_from(buf, pos)
                (size,) = _INT64.unpack_from(buf, pos + 4)
                future = buf[pos + 20] != 0  # after the offset lag
                _, pos = _tagged_fields(buf, pos + 21)
                partitions.append(LogDirPartition(index, size, future))
            _, pos = _tagged_fields(buf, pos)
            topics.append(LogDirTopic(name or "", partitions))
        cordoned = buf[pos + 16] != 0  # after total and usable bytes
        _, pos = _tagged_fields(buf, pos + 17)
        results.append(LogDirResult(code, log_dir or "", topics, cordoned))
    _, pos = _tagged_fields(buf, pos)
    return LogDirsAnswer(error_code, results), pos


class CreatedTopic(NamedTuple):
    name: str
    error_code: int
    error_message: str | None


class CreateTopicsV4Answer(NamedTuple):
    topics: list[CreatedTopic]


def _string(buf: bytes, pos: int) -> tuple[str | None, int]:
    (size,) = _INT16.unpack_from(buf, pos)
    pos += 2
    if size < 0:
        return None, pos
    return buf[pos : pos + size].decode(), pos + size


@_checked
def read_create_topics_v4(buf: bytes, pos: int) -> tuple[CreateTopicsV4Answer, int]:
    (count,) = _INT32.unpack_from(buf, pos + 4)  # after the throttle time
    pos += 8
    topics = []
    for _ in range(max(count, 0)):
        name, pos = _string(buf, pos)
        (code,) = _INT16.unpack_from(buf, pos)
        message, pos = _string(buf, pos + 2)
        topics.append(CreatedTopic(name or "", code, message))
    return CreateTopicsV4Answer(topics), pos


class ConfigSynonym(NamedTuple):
    name: str
    value: str | None
    source: int


class Config(NamedTuple):
    name: str
    value: str | None
    read_only: bool
    config_source: int
    is_sensitive: bool
    synonyms: list[ConfigSynonym]


class ConfigsResult(NamedTuple):
    error_code: int
    error_message: str | None
    resource_type: int
    resource_name: str
    configs: list[Config]


class ConfigsAnswer(NamedTuple):
    """DescribeConfigs v4's answer."""

    results: list[ConfigsResult]


@_checked
def read_describe_configs_v4(buf: bytes, pos: int) -> tuple[ConfigsAnswer, int]:
    count, pos = _uvarint(buf, pos + 4)  # after the throttle time
    results = []
    for _ in range(max(count - 1, 0)):
        (code,) = _INT16.unpack_from(buf, pos)
        message, pos = _compact_string(buf, pos + 2)
        kind = _INT8.unpack_from(buf, pos)[0]
        resource, pos = _compact_string(buf, pos + 1)
        configs_count, pos = _uvarint(buf, pos)
        configs = []
        for _ in range(max(configs_count - 1, 0)):
            name, pos = _compact_string(buf, pos)
            value, pos = _compact_string(buf, pos)
            read_only = buf[pos] != 0
            source = _INT8.unpack_from(buf, pos + 1)[0]
            sensitive = buf[pos + 2] != 0
            synonyms_count, pos = _uvarint(buf, pos + 3)
            synonyms = []
            for _ in range(max(synonyms_count - 1, 0)):
                synonym, pos = _compact_string(buf, pos)
                hidden, pos = _compact_string(buf, pos)
                synonym_source = _INT8.unpack_from(buf, pos)[0]
                _, pos = _tagged_fields(buf, pos + 1)
                synonyms.append(ConfigSynonym(synonym or "", hidden, synonym_source))
            _, pos = _compact_string(buf, pos + 1)  # after the config type: documentation
            _, pos = _tagged_fields(buf, pos)
            configs.append(Config(name or "", value, read_only, source, sensitive, synonyms))
        _, pos = _tagged_fields(buf, pos)
        results.append(ConfigsResult(code, message, kind, resource or "", configs))
    _, pos = _tagged_fields(buf, pos)
    return ConfigsAnswer(results), pos
