"""The CLI's words for the fields refusals name (fields.py): each field is a flag here."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from ..admin import TopicResult
from ..fields import Field, FieldError, Remedy

FLAGS = {
    Field.TOPIC: "TOPIC",
    Field.TOPIC_PATTERN: "--topic",
    Field.PARTITIONS: "--partitions",
    Field.REPLICATION_FACTOR: "--replication-factor",
    Field.REPLICA_ASSIGNMENT: "--replica-assignment",
    Field.CONFIGS: "--config",
    Field.ADD_CONFIG: "--add-config",
    Field.DELETE_CONFIG: "--delete-config",
    Field.UNDER_REPLICATED_MODE: "--under-replicated",
    Field.MIN_REQUIRED_RF: "--min-required-replication-factor",
    Field.PLACEMENT: "--placement",
    Field.ZOOKEEPER: "--zookeeper",
    Field.THROTTLE: "--throttle",
    Field.PLAN_TOPICS: "--topics",
    Field.KEY_FORMAT: "--key-format",
    Field.VALUE_FORMAT: "--value-format",
    Field.RECORD_FILTER: "--filter",
    Field.HEADER: "--header",
    Field.KEY: "--key",
    Field.VALUE: "--value",
    Field.SCHEMA_REGISTRY: "--schema-registry",
}


def remedy_text(remedies: Iterable[Remedy]) -> str:
    """'Pass --under-replicated enabled (or --min-required-replication-factor 2) to ...'."""
    sentences = []
    for remedy in remedies:
        first, *others = (f"{FLAGS[f]} {value}".strip() for f, value in remedy.settings)
        alternatives = "".join(f" (or {o})" for o in others)
        purpose = f" {remedy.purpose}" if remedy.purpose else ""
        sentences.append(f"Pass {first}{alternatives}{purpose}.")
    return " ".join(sentences)


def with_remedies(message: str, remedies: Iterable[Remedy]) -> str:
    text = remedy_text(remedies)
    return f"{message} {text}" if text else message


def worded(result: TopicResult) -> TopicResult:
    """The result with its remedies worded as flags into its message (itself when none)."""
    if not result.remedies:
        return result
    return replace(result, message=with_remedies(result.message, result.remedies))


def field_error_text(error: FieldError) -> str:
    """'--min-required-replication-factor 2 applies ... (conflicts with --under-replicated
    disabled)'."""
    text = f"{FLAGS[error.field]} {error.message}"
    if error.conflict is not None:
        field, value = error.conflict
        text += f" (conflicts with {FLAGS[field]} {value})"
    return text
