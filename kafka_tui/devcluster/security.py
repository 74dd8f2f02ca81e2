"""What makes a dev cluster secured (`dev-cluster up --security sasl_ssl`).

One SASL_SSL listener with SCRAM-SHA-512 for clients and between brokers, a PEM keystore
signed by a CA made here (no keytool), three users with random passwords and the ACLs that
give them their roles. KRaft bootstraps the users through `StorageTool format --add-scram`;
ZooKeeper mode through SCRAM credentials written into ZooKeeper before the brokers start
(the same string `ConfigCommand --zookeeper` would write, without a JVM per user).
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import hmac
import ipaddress
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from ..admin.model import ConnectionSettings

Security = Literal["plaintext", "sasl_ssl", "sasl_gssapi", "sasl_oauthbearer"]
SECURITIES: tuple[Security, ...] = ("plaintext", "sasl_ssl", "sasl_gssapi", "sasl_oauthbearer")

PROTOCOL = "SASL_SSL"
MECHANISM = "SCRAM-SHA-512"
ADMIN, VIEWER, CREATOR = "admin", "viewer", "creator"
USERS = (ADMIN, VIEWER, CREATOR)
# The prefix of the topics `creator` may create, alter and delete.
CREATOR_PREFIX = "team-"
CA_FILE = "ca.pem"
OTHER_CA_FILE = "other-ca.pem"
KEYSTORE_FILE = "tls/broker.pem"
# Broker certificates name only these; a client reaching a broker by any other address
# (e.g. 127.0.0.2: secured listeners bind every local address) sees a host-name mismatch.
CERT_HOSTS = ("localhost", "127.0.0.1")
_SCRAM_ITERATIONS = 4096


@dataclass
class SecurityState:
    """Kept in cluster.json (mode 0600): the passwords of a local throwaway cluster."""

    users: dict[str, str]
    protocol: str = PROTOCOL
    mechanism: str = MECHANISM
    # sasl_oauthbearer (oauthbearer.py): the OIDC issuer's port, token lifetime and pid.
    oidc: dict[str, Any] | None = None

    @classmethod
    def generate(cls) -> SecurityState:
        # Hex passwords need no quoting in JAAS, properties, TOML or `--add-scram` syntax.
        return cls(users={user: secrets.token_hex(16) for user in USERS})


Operation = Literal["DESCRIBE", "DESCRIBE_CONFIGS", "CREATE", "ALTER", "DELETE"]
ResourceType = Literal["TOPIC", "CLUSTER"]
PatternType = Literal["LITERAL", "PREFIXED"]


@dataclass(frozen=True)
class AclEntry:
    """One ALLOW ACL for a user, from any host."""

    user: str
    resource_type: ResourceType
    resource_name: str
    pattern_type: PatternType
    operation: Operation

    @property
    def principal(self) -> str:
        return f"User:{self.user}"


def _role_acls() -> tuple[AclEntry, ...]:
    # Both modes authorize CreateTopics with CREATE on the cluster *or* on each topic
    # (KafkaApis.handleCreateTopicsRequest in 3.9, ControllerApis in KRaft), so a prefixed
    # topic ACL is enough for `creator`.
    reading: tuple[Operation, ...] = ("DESCRIBE", "DESCRIBE_CONFIGS")
    writing: tuple[Operation, ...] = ("CREATE", "ALTER", "DELETE")
    resources: tuple[tuple[ResourceType, str], ...] = (("TOPIC", "*"), ("CLUSTER", "kafka-cluster"))
    acls = [
        AclEntry(user, kind, name, "LITERAL", op)
        for user in (VIEWER, CREATOR)
        for kind, name in resources
        for op in reading
    ]
    acls += [AclEntry(CREATOR, "TOPIC", CREATOR_PREFIX, "PREFIXED", op) for op in writing]
    return tuple(acls)


ROLE_ACLS = _role_acls()


# -- TLS material -------------------------------------------------------------------------------


@dataclass(frozen=True)
class TlsFiles:
    ca: Path
    other_ca: Path
    keystore: Path


def _name(common_name: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "kafka-tui dev cluster"),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        ]
    )


def _validity(builder: x509.CertificateBuilder) -> x509.CertificateBuilder:
    now = datetime.datetime.now(datetime.UTC)
    return builder.not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(
        now + datetime.timedelta(days=825)
    )


def _self_signed_ca(common_name: str) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    key = ec.generate_private_key(ec.SECP256R1())
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(common_name))
        .issuer_name(_name(common_name))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
    )
    return key, _validity(builder).sign(key, hashes.SHA256())


def _broker_cert(
    ca_key: ec.EllipticCurvePrivateKey, ca_cert: x509.Certificate
) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    key = ec.generate_private_key(ec.SECP256R1())
    sans: list[x509.GeneralName] = [x509.DNSName(CERT_HOSTS[0])]
    sans += [x509.IPAddress(ipaddress.ip_address(host)) for host in CERT_HOSTS[1:]]
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name("kafka-tui dev broker"))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.SubjectAlternativeName(sans), critical=False)
        # Brokers are TLS clients of each other too (replication, controller requests).
        .add_extension(
            x509.ExtendedKeyUsage(
                [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]
            ),
            critical=False,
        )
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
        )
    )
    return key, _validity(builder).sign(ca_key, hashes.SHA256())


def _pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def write_private(path: Path, data: bytes) -> None:
    """`data` in a file only its owner may read (keys, the issuer's signing key)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)


def write_tls_material(root: Path) -> TlsFiles:
    """The CA (`ca.pem`), an unrelated CA (`other-ca.pem`, for tests of an untrusted broker)
    and one keystore every broker shares: the SANs are the same for all of them, and a broker
    added later needs no CA key kept on disk."""
    files = TlsFiles(root / CA_FILE, root / OTHER_CA_FILE, root / KEYSTORE_FILE)
    ca_key, ca_cert = _self_signed_ca("kafka-tui dev CA")
    _, other_ca = _self_signed_ca("kafka-tui unrelated CA")
    key, cert = _broker_cert(ca_key, ca_cert)
    root.mkdir(parents=True, exist_ok=True)
    files.ca.write_bytes(_pem(ca_cert))
    files.other_ca.write_bytes(_pem(other_ca))
    # Kafka's PEM keystore: one unencrypted PKCS#8 key and the chain, leaf first.
    key_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    write_private(files.keystore, key_pem + _pem(cert) + _pem(ca_cert))
    return files


def tls_files(root: Path) -> TlsFiles:
    return TlsFiles(root / CA_FILE, root / OTHER_CA_FILE, root / KEYSTORE_FILE)


# -- SCRAM --------------------------------------------------------------------------------------


def scram_credential(password: str, salt: bytes, iterations: int = _SCRAM_ITERATIONS) -> str:
    """A SCRAM-SHA-512 credential as Kafka stores it in ZooKeeper
    (ScramCredentialUtils.credentialToString; the keys as in ScramFormatter)."""
    salted = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, iterations)
    client_key = hmac.digest(salted, b"Client Key", "sha512")
    stored_key = hashlib.sha512(client_key).digest()
    server_key = hmac.digest(salted, b"Server Key", "sha512")

    def b64(data: bytes) -> str:
        return base64.b64encode(data).decode()

    return (
        f"salt={b64(salt)},stored_key={b64(stored_key)},"
        f"server_key={b64(server_key)},iterations={iterations}"
    )


