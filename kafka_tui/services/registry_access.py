"""The schema registry a profile names, for both front ends: its settings with the secrets
of its command and keyring sources read, and the RecordSchemas that decode and encode records
through it. The CLI's flags override what this gives (cli/registry_flags.py); the records
screen uses it as it is. Refusals name Field.SCHEMA_REGISTRY; no message holds a secret."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..config import Profile
from ..fields import Field, FieldError
from ..registry import RegistrySettings, SchemaError
from ..secrets import SecretError, read_source

if TYPE_CHECKING:
    from ..registry.codec import RecordSchemas


def profile_registry(profile: Profile) -> RegistrySettings | None:
    """The profile's registry (None: it names none), its password or token read from the
    command or keyring the profile names (once per process). Blocking: a command may take a
    while (the TUI calls it in a thread)."""
    settings = profile.schema_registry
    if settings is None:
        return None
    try:
        for source in profile.schema_registry_secrets:
            value = read_source(source)
            if source.setting == "schema_registry_token":
                settings = dataclasses.replace(settings, token=value)
            else:
                settings = dataclasses.replace(settings, password=value)
    except SecretError as exc:
        raise FieldError(Field.SCHEMA_REGISTRY, str(exc)) from None
    return settings


def registry_schemas(settings: RegistrySettings, *, validate_json: bool = False) -> RecordSchemas:
    """What decodes and encodes records through the registry of `settings` (no schema
    files). Asks the registry nothing yet: each schema is fetched when a record needs it."""
    from ..registry.client import RegistryClient
    from ..registry.codec import RecordSchemas

    try:
        return RecordSchemas(RegistryClient(settings), validate_json=validate_json)
    except SchemaError as exc:
        raise FieldError(Field.SCHEMA_REGISTRY, str(exc)) from None


def profile_schemas(profile: Profile) -> RecordSchemas | None:
    """The profile's registry as RecordSchemas (None: it names none). Blocking (see
    `profile_registry`); close it when done."""
    settings = profile_registry(profile)
    return None if settings is None else registry_schemas(settings)


@dataclass(frozen=True)
class SchemaChoice:
    """Which schema a key or value is written with: a subject's (None: the topic's,
    TopicNameStrategy `<topic>-key` / `<topic>-value`) or a schema id."""

    subject: str | None = None
    schema_id: int | None = None


def parse_choice(text: str) -> SchemaChoice:
    """A form's "subject or schema id" text: a whole number is an id, other text a subject,
    empty the topic's subject."""
    text = text.strip()
    if not text:
        return SchemaChoice()
    if text.isdigit():
        return SchemaChoice(schema_id=int(text))
    return SchemaChoice(subject=text)


def subject_for(topic: str, which: str, subject: str | None = None) -> str:
    """`subject`, or the topic's (TopicNameStrategy: `<topic>-key`, `<topic>-value`)."""
    return subject or f"{topic}-{which}"


@dataclass(frozen=True)
class Registered:
    which: str  # "key" or "value"
    subject: str
    schema_id: int


def register_schema_files(
    schemas: RecordSchemas, topic: str, subjects: Mapping[str, str | None]
) -> list[Registered]:
    """Register each side's schema file under its subject (`subjects`: "key"/"value" -> a
    subject, None: the topic's) before records are written with it; the registry answers
    the id it already holds for the same schema. Blocking (HTTP)."""
    done = []
    for which in ("key", "value"):
        side = schemas.side(which)
        if side.local is None:
            continue
        subject = subject_for(topic, which, subjects.get(which))
        try:
            done.append(Registered(which, subject, side.register(subject)))
        except SchemaError as exc:
            raise FieldError(Field.SCHEMA_REGISTRY, str(exc)) from None
    return done
