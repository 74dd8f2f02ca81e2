"""OAUTHBEARER tokens for aiokafka (`sasl_oauth_token_provider`), cached and refreshed.

aiokafka asks its token provider for a token at every new connection and never
re-authenticates one (KIP-368): a broker with `connections.max.reauth.ms` (or a token's
`exp`) closes a connection at its first request after the session ended. So a token is
refreshed once 80% of its lifetime has passed, and transport.py opens a broker's connection
again, with the new token, before the old one's session ends (`outdated`).

Tokens come from an OIDC token endpoint (client credentials, through authlib's requests
client, TLS verified against the configured CA), a command's output, a file (Kafka's
`file:` token endpoint URL), a static token, or AWS's MSK IAM signer. Errors are TokenError,
one line naming the setting to fix, never the secret or the token.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import subprocess
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from aiokafka.abc import AbstractTokenProvider

from .model import ConnectionSettings
from .oauth_settings import OAuthSettings, TokenError, region_of

# A token is fetched again once this share of its lifetime has passed.
REFRESH_AT = 0.8
_FETCH_TIMEOUT_S = 15.0


def claims_of(token: str) -> dict[str, Any] | None:
    """A JWT's claims, unverified (for its lifetime and for explaining a refusal); None
    when the token is not a JWT."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:
        padded = parts[1] + "=" * (-len(parts[1]) % 4)
        claims = json.loads(base64.urlsafe_b64decode(padded))
    except (ValueError, UnicodeDecodeError):
        return None
    return claims if isinstance(claims, dict) else None


