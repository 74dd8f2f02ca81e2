"""SASL/GSSAPI (Kerberos) logins on kafka-tui's own connections.

aiokafka's GSSAPI login takes the process's default credentials (the default ticket cache,
or KRB5_CLIENT_KTNAME): a profile's keytab and principal could reach it only through the
environment, shared by every connection of the process. kafka-tui opens the connection
with aiokafka (`create_conn`, no SASL) and logs in itself with the Python `gssapi` package
(RFC 4752, as Kafka's Java client does): SaslHandshake, then SaslAuthenticate with the
tokens of a security context built on credentials of its own — a keytab's key for the
profile's principal (acquired into an in-memory ticket cache of this login), or a named
ticket cache, or the default one. Only the Kerberos configuration file is per process
(KRB5_CONFIG, as Java's -Djava.security.krb5.conf): a profile's `krb5_config` sets it.

A failed login is a KerberosFailure (an aiokafka AuthenticationFailedError) whose message
is one sentence naming the setting to fix.
"""

from __future__ import annotations

import asyncio
import logging
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiokafka.conn import AIOKafkaConnection, create_conn
from aiokafka.errors import AuthenticationFailedError
from aiokafka.protocol.admin import SaslAuthenticateRequest, SaslHandShakeRequest

from .model import ConnectionSettings

log = logging.getLogger(__name__)

# The settings, as a profile and as client.properties name them.
PRINCIPAL = "sasl_kerberos_principal / principal= in sasl.jaas.config"
KEYTAB = "sasl_kerberos_keytab / keyTab= in sasl.jaas.config"
SERVICE = "sasl_kerberos_service_name / sasl.kerberos.service.name"
KRB5_CONFIG = "krb5_config (or KRB5_CONFIG)"
# Credentials this close to their end are acquired again.
_RENEW_BEFORE_S = 60
_NO_SECURITY_LAYER = 1  # RFC 4752: the client chooses "no security layer"

# krb5 error codes (the GSS minor status, as unsigned 32-bit numbers): krb5/krb5_err.et.
_BASE = 2529638912  # ERROR_TABLE_BASE_krb5 (-1765328384)
_C_PRINCIPAL_UNKNOWN = _BASE + 6
_S_PRINCIPAL_UNKNOWN = _BASE + 7
_PREAUTH_FAILED = _BASE + 24
_TKT_EXPIRED = _BASE + 32
_REALM_UNKNOWN = _BASE + 154  # Cannot find KDC for requested realm
_KDC_UNREACH = _BASE + 156
_CC_NOTFOUND = _BASE + 141
_FCC_NOFILE = _BASE + 195
_NO_CREDENTIALS = {_CC_NOTFOUND, _FCC_NOFILE}


class KerberosFailure(AuthenticationFailedError):
    """The Kerberos login failed; str() is one sentence naming the setting to fix."""

    def __init__(self, sentence: str) -> None:
        super().__init__(sentence)
        self.sentence = sentence

    def __str__(self) -> str:
        return self.sentence


@dataclass(frozen=True)
class KerberosLogin:
    """Whose credentials a GSSAPI login uses, and which service it asks a ticket for."""

    service_name: str = "kafka"
    principal: str | None = None
    keytab: str | None = None
    ccache: str | None = None
    krb5_config: str | None = None

    def credential_store(self) -> dict[str, str] | None:
        if self.keytab:
            # The keytab's key gets a ticket into this login's own in-memory cache.
            return {"client_keytab": self.keytab, "ccache": f"MEMORY:kafka-tui-{id(self)}"}
        if self.ccache:
            return {"ccache": self.ccache}
        return None

    def where(self) -> str:
        """Where the credentials come from, for a sentence."""
        if self.keytab:
            return f"keytab {self.keytab}"
        if self.ccache:
            return f"ticket cache {self.ccache}"
        default = os.environ.get(
            "KRB5CCNAME", f"KRB5CCNAME not set: FILE:/tmp/krb5cc_{os.getuid()}"
        )
        return f"the default ticket cache ({default})"


def login_of(s: ConnectionSettings) -> KerberosLogin | None:
    if s.sasl_mechanism != "GSSAPI" or not s.security_protocol.startswith("SASL"):
        return None
    return KerberosLogin(
        s.sasl_kerberos_service_name,
        s.sasl_kerberos_principal,
        s.sasl_kerberos_keytab,
        s.sasl_kerberos_ccache,
        s.krb5_config,
    )


def login_options(s: ConnectionSettings) -> dict[str, Any]:
    """What `open_connection` needs besides aiokafka's arguments (nothing without GSSAPI)."""
    login = login_of(s)
    return {"kerberos": login} if login else {}


