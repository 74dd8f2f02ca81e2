"""The TUI's words for the fields refusals name (fields.py): each field is a form field here,
and a refusal's remedy is worded as the choice to make in the form."""

from __future__ import annotations

from collections.abc import Iterable

from ..admin import TopicResult
from ..fields import Field, FieldError, Remedy

# How the forms name the fields refusals name (fields.py): the form field's id, and its label.
FORM_FIELDS: dict[Field, tuple[str, str]] = {
    Field.TOPIC: ("name", "name"),
    Field.PARTITIONS: ("partitions", "partitions"),
    Field.REPLICATION_FACTOR: ("rf", "replication factor"),
    Field.REPLICA_ASSIGNMENT: ("assignment", "assignment"),
    Field.CONFIGS: ("configs", "configs"),
    Field.ADD_CONFIG: ("configs", "configs"),
    Field.UNDER_REPLICATED_MODE: ("mode", "mode"),
    Field.MIN_REQUIRED_RF: ("min_required", "min required RF"),
    Field.PLACEMENT: ("placement", "placement"),
    Field.RECORD_FILTER: ("filter", "filter"),
}


def remedy_words(remedies: Iterable[Remedy]) -> str:
    """E.g. "Choose mode 'enabled' (or min required RF 2) to create it under-replicated."."""
    sentences = []
    for remedy in remedies:
        settings = [
            f"{FORM_FIELDS[f][1]} {value!r}"
            if f == Field.UNDER_REPLICATED_MODE
            else f"{FORM_FIELDS[f][1]} {value}"
            for f, value in remedy.settings
            if f in FORM_FIELDS
        ]
        if not settings:
            continue
        alternatives = "".join(f" (or {s})" for s in settings[1:])
        purpose = f" {remedy.purpose}" if remedy.purpose else ""
        sentences.append(f"Choose {settings[0]}{alternatives}{purpose}.")
    return " ".join(sentences)


def field_error_words(error: FieldError) -> str:
    """The error as shown next to its field (the field it conflicts with is on the form)."""
    text = error.message
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def result_words(result: TopicResult) -> str:
    """A result's message, with its remedies worded for the form."""
    extra = remedy_words(result.remedies)
    return f"{result.message} {extra}" if extra else result.message