class TokenProvider(AbstractTokenProvider):
    """One per OAuth settings (shared by every connection of the process, see
    `provider_for`). `generation` counts the tokens fetched; `outdated(generation)` says a
    connection opened with that generation's token must be opened again."""

    def __init__(self, settings: OAuthSettings, ca_file: str | None, ca_data: str | None):
        self.settings = settings
        self._ca_file = ca_file
        self._ca_data = ca_data
        self._lock = threading.Lock()
        self._token: str | None = None
        self._refresh_at = 0.0  # time.monotonic()
        self.expires_at: float | None = None  # time.monotonic(); None: not known
        self.generation = 0
        self.fetches = 0

    async def token(self) -> str:
        if self._token is not None and not self._due():
            return self._token
        return await asyncio.to_thread(self._fresh)

    def _due(self) -> bool:
        return self.expires_at is None or time.monotonic() >= self._refresh_at

    def outdated(self, generation: int) -> bool:
        if generation != self.generation:
            return True
        return self.expires_at is not None and time.monotonic() >= self._refresh_at

    def _fresh(self) -> str:
        with self._lock:
            if self._token is not None and not self._due():
                return self._token
            started = time.monotonic()
            token, lifetime = self._fetch()
            self._check_claims(token)
            self._token = token
            self.expires_at = None if lifetime is None else started + lifetime
            self._refresh_at = started + REFRESH_AT * (lifetime or 0)
            self.generation += 1
            self.fetches += 1
            return token

    def _check_claims(self, token: str) -> None:
        s = self.settings
        if s.kind != "client_credentials":
            return
        claims = claims_of(token)
        if claims is not None and s.sub_claim_name not in claims:
            raise TokenError(
                f"the token from {s.token_endpoint_url} has no '{s.sub_claim_name}' claim "
                "(the principal the broker authorizes): set sasl.oauthbearer.sub.claim.name "
                "to the claim that names it"
            )

    def _fetch(self) -> tuple[str, float | None]:
        """(token, lifetime in seconds or None)."""
        s = self.settings
        if s.kind == "client_credentials":
            return self._client_credentials()
        if s.kind == "aws_msk_iam":
            from .msk_iam import msk_iam_token

            return msk_iam_token(s)
        if s.kind == "static":
            return str(s.static_token), _jwt_lifetime(str(s.static_token))
        if s.kind == "file":
            return self._from_file()
        return self._from_command()

    def _from_file(self) -> tuple[str, float | None]:
        path = str(self.settings.token_file)
        try:
            token = Path(path).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            reason = getattr(exc, "strerror", None) or "not text"
            raise TokenError(
                f"the token file {path} cannot be read ({reason}): check "
                f"{self.settings.setting('url')}"
            ) from None
        if not token:
            where = self.settings.setting("url")
            raise TokenError(f"the token file {path} is empty: check {where}")
        return token, _jwt_lifetime(token)

    def _from_command(self) -> tuple[str, float | None]:
        command = str(self.settings.token_command)
        name = self.settings.setting("command")
        try:
            done = subprocess.run(
                command,
                shell=True,
                capture_output=True,
                text=True,
                timeout=_FETCH_TIMEOUT_S * 4,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            raise TokenError(f"the token command ({name}) did not finish within 60s") from None
        token = done.stdout.strip()
        if done.returncode != 0 or not token:
            why = f"exited with status {done.returncode}" if done.returncode else "printed nothing"
            raise TokenError(f"the token command ({name}) {why}: run it by hand to see why")
        return token, _jwt_lifetime(token)

    def _verify(self) -> str | bool:
        """What requests checks the token endpoint's certificate against."""
        if self._ca_data:
            # PEM text (a JKS/PKCS12 truststore's certificates): public, but requests
            # takes a file; written once, removed at exit.
            if self._ca_file is None:
                fd, name = tempfile.mkstemp(prefix="kafka-tui-ca-", suffix=".pem")
                with os.fdopen(fd, "w") as out:
                    out.write(self._ca_data)
                import atexit

                atexit.register(_remove, name)
                self._ca_file = name
            return self._ca_file
        return self._ca_file or True

    def _client_credentials(self) -> tuple[str, float | None]:
        import requests
        from authlib.integrations.base_client.errors import OAuthError
        from authlib.integrations.requests_client import OAuth2Session

        s = self.settings
        url = str(s.token_endpoint_url)
        session = OAuth2Session(
            s.client_id,
            str(s.client_secret) if s.client_secret is not None else None,
            scope=s.scope,
            token_endpoint_auth_method="client_secret_basic",
        )
        try:
            with session:
                answer = session.fetch_token(
                    url,
                    grant_type="client_credentials",
                    verify=self._verify(),
                    timeout=_FETCH_TIMEOUT_S,
                )
        except OAuthError as exc:
            raise TokenError(_refused(s, exc.error, exc.description)) from None
        except requests.exceptions.SSLError as exc:
            raise TokenError(_untrusted(s, url, exc)) from None
        except (requests.exceptions.ConnectionError, requests.exceptions.Timeout) as exc:
            why = (
                "did not answer in time"
                if isinstance(exc, requests.exceptions.Timeout)
                else ("cannot be reached (connection refused or no route)")
            )
            raise TokenError(f"the token endpoint {url} {why}: check {s.setting('url')}") from None
        except (requests.exceptions.RequestException, ValueError) as exc:
            raise TokenError(
                f"the token endpoint {url} gave no token ({type(exc).__name__}): check "
                f"{s.setting('url')}"
            ) from None
        token = answer.get("access_token")
        if not isinstance(token, str) or not token:
            raise TokenError(f"the token endpoint {url} answered without an access_token")
        expires_in = answer.get("expires_in")
        lifetime = float(expires_in) if isinstance(expires_in, int | float) else None
        return token, lifetime or _jwt_lifetime(token)


def _remove(name: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(name)


def _refused(s: OAuthSettings, error: str | None, description: str | None) -> str:
    said = f"{error}" + (f" ({description})" if description else "")
    if error in ("invalid_client", "unauthorized_client"):
        fix = f"check {s.setting('client_id')} and {s.setting('secret')}"
    elif error == "invalid_scope":
        fix = f"check {s.setting('scope')}"
    else:
        fix = f"check {s.setting('url')} and the client's settings"
    return (
        f"the token endpoint {s.token_endpoint_url} refused client '{s.client_id}': {said}; {fix}"
    )


def _untrusted(s: OAuthSettings, url: str, exc: Exception) -> str:
    text = str(exc)
    if "CERTIFICATE_VERIFY_FAILED" in text or "certificate verify failed" in text:
        detail = text.split("certificate verify failed:", 1)[-1].split("(_ssl")[0].strip(" )'\"")
        return (
            f"the token endpoint {url}'s TLS certificate is not trusted "
            f"({detail or 'verify failed'}): it is not signed by the CA in {s.setting('ca')}"
        )
    return f"the TLS handshake with the token endpoint {url} failed: check {s.setting('ca')}"


def _jwt_lifetime(token: str) -> float | None:
    claims = claims_of(token)
    exp = claims.get("exp") if claims else None
    if not isinstance(exp, int | float):
        return None
    return max(float(exp) - time.time(), 0.0)


_PROVIDERS: dict[tuple[OAuthSettings, str | None, str | None], TokenProvider] = {}
_PROVIDERS_LOCK = threading.Lock()


def provider_for(s: ConnectionSettings) -> TokenProvider:
    """The token provider of these settings: one per process, so the CLI's and the TUI's
    connections (and producers) share a token."""
    assert s.sasl_oauth is not None
    oauth = s.sasl_oauth
    if oauth.kind == "aws_msk_iam" and oauth.aws_region is None:
        # As AWS's Java library does: the region of the brokers' host names.
        oauth = replace(oauth, aws_region=region_of(s.bootstrap_servers))
    key = (oauth, s.ssl_cafile, s.ssl_cadata)
    with _PROVIDERS_LOCK:
        provider = _PROVIDERS.get(key)
        if provider is None:
            provider = _PROVIDERS[key] = TokenProvider(oauth, s.ssl_cafile, s.ssl_cadata)
        return provider