async def open_connection(host: str, port: int, **options: Any) -> AIOKafkaConnection:
    """`aiokafka.conn.create_conn`, with kafka-tui's own GSSAPI login when `options` carry
    a `kerberos` login (login_options)."""
    login: KerberosLogin | None = options.pop("kerberos", None)
    if login is None:
        return await create_conn(host, port, **options)
    plain = {k: v for k, v in options.items() if not k.startswith("sasl_")}
    # The listener speaks SASL: aiokafka opens it (and asks ApiVersions, which a SASL
    # listener answers before the login) as a PLAINTEXT or TLS connection.
    tls = options["security_protocol"] == "SASL_SSL"
    plain["security_protocol"] = "SSL" if tls else "PLAINTEXT"
    conn = await create_conn(host, port, **plain)
    try:
        await authenticate(conn, host, login)
    except BaseException:
        conn.close()
        raise
    return conn


# -- the login ----------------------------------------------------------------------------------

_credentials: dict[KerberosLogin, Any] = {}


def _gssapi() -> Any:
    try:
        import gssapi
    except ImportError:
        raise KerberosFailure(
            "sasl_mechanism GSSAPI needs the Python package gssapi (MIT Kerberos' libraries): "
            "pip install 'kafka-tui[kerberos]'"
        ) from None
    return gssapi


def _use_config(login: KerberosLogin) -> None:
    if login.krb5_config:
        os.environ["KRB5_CONFIG"] = login.krb5_config


def _acquire(login: KerberosLogin) -> Any:
    """The login's credentials, acquired once and again when they come near their end."""
    gssapi = _gssapi()
    creds = _credentials.get(login)
    if creds is not None:
        try:
            if creds.lifetime > _RENEW_BEFORE_S:
                return creds
        except gssapi.exceptions.GSSError:
            pass
    name = None
    if login.principal:
        name = gssapi.Name(login.principal, gssapi.NameType.kerberos_principal)
    if login.keytab:
        _check_keytab(login, gssapi)
    try:
        creds = gssapi.Credentials(name=name, usage="initiate", store=login.credential_store())
        creds.lifetime  # noqa: B018 (an expired ticket cache fails here, not at first use)
    except gssapi.exceptions.GSSError as exc:
        raise KerberosFailure(explain(login, exc)) from None
    _credentials[login] = creds
    return creds


def _check_keytab(login: KerberosLogin, gssapi: Any) -> None:
    """MIT falls back to the ticket cache when a keytab lacks the principal, and says only
    "No credentials cache found": name what the keytab holds instead."""
    try:
        held = keytab_principals(Path(login.keytab or ""))
    except OSError as exc:
        raise KerberosFailure(
            f"the keytab {login.keytab} cannot be read ({exc.strerror}): check {KEYTAB}"
        ) from None
    if not login.principal:
        return
    wanted = str(
        gssapi.Name(login.principal, gssapi.NameType.kerberos_principal).canonicalize(
            gssapi.MechType.kerberos
        )
    )
    if wanted in held:
        return
    user = wanted.rpartition("@")[0]
    same_user = sorted(p for p in held if p.rpartition("@")[0] == user)
    if same_user:
        raise KerberosFailure(
            f"wrong realm: the keytab {login.keytab} holds {', '.join(same_user)}, not {wanted}; "
            f"set the realm in {PRINCIPAL}, or default_realm in {KRB5_CONFIG}"
        )
    raise KerberosFailure(
        f"the keytab {login.keytab} holds no key for {wanted} (it holds "
        f"{', '.join(sorted(held)) or 'nothing'}): check {PRINCIPAL} and {KEYTAB}"
    )


def keytab_principals(path: Path) -> set[str]:
    """The principals a keytab file (MIT format, version 0x502) holds keys for."""
    data = path.read_bytes()
    if data[:2] != b"\x05\x02":
        raise OSError(0, "not a keytab (MIT format 0x502)")
    found: set[str] = set()
    offset = 2
    while offset + 4 <= len(data):
        (size,) = struct.unpack_from(">i", data, offset)
        offset += 4
        if size <= 0:  # a hole left by a removed entry
            offset += -size
            continue
        found.add(_entry_principal(data[offset : offset + size]))
        offset += size
    return found


def _entry_principal(entry: bytes) -> str:
    (count,) = struct.unpack_from(">H", entry, 0)
    texts: list[str] = []
    at = 2
    for _ in range(count + 1):  # the realm, then the name's components
        (length,) = struct.unpack_from(">H", entry, at)
        texts.append(entry[at + 2 : at + 2 + length].decode("utf-8", "replace"))
        at += 2 + length
    return f"{'/'.join(texts[1:])}@{texts[0]}"


