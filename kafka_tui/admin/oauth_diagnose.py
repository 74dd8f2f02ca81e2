"""Why a broker refuses kafka-tui's OAUTHBEARER token, in one sentence.

aiokafka takes the broker's answer to the token for a success whatever it says (RFC 7628:
a refusal is a JSON error the client acknowledges with ^A); the broker then closes the
connection at the first request. So the exchange is done again here, by hand, over a
connection without SASL: SaslHandshake, SaslAuthenticate with the token, ^A. The broker
says only `invalid_token` (the reason is in its log); the token's own claims, read
unverified, tell an expired token or a clock skew from a token the broker does not trust.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from typing import Any

from aiokafka.conn import create_conn
from aiokafka.errors import KafkaError
from aiokafka.protocol.admin import SaslAuthenticateRequest, SaslHandShakeRequest

from .model import ConnectionSettings
from .oauth import claims_of
from .oauth_settings import OAuthSettings, TokenError

_SKEW_S = 5  # seconds a token's iat/nbf may be ahead of this host's clock unremarked


async def oauth_refusal(
    s: ConnectionSettings,
    security: dict[str, Any],
    host: str,
    port: int,
    timeout: float,  # noqa: ASYNC109
) -> str | None:
    """The broker's refusal of the token, explained; None when it takes it (or cannot be
    asked: the caller's other checks find why)."""
    assert s.sasl_oauth is not None
    provider = security["sasl_oauth_token_provider"]
    try:
        token = await provider.token()
    except TokenError as exc:
        return str(exc)
    plain = {k: v for k, v in security.items() if not k.startswith("sasl_")}
    plain["security_protocol"] = "SSL" if s.security_protocol == "SASL_SSL" else "PLAINTEXT"
    at = f"{host}:{port}"
    try:
        conn = await asyncio.wait_for(
            create_conn(
                host, port, client_id=s.client_id, request_timeout_ms=int(timeout * 1000), **plain
            ),
            timeout,
        )
    except (OSError, KafkaError, TimeoutError):
        return None
    try:
        handshake = await conn.send(SaslHandShakeRequest("OAUTHBEARER"))
        if handshake.error_code != 0:
            return (
                f"{at} does not accept SASL mechanism OAUTHBEARER (it accepts "
                f"{', '.join(handshake.enabled_mechanisms) or 'none'}): check sasl_mechanism "
                "and the listener"
            )
        first = f"n,,\x01auth=Bearer {token}\x01\x01".encode()
        answer = await conn.send(SaslAuthenticateRequest(first))
        if answer.error_code == 0 and not answer.sasl_auth_bytes:
            return None
        status = _status(answer.sasl_auth_bytes) or answer.error_message or "refused"
        with contextlib.suppress(OSError, KafkaError, TimeoutError):
            await conn.send(SaslAuthenticateRequest(b"\x01"))
    except (OSError, KafkaError, TimeoutError):
        return None
    finally:
        conn.close()
    return refusal_sentence(s.sasl_oauth, at, status, token)


def _status(data: bytes | None) -> str | None:
    try:
        value = json.loads(data or b"").get("status")
    except (ValueError, AttributeError):
        return None
    return value if isinstance(value, str) else None


def refusal_sentence(o: OAuthSettings, at: str, status: str, token: str) -> str:
    refused = f"the broker at {at} refused the token ({status})"
    if o.kind == "aws_msk_iam":
        return (
            f"{refused}: an AWS MSK IAM token is taken only by Amazon MSK's IAM listeners "
            "(port 9098/9198); check bootstrap_servers and sasl_mechanism"
        )
    source = _source(o)
    claims = claims_of(token)
    if claims is None:
        return f"{refused}: the token is not a JWT; check {source}"
    now = time.time()
    exp, start = claims.get("exp"), max(_number(claims.get("iat")), _number(claims.get("nbf")))
    if isinstance(exp, int | float) and exp <= now:
        return f"{refused}: it expired {now - exp:.0f}s ago; check {source}"
    if start > now + _SKEW_S:
        return (
            f"{refused}: it is valid only from {start - now:.0f}s in the future (iat/nbf): "
            "the token issuer's clock is ahead of this host's (and the broker's, beyond its "
            "sasl.oauthbearer.clock.skew.seconds); fix the clocks (NTP)"
        )
    return (
        f"{refused}: its signature, issuer or audience is not what the broker trusts (the "
        "broker's sasl.oauthbearer.jwks.endpoint.url, expected.issuer and expected.audience); "
        f"check that {source} is the identity provider this cluster trusts"
    )


def _source(o: OAuthSettings) -> str:
    if o.kind == "client_credentials":
        return o.setting("url")
    if o.kind == "command":
        return o.setting("command")
    if o.kind == "file":
        return f"the token file ({o.setting('url')})"
    return "the static token (sasl_oauthbearer_token_env)"


def _number(value: object) -> float:
    return float(value) if isinstance(value, int | float) else 0.0
