"""kafka-topics.sh's client.properties: the Java format, the JAAS line, PEM and PKCS12 stores.

The stores are real (made with `cryptography` by the dev cluster's TLS code) and are loaded
into a real ssl.SSLContext; connecting with them to a secured cluster is in test_security.py.
"""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12

from kafka_tui.admin import ConnectionSettings
from kafka_tui.admin.connection import ssl_context
from kafka_tui.client_properties import (
    PropertiesError,
    client_properties,
    parse_jaas,
    parse_properties,
    read_client_properties,
)
from kafka_tui.config import ConfigError, parse_settings
from kafka_tui.devcluster.security import write_tls_material

SECRET = "s3cr3t-Pa55word-never-shown"
SCRAM = (
    "org.apache.kafka.common.security.scram.ScramLoginModule required "
    f'username="alice" password="{SECRET}";'
)


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "client.properties"
    path.write_text(text)
    return path


def test_the_java_properties_format() -> None:
    text = (
        "# comment\n"
        "! also a comment\n"
        "a=1\n"
        "b : 2\n"
        "c 3\n"
        "d=continued \\\n"
        "    line\n"
        "e\\=x=y\\tz\n"
        "f=\\u0041\n"
        "   g   =   spaced  \n"
        "empty=\n"
    )
    entries = {key: value for key, (_, value) in parse_properties(text, "f").items()}
    assert entries == {
        "a": "1",
        "b": "2",
        "c": "3",
        "d": "continued line",
        "e=x": "y\tz",
        "f": "A",
        "g": "spaced  ",
        "empty": "",
    }
    assert parse_properties(text, "f")["d"][0] == 6


def test_jaas_scram_and_plain() -> None:
    assert parse_jaas(SCRAM, "f") == ("SCRAM", {"username": "alice", "password": SECRET})
    kind, options = parse_jaas(
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=bob "
        'password="with \\"quote\\" and ; semicolon";',
        "f",
    )
    assert (kind, options["password"]) == ("PLAIN", 'with "quote" and ; semicolon')


@pytest.mark.parametrize(
    ("jaas", "says"),
    [
        ("com.example.auth.OtherLoginModule required user=x;", "supports"),
        (SCRAM.rstrip(";"), "semicolon"),
        (SCRAM.replace('username="alice"', ""), "no username"),
        (SCRAM.replace('username="alice" ', f'username="alice" {SECRET} '), "malformed"),
    ],
)
def test_bad_jaas_lines_say_why_without_the_password(jaas: str, says: str) -> None:
    with pytest.raises(PropertiesError) as error:
        parse_jaas(jaas, "client.properties:3: sasl.jaas.config")
    assert says in str(error.value)
    assert SECRET not in str(error.value)
    assert "client.properties:3" in str(error.value)


def test_a_scram_file_sets_the_connection(tmp_path: Path) -> None:
    files = write_tls_material(tmp_path / "tls")
    path = _write(
        tmp_path,
        "security.protocol=SASL_SSL\n"
        "sasl.mechanism=SCRAM-SHA-512\n"
        f"sasl.jaas.config={SCRAM}\n"
        f"ssl.truststore.location={files.ca}\n"
        "ssl.truststore.type=PEM\n"
        "ssl.endpoint.identification.algorithm=\n"
        "retries=5\n"
        "linger.ms=10\n",
    )
    properties = read_client_properties(path)
    connection = properties.apply(ConnectionSettings("127.0.0.1:9092"))
    assert connection.security_protocol == "SASL_SSL"
    assert connection.sasl_mechanism == "SCRAM-SHA-512"
    assert (connection.sasl_username, connection.sasl_password) == ("alice", SECRET)
    assert connection.ssl_cafile == str(files.ca)
    assert connection.ssl_check_hostname is False
    assert properties.ignored == ("linger.ms", "retries")
    assert SECRET not in repr(connection) and SECRET not in repr(properties)
    assert ssl_context(connection).verify_mode == ssl.CERT_REQUIRED


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("security.protocol=SASL_TLS\n", "security.protocol must be one of"),
        ("security.protocol=SASL_SSL\n", "needs sasl.jaas.config"),
        (f"sasl.mechanism=GSSAPI\nsasl.jaas.config={SCRAM}\n", "does not match sasl.mechanism"),
        (f"sasl.jaas.config={SCRAM}\n", "does not match sasl.mechanism=GSSAPI"),
        ("ssl.truststore.location=/nonexistent/ca.pem\n", "No such file"),
        ("ssl.endpoint.identification.algorithm=ldap\n", "must be https"),
        ("request.timeout.ms=soon\n", "positive integer"),
        ("ssl.keystore.key=-----BEGIN PRIVATE KEY-----\n", "certificate.chain"),
    ],
)
def test_bad_files_name_the_line_and_key(tmp_path: Path, text: str, says: str) -> None:
    path = _write(tmp_path, "# first line\n" + text)
    with pytest.raises(PropertiesError) as error:
        read_client_properties(path)
    assert says in str(error.value)
    assert f"{path}:2" in str(error.value) or f"{path}:" in str(error.value)
    assert SECRET not in str(error.value)


