"""The OIDC issuer of a `dev-cluster up --security sasl_oauthbearer` cluster.

A real token issuer, small: OAuth 2 client credentials at /token (HTTP Basic or form client
authentication), the signing key's JWKS at /jwks and an OpenID discovery document, served
over HTTPS on loopback with the brokers' own certificate (signed by the cluster's CA).
Tokens are RS256 JWTs signed with joserfc: `sub` is the client id (the principal the
brokers' ACLs name), `aud` the cluster's audience, `exp` `lifetime` seconds on. Run as
`python -m kafka_tui.devcluster.oidc MARKER ROOT` (the marker lets node.py find it again);
its settings, client secrets included, sit in ROOT/oidc/issuer.json (mode 0600).
"""

from __future__ import annotations

import base64
import binascii
import json
import secrets
import ssl
import sys
import time
import urllib.parse
from dataclasses import asdict, dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from joserfc import jwt
from joserfc.jwk import RSAKey

from .security import write_private

NAME = "oidc"
AUDIENCE = "kafka-tui-dev"
ISSUER_FILE = "oidc/issuer.json"
KEY_FILE = "oidc/signing-key.json"
KEY_ID = "kafka-tui-dev-1"


@dataclass
class IssuerConfig:
    port: int
    lifetime_s: int
    clients: dict[str, str]  # client id -> secret
    certificate: str  # PEM key + chain (the brokers' keystore)

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"


def write_issuer(root: Path, config: IssuerConfig) -> None:
    """The issuer's settings and a new RSA signing key, both readable by the owner only."""
    key = RSAKey.generate_key(2048, parameters={"kid": KEY_ID, "use": "sig", "alg": "RS256"})
    write_private(root / KEY_FILE, json.dumps(key.as_dict(private=True)).encode())
    write_private(root / ISSUER_FILE, json.dumps(asdict(config)).encode())


def read_issuer(root: Path) -> IssuerConfig:
    return IssuerConfig(**json.loads((root / ISSUER_FILE).read_text()))


def signing_key(root: Path) -> RSAKey:
    return RSAKey.import_key(json.loads((root / KEY_FILE).read_text()))


def mint(
    key: RSAKey,
    issuer: str,
    subject: str,
    *,
    lifetime_s: float,
    issued_at: float | None = None,
    audience: str = AUDIENCE,
    scope: str = "kafka",
) -> str:
    """A signed access token as the issuer makes them (tests mint odd ones: expired, from
    the future, signed by another key)."""
    now = int(time.time() if issued_at is None else issued_at)
    claims = {
        "iss": issuer,
        "sub": subject,
        "aud": audience,
        "iat": now,
        "nbf": now,
        "exp": now + int(lifetime_s),
        "scope": scope,
        "jti": secrets.token_hex(8),
    }
    kid = key.kid or KEY_ID
    return jwt.encode({"alg": "RS256", "kid": kid, "typ": "JWT"}, claims, key)


class _Handler(BaseHTTPRequestHandler):
    server: _IssuerServer

    def log_message(self, format: str, *args: Any) -> None:
        sys.stderr.write(f"{self.log_date_time_string()} {format % args}\n")

    def _answer(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        issuer = self.server.config.url
        if self.path == "/jwks":
            self._answer(200, {"keys": [self.server.key.as_dict(private=False)]})
        elif self.path == "/.well-known/openid-configuration":
            self._answer(
                200,
                {
                    "issuer": issuer,
                    "token_endpoint": f"{issuer}/token",
                    "jwks_uri": f"{issuer}/jwks",
                    "grant_types_supported": ["client_credentials"],
                    "token_endpoint_auth_methods_supported": [
                        "client_secret_basic",
                        "client_secret_post",
                    ],
                },
            )
        else:
            self._answer(404, {"error": "not_found"})

    def do_POST(self) -> None:
        if self.path != "/token":
            self._answer(404, {"error": "not_found"})
            return
        length = int(self.headers.get("Content-Length") or 0)
        form = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode()))
        client_id, secret = _basic(self.headers.get("Authorization", ""))
        client_id = client_id or form.get("client_id")
        secret = secret or form.get("client_secret")
        if form.get("grant_type") != "client_credentials":
            self._answer(400, {"error": "unsupported_grant_type"})
            return
        known = self.server.config.clients.get(client_id or "")
        if known is None or secret is None or not secrets.compare_digest(known, secret):
            self._answer(
                401,
                {"error": "invalid_client", "error_description": "client authentication failed"},
            )
            return
        lifetime = self.server.config.lifetime_s
        token = mint(
            self.server.key,
            self.server.config.url,
            client_id or "",
            lifetime_s=lifetime,
            scope=form.get("scope") or "kafka",
        )
        self._answer(200, {"access_token": token, "token_type": "Bearer", "expires_in": lifetime})


def _basic(header: str) -> tuple[str | None, str | None]:
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "basic":
        return None, None
    try:
        decoded = base64.b64decode(value, validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return None, None
    user, _, password = decoded.partition(":")
    # RFC 6749 2.3.1: both are form-urlencoded before they are joined
    return urllib.parse.unquote_plus(user), urllib.parse.unquote_plus(password)


class _IssuerServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, config: IssuerConfig, key: RSAKey) -> None:
        super().__init__(("127.0.0.1", config.port), _Handler)
        self.config = config
        self.key = key


def serve(root: Path) -> None:
    config = read_issuer(root)
    server = _IssuerServer(config, signing_key(root))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(config.certificate)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    server.serve_forever()


if __name__ == "__main__":
    # argv: the node marker (only there to be found in /proc/PID/cmdline), the cluster folder
    serve(Path(sys.argv[2]))
