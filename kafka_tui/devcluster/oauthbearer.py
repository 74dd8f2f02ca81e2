"""`dev-cluster up --security sasl_oauthbearer`: the sasl_ssl cluster (security.py: TLS from
the cluster's CA, SCRAM-SHA-512 between brokers and for the cluster's own probes) with
OAUTHBEARER beside SCRAM on its SASL_SSL listener, validated by Kafka's own
OAuthBearerValidatorCallbackHandler against the JWKS of an OIDC issuer the cluster runs
(oidc.py). The client ids are the SCRAM users (admin, viewer, creator), their client secrets
the users' passwords, and a token's `sub` is the client id: the same principals, the same
ACLs."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..admin.model import ConnectionSettings
from ..admin.oauth_settings import OAuthSettings
from . import node, oidc, security
from .security import ADMIN, KEYSTORE_FILE, PROTOCOL, SecurityState, tls_files

MECHANISM = "OAUTHBEARER"
DEFAULT_TOKEN_LIFETIME_S = 3600
# KIP-768's handler; Kafka 3.9 has it under this name too (4.x only here).
VALIDATOR = "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler"
_PREFIX = f"listener.name.{PROTOCOL.lower()}.{MECHANISM.lower()}."


def prepare(root: Path, state: SecurityState, port: int, lifetime_s: int) -> None:
    """Write the issuer's settings and key (the TLS material must exist)."""
    config = oidc.IssuerConfig(port, lifetime_s, dict(state.users), str(root / KEYSTORE_FILE))
    oidc.write_issuer(root, config)
    state.oidc = {"port": port, "token_lifetime_s": lifetime_s, "pid": None}


def issuer_url(state: SecurityState) -> str:
    assert state.oidc is not None
    return f"https://127.0.0.1:{state.oidc['port']}"


def broker_properties(state: SecurityState, root: Path) -> dict[str, str | int]:
    url = issuer_url(state)
    ca = tls_files(root).ca
    assert state.oidc is not None
    return {
        "sasl.enabled.mechanisms": f"{state.mechanism},{MECHANISM}",
        # The JWKS is fetched over HTTPS with the TLS settings of the JAAS options. The
        # broker logs in with the module too, at start-up (the default, unsecured login
        # handler needs a `sub`): a token it never sends (brokers speak SCRAM).
        f"{_PREFIX}sasl.jaas.config": (
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required "
            f'unsecuredLoginStringClaim_sub="{ADMIN}" '
            f'ssl.truststore.location="{ca}" ssl.truststore.type="PEM";'
        ),
        f"{_PREFIX}sasl.server.callback.handler.class": VALIDATOR,
        # A session ends with its token, or after this long (KIP-368).
        f"{_PREFIX}connections.max.reauth.ms": int(state.oidc["token_lifetime_s"]) * 1000,
        "sasl.oauthbearer.jwks.endpoint.url": f"{url}/jwks",
        "sasl.oauthbearer.expected.audience": oidc.AUDIENCE,
        "sasl.oauthbearer.expected.issuer": url,
    }


def jvm_flags(state: SecurityState | None) -> list[str]:
    """Kafka 4.x fetches only the URLs this JVM property allows."""
    if state is None or state.oidc is None:
        return []
    url = issuer_url(state)
    return [f"-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls={url}/jwks,{url}/token"]


def running(root: Path, state: SecurityState) -> bool:
    return state.oidc is not None and node.is_running(state.oidc.get("pid"), root, oidc.NAME)


def start_issuer(root: Path, state: SecurityState, log: Path) -> None:
    if state.oidc is None or running(root, state):
        return
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "kafka_tui.devcluster.oidc", node.marker(root, oidc.NAME), root],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    state.oidc["pid"] = proc.pid


def stop_issuer(root: Path, state: SecurityState | None) -> None:
    if state is not None and state.oidc is not None:
        node.stop(state.oidc.get("pid"), root, oidc.NAME, kill=False, timeout=10)


def status_entry(state: SecurityState) -> dict[str, Any]:
    """What `dev-cluster status` adds about the issuer (its secrets are the users')."""
    url = issuer_url(state)
    assert state.oidc is not None
    return {
        "mechanism": MECHANISM,
        "oidc": {
            "issuer": url,
            "token_endpoint_url": f"{url}/token",
            "jwks_url": f"{url}/jwks",
            "audience": oidc.AUDIENCE,
            "client_ids": list(state.users),
            "token_lifetime_s": state.oidc["token_lifetime_s"],
        },
    }


def connection_settings(
    state: SecurityState, root: Path, bootstrap_servers: str, user: str
) -> ConnectionSettings:
    """The SCRAM cluster's settings (TLS from its CA), logging in with `user`'s token."""
    scram = security.connection_settings(state, root, bootstrap_servers, user)
    return replace(
        scram,
        sasl_mechanism="OAUTHBEARER",
        sasl_username=None,
        sasl_password=None,
        sasl_oauth=OAuthSettings(
            "client_credentials",
            token_endpoint_url=f"{issuer_url(state)}/token",
            client_id=user,
            client_secret=state.users[user],
        ),
    )
