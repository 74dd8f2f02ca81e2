"""Why a connection failed, in one sentence an operator can act on.

aiokafka's bootstrap logs each server's failure and raises "Unable to bootstrap": the cause
(a wrong password, an untrusted certificate, a host name the certificate does not carry, a
TLS client on a plaintext port) is found again with one connection of our own. Messages
name the user, host and setting, never a password.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from typing import Any

from aiokafka.errors import (
    AuthenticationFailedError,
    IllegalSaslStateError,
    KafkaConnectionError,
    KafkaError,
    SaslAuthenticationFailed,
    UnsupportedSaslMechanismError,
)

from .kerberos_login import KerberosFailure
from .kerberos_login import open_connection as create_conn
from .model import ConnectionSettings

_HOSTNAME_MISMATCH = (62, 64)  # X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH


def unusable_tls_settings(s: ConnectionSettings, exc: Exception) -> str:
    files = [f for f in (s.ssl_cafile, s.ssl_certfile, s.ssl_keyfile) if f]
    where = f" ({', '.join(files)})" if files else ""
    reason = getattr(exc, "reason", None) or getattr(exc, "strerror", None) or type(exc).__name__
    if "PEM" in str(reason) or "BAD_DECRYPT" in str(reason):
        reason = f"{reason}: not PEM, or the key's password is wrong"
    return f"The TLS settings cannot be loaded{where}: {reason}."


def _servers(bootstrap: str) -> list[tuple[str, int]]:
    servers: list[tuple[str, int]] = []
    for entry in bootstrap.split(","):
        host, _, port = entry.strip().rpartition(":")
        if host and port.isdigit():
            servers.append((host.strip("[]"), int(port)))
    return servers


async def why_not(s: ConnectionSettings, security: dict[str, Any], failure: BaseException) -> str:
    """The reason the first bootstrap server refuses us; `failure` when no attempt shows one."""
    timeout = min(s.request_timeout_ms / 1000, 15.0)
    if s.sasl_oauth is not None and "sasl_oauth_token_provider" in security:
        from .oauth_diagnose import oauth_refusal

        for host, port in _servers(s.bootstrap_servers)[:1]:
            reason = await oauth_refusal(s, security, host, port, timeout)
            if reason is not None:
                return reason
    for host, port in _servers(s.bootstrap_servers)[:3]:
        try:
            conn = await asyncio.wait_for(
                create_conn(
                    host,
                    port,
                    client_id=s.client_id,
                    request_timeout_ms=int(timeout * 1000),
                    **security,
                ),
                timeout,
            )
        except TimeoutError:
            return f"{host}:{port} did not answer within {timeout:.0f}s. {_CHECK}"
        except (OSError, KafkaError) as exc:
            return explain(s, host, port, exc)
        conn.close()
    if isinstance(failure, TimeoutError):
        return f"no bootstrap server answered within {s.request_timeout_ms / 1000:.0f}s. {_CHECK}"
    return f"no bootstrap server answered ({failure or 'timed out'}). {_CHECK}"


_CHECK = "Check the address, that the brokers are up, and the security settings."


def explain(s: ConnectionSettings, host: str, port: int, exc: BaseException) -> str:
    at = f"{host}:{port}"
    if isinstance(exc, KerberosFailure):
        return str(exc)
    if isinstance(exc, ssl.SSLCertVerificationError):
        if exc.verify_code in _HOSTNAME_MISMATCH:
            return (
                f"the broker's TLS certificate at {at} is not valid for the host name '{host}' "
                "(host-name mismatch): connect by a name the certificate carries, or turn the "
                "check off (ssl_check_hostname = false, or "
                "ssl.endpoint.identification.algorithm= in client.properties)"
            )
        trust = "ssl_cafile / ssl.truststore.location" if s.ssl_cafile or s.ssl_cadata else None
        hint = f"the CA in {trust}" if trust else "the system's CAs (no CA file is set)"
        return (
            f"the broker's TLS certificate at {at} is not trusted: {exc.verify_message}; it is "
            f"not signed by {hint}"
        )
    if isinstance(exc, ssl.SSLError):
        if "WRONG_VERSION_NUMBER" in str(exc) or "record layer" in str(exc):
            return (
                f"{at} does not speak TLS: security_protocol {s.security_protocol} does not "
                "match this listener (a PLAINTEXT or SASL_PLAINTEXT port?)"
            )
        return f"the TLS handshake with {at} failed: {exc.reason or exc}"
    if isinstance(exc, SaslAuthenticationFailed | AuthenticationFailedError):
        return (
            f"authentication failed for user '{s.sasl_username}' ({s.sasl_mechanism}) at {at}: "
            f"wrong user name or password, or no {s.sasl_mechanism} credentials for this user"
        )
    if isinstance(exc, UnsupportedSaslMechanismError):
        return f"{at} does not accept SASL mechanism {s.sasl_mechanism}: {exc}"
    if isinstance(exc, IllegalSaslStateError):
        return (
            f"{at} does not expect SASL: security_protocol {s.security_protocol} does not "
            "match this listener"
        )
    if isinstance(exc, ConnectionRefusedError):
        return f"nothing listens at {at} (connection refused). {_CHECK}"
    if isinstance(exc, socket.gaierror):
        return f"the host name '{host}' cannot be resolved"
    if isinstance(exc, KafkaConnectionError) and s.security_protocol == "PLAINTEXT":
        return (
            f"{at} closed the connection at the first request: does the listener expect TLS "
            "or SASL? (security_protocol is PLAINTEXT)"
        )
    if isinstance(exc, KafkaConnectionError) and s.security_protocol.startswith("SASL"):
        return (
            f"{at} closed the connection during the SASL login: the listener may not expect "
            f"{s.security_protocol}, or the user '{s.sasl_username}' was refused"
        )
    return f"{at}: {exc}. {_CHECK}"
