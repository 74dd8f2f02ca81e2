"""The object `messages read/produce` and the records screen decode and encode with:
`decode(data, expected)` and `encode(value, fmt, subject=...)`, through a schema registry
(Confluent's wire format) and/or local .avsc / .proto files. Called once per record: every
schema is fetched and parsed once per id."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .avro import AvroSchema
from .client import RegisteredSchema, RegistryClient
from .errors import SchemaError
from .json_schema import JsonSchema
from .protobuf import ProtobufSchema, compile_proto, compile_proto_file
from .wire import decode_indexes, encode_indexes, frame, is_framed, unframe

FORMATS = ("avro", "protobuf", "jsonschema")
_TYPES = {"avro": "AVRO", "protobuf": "PROTOBUF", "jsonschema": "JSON"}
# "schema id 3 is an Avro schema, not protobuf"
_NAMED = {"avro": "an Avro", "protobuf": "a Protobuf", "jsonschema": "a JSON Schema"}


@dataclass(frozen=True)
class LocalSchema:
    """A schema file for topics without a registry, or to register: .avsc (Avro), .proto
    (with the message to use; default the file's first) or .json (JSON Schema)."""

    path: Path
    format: str
    text: str
    parsed: Any
    message: str | None = None

    @classmethod
    def load(
        cls, path: Path, message: str | None = None, *, validate_json: bool = False
    ) -> LocalSchema:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise SchemaError(f"the schema file {path} does not exist") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise SchemaError(f"the schema file {path} cannot be read ({exc})") from None
        if path.suffix == ".avsc":
            return cls(path, "avro", text, AvroSchema(text, where=f" {path}"))
        if path.suffix == ".proto":
            parsed = ProtobufSchema(compile_proto_file(path), main_file=path.name)
            parsed.indexes(message)  # an unknown message name fails now, naming the file's
            return cls(path, "protobuf", text, parsed, message)
        if path.suffix == ".json":
            parsed_json = JsonSchema(text, validate=validate_json, where=f" {path}")
            return cls(path, "jsonschema", text, parsed_json)
        raise SchemaError(
            f"the schema file {path} must be an .avsc (Avro), .proto or .json (JSON Schema) file"
        )

    def registered(self) -> RegisteredSchema:
        return RegisteredSchema(None, _TYPES[self.format], self.text)


class _Shared:
    """What the key and value sides share: the client and the schemas parsed by id."""

    def __init__(
        self, client: RegistryClient | None, validate_json: bool, proto_message: str | None
    ) -> None:
        self.client = client
        self.validate_json = validate_json
        self.proto_message = proto_message
        self.lock = threading.Lock()
        self.parsed: dict[int, Any] = {}
        self.failed: dict[int, SchemaError] = {}
        # A subject's id as encoding found it (the latest version, or a schema file's looked
        # up or registered), asked once: a produce of a million records asks once, not each.
        self.subject_ids: dict[tuple[str, Path | None, bool], int] = {}

    def subject_id(self, key: tuple[str, Path | None, bool], ask: Callable[[], int]) -> int:
        with self.lock:
            found = self.subject_ids.get(key)
        if found is None:
            found = ask()
            with self.lock:
                self.subject_ids[key] = found
        return found

    def by_id(self, schema_id: int) -> Any:
        with self.lock:
            if schema_id in self.parsed:
                return self.parsed[schema_id]
            if schema_id in self.failed:
                # one record's failure is every later record's with that id: asked once
                raise self.failed[schema_id]
        try:
            found = self._parse(self._client().schema(schema_id), schema_id)
        except SchemaError as exc:
            with self.lock:
                self.failed[schema_id] = exc
            raise
        with self.lock:
            self.parsed[schema_id] = found
        return found

    def _client(self) -> RegistryClient:
        if self.client is None:
            raise SchemaError("no schema registry is configured")
        return self.client

    def _parse(self, schema: RegisteredSchema, schema_id: int) -> Any:
        where = f" of id {schema_id}"
        if schema.schema_type == "AVRO":
            return AvroSchema(schema.text, self._avro_references(schema), where=where)
        if schema.schema_type == "PROTOBUF":
            imports = self._imports(schema, {})
            return ProtobufSchema(compile_proto(schema.text, imports, where=where))
        references = self._imports(schema, {}) if self.validate_json else {}
        return JsonSchema(schema.text, references, validate=self.validate_json, where=where)

    def _avro_references(self, schema: RegisteredSchema, seen: set[str] | None = None) -> list[str]:
        """The texts of the schemas `schema` references, each after those it references."""
        seen = set() if seen is None else seen
        texts: list[str] = []
        for ref in schema.references:
            if ref.name in seen:
                continue
            seen.add(ref.name)
            found = self._client().version(ref.subject, ref.version)
            texts += self._avro_references(found, seen)
            texts.append(found.text)
        return texts

    def _imports(self, schema: RegisteredSchema, into: dict[str, str]) -> dict[str, str]:
        """The texts of the schemas `schema` references, and of theirs, by reference name
        (a .proto's import path, a JSON Schema's `$ref` URI)."""
        for ref in schema.references:
            if ref.name not in into:
                found = self._client().version(ref.subject, ref.version)
                into[ref.name] = found.text
                self._imports(found, into)
        return into


def _latest(client: RegistryClient, subject: str) -> int:
    latest = client.version(subject, "latest")
    if latest.schema_id is None:
        raise SchemaError(f"the schema registry answered subject '{subject}' without an id")
    return latest.schema_id


class RecordSchemas:
    """Decodes and encodes one side of records (key or value; `side()` gives the other)."""

    def __init__(
        self,
        client: RegistryClient | None = None,
        *,
        key_schema: LocalSchema | None = None,
        value_schema: LocalSchema | None = None,
        validate_json: bool = False,
        proto_message: str | None = None,
        which: str = "value",
        _shared: _Shared | None = None,
    ) -> None:
        """`proto_message`: the message a registry's Protobuf schema encodes (default: its
        first; a .proto file names its own)."""
        self._shared = _shared or _Shared(client, validate_json, proto_message)
        self._files = {"key": key_schema, "value": value_schema}
        self.which = which
        self.local = self._files[which]

    @property
    def client(self) -> RegistryClient | None:
        return self._shared.client

    def side(self, which: str) -> RecordSchemas:
        """The same registry and caches, with `which` side's schema file ("key" or "value")."""
        if which not in self._files:
            raise ValueError(which)
        return RecordSchemas(
            key_schema=self._files["key"],
            value_schema=self._files["value"],
            which=which,
            _shared=self._shared,
        )

    def with_proto_message(self, name: str | None) -> RecordSchemas:
        """The same registry (its client; parsed schemas asked again), writing Protobuf
        with the message `name` (None: the schema's first): the produce form's choice."""
        shared = self._shared
        return RecordSchemas(
            key_schema=self._files["key"],
            value_schema=self._files["value"],
            which=self.which,
            _shared=_Shared(shared.client, shared.validate_json, name),
        )

    def close(self) -> None:
        if self._shared.client is not None:
            self._shared.client.close()

    # -- decoding -----------------------------------------------------------------------------

    def decode(self, data: bytes, expected: str | None) -> tuple[Any, str, int | None]:
        """`data` decoded: a JSON-ready value, the format taken, and the schema id (None for
        a schema file's plain payload). `expected`: one of FORMATS, or None/"auto" for
        whatever the schema says."""
        wanted = None if expected in (None, "auto") else expected
        if wanted is not None and wanted not in FORMATS:
            raise SchemaError(f"{wanted!r} is not a schema format (one of {', '.join(FORMATS)})")
        framed = is_framed(data)
        if framed and self._shared.client is not None:
            schema_id, payload = unframe(data)
            parsed = self._shared.by_id(schema_id)
            return self._decode_with(parsed, payload, wanted, schema_id)
        local = self.local
        if local is not None and wanted in (None, local.format):
            try:
                return self._decode_with(local.parsed, memoryview(data), wanted, None, plain=True)
            except SchemaError:
                if not framed:
                    raise
            # a record framed by a registry we cannot ask: the file's schema after the header
            schema_id, payload = unframe(data)
            return self._decode_with(local.parsed, payload, wanted, schema_id)
        if local is not None and not framed:
            raise SchemaError(
                f"the {self.which}'s schema file {local.path.name} is {_NAMED[local.format]} "
                f"schema, not {wanted}"
            )
        if not framed:
            raise SchemaError(
                "the bytes are not in the schema registry's wire format (magic byte 0 and a "
                "4-byte schema id)"
            )
        raise SchemaError(
            "the record names a schema id, and no schema registry (or schema file of its "
            "format) is configured"
        )

    def _decode_with(
        self,
        parsed: Any,
        payload: memoryview,
        wanted: str | None,
        schema_id: int | None,
        *,
        plain: bool = False,
    ) -> tuple[Any, str, int | None]:
        fmt = parsed.format
        if wanted is not None and wanted != fmt:
            named = f"schema id {schema_id}" if schema_id is not None else "the schema file"
            raise SchemaError(f"{named} is {_NAMED[fmt]} schema, not {wanted}")
        if isinstance(parsed, ProtobufSchema):
            if plain:
                indexes = parsed.indexes(self.local.message if self.local else None)
            else:
                indexes, payload = decode_indexes(payload)
            return parsed.decode(payload, indexes), fmt, schema_id
        return parsed.decode(payload), fmt, schema_id

    # -- encoding -----------------------------------------------------------------------------

    def register(self, subject: str) -> int:
        """Register this side's schema file under `subject`: its id (the same one when the
        registry already holds it). Later encodes of the file under `subject` write that id."""
        local, client = self.local, self._shared.client
        if local is None:
            raise SchemaError(f"registering needs a schema file for the {self.which}")
        if client is None:
            raise SchemaError("registering a schema needs a schema registry")
        schema_id = client.register(subject, local.registered())
        with self._shared.lock:
            for registering in (True, False):
                self._shared.subject_ids[(subject, local.path, registering)] = schema_id
        return schema_id

    def encode(
        self,
        value: Any,
        fmt: str,
        *,
        subject: str,
        schema_id: int | None = None,
        register: bool = False,
    ) -> bytes:
        """`value` in the wire format of `subject`'s schema: the schema file's (looked up, or
        registered when `register`), else `schema_id`'s, else the subject's latest version.
        Without a registry, a schema file's plain payload (no header)."""
        if fmt not in FORMATS:
            raise SchemaError(f"{fmt!r} is not a schema format (one of {', '.join(FORMATS)})")
        client = self._shared.client
        local = self.local if self.local is not None and self.local.format == fmt else None
        message = local.message if local is not None else self._shared.proto_message
        if local is not None and schema_id is None:
            parsed: Any = local.parsed
            if client is None:
                if register:
                    raise SchemaError("registering a schema needs a schema registry")
                return self._payload(parsed, value, message)
            schema_id = self._shared.subject_id(
                (subject, local.path, register),
                lambda: (
                    client.register(subject, local.registered())
                    if register
                    else client.lookup(subject, local.registered())
                ),
            )
        elif register:
            raise SchemaError(f"registering needs a schema file for the {self.which}")
        elif schema_id is not None:
            parsed = self._shared.by_id(schema_id)
        else:
            if client is None:
                raise SchemaError(
                    f"{fmt} needs a schema registry or a schema file for the {self.which}"
                )
            schema_id = self._shared.subject_id(
                (subject, None, False), lambda: _latest(client, subject)
            )
            parsed = self._shared.by_id(schema_id)
        if parsed.format != fmt:
            raise SchemaError(f"schema id {schema_id} is {_NAMED[parsed.format]} schema, not {fmt}")
        return frame(schema_id, self._payload(parsed, value, message, framed=True))

    def _payload(self, parsed: Any, value: Any, message: str | None, framed: bool = False) -> bytes:
        if isinstance(parsed, ProtobufSchema):
            indexes = parsed.indexes(message)
            body = parsed.encode(value, indexes)
            return encode_indexes(indexes) + body if framed else body
        return bytes(parsed.encode(value))
