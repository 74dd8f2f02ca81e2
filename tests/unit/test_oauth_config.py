"""OAUTHBEARER and AWS MSK IAM settings from client.properties and profiles (no JVM), and the
MSK IAM token: AWS's signer's own, for the credentials and region given."""

from __future__ import annotations

import base64
import re
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from kafka_tui.admin.connection import security_kwargs
from kafka_tui.admin.msk_iam import msk_iam_token
from kafka_tui.admin.oauth import provider_for
from kafka_tui.admin.oauth_settings import OAuthSettings, region_of
from kafka_tui.client_properties import PropertiesError, read_client_properties
from kafka_tui.config import ConfigError, parse_settings

OAUTH_MODULE = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
HANDLER_3 = "org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerLoginCallbackHandler"
HANDLER_4 = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler"
IAM_MODULE = "software.amazon.msk.auth.iam.IAMLoginModule"


def _file(tmp_path: Path, lines: dict[str, str]) -> Path:
    path = tmp_path / "client.properties"
    path.write_text("".join(f"{k}={v}\n" for k, v in lines.items()))
    return path


@pytest.mark.parametrize("handler", [HANDLER_3, HANDLER_4])
def test_kafka_oidc_client_properties_map_to_client_credentials(
    tmp_path: Path, handler: str
) -> None:
    path = _file(
        tmp_path,
        {
            "security.protocol": "SASL_SSL",
            "sasl.mechanism": "OAUTHBEARER",
            "sasl.login.callback.handler.class": handler,
            "sasl.oauthbearer.token.endpoint.url": "https://idp.example/oauth2/token",
            "sasl.oauthbearer.sub.claim.name": "client_id",
            "sasl.oauthbearer.scope.claim.name": "scp",
            "sasl.jaas.config": f'{OAUTH_MODULE} required clientId="kt" clientSecret="s3cr3t" '
            'scope="kafka.admin";',
        },
    )
    props = read_client_properties(path)
    oauth = props.overrides["sasl_oauth"]
    assert props.overrides["sasl_mechanism"] == "OAUTHBEARER"
    assert (oauth.kind, oauth.token_endpoint_url, oauth.client_id, oauth.scope) == (
        "client_credentials",
        "https://idp.example/oauth2/token",
        "kt",
        "kafka.admin",
    )
    assert (oauth.sub_claim_name, oauth.scope_claim_name) == ("client_id", "scp")
    assert oauth.client_secret == "s3cr3t"
    assert props.ignored == ()
    # never shown: the secret is a Secret once in the connection's settings
    profile = parse_settings({"profiles": {"p": {"bootstrap_servers": "b:9093"}}}).profiles["p"]
    connection = props.apply(profile.connection)
    assert "s3cr3t" not in repr(connection)
    assert security_kwargs(connection)["sasl_mechanism"] == "OAUTHBEARER"


def test_kafka_4_client_credentials_keys_and_a_token_file(tmp_path: Path) -> None:
    base = {"security.protocol": "SASL_SSL", "sasl.mechanism": "OAUTHBEARER"}
    path = _file(
        tmp_path,
        base
        | {
            "sasl.oauthbearer.token.endpoint.url": "https://idp.example/token",
            "sasl.oauthbearer.client.credentials.client.id": "kt",
            "sasl.oauthbearer.client.credentials.client.secret": "s",
            "sasl.oauthbearer.scope": "kafka",
            "sasl.jaas.config": f"{OAUTH_MODULE} required ;",
        },
    )
    oauth = read_client_properties(path).overrides["sasl_oauth"]
    assert (oauth.client_id, oauth.client_secret, oauth.scope) == ("kt", "s", "kafka")
    path = _file(tmp_path, base | {"sasl.oauthbearer.token.endpoint.url": "file:///run/token"})
    oauth = read_client_properties(path).overrides["sasl_oauth"]
    assert (oauth.kind, oauth.token_file) == ("file", "/run/token")


@pytest.mark.parametrize(
    ("lines", "says"),
    [
        ({}, "needs sasl.oauthbearer.token.endpoint.url"),
        (
            {"sasl.oauthbearer.token.endpoint.url": "https://idp/token"},
            "needs clientId= and clientSecret=",
        ),
        (
            {"sasl.oauthbearer.token.endpoint.url": "ldap://idp/token"},
            "sasl.oauthbearer.token.endpoint.url must be an https://",
        ),
        (
            {
                "sasl.oauthbearer.token.endpoint.url": "https://idp/token",
                "sasl.login.callback.handler.class": "com.example.MyHandler",
            },
            "sasl.login.callback.handler.class names a callback handler kafka-tui does not know",
        ),
        (
            {
                "sasl.jaas.config": "org.apache.kafka.common.security.plain.PlainLoginModule "
                'required username="u" password="p";'
            },
            "the PLAIN login module does not match sasl.mechanism=OAUTHBEARER",
        ),
    ],
)
def test_bad_oauth_files_name_the_setting(tmp_path: Path, lines: dict[str, str], says: str) -> None:
    base = {"security.protocol": "SASL_SSL", "sasl.mechanism": "OAUTHBEARER"}
    with pytest.raises(PropertiesError, match=re.escape(says)) as caught:
        read_client_properties(_file(tmp_path, base | lines))
    assert "\n" not in str(caught.value) and "password" not in str(caught.value).split(":")[-1]


