"""Profiles: strict validation, secrets from the environment, which profile wins."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafka_tui.cli.profiles import resolve_profile
from kafka_tui.config import ConfigError, load_settings, parse_settings

EXAMPLE = Path(__file__).parents[2] / "config.example.toml"


def test_the_example_file_documents_a_valid_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KAFKA_PROD_PASSWORD", "s3cret")
    settings = load_settings(EXAMPLE)
    prod = settings.profiles["production"]
    assert prod.read_only and prod.connection.security_protocol == "SASL_SSL"
    assert prod.connection.sasl_password == "s3cret"
    assert "s3cret" not in repr(prod)  # secrets never show up in logs or tracebacks
    assert resolve_profile(settings, profile=None, bootstrap_server=None).name == "local"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"profiles": {"p": {}}}, "'bootstrap_servers' is required"),
        ({"profiles": {"p": {"bootstrap_servers": 9092}}}, "'bootstrap_servers' must be"),
        ({"profiles": {"p": {"bootstrap_servers": "h:1", "tls": True}}}, "unknown key(s) ['tls']"),
        (
            {"profiles": {"p": {"bootstrap_servers": "h:1", "security_protocol": "TLS"}}},
            "security_protocol must be one of",
        ),
        (
            {"profiles": {"p": {"bootstrap_servers": "h:1", "security_protocol": "SASL_SSL"}}},
            "needs 'sasl_username'",
        ),
        (
            {"profiles": {"p": {"bootstrap_servers": "h:1", "sasl_password_env": "NOPE_UNSET"}}},
            "environment variable NOPE_UNSET",
        ),
        (
            {"profiles": {"p": {"bootstrap_servers": "h:1", "ssl_cafile": "/no/such.pem"}}},
            "'ssl_cafile' file /no/such.pem does not exist",
        ),
        ({"default_profile": "q", "profiles": {"p": {"bootstrap_servers": "h:1"}}}, "'q'"),
        ({"clusters": {}}, "unknown top-level key(s) ['clusters']"),
        ({"profiles": {"p": {"bootstrap_servers": "h:1", "load_max_age": "60"}}}, "a number"),
        ({"profiles": {"p": {"bootstrap_servers": "h:1", "load_max_age": True}}}, "a number"),
        (
            {"profiles": {"p": {"bootstrap_servers": "h:1", "load_max_age": -1}}},
            "load_max_age must be a number of seconds, 0 or more",
        ),
        (  # TOML's inf and nan: refused as on the command line
            {"profiles": {"p": {"bootstrap_servers": "h:1", "load_max_age": float("inf")}}},
            "load_max_age must be a number of seconds, 0 or more",
        ),
        (
            {"profiles": {"p": {"bootstrap_servers": "h:1", "load_max_age": float("nan")}}},
            "load_max_age must be a number of seconds, 0 or more",
        ),
    ],
)
def test_a_bad_config_names_the_profile_and_key(body: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError) as failure:
        parse_settings(body, Path("kafka-tui.toml"))
    assert message in str(failure.value)
    assert str(failure.value).startswith("kafka-tui.toml")


def test_a_profiles_load_max_age_is_read_in_seconds() -> None:
    profiles = {
        "p": {"bootstrap_servers": "h:1", "load_max_age": 90},
        "q": {"bootstrap_servers": "h:2"},
    }
    settings = parse_settings({"profiles": profiles}, Path("kafka-tui.toml"))
    assert settings.profiles["p"].load_max_age == 90.0
    assert settings.profiles["q"].load_max_age == 0.0


def test_which_profile_is_used() -> None:
    settings = parse_settings(
        {
            "profiles": {
                "a": {"bootstrap_servers": "a:1"},
                "b": {"bootstrap_servers": "b:1", "read_only": True},
            }
        }
    )
    with pytest.raises(ConfigError, match="several profiles exist"):
        resolve_profile(settings, profile=None, bootstrap_server=None)
    assert resolve_profile(settings, profile="b", bootstrap_server=None).read_only
    # --bootstrap-server overrides the address but keeps the profile's other settings
    overridden = resolve_profile(settings, profile="b", bootstrap_server="c:1")
    assert (overridden.connection.bootstrap_servers, overridden.read_only) == ("c:1", True)
    with pytest.raises(ConfigError, match="no profile 'z'"):
        resolve_profile(settings, profile="z", bootstrap_server=None)
    empty = parse_settings({})
    with pytest.raises(ConfigError, match="no cluster given"):
        resolve_profile(empty, profile=None, bootstrap_server=None)


def test_invalid_toml_is_one_readable_error(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[profiles.a\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings(path)


def test_key_bindings_are_read_as_dotted_ids() -> None:
    settings = parse_settings({"keys": {"topics": {"refresh": "f5"}, "app.quit": "ctrl+q"}})
    assert settings.key_bindings == {"topics.refresh": "f5", "app.quit": "ctrl+q"}
    with pytest.raises(ConfigError, match=r"\[keys\]"):
        parse_settings({"keys": {"topics": {"refresh": 5}}})


def test_the_profile_modes_are_the_placers() -> None:
    """config keeps its own copy of the KIP-409 modes (it does not import the placer)."""
    from kafka_tui.config import UNDER_REPLICATED_MODES
    from kafka_tui.planning.placement import MODES

    assert UNDER_REPLICATED_MODES == MODES