def _pkcs12_stores(tmp_path: Path, password: bytes) -> tuple[Path, Path, x509.Certificate]:
    files = write_tls_material(tmp_path / "tls")
    ca = x509.load_pem_x509_certificate(files.ca.read_bytes())
    blob = files.keystore.read_bytes()
    key = serialization.load_pem_private_key(blob, None)
    leaf = x509.load_pem_x509_certificates(blob)[0]
    encryption = serialization.BestAvailableEncryption(password)
    truststore = tmp_path / "truststore.p12"
    truststore.write_bytes(
        pkcs12.serialize_key_and_certificates(None, None, None, [ca], encryption)
    )
    keystore = tmp_path / "keystore.p12"
    keystore.write_bytes(
        pkcs12.serialize_key_and_certificates(b"client", key, leaf, [ca], encryption)  # type: ignore[arg-type]
    )
    return truststore, keystore, ca


def test_pkcs12_stores_load_into_an_ssl_context(tmp_path: Path) -> None:
    truststore, keystore, ca = _pkcs12_stores(tmp_path, b"changeit")
    path = _write(
        tmp_path,
        "security.protocol=SSL\n"
        f"ssl.truststore.location={truststore}\n"
        "ssl.truststore.password=changeit\n"
        # Kafka's default type: a PKCS12 file named JKS is read as Java 9+ reads it.
        f"ssl.keystore.location={keystore}\n"
        "ssl.keystore.type=PKCS12\n"
        "ssl.keystore.password=changeit\n",
    )
    connection = read_client_properties(path).apply(ConnectionSettings("127.0.0.1:9093"))
    assert connection.ssl_cadata is not None
    assert x509.load_pem_x509_certificates(connection.ssl_cadata.encode()) == [ca]
    assert connection.ssl_key_pem and "ENCRYPTED PRIVATE KEY" in connection.ssl_key_pem
    context = ssl_context(connection)
    subjects = [dict(x[0] for x in cert["subject"]) for cert in context.get_ca_certs()]
    assert {"commonName": "kafka-tui dev CA"}.items() <= subjects[0].items()


def test_a_wrong_store_password_and_a_jks_store_are_clear(tmp_path: Path) -> None:
    truststore, _, _ = _pkcs12_stores(tmp_path, b"changeit")
    wrong = _write(
        tmp_path,
        f"ssl.truststore.location={truststore}\nssl.truststore.password={SECRET}\n",
    )
    with pytest.raises(PropertiesError) as error:
        read_client_properties(wrong)
    assert "ssl.truststore.password is wrong or missing" in str(error.value)
    assert SECRET not in str(error.value)
    jks = tmp_path / "truststore.jks"
    jks.write_bytes(b"\xfe\xed\xfe\xed" + b"\x00" * 64)
    with pytest.raises(PropertiesError) as error:
        read_client_properties(_write(tmp_path, f"ssl.truststore.location={jks}\n"))
    assert "JKS" in str(error.value) and "keytool -importkeystore" in str(error.value)


def test_a_profile_names_its_command_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(
        tmp_path,
        f"security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule "
        f'required username="ops" password="{SECRET}";\nacks=all\n',
    )
    data = {"profiles": {"prod": {"bootstrap_servers": "b:9092", "command_config": str(path)}}}
    profile = parse_settings(data).profiles["prod"]
    assert profile.connection.security_protocol == "SASL_PLAINTEXT"
    assert profile.connection.sasl_username == "ops"
    assert profile.ignored_properties == ("acks",)
    data["profiles"]["prod"]["command_config"] = str(tmp_path / "missing.properties")
    with pytest.raises(ConfigError) as error:
        parse_settings(data)
    assert "profile 'prod'" in str(error.value) and "does not exist" in str(error.value)


def test_errors_point_at_the_line_of_the_key() -> None:
    entries = parse_properties("\n\na=1\n# c\nrequest.timeout.ms=0\n", "f")
    assert entries["a"] == (3, "1")
    with pytest.raises(PropertiesError, match=r"^f:5: request\.timeout\.ms"):
        client_properties(entries, "f")


def test_no_traceback_with_locals_shows_a_password(tmp_path: Path) -> None:
    """Textual prints a crash with every frame's locals: the dicts and arguments that carry
    a password must show it masked."""
    from rich.console import Console
    from rich.traceback import Traceback

    from kafka_tui.admin.connection import security_kwargs

    connection = read_client_properties(
        _write(
            tmp_path,
            f"security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\n"
            f"sasl.jaas.config={SCRAM}\n",
        )
    ).apply(ConnectionSettings("127.0.0.1:9092"))

    def crash(kwargs: dict[str, object], password: str) -> None:
        raise RuntimeError(f"crashed with {len(kwargs)} settings and {len(password)} chars")

    console = Console(record=True, width=200)
    try:
        crash(security_kwargs(connection), connection.sasl_password or "")
    except RuntimeError:
        console.print(Traceback(show_locals=True))
    shown = console.export_text()
    assert "sasl_plain_password" in shown and "******" in shown
    assert SECRET not in shown and SECRET not in repr(connection)
    assert connection.sasl_password == SECRET  # still the password to the code using it