def new_salt() -> bytes:
    return secrets.token_bytes(32)


def storage_scram_args(state: SecurityState) -> list[str]:
    """`StorageTool format` arguments that put every user into the bootstrap metadata."""
    args: list[str] = []
    for user, password in state.users.items():
        args += ["--add-scram", f"{MECHANISM}=[name={user},password={password}]"]
    return args


# -- broker properties --------------------------------------------------------------------------


def broker_properties(
    state: SecurityState, root: Path, *, port: int, kraft: bool
) -> dict[str, str | int]:
    """The listener, TLS, SASL and authorizer settings of a secured broker."""
    files = tls_files(root)
    admin_password = state.users[ADMIN]
    jaas = (
        "org.apache.kafka.common.security.scram.ScramLoginModule required "
        f'username="{ADMIN}" password="{admin_password}";'
    )
    protocol_map = f"{PROTOCOL}:{PROTOCOL}" + (",CONTROLLER:PLAINTEXT" if kraft else "")
    return {
        "listeners": f"{PROTOCOL}://0.0.0.0:{port}",
        "advertised.listeners": f"{PROTOCOL}://127.0.0.1:{port}",
        "inter.broker.listener.name": PROTOCOL,
        "listener.security.protocol.map": protocol_map,
        "sasl.enabled.mechanisms": MECHANISM,
        "sasl.mechanism.inter.broker.protocol": MECHANISM,
        f"listener.name.{PROTOCOL.lower()}.{MECHANISM.lower()}.sasl.jaas.config": jaas,
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": str(files.keystore),
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": str(files.ca),
        **authorizer_properties(kraft=kraft),
    }


def authorizer_properties(*, kraft: bool) -> dict[str, str | int]:
    if kraft:
        # Brokers reach the controller over its PLAINTEXT listener, as ANONYMOUS.
        return {
            "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
            "super.users": f"User:{ADMIN};User:ANONYMOUS",
        }
    return {
        "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
        "super.users": f"User:{ADMIN}",
    }


# -- clients ------------------------------------------------------------------------------------


def status_entry(state: SecurityState | None, root: Path) -> dict[str, Any]:
    """`dev-cluster status`'s "security" entry: the one place the passwords are shown."""
    if state is None:
        return {}
    entry = {
        "protocol": state.protocol,
        "mechanism": state.mechanism,
        "ca_file": str(tls_files(root).ca),
        "users": dict(state.users),
    }
    return {"security": entry}


def connection_settings(
    state: SecurityState, root: Path, bootstrap_servers: str, user: str
) -> ConnectionSettings:
    return ConnectionSettings(
        bootstrap_servers,
        security_protocol="SASL_SSL",
        sasl_mechanism="SCRAM-SHA-512",
        sasl_username=user,
        sasl_password=state.users[user],
        ssl_cafile=str(tls_files(root).ca),
    )
