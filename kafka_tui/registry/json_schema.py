"""JSON Schema records: the payload is JSON text; validated against the schema with
`jsonschema` when asked."""

from __future__ import annotations

import json
from typing import Any

from .errors import SchemaError


class JsonSchema:
    format = "jsonschema"

    def __init__(self, text: str, *, validate: bool = False, where: str = "") -> None:
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
            self._validator = cls(self.schema)

    def _check(self, value: Any) -> None:
        if self._validator is None:
            return
        error = next(iter(self._validator.iter_errors(value)), None)
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