async def authenticate(conn: AIOKafkaConnection, host: str, login: KerberosLogin) -> None:
    """SASL/GSSAPI on an open connection (RFC 4752 over SaslAuthenticate, KIP-152)."""
    _use_config(login)
    gssapi = _gssapi()
    creds = await asyncio.to_thread(_acquire, login)
    handshake = await conn.send(SaslHandShakeRequest("GSSAPI"))
    if handshake.error_code != 0:
        offered = ", ".join(handshake.enabled_mechanisms) or "none"
        raise KerberosFailure(
            f"{host}:{conn.port} does not accept SASL mechanism GSSAPI (it offers {offered}): "
            "check sasl_mechanism / sasl.mechanism"
        )
    service = gssapi.Name(f"{login.service_name}@{host}", gssapi.NameType.hostbased_service)
    context = gssapi.SecurityContext(
        name=service, creds=creds, usage="initiate", mech=gssapi.MechType.kerberos
    )

    def step(token: bytes | None) -> bytes:
        try:
            return bytes(context.step(token) or b"")
        except gssapi.exceptions.GSSError as exc:
            sentence = explain(login, exc, service=f"{login.service_name}/{host}")
            raise KerberosFailure(sentence) from None

    answer: bytes | None = None
    while not context.complete:
        token = await asyncio.to_thread(step, answer)
        answer = await _exchange(conn, token)
    # The server's offer (security layers, buffer size), then our choice and who we are.
    offer = context.unwrap(answer).message
    choice = struct.pack(">B", _NO_SECURITY_LAYER) + b"\0\0\0"
    if not offer or not offer[0] & _NO_SECURITY_LAYER:
        raise KerberosFailure(f"{host}:{conn.port} offers no GSSAPI login without a security layer")
    await _exchange(conn, context.wrap(choice + str(creds.name).encode(), False).message)
    log.info("Kerberos login of %s to %s (%s)", creds.name, service, login.where())


async def _exchange(conn: AIOKafkaConnection, token: bytes) -> bytes:
    answer = await conn.send(SaslAuthenticateRequest(token))
    if answer.error_code != 0:
        # The broker could not accept the ticket (e.g. its keytab no longer matches the KDC).
        raise KerberosFailure(
            f"the broker at {conn.host}:{conn.port} refused the Kerberos login: "
            f"{answer.error_message or 'no reason given'}"
        )
    return bytes(answer.sasl_auth_bytes or b"")


# -- failures -----------------------------------------------------------------------------------


def explain(login: KerberosLogin, exc: Any, service: str | None = None) -> str:
    """One sentence for a gssapi error, naming the setting to fix."""
    code = getattr(exc, "min_code", None)
    who = login.principal or "the default principal"
    config = login.krb5_config or os.environ.get("KRB5_CONFIG") or "/etc/krb5.conf"
    if code in _NO_CREDENTIALS or (code is None and "Missing" in type(exc).__name__):
        if login.keytab:
            return f"no Kerberos ticket could be had from the keytab {login.keytab}: check {KEYTAB}"
        return (
            f"no Kerberos ticket: {login.where()} is empty or missing; run kinit, or set a "
            f"keytab ({KEYTAB})"
        )
    if code == _TKT_EXPIRED or "Expired" in type(exc).__name__:
        return (
            f"the Kerberos ticket in {login.where()} has expired: run kinit again, or set a "
            f"keytab ({KEYTAB})"
        )
    if code == _S_PRINCIPAL_UNKNOWN:
        return (
            f"the KDC knows no service principal {service or login.service_name}: check {SERVICE} "
            "(the brokers' sasl.kerberos.service.name) and that the broker's address is the "
            "host name in its principal"
        )
    if code == _C_PRINCIPAL_UNKNOWN:
        return f"the KDC does not know the principal {who}: check {PRINCIPAL}"
    if code == _PREAUTH_FAILED:
        return (
            f"the KDC refused the key of {who} in {login.where()} (the keytab is out of date?): "
            f"export the keytab again, or check {PRINCIPAL}"
        )
    if code == _REALM_UNKNOWN:
        return (
            f"wrong realm: no KDC is configured for the realm of {who} in {config}: set the "
            f"realm in {PRINCIPAL}, or the realm's kdc in {KRB5_CONFIG}"
        )
    if code == _KDC_UNREACH:
        return f"the KDC of {who}'s realm did not answer: check its kdc in {config} ({KRB5_CONFIG})"
    message = exc.gen_message() if hasattr(exc, "gen_message") else str(exc)
    return f"the Kerberos login of {who} failed: {message.rpartition(': ')[2] or message}"
