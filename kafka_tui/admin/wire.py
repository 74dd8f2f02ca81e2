"""Kafka's wire, taken from Kafka's own message schemas through `kio` (typed dataclasses
generated from clients/src/main/resources/common/message/*.json, one per version).

A request names its API and the range of versions kafka-tui sends (`Api`); on each
connection the highest version both sides know is picked from the broker's ApiVersions, the
request is built for that version and its answer decoded by kio's generated reader. A new
request or version costs a line here, not a decoder. Where no version is shared the request
is refused with `UnsupportedByBroker`, naming the Kafka release that has it.

The frames are handed to aiokafka's connection through its public `Request.prepare`: a
request struct is anything with `encode()`, `build_request_header()`,
`parse_response_header()` and `RESPONSE_TYPE.decode()`.
"""

from __future__ import annotations

import base64
import datetime
import io
import struct
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass, fields
from functools import cache
from typing import Any, ClassVar, Generic, TypeVar

from aiokafka.protocol.api import Request, RequestStruct

from . import hand_wire
from .errors import AdminError

# kio (kio_loader) loads on the first message written or read through it: a create, a
# describe or a listing of today's brokers sends only hand-written ones (hand_wire.py).

E = TypeVar("E")

# The Kafka release that brought each API, and each version kafka-tui relies on, from
# Kafka's upgrade notes and the schemas' history (checked on real brokers in tests/compat).
_SINCE: dict[tuple[int, int], str] = {
    (32, 1): "1.1",  # DescribeConfigs synonyms
    (43, 0): "2.2",  # ElectLeaders (ElectPreferredLeaders)
    (43, 1): "2.4",  # ElectLeaders with an election type (unclean)
    (44, 0): "2.3",  # IncrementalAlterConfigs
    (45, 0): "2.4",  # AlterPartitionReassignments
    (46, 0): "2.4",  # ListPartitionReassignments
    (47, 0): "2.4",  # OffsetDelete
    (60, 0): "2.8",  # DescribeCluster
    (60, 2): "4.0",  # DescribeCluster with fenced brokers
    (61, 0): "2.8",  # DescribeProducers (KIP-664)
    (64, 0): "3.3",  # UnregisterBroker
    (42, 0): "1.1",  # DeleteGroups
    (69, 0): "4.0",  # ConsumerGroupDescribe
    (77, 1): "4.1",  # ShareGroupDescribe (v0 was 4.0's early access)
    (89, 0): "4.1",  # StreamsGroupDescribe
    (90, 0): "4.1",  # DescribeShareGroupOffsets
    (91, 0): "4.1",  # AlterShareGroupOffsets
    (75, 0): "3.8",  # DescribeTopicPartitions
}


class UnsupportedByBroker(AdminError):
    """The broker speaks no version of a request that kafka-tui sends."""

    def __init__(self, api: Api, broker_range: tuple[int, int] | None) -> None:
        self.api = api
        self.broker_range = broker_range
        since = _SINCE.get((api.key, api.low))
        needs = f"Kafka {since} or newer" if since else f"{api.title} v{api.low} or newer"
        has = (
            "does not know this request"
            if broker_range is None
            else f"speaks versions {broker_range[0]}-{broker_range[1]} of it"
        )
        super().__init__(
            "UNSUPPORTED_VERSION",
            f"{api.title} needs {needs}; this broker {has}.",
        )


@dataclass(frozen=True)
class Api:
    """One Kafka API and the versions kafka-tui sends of it, `low` to `high`."""

    key: int
    title: str  # as Kafka's schemas name it: "CreateTopics"
    low: int
    high: int

    def pick(self, versions: dict[int, tuple[int, int]]) -> int:
        """The highest version both this client and the broker (its ApiVersions) know."""
        span = versions.get(self.key)
        if span is None or max(span[0], self.low) > min(span[1], self.high):
            raise UnsupportedByBroker(self, span)
        return min(span[1], self.high)

    def request_type(self, version: int) -> type[Any]:
        return _request_type(self.key, version)

    def response_type(self, version: int) -> type[Any]:
        return _response_type(self.key, version)


@cache
def _request_type(key: int, version: int) -> type[Any]:
    from .kio_loader import load_request_schema

    return load_request_schema(key, version)


@cache
def _response_type(key: int, version: int) -> type[Any]:
    from .kio_loader import load_response_schema

    return load_response_schema(key, version)


def encode(entity: Any) -> bytes:
    """An entity's bytes, by kio's generated writer."""
    from .kio_loader import entity_writer

    buffer = io.BytesIO()
    entity_writer(type(entity))(buffer, entity)
    return buffer.getvalue()


def decode(entity_type: type[Any], data: bytes | memoryview, offset: int = 0) -> tuple[Any, int]:
    """An entity read from `data` at `offset`, and the offset after it."""
    from .kio_loader import entity_reader

    try:
        value, size = entity_reader(entity_type)(data, offset)
    except Exception as exc:  # kio's native reader raises its own errors on a short buffer
        raise ValueError(f"Cannot decode {entity_type.__name__}: {exc}") from None
    return value, offset + size


