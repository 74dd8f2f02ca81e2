"""The one error of the registry package: a sentence an operator can act on."""

from __future__ import annotations


class SchemaError(Exception):
    """A schema could not be had, or a record could not be decoded or encoded with it; the
    message is one sentence and never holds a secret."""
