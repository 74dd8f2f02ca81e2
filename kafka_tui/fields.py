"""The fields a request is made of, as the use-cases name them in refusals and remedies.

Each front end words a field in its own language: the CLI as a flag (`cli/words.py`), the
TUI as the form field it shows. Below the front ends no text names a flag or a form field.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Field(StrEnum):
    TOPIC = "topic"
    TOPIC_PATTERN = "topic_pattern"
    PARTITIONS = "partitions"
    REPLICATION_FACTOR = "replication_factor"
    REPLICA_ASSIGNMENT = "replica_assignment"
    CONFIGS = "configs"
    ADD_CONFIG = "add_config"
    DELETE_CONFIG = "delete_config"
    UNDER_REPLICATED_MODE = "under_replicated_mode"
    MIN_REQUIRED_RF = "min_required_replication_factor"
    PLACEMENT = "placement"
    ZOOKEEPER = "zookeeper"
    THROTTLE = "throttle"
    PLAN_TOPICS = "plan_topics"
    # records (services/messages.py)
    KEY_FORMAT = "key_format"
    VALUE_FORMAT = "value_format"
    RECORD_FILTER = "record_filter"
    HEADER = "header"
    KEY = "key"
    VALUE = "value"
    SCHEMA_REGISTRY = "schema_registry"


@dataclass(frozen=True)
class Remedy:
    """What would let a refused request through: one of `settings` (alternatives, the usual
    one first), each a field and the value to give it; `purpose` ends the sentence
    ("to create it under-replicated")."""

    settings: tuple[tuple[Field, str], ...]
    purpose: str = ""


class FieldError(ValueError):
    """A request's field is invalid, or conflicts with another field's value (`conflict`);
    the message reads after the field's name ("must be at least 1")."""

    def __init__(
        self, field: Field, message: str, conflict: tuple[Field, str] | None = None
    ) -> None:
        super().__init__(message)
        self.field = field
        self.message = message
        self.conflict = conflict