_FIELD_NAMES: dict[type[Any], frozenset[str]] = {}


def _field_names(entity_type: type[Any]) -> frozenset[str]:
    names = _FIELD_NAMES.get(entity_type)
    if names is None:
        names = _FIELD_NAMES[entity_type] = frozenset(f.name for f in fields(entity_type))
    return names


def shape(entity_type: type[E], **values: Any) -> E:
    """`entity_type` (one version of a message) with those of `values` that version has: a
    field a version lacks (a topic id before v10, say) is left out, one it adds and that is
    not given takes its schema default."""
    names = _field_names(entity_type)
    return entity_type(**{k: v for k, v in values.items() if k in names})


def nested(entity_type: type[Any], name: str) -> type[Any]:
    """A struct of the same message and version as `entity_type` (`CreatableTopic` of
    CreateTopicsRequest v7)."""
    found: type[Any] = getattr(sys.modules[entity_type.__module__], name)
    return found


def has(entity_type: type[Any], name: str) -> bool:
    """Whether this version of a message has the field `name`."""
    return name in _field_names(entity_type)


def topic_id_text(value: uuid.UUID | None) -> str | None:
    """A topic id as Kafka shows it (URL-safe base64, no padding); the zero id is none."""
    if value is None or value.int == 0:
        return None
    return base64.urlsafe_b64encode(value.bytes).decode().rstrip("=")


def topic_id_value(text: str | None) -> uuid.UUID | None:
    return None if not text else uuid.UUID(bytes=base64.urlsafe_b64decode(text + "=="))


def millis(value: int) -> datetime.timedelta:
    """A duration in milliseconds as kio's messages hold them (timeouts)."""
    return datetime.timedelta(milliseconds=value)


def code(value: Any) -> int:
    """An error code as its number (kio decodes them into its ErrorCode enum)."""
    return int(getattr(value, "value", value))


class Decoder(Generic[E]):
    """A response type as aiokafka's connection uses it: `decode(buffer)` after the header."""

    def __init__(self, read: Callable[[bytes, int], tuple[E, int]]) -> None:
        self.read = read

    def decode(self, data: io.BytesIO) -> E:
        value, end = self.read(data.getvalue(), data.tell())
        data.seek(end)
        return value


class _Header:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def encode(self) -> bytes:
        return self.data


class _ResponseHeader:
    def __init__(self, correlation_id: int) -> None:
        self.correlation_id = correlation_id


_INT32 = struct.Struct(">i")


class Frame:
    """One request at one version, ready for aiokafka's connection to send."""

    def __init__(self, api: Api, version: int, body: bytes, decoder: Decoder[Any]) -> None:
        self.API_KEY = api.key
        self.API_VERSION = version
        self.body = body
        self.RESPONSE_TYPE = decoder
        # From a table (hand_wire.py), not the schemas: a side kafka-tui writes itself is
        # never loaded, and the header is written by hand.
        self._flexible_request = hand_wire.flexible_request(api.key, version)
        self._flexible_answer = hand_wire.flexible_answer(api.key, version)

    def encode(self) -> bytes:
        return self.body

    def build_request_header(self, correlation_id: int, client_id: str) -> _Header:
        return _Header(
            hand_wire.request_header(
                self.API_KEY, self.API_VERSION, correlation_id, client_id, self._flexible_request
            )
        )

    def parse_response_header(self, data: io.BytesIO) -> _ResponseHeader:
        (correlation_id,) = _INT32.unpack(data.read(4))
        if self._flexible_answer:  # tagged fields: none are defined for responses
            count = data.read(1)[0]
            for _ in range(count):
                data.read(1)
                data.read(data.read(1)[0])
        return _ResponseHeader(correlation_id)

    def __repr__(self) -> str:
        return f"Frame(api_key={self.API_KEY}, version={self.API_VERSION}, {len(self.body)} B)"


class WireRequest(Request[RequestStruct]):
    """A request kafka-tui sends: its API, the body for a version, and how the answer reads.

    Subclasses set API and API_KEY and write `message(version)`, the kio request entity;
    `read(version)` decodes the answer with kio's generated reader unless a subclass keeps a
    measured hand decoder. The answer's version is its entity type's `__version__`."""

    API: ClassVar[Api]
    API_KEY = -1

    def build(self, request_struct_class: type[RequestStruct]) -> RequestStruct:
        raise NotImplementedError("WireRequest is prepared, never built")

    def message(self, version: int) -> Any:
        raise NotImplementedError

    def encode_message(self, version: int) -> bytes:
        return encode(self.message(version))

    def read(self, version: int) -> Callable[[bytes, int], tuple[Any, int]]:
        response_type = self.API.response_type(version)
        return lambda data, offset: decode(response_type, data, offset)

    def api(self) -> Api:
        """The API and versions this request may be sent at (some requests narrow them)."""
        return self.API

    def prepare(self, versions: dict[int, tuple[int, int]]) -> Any:
        api = self.api()
        version = api.pick(versions)
        return Frame(api, version, self.encode_message(version), Decoder(self.read(version)))
