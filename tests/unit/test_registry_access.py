"""services/registry_access.py: the profile's registry as both front ends get it, its
password or token read from the command the profile names, a failing command one sentence
naming the registry field; and the produce form's "subject or schema id"."""

from __future__ import annotations

import sys

import pytest

from kafka_tui.config import Profile, parse_settings
from kafka_tui.fields import Field, FieldError
from kafka_tui.services.registry_access import SchemaChoice, parse_choice, profile_registry


def _profile(**keys: object) -> Profile:
    body = {"bootstrap_servers": "h:1", **keys}
    return parse_settings({"profiles": {"p": body}}).profiles["p"]


REGISTRY = {"schema_registry_url": "http://r.example:8081"}


def test_the_profiles_registry_with_its_command_secret_read() -> None:
    assert profile_registry(_profile()) is None
    token = f"{sys.executable} -c \"print('t0ken-of-reg')\""
    got = profile_registry(_profile(**REGISTRY, schema_registry_token_command=token))
    assert got is not None and (got.url, got.token) == ("http://r.example:8081", "t0ken-of-reg")
    assert "t0ken-of-reg" not in repr(got)
    failing = f"{sys.executable} -c \"print('pw-never-shown'); raise SystemExit(3)\""
    with pytest.raises(FieldError) as refused:
        profile_registry(
            _profile(
                **REGISTRY, schema_registry_username="ops", schema_registry_password_command=failing
            )
        )
    assert refused.value.field is Field.SCHEMA_REGISTRY
    assert "exit code 3" in refused.value.message
    assert "pw-never-shown" not in refused.value.message


@pytest.mark.parametrize(
    ("text", "choice"),
    [
        ("", SchemaChoice()),
        ("  ", SchemaChoice()),
        ("42", SchemaChoice(schema_id=42)),
        ("orders-value", SchemaChoice(subject="orders-value")),
        (" shop.Address ", SchemaChoice(subject="shop.Address")),
    ],
)
def test_a_subject_or_a_schema_id(text: str, choice: SchemaChoice) -> None:
    assert parse_choice(text) == choice
