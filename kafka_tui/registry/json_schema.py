"""JSON Schema records: the payload is JSON text; validated against the schema with
`jsonschema` when asked, its `$ref`s to other registered schemas resolved by jsonschema's
referencing registry, fed the referenced schemas under their reference names."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import urljoin

from .errors import SchemaError


class JsonSchema:
    format = "jsonschema"

    def __init__(
        self,
        text: str,
        references: Mapping[str, str] | None = None,
        *,
        validate: bool = False,
        where: str = "",
    ) -> None:
        """`references`: the texts of the schemas it references (also theirs), by reference
        name, the URI a `$ref` names (relative to the schema's `$id` when it has one)."""
        try:
            self.schema = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SchemaError(f"the JSON Schema{where} is not JSON ({exc.msg})") from None
        self._validator: Any = None
        if validate:
            import jsonschema

            try:
                cls = jsonschema.validators.validator_for(self.schema)
                cls.check_schema(self.schema)
            except jsonschema.SchemaError as exc:
                raise SchemaError(f"the JSON Schema{where} is invalid: {exc.message}") from None
            registry = _registry(self.schema, references or {}, cls, where)
            self._validator = cls(self.schema, registry=registry)

    def _check(self, value: Any) -> None:
        if self._validator is None:
            return
        from referencing.exceptions import Unresolvable

        try:
            error = next(iter(self._validator.iter_errors(value)), None)
        except Unresolvable as exc:
            ref = getattr(exc, "ref", None) or str(exc)
            raise SchemaError(
                f"the JSON Schema's $ref {ref!r} names no schema it references"
            ) from None
        if error is not None:
            at = "/".join(str(p) for p in error.absolute_path) or "the top"
            raise SchemaError(f"the value does not match the JSON Schema at {at}: {error.message}")

    def decode(self, payload: bytes | memoryview) -> Any:
        try:
            value = json.loads(bytes(payload))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise SchemaError("the bytes after the schema id are not JSON text") from None
        self._check(value)
        return value

    def encode(self, value: Any) -> bytes:
        self._check(value)
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def _registry(schema: Any, references: Mapping[str, str], cls: Any, where: str) -> Any:
    """jsonschema's referencing Registry of the referenced schemas: each under its reference
    name, that name resolved against the root's `$id`, and its own `$id` (the URIs a `$ref`
    can reach it by); the root's draft when a schema names none."""
    from referencing import Registry, Resource
    from referencing.jsonschema import specification_with

    spec = specification_with(cls.META_SCHEMA["$schema"])  # every meta-schema names itself
    base = schema.get("$id") if isinstance(schema, dict) else None
    pairs = []
    for name, text in references.items():
        try:
            contents = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SchemaError(
                f"the JSON Schema {name!r} referenced by the schema{where} is not JSON ({exc.msg})"
            ) from None
        resource = Resource.from_contents(contents, default_specification=spec)
        uris = {name, urljoin(base, name) if isinstance(base, str) else name, resource.id()}
        pairs += [(uri, resource) for uri in uris if uri]
    return Registry().with_resources(pairs)
