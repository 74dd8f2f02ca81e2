"""kafka-tui over OAUTHBEARER against a real `dev-cluster up --security sasl_oauthbearer`
cluster: tokens from the cluster's own OIDC issuer (HTTPS, client credentials), validated by
the brokers' OAuthBearerValidatorCallbackHandler against its JWKS; ACLs per principal (the
token's `sub`); refusals in one line; the TUI past several token refreshes. AWS MSK IAM:
the signer's token reaches the broker's SASL exchange (there is no MSK here)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from aiokafka.abc import AbstractTokenProvider
from aiokafka.conn import create_conn
from aiokafka.errors import KafkaConnectionError

from kafka_tui.admin import KafkaAdmin, TopicSpec, protocol
from kafka_tui.admin.connection import poll_until, security_kwargs
from kafka_tui.admin.oauth import provider_for
from kafka_tui.admin.transport import Transport
from kafka_tui.config import Profile, Settings
from kafka_tui.devcluster import DevCluster, oidc
from kafka_tui.devcluster.commands import profile_toml
from kafka_tui.tui.app import make_app
from kafka_tui.tui.screens.metadata import MetadataScreen
from kafka_tui.tui.widgets.topic_table import TopicTable

Names = Callable[[str], str]
MODULE = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
HANDLER = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler"
# Short, so a test sees several refreshes; the brokers end every session with its token
# (and connections.max.reauth.ms is this long too).
TOKEN_LIFETIME_S = 15


@pytest.fixture(scope="module")
def secured_oauth_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevCluster]:
    dev = DevCluster(tmp_path_factory.mktemp("oauth") / "cluster")
    try:
        dev.up("kraft", brokers=2, security="sasl_oauthbearer", token_lifetime_s=TOKEN_LIFETIME_S)
        yield dev
    finally:
        if not os.environ.get("KAFKA_TUI_TEST_KEEP_CLUSTERS"):
            dev.down(kill=True)  # its data goes with its folder: no controlled shutdown


def _security(dev: DevCluster) -> dict[str, Any]:
    return dev.status()["security"]  # type: ignore[no-any-return]


def oauth_properties(tmp_path: Path, dev: DevCluster, user: str, **changes: str) -> Path:
    """A client.properties as an operator writes it for Kafka's own clients (Kafka 4.x)."""
    security = _security(dev)
    secret = changes.pop("secret", security["users"][user])
    lines = {
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "OAUTHBEARER",
        "sasl.oauthbearer.token.endpoint.url": security["oidc"]["token_endpoint_url"],
        "sasl.login.callback.handler.class": HANDLER,
        "sasl.jaas.config": f'{MODULE} required clientId="{user}" clientSecret="{secret}" '
        'scope="kafka";',
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": security["ca_file"],
        **changes,
    }
    path = tmp_path / f"{user}-oauth.properties"
    path.write_text("".join(f"{k}={v}\n" for k, v in lines.items()))
    return path