@pytest.mark.parametrize(
    "lines",
    [
        {
            "sasl.mechanism": "AWS_MSK_IAM",
            "sasl.jaas.config": f'{IAM_MODULE} required awsProfileName="prod" '
            'awsRoleArn="arn:aws:iam::123456789012:role/kafka-admin";',
            "sasl.client.callback.handler.class": "software.amazon.msk.auth.iam."
            "IAMClientCallbackHandler",
        },
        {
            "sasl.mechanism": "OAUTHBEARER",
            "sasl.jaas.config": f'{IAM_MODULE} required awsProfileName="prod" '
            'awsRoleArn="arn:aws:iam::123456789012:role/kafka-admin";',
            "sasl.login.callback.handler.class": "software.amazon.msk.auth.iam."
            "IAMOAuthBearerLoginCallbackHandler",
        },
    ],
)
def test_msk_iam_client_properties_map_to_the_signer(tmp_path: Path, lines: dict[str, str]) -> None:
    props = read_client_properties(_file(tmp_path, {"security.protocol": "SASL_SSL"} | lines))
    oauth = props.overrides["sasl_oauth"]
    assert props.overrides["sasl_mechanism"] == "OAUTHBEARER"  # as MSK takes IAM
    assert (oauth.kind, oauth.aws_profile, oauth.aws_role_arn) == (
        "aws_msk_iam",
        "prod",
        "arn:aws:iam::123456789012:role/kafka-admin",
    )


def _profile(**keys: object) -> dict[str, object]:
    body = {"bootstrap_servers": "b:9093", "security_protocol": "SASL_SSL"} | keys
    return {"profiles": {"p": body}}


def test_profiles_oidc_command_and_msk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KT_SECRET", "s3cr3t")
    oidc = parse_settings(
        _profile(
            sasl_mechanism="OAUTHBEARER",
            sasl_oauthbearer_token_endpoint_url="https://idp/token",
            sasl_oauthbearer_client_id="kt",
            sasl_oauthbearer_client_secret_env="KT_SECRET",
            sasl_oauthbearer_scope="kafka",
        )
    ).profiles["p"]
    o = oidc.connection.sasl_oauth
    assert o is not None and oidc.connection.sasl_mechanism == "OAUTHBEARER"
    assert (o.kind, o.client_id, o.client_secret, o.scope) == (
        "client_credentials",
        "kt",
        "s3cr3t",
        "kafka",
    )
    assert "s3cr3t" not in repr(oidc)
    command = parse_settings(
        _profile(sasl_mechanism="OAUTHBEARER", sasl_oauthbearer_token_command="get-token")
    ).profiles["p"]
    assert command.connection.sasl_oauth == OAuthSettings("command", token_command="get-token")
    msk = parse_settings(
        _profile(sasl_mechanism="AWS_MSK_IAM", aws_region="eu-west-1", aws_profile="prod")
    ).profiles["p"]
    assert msk.connection.sasl_mechanism == "OAUTHBEARER"
    assert msk.connection.sasl_oauth == OAuthSettings(
        "aws_msk_iam", aws_region="eu-west-1", aws_profile="prod"
    )


@pytest.mark.parametrize(
    ("keys", "says"),
    [
        ({"sasl_mechanism": "OAUTHBEARER"}, "OAUTHBEARER needs one of"),
        (
            {
                "sasl_mechanism": "OAUTHBEARER",
                "sasl_oauthbearer_token_endpoint_url": "https://idp/token",
                "sasl_oauthbearer_client_id": "kt",
                "sasl_oauthbearer_client_secret_env": "KT_UNSET_SECRET",
            },
            "environment variable KT_UNSET_SECRET (named by "
            "'sasl_oauthbearer_client_secret_env') is not set",
        ),
        (
            {
                "sasl_mechanism": "OAUTHBEARER",
                "sasl_oauthbearer_token_endpoint_url": "https://idp/token",
            },
            "needs sasl_oauthbearer_client_id and sasl_oauthbearer_client_secret_env",
        ),
        (
            {"sasl_mechanism": "PLAIN", "sasl_oauthbearer_token_command": "x"},
            "sasl_oauthbearer_token_command needs sasl_mechanism = 'OAUTHBEARER'",
        ),
        (
            {
                "security_protocol": "SSL",
                "sasl_mechanism": "AWS_MSK_IAM",
            },
            "sasl_mechanism AWS_MSK_IAM needs security_protocol SASL_SSL",
        ),
    ],
)
def test_bad_profiles_name_the_key(keys: dict[str, object], says: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(says)):
        parse_settings(_profile(**keys))


