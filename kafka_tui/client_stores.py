"""The TLS half of a client.properties file: truststores and keystores as Python's ssl module
wants them (PEM), read with the `cryptography` package where Java would use a KeyStore.

PEM and PKCS12 are read; a JKS/JCEKS store (Java's own format, which `cryptography` cannot
read) is refused with the keytool command that converts it. Messages never carry a value.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

_JAVA_MAGIC = (b"\xfe\xed\xfe\xed", b"\xce\xce\xce\xce")  # JKS, JCEKS


class StoreError(ValueError):
    """A store a client.properties file names is missing, unreadable or wrong; the message
    names the key and says what is wrong (client_properties turns it into a PropertiesError)."""


def tls_settings(values: dict[str, str], at: Callable[[str], str]) -> dict[str, Any]:
    """ConnectionSettings fields for the ssl.truststore.* and ssl.keystore.* keys present."""
    settings: dict[str, Any] = {}
    if "ssl.truststore.certificates" in values:
        settings["ssl_cadata"] = _pem_certificates(
            values["ssl.truststore.certificates"], at("ssl.truststore.certificates")
        )
    if "ssl.truststore.location" in values:
        settings |= _truststore(values, at)
    if "ssl.keystore.location" in values or "ssl.keystore.key" in values:
        settings |= _keystore(values, at)
    elif "ssl.keystore.certificate.chain" in values:
        raise StoreError(
            f"{at('ssl.keystore.certificate.chain')} needs ssl.keystore.key (the private key)"
        )
    return settings


def _pem_certificates(text: str, where: str) -> str:
    if "-----BEGIN CERTIFICATE-----" not in text:
        raise StoreError(f"{where}: no PEM certificate (-----BEGIN CERTIFICATE-----)")
    return text


def _read(location: str, key: str, at: Callable[[str], str]) -> tuple[Path, bytes]:
    path = Path(location.strip())
    try:
        path = path.expanduser()
        return path, path.read_bytes()
    except OSError as exc:
        raise StoreError(f"{at(key)} {path}: {exc.strerror}") from None
    except (RuntimeError, ValueError):  # ~unknown-user, or a NUL byte in the path
        raise StoreError(f"{at(key)}: not a usable path") from None


def _kind(values: dict[str, str], key: str, data: bytes) -> str:
    """The store's format: the type named (Kafka's default is JKS), but a PEM file is PEM and
    a PKCS12 file named JKS is PKCS12, as Java 9+ reads it."""
    if data.lstrip().startswith(b"-----BEGIN"):
        return "PEM"
    if data[:4] in _JAVA_MAGIC:
        return "JKS"
    declared = values.get(key, "JKS").strip().upper()
    return "PKCS12" if declared in ("JKS", "PKCS12") else declared


def _refuse_java_store(path: Path, key: str, at: Callable[[str], str]) -> StoreError:
    return StoreError(
        f"{at(key)}: {path} is a JKS/JCEKS store, which kafka-tui cannot read; convert it: "
        f"keytool -importkeystore -srckeystore {path} -destkeystore {path.stem}.p12 "
        "-deststoretype PKCS12 (then set the type to PKCS12), or export the certificates "
        "as PEM"
    )


def _truststore(values: dict[str, str], at: Callable[[str], str]) -> dict[str, Any]:
    key = "ssl.truststore.location"
    path, data = _read(values[key], key, at)
    kind = _kind(values, "ssl.truststore.type", data)
    if kind == "PEM":
        _pem_certificates(data.decode("ascii", "replace"), f"{at(key)}: {path}")
        return {"ssl_cafile": str(path)}
    if kind == "JKS":
        raise _refuse_java_store(path, key, at)
    if kind != "PKCS12":
        raise StoreError(f"{at('ssl.truststore.type')} must be PEM, PKCS12 or JKS")
    store = _pkcs12(data, values.get("ssl.truststore.password"), path, key, at)
    certificates = [c.certificate for c in store.additional_certs]
    if store.cert is not None:
        certificates.insert(0, store.cert.certificate)
    if not certificates:
        raise StoreError(f"{at(key)}: {path} holds no certificate to trust")
    return {"ssl_cadata": "".join(_pem(c) for c in certificates)}


def _keystore(values: dict[str, str], at: Callable[[str], str]) -> dict[str, Any]:
    key_password = values.get("ssl.key.password")
    if "ssl.keystore.key" in values:
        if "ssl.keystore.certificate.chain" not in values:
            raise StoreError(
                f"{at('ssl.keystore.key')} needs ssl.keystore.certificate.chain as well"
            )
        chain = _pem_certificates(
            values["ssl.keystore.certificate.chain"], at("ssl.keystore.certificate.chain")
        )
        return {
            "ssl_key_pem": values["ssl.keystore.key"],
            "ssl_cert_pem": chain,
            "ssl_password": key_password,
        }
    key = "ssl.keystore.location"
    path, data = _read(values[key], key, at)
    kind = _kind(values, "ssl.keystore.type", data)
    if kind == "PEM":
        return {"ssl_certfile": str(path), "ssl_keyfile": str(path), "ssl_password": key_password}
    if kind == "JKS":
        raise _refuse_java_store(path, key, at)
    if kind != "PKCS12":
        raise StoreError(f"{at('ssl.keystore.type')} must be PEM, PKCS12 or JKS")
    store = _pkcs12(data, values.get("ssl.keystore.password"), path, key, at)
    if store.key is None or store.cert is None:
        raise StoreError(f"{at(key)}: {path} holds no private key with its certificate")
    from cryptography.hazmat.primitives import serialization

    # Python's ssl loads a key from a file only: the key is kept encrypted with a password
    # of this process until security_kwargs loads it (connection.py).
    ephemeral = secrets.token_urlsafe(24)
    key_pem = store.key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(ephemeral.encode()),
    ).decode()
    certificates = [store.cert.certificate, *(c.certificate for c in store.additional_certs)]
    return {
        "ssl_key_pem": key_pem,
        "ssl_cert_pem": "".join(_pem(c) for c in certificates),
        "ssl_password": ephemeral,
    }


def _pkcs12(
    data: bytes, password: str | None, path: Path, key: str, at: Callable[[str], str]
) -> Any:
    from cryptography.hazmat.primitives.serialization import pkcs12

    try:
        return pkcs12.load_pkcs12(data, password.encode() if password else None)
    except ValueError:
        which = key.replace(".location", ".password")
        raise StoreError(
            f"{at(key)}: cannot read {path} as PKCS12: not a PKCS12 store, or {which} is "
            "wrong or missing"
        ) from None


def _pem(certificate: Any) -> str:
    from cryptography.hazmat.primitives import serialization

    return str(certificate.public_bytes(serialization.Encoding.PEM).decode())
