"""Kerberos (SASL/GSSAPI) settings without a JVM: client.properties' Krb5LoginModule as
Kafka's Java client takes it, a profile's keys, and what a keytab file holds. Logging in to
real brokers through a real KDC is tests/integration/test_kerberos.py."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from kafka_tui.admin.kerberos_login import KerberosLogin, keytab_principals, login_of
from kafka_tui.client_properties import PropertiesError, read_client_properties
from kafka_tui.config import ConfigError, parse_settings

KRB5 = "com.sun.security.auth.module.Krb5LoginModule"


def _keytab(path: Path, *principals: tuple[str, list[str]]) -> Path:
    """A keytab in MIT's file format (0x502): one entry per (realm, name components), a
    dummy AES-256 key each, and a hole (a removed entry, negative size) in between."""

    def text(value: str) -> bytes:
        return struct.pack(">H", len(value)) + value.encode()

    data = b"\x05\x02"
    for realm, parts in principals:
        entry = struct.pack(">H", len(parts)) + text(realm) + b"".join(map(text, parts))
        entry += struct.pack(">IIBHH", 1, 1700000000, 1, 18, 32) + b"k" * 32
        data += struct.pack(">i", len(entry)) + entry
        data += struct.pack(">i", -8) + b"\0" * 8
    path.write_bytes(data)
    return path


def _properties(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "client.properties"
    path.write_text(text)
    return path


def test_keytab_login_from_client_properties(tmp_path: Path) -> None:
    keytab = _keytab(tmp_path / "alice.keytab", ("EXAMPLE.COM", ["alice"]))
    path = _properties(
        tmp_path,
        "security.protocol=SASL_SSL\n"
        "sasl.mechanism=GSSAPI\n"
        "sasl.kerberos.service.name=kafka-prod\n"
        f"sasl.jaas.config={KRB5} required useKeyTab=true storeKey=true \\\n"
        f'    keyTab="{keytab}" principal="alice@EXAMPLE.COM";\n',
    )
    props = read_client_properties(path)
    assert props.overrides == {
        "security_protocol": "SASL_SSL",
        "sasl_mechanism": "GSSAPI",
        "sasl_kerberos_keytab": str(keytab),
        "sasl_kerberos_principal": "alice@EXAMPLE.COM",
        "sasl_kerberos_service_name": "kafka-prod",
    }
    assert props.ignored == ()


def test_ticket_cache_login_and_kafkas_default_mechanism(tmp_path: Path) -> None:
    """Kafka's sasl.mechanism defaults to GSSAPI: a Krb5LoginModule line alone means it."""
    path = _properties(
        tmp_path,
        "security.protocol=SASL_PLAINTEXT\n"
        f'sasl.jaas.config={KRB5} required useTicketCache=true ticketCache="/tmp/cc" '
        'serviceName="kfk";\n',
    )
    assert read_client_properties(path).overrides == {
        "security_protocol": "SASL_PLAINTEXT",
        "sasl_mechanism": "GSSAPI",
        "sasl_kerberos_ccache": "/tmp/cc",
        "sasl_kerberos_service_name": "kfk",
    }


def test_gssapi_without_a_jaas_line_uses_the_default_ticket_cache(tmp_path: Path) -> None:
    path = _properties(tmp_path, "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=GSSAPI\n")
    settings = parse_settings(
        {"profiles": {"p": {"bootstrap_servers": "h:9092", "command_config": str(path)}}}
    )
    login = login_of(settings.profiles["p"].connection)
    assert login == KerberosLogin(service_name="kafka")
    assert login.credential_store() is None


@pytest.mark.parametrize(
    ("jaas", "says"),
    [
        ("useKeyTab=true", 'useKeyTab=true needs keyTab="/path/to/file.keytab"'),
        ('useKeyTab=true keyTab="/nonexistent.keytab"', "keyTab= file /nonexistent.keytab does"),
        ('principal="a@B"', "Krb5LoginModule needs useKeyTab=true"),
        ("useTicketCache=yes", "useTicketCache= must be true or false"),
    ],
)
def test_bad_krb5_login_lines_name_the_line_and_option(
    tmp_path: Path, jaas: str, says: str
) -> None:
    path = _properties(
        tmp_path, f"sasl.mechanism=GSSAPI\nsasl.jaas.config={KRB5} required {jaas};\n"
    )
    with pytest.raises(PropertiesError) as error:
        read_client_properties(path)
    assert f"{path}:2: sasl.jaas.config" in str(error.value) and says in str(error.value)


def test_profile_keys(tmp_path: Path) -> None:
    keytab = _keytab(tmp_path / "svc.keytab", ("EXAMPLE.COM", ["svc", "host1"]))
    conf = tmp_path / "krb5.conf"
    conf.write_text("[libdefaults]\n default_realm = EXAMPLE.COM\n")
    body = {
        "bootstrap_servers": "broker1:9092",
        "security_protocol": "SASL_PLAINTEXT",
        "sasl_mechanism": "GSSAPI",
        "sasl_kerberos_service_name": "kafka",
        "sasl_kerberos_principal": "svc/host1@EXAMPLE.COM",
        "sasl_kerberos_keytab": str(keytab),
        "krb5_config": str(conf),
    }
    connection = parse_settings({"profiles": {"k": body}}).profiles["k"].connection
    assert login_of(connection) == KerberosLogin(
        "kafka", "svc/host1@EXAMPLE.COM", str(keytab), None, str(conf)
    )
    assert keytab_principals(keytab) == {"svc/host1@EXAMPLE.COM"}


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        ({"sasl_mechanism": "SCRAM-SHA-512", "sasl_username": "u", "sasl_kerberos_principal": "a"},
         'sasl_kerberos_principal needs sasl_mechanism = "GSSAPI"'),
        ({"sasl_mechanism": "GSSAPI", "sasl_kerberos_keytab": "/nonexistent.keytab"},
         "'sasl_kerberos_keytab' file /nonexistent.keytab does not exist"),
        ({"sasl_mechanism": "GSSAPI", "krb5_config": 5}, "'krb5_config' must be a str"),
    ],
)  # fmt: skip
def test_bad_profile_keys_name_the_key(extra: dict[str, object], says: str) -> None:
    body = {"bootstrap_servers": "h:9092", "security_protocol": "SASL_PLAINTEXT", **extra}
    with pytest.raises(ConfigError) as error:
        parse_settings({"profiles": {"k": body}})
    assert "profile 'k'" in str(error.value) and says in str(error.value)


def test_a_file_that_is_no_keytab_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.keytab"
    path.write_text("not a keytab")
    with pytest.raises(OSError, match="not a keytab"):
        keytab_principals(path)
