"""kafka-topics.sh / kafka-configs.sh value formats, shared by the CLI's flags and the forms.

A malformed value raises FieldError naming the field it was given for (the caller's, when the
same format serves another field); each front end words the field (cli/words.py, tui/words.py).
"""

from __future__ import annotations

import re
import warnings

from ..fields import Field, FieldError


class UsageError(ValueError):
    """A request cannot be made as given (not one field's format: see FieldError); the
    message says what and how to fix it."""


def epoch_ms(text: str) -> int:
    """Milliseconds since the epoch from a whole number of them or an ISO-8601 time (UTC
    unless it names a zone), as `messages read --from-time` and the records screen's start
    box take it; ValueError says what to type."""
    from datetime import UTC, datetime

    if text.isdigit():
        return int(text)
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"'{text}' is not an ISO-8601 time (e.g. 2026-11-27T10:00:00Z)") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def topic_regex(text: str, field: Field = Field.TOPIC_PATTERN) -> re.Pattern[str]:
    """kafka-topics.sh's --topic: a regular expression that must match a whole topic name."""
    try:
        with warnings.catch_warnings():
            # "Possible nested set" is Python's note to its own future, not the user's error
            warnings.simplefilter("ignore", FutureWarning)
            return re.compile(text)
    except (re.error, OverflowError, RecursionError) as exc:
        # OverflowError: a repeat count such as a{4294967296}; RecursionError: deep nesting
        raise FieldError(field, f"'{text}' is not a valid regular expression: {exc}") from None


_INT32 = re.compile(r"[+-]?[0-9]{1,10}")


def _broker_id(token: str, field: Field, where: str) -> int:
    # int() would take '1_0', Arabic-Indic digits and 10**30; Kafka's ids are INT32 in ASCII digits.
    if not _INT32.fullmatch(token) or not -(2**31) <= int(token) < 2**31:
        raise FieldError(field, f"{where}: '{token}' is not a broker id")
    return int(token)


def replica_lists(text: str, field: Field = Field.REPLICA_ASSIGNMENT) -> list[list[int]]:
    """'1:2:3,2:3:1' -> [[1, 2, 3], [2, 3, 1]]: partitions by commas, replicas by colons."""
    if not text.strip():
        raise FieldError(field, "is empty; expected e.g. 1:2:3,2:3:1")
    lists = []
    for index, part in enumerate(text.split(",")):
        where = f"has a bad partition entry {index}"
        if not part.strip():
            raise FieldError(field, f"has an empty partition entry {index}")
        lists.append([_broker_id(t.strip(), field, where) for t in part.split(":")])
    return lists


def replica_assignment(text: str) -> dict[int, list[int]]:
    return dict(enumerate(replica_lists(text)))


def config_pairs(items: list[str]) -> dict[str, str]:
    """kafka-topics.sh's repeated --config k=v (a value may contain '=')."""
    configs: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise FieldError(Field.CONFIGS, f"'{item}' must look like key=value")
        if key.strip() in configs:
            raise FieldError(Field.CONFIGS, f"'{key.strip()}' is given twice")
        configs[key.strip()] = value
    return configs


# kafka-configs.sh: k1=v1,k2=[a,b] (square brackets keep commas inside one value)
_ADD_CONFIG = re.compile(r"\s*([^=,\s]+)\s*=\s*(\[[^\]]*\]|[^,]*)\s*(?:,|$)")


def add_config(text: str, field: Field = Field.ADD_CONFIG) -> dict[str, str]:
    configs: dict[str, str] = {}
    pos = 0
    while pos < len(text):
        match = _ADD_CONFIG.match(text, pos)
        if not match or match.end() == pos:
            raise FieldError(
                field, f"'{text}' must look like k1=v1,k2=[v2,v3] (bad part at '{text[pos:]}')"
            )
        key, value = match.group(1), match.group(2).strip()
        if value.startswith("[") and value.endswith("]"):
            value = value[1:-1]
        if key in configs:
            raise FieldError(field, f"names '{key}' twice")
        configs[key] = value
        pos = match.end()
    return configs


def delete_config(text: str) -> list[str]:
    keys = [k.strip() for k in text.split(",")]
    if not all(keys):
        raise FieldError(Field.DELETE_CONFIG, f"'{text}' must look like k1,k2")
    return keys