def test_the_region_of_msk_brokers() -> None:
    servers = "b-1.prod.abc123.c2.kafka.eu-west-1.amazonaws.com:9098,b-2.prod:9098"
    assert region_of(servers) == "eu-west-1"
    assert region_of("kafka.internal:9093") is None


def _signed_url(token: str) -> tuple[str, dict[str, list[str]]]:
    url = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
    return url, parse_qs(urlparse(url).query)


def test_the_msk_iam_token_is_the_signers_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """Static credentials from the environment (the AWS chain's first link) and a region:
    the token is AWS's presigned kafka-cluster:Connect URL, as the signer makes it."""
    from aws_msk_iam_sasl_signer import MSKAuthTokenProvider

    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_CONFIG_FILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAKAFKATUITEST0001")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "kafka-tui-test-secret-key-not-real-000000")
    settings = OAuthSettings("aws_msk_iam", aws_region="eu-west-1")
    ours, lifetime = msk_iam_token(settings)
    theirs, _ = MSKAuthTokenProvider.generate_auth_token("eu-west-1")
    url, query = _signed_url(ours)
    their_url, their_query = _signed_url(theirs)
    assert url.startswith("https://kafka.eu-west-1.amazonaws.com/?")
    assert url.split("?")[0] == their_url.split("?")[0]
    assert query["Action"] == ["kafka-cluster:Connect"]
    assert query["X-Amz-Algorithm"] == ["AWS4-HMAC-SHA256"]
    credential = query["X-Amz-Credential"][0].split("/")
    assert credential[0] == "AKIAKAFKATUITEST0001"
    assert credential[2:] == ["eu-west-1", "kafka-cluster", "aws4_request"]
    assert re.fullmatch(r"[0-9a-f]{64}", query["X-Amz-Signature"][0])
    assert "kafka-tui-test-secret" not in url
    # the signer called directly: the same request, signed at (about) the same time
    same = {"X-Amz-Date", "X-Amz-Signature"}
    assert {k: v for k, v in query.items() if k not in same} == {
        k: v for k, v in their_query.items() if k not in same
    }
    assert 800 < lifetime <= 900  # the signer's 15-minute expiry


def test_the_msk_region_comes_from_the_broker_host_names(monkeypatch: pytest.MonkeyPatch) -> None:
    from kafka_tui.admin.model import ConnectionSettings

    settings = ConnectionSettings(
        "b-1.prod.abc.c2.kafka.ap-south-1.amazonaws.com:9098",
        security_protocol="SASL_SSL",
        sasl_mechanism="OAUTHBEARER",
        sasl_oauth=OAuthSettings("aws_msk_iam"),
    )
    assert provider_for(settings).settings.aws_region == "ap-south-1"


async def test_a_token_is_cached_and_fetched_again_at_80_percent_of_its_life() -> None:
    """A token command's JWT living 5 s: kept for 4 s, then fetched again; a connection
    opened with the first one is then outdated (transport.py opens it again)."""
    import asyncio
    import time

    from kafka_tui.admin.oauth import TokenProvider, claims_of

    script = (
        "import base64,json,time;"
        "b=lambda d: base64.urlsafe_b64encode(json.dumps(d).encode()).decode().rstrip('=');"
        "print(b({'alg':'none'})+'.'+b({'sub':'u','exp':time.time()+5})+'.sig')"
    )
    import shlex
    import sys

    command = f"{shlex.quote(sys.executable)} -c {shlex.quote(script)}"
    provider = TokenProvider(OAuthSettings("command", token_command=command), None, None)
    first = await provider.token()
    assert (provider.fetches, provider.generation) == (1, 1)
    assert await provider.token() == first and provider.fetches == 1
    assert not provider.outdated(1)
    exp = (claims_of(first) or {})["exp"]
    while not provider.outdated(1):
        assert time.time() < exp, "not fetched again before the token's end"
        await asyncio.sleep(0.05)
    assert time.time() < exp  # before its end (at 80% of the lifetime it was fetched with)
    await provider.token()
    assert (provider.fetches, provider.generation) == (2, 2)
    assert provider.outdated(1) and not provider.outdated(2)