def kafka_tui(
    dev: DevCluster, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """A whole process, -v on (the Kafka client's logging too)."""
    return subprocess.run(
        [sys.executable, "-m", "kafka_tui.cli", "-v", "--output", "json", *args],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        env=None if env is None else {**os.environ, **env},
    )


def with_servers(dev: DevCluster, config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    servers = dev.status()["bootstrap_servers"]
    return kafka_tui(dev, "--bootstrap-server", servers, "--command-config", str(config), *args)


def assert_no_secret(dev: DevCluster, *texts: str) -> None:
    for secret in _security(dev)["users"].values():
        for text in texts:
            assert secret not in text
    for text in texts:
        assert "eyJ" not in text  # no JWT (a token's header starts so)


def test_command_config_lists_topics_with_acls_per_principal(
    secured_oauth_cluster: DevCluster, tmp_path: Path, topic_name: Names
) -> None:
    dev = secured_oauth_cluster
    team = "team-" + topic_name("c")
    created = with_servers(
        dev, oauth_properties(tmp_path, dev, "creator"), "topics", "create", team,
        "--partitions", "1", "--replication-factor", "2",
    )  # fmt: skip
    assert created.returncode == 0, created.stderr
    viewer = oauth_properties(tmp_path, dev, "viewer")
    listed = with_servers(dev, viewer, "topics", "list")
    assert listed.returncode == 0, listed.stderr
    assert team in listed.stdout
    refused = with_servers(
        dev, viewer, "topics", "create", "team-" + topic_name("v"), "--partitions", "1"
    )
    assert refused.returncode != 0
    assert "TOPIC_AUTHORIZATION_FAILED" in refused.stdout + refused.stderr
    assert_no_secret(dev, created.stdout, created.stderr, listed.stderr, refused.stderr)


def test_the_dev_cluster_profile_connects(
    secured_oauth_cluster: DevCluster, tmp_path: Path
) -> None:
    dev = secured_oauth_cluster
    status = dev.status()
    issuer = status["security"]["oidc"]
    assert status["security"]["mechanism"] == "OAUTHBEARER"
    assert issuer["token_endpoint_url"] == issuer["issuer"] + "/token"
    assert (issuer["client_ids"], issuer["token_lifetime_s"]) == (
        ["admin", "viewer", "creator"],
        TOKEN_LIFETIME_S,
    )
    text = profile_toml("dev", status, "viewer", "kafka-tui dev-cluster password")
    body = tomllib.loads(text)["profiles"]["dev"]
    assert body["sasl_mechanism"] == "OAUTHBEARER"
    assert body["sasl_oauthbearer_token_endpoint_url"].startswith("https://127.0.0.1:")
    assert_no_secret(dev, text)
    config = tmp_path / "config.toml"
    config.write_text(text)
    secret = status["security"]["users"]["viewer"]
    done = kafka_tui(
        dev, "--config-file", str(config), "--profile", "dev", "cluster", "describe",
        env={body["sasl_oauthbearer_client_secret_env"]: secret},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["brokers"]) == 2
    assert_no_secret(dev, done.stdout, done.stderr)


MINT = """
import sys, time
from pathlib import Path
from joserfc.jwk import RSAKey
from kafka_tui.devcluster import oidc
root = Path(sys.argv[1]); how = sys.argv[2]
key = oidc.signing_key(root)
if how == "other-key":
    key = RSAKey.generate_key(2048, parameters={"kid": oidc.KEY_ID})
at = {"expired": time.time() - 600, "future": time.time() + 600}.get(how)
print(oidc.mint(key, oidc.read_issuer(root).url, "admin", lifetime_s=60, issued_at=at))
"""


def _token_command(tmp_path: Path, dev: DevCluster, how: str) -> str:
    script = tmp_path / "mint.py"
    script.write_text(MINT)
    return f"{sys.executable} {script} {dev.root} {how}"


@pytest.mark.parametrize(
    ("case", "says"),
    [
        (
            "wrong-secret",
            "refused client 'viewer': invalid_client (client authentication failed); check "
            "clientId in sasl.jaas.config and clientSecret in sasl.jaas.config",
        ),
        ("unreachable", "cannot be reached (connection refused or no route): check "
         "sasl.oauthbearer.token.endpoint.url"),
        ("untrusted", "TLS certificate is not trusted (self-signed certificate in certificate "
         "chain): it is not signed by the CA in ssl.truststore.location"),
        ("expired", "refused the token (invalid_token): it expired"),
        ("future", "refused the token (invalid_token): it is valid only from"),
        ("other-key", "refused the token (invalid_token): its signature, issuer or audience is "
         "not what the broker trusts"),
    ],
)  # fmt: skip
def test_refusals_are_one_line_naming_the_setting(
    secured_oauth_cluster: DevCluster, tmp_path: Path, case: str, says: str
) -> None:
    dev = secured_oauth_cluster
    security = _security(dev)
    if case in ("expired", "future", "other-key"):
        # A token the issuer's key signed long ago / for later, or another key: the
        # broker's refusal (tokens given by a command, the escape hatch).
        config = tmp_path / "config.toml"
        config.write_text(
            "[profiles.t]\n"
            f'bootstrap_servers = "{dev.status()["bootstrap_servers"]}"\n'
            'security_protocol = "SASL_SSL"\nsasl_mechanism = "OAUTHBEARER"\n'
            f'ssl_cafile = "{security["ca_file"]}"\n'
            f"sasl_oauthbearer_token_command = {json.dumps(_token_command(tmp_path, dev, case))}\n"
        )
        done = kafka_tui(dev, "--config-file", str(config), "--profile", "t", "topics", "list")
    else:
        changes = {
            "wrong-secret": {"secret": "not-the-secret"},
            "unreachable": {"sasl.oauthbearer.token.endpoint.url": "https://127.0.0.1:1/token"},
            "untrusted": {"ssl.truststore.location": str(dev.root / "other-ca.pem")},
        }[case]
        done = with_servers(dev, oauth_properties(tmp_path, dev, "viewer", **changes), "topics",
                            "list")  # fmt: skip
    assert done.returncode == 2
    error = done.stderr.strip().splitlines()[-1]
    assert says in error, done.stderr
    assert error.startswith("kafka-tui: Cannot connect to Kafka at")
    assert_no_secret(dev, done.stdout, done.stderr)


def test_an_msk_iam_token_reaches_the_brokers_sasl_exchange(
    secured_oauth_cluster: DevCluster, tmp_path: Path
) -> None:
    """No MSK here: the AWS signer's token (static credentials, a region) is sent as
    OAUTHBEARER to a real broker, whose validator refuses it (not a JWT) — the refusal
    kafka-tui reports is the broker's answer in the SASL exchange."""
    dev = secured_oauth_cluster
    config = tmp_path / "config.toml"
    config.write_text(
        "[profiles.msk]\n"
        f'bootstrap_servers = "{dev.status()["bootstrap_servers"]}"\n'
        'security_protocol = "SASL_SSL"\nsasl_mechanism = "AWS_MSK_IAM"\n'
        f'aws_region = "eu-west-1"\nssl_cafile = "{_security(dev)["ca_file"]}"\n'
    )
    env = {
        "AWS_ACCESS_KEY_ID": "AKIAKAFKATUITEST0001",
        "AWS_SECRET_ACCESS_KEY": "kafka-tui-test-secret-key-not-real-000000",
        "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
        "AWS_CONFIG_FILE": "/nonexistent",
    }
    done = kafka_tui(dev, "--config-file", str(config), "--profile", "msk", "topics", "list",
                     env=env)  # fmt: skip
    assert done.returncode == 2
    error = done.stderr.strip().splitlines()[-1]
    assert "refused the token (invalid_token): an AWS MSK IAM token is taken only by" in error
    assert env["AWS_SECRET_ACCESS_KEY"] not in done.stderr + done.stdout


class _Fixed(AbstractTokenProvider):
    def __init__(self, token: str) -> None:
        self._token = token

    async def token(self) -> str:
        return self._token


async def test_the_broker_closes_a_connection_at_its_first_request_after_the_token_ended(
    secured_oauth_cluster: DevCluster,
) -> None:
    """Pinned: aiokafka does not re-authenticate (KIP-368); a broker ends the session with
    the token's `exp` (connections.max.reauth.ms caps it) and closes the connection at the
    next request (SocketServer: "expired" connections are killed, no answer), while one
    logged in with a token still valid answers."""
    dev = secured_oauth_cluster
    settings = dev.connection_settings("admin")
    key = oidc.signing_key(dev.root)
    issuer = oidc.read_issuer(dev.root).url
    port = int(dev.status()["bootstrap_servers"].split(",")[0].rsplit(":", 1)[1])

    async def connect(lifetime_s: int) -> Any:
        options = security_kwargs(settings)
        token = oidc.mint(key, issuer, "admin", lifetime_s=lifetime_s)
        options["sasl_oauth_token_provider"] = _Fixed(token)
        return await create_conn("127.0.0.1", port, **options)

    short = await connect(5)
    started = time.time()
    longer = await connect(TOKEN_LIFETIME_S)
    try:
        await short.send(protocol.MetadataRequest([]))  # answered while the token lives

        async def ended() -> bool | None:
            return True if time.time() > started + 7 else None  # exp (whole seconds) passed

        assert await poll_until(ended, time.monotonic() + 20)
        with pytest.raises(KafkaConnectionError):
            await short.send(protocol.MetadataRequest([]))
        assert not short.connected()
        answer = protocol.MetadataRequest.answer(await longer.send(protocol.MetadataRequest([])))
        assert len(answer.brokers) == 2
    finally:
        short.close()
        longer.close()


@pytest.mark.timeout(300)
async def test_the_tui_keeps_reading_past_token_refreshes(
    secured_oauth_cluster: DevCluster, topic_name: Names, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each broker connection is opened again with the new token before the old one's
    session ends: no request meets a connection the broker closed (a read retried on
    another broker would hide one from the screen; it is counted here)."""
    dev = secured_oauth_cluster
    lost: list[int] = []
    deliver = Transport._deliver

    async def counted(self: Transport, node_id: int, request: Any) -> Any:
        try:
            return await deliver(self, node_id, request)
        except KafkaConnectionError:
            lost.append(node_id)
            raise

    monkeypatch.setattr(Transport, "_deliver", counted)
    settings = dev.connection_settings("viewer")
    tokens = provider_for(settings)
    profile = Profile("oauth", settings)
    app = make_app(Settings(profiles={"oauth": profile}), profile, refresh_seconds=1.0)
    run_for = 3 * TOKEN_LIFETIME_S + 5  # past three tokens' ends
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, MetadataScreen)
        await asyncio.wait_for(screen.loaded.wait(), 60)
        shown: list[str] = []  # every banner the screen showed (a failed read)
        original = screen._show_banner

        def record(message: str | None) -> None:
            if message is not None:
                shown.append(message)
            original(message)

        screen._show_banner = record  # type: ignore[method-assign]
        fetched_before = tokens.fetches
        started = time.monotonic()
        loads = 0
        late = "team-" + topic_name("late")
        created = False
        while time.monotonic() - started < run_for:
            screen.loaded.clear()
            await asyncio.wait_for(screen.loaded.wait(), 30)
            await pilot.pause()
            loads += 1
            if not created and time.monotonic() - started > 2 * TOKEN_LIFETIME_S:
                async with KafkaAdmin(dev.connection_settings("admin")) as admin:
                    assert (await admin.create_topics([TopicSpec(late, 1, 2)]))[0].ok
                created = True

        async def listed() -> bool | None:
            await pilot.pause()
            return True if late in [r.name for r in screen.query_one(TopicTable).rows] else None

        assert await poll_until(listed, time.monotonic() + 30)
        refreshes = tokens.fetches - fetched_before
        print(
            f"\n{loads} reads in {time.monotonic() - started:.0f}s with {TOKEN_LIFETIME_S}s "
            f"tokens: {refreshes} token refreshes, {len(shown)} failed reads, "
            f"{len(lost)} requests on a connection the broker closed"
        )
        assert shown == []
        assert lost == []
        assert refreshes >= 3
