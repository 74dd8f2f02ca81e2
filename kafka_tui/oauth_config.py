"""OAUTHBEARER and AWS MSK IAM settings from a profile and from a client.properties file
(Kafka's own clients' keys and the aws-msk-iam-auth library's), as OAuthSettings."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from .admin.oauth_settings import OAuthSettings

MSK_IAM = "AWS_MSK_IAM"
PROFILE_KEYS: dict[str, type] = {
    "sasl_oauthbearer_token_endpoint_url": str,
    "sasl_oauthbearer_client_id": str,
    "sasl_oauthbearer_client_secret_env": str,
    "sasl_oauthbearer_scope": str,
    "sasl_oauthbearer_token_command": str,
    "sasl_oauthbearer_token_env": str,
    "aws_region": str,
    "aws_profile": str,
    "aws_role_arn": str,
}
# sasl.login.callback.handler.class / sasl.client.callback.handler.class values understood.
OIDC_HANDLERS = (
    "org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerLoginCallbackHandler",
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler",
)
IAM_HANDLERS = (
    "software.amazon.msk.auth.iam.IAMClientCallbackHandler",
    "software.amazon.msk.auth.iam.IAMOAuthBearerLoginCallbackHandler",
)
PROPERTIES_KEYS = {
    "sasl.login.callback.handler.class",
    "sasl.client.callback.handler.class",
    "sasl.oauthbearer.token.endpoint.url",
    "sasl.oauthbearer.scope.claim.name",
    "sasl.oauthbearer.sub.claim.name",
    "sasl.oauthbearer.client.credentials.client.id",
    "sasl.oauthbearer.client.credentials.client.secret",
    "sasl.oauthbearer.scope",
}


class OAuthConfigError(ValueError):
    """The message names the setting (never its value)."""


def _endpoint(url: str, name: str) -> tuple[str | None, str | None]:
    """(token endpoint URL, token file) from Kafka's token endpoint URL setting."""
    scheme = url.split(":", 1)[0].lower()
    if scheme == "file":
        return None, re.sub(r"^file:(//)?", "", url, flags=re.IGNORECASE)
    if scheme not in ("https", "http"):
        raise OAuthConfigError(f"{name} must be an https:// (or file:) URL")
    return url, None


def from_profile(
    body: Mapping[str, Any],
    mechanism: str,
    at: str,
    secret: Callable[[str], str | None],
) -> OAuthSettings:
    """A profile's OAUTHBEARER (or AWS_MSK_IAM) settings; `secret(key)` reads a secret the
    key names (config.py's own secret path)."""
    if mechanism == MSK_IAM:
        return OAuthSettings(
            "aws_msk_iam",
            aws_region=body.get("aws_region"),
            aws_profile=body.get("aws_profile"),
            aws_role_arn=body.get("aws_role_arn"),
        )
    url = body.get("sasl_oauthbearer_token_endpoint_url")
    command = body.get("sasl_oauthbearer_token_command")
    token = secret("sasl_oauthbearer_token_env")
    given = [k for k, v in (("url", url), ("command", command), ("token", token)) if v]
    if len(given) != 1:
        raise OAuthConfigError(
            f"{at}: OAUTHBEARER needs one of sasl_oauthbearer_token_endpoint_url (with "
            "sasl_oauthbearer_client_id and sasl_oauthbearer_client_secret_env), "
            "sasl_oauthbearer_token_command or sasl_oauthbearer_token_env"
            + (" (not several)" if given else "")
        )
    if command:
        return OAuthSettings("command", token_command=command)
    if token:
        return OAuthSettings("static", static_token=token)
    try:
        endpoint, file = _endpoint(str(url), "sasl_oauthbearer_token_endpoint_url")
    except OAuthConfigError as exc:
        raise OAuthConfigError(f"{at}: {exc}") from None
    if file is not None:
        return OAuthSettings("file", token_file=file)
    client_id = body.get("sasl_oauthbearer_client_id")
    client_secret = secret("sasl_oauthbearer_client_secret_env")
    if not client_id or client_secret is None:
        raise OAuthConfigError(
            f"{at}: sasl_oauthbearer_token_endpoint_url needs sasl_oauthbearer_client_id and "
            "sasl_oauthbearer_client_secret_env (OIDC client credentials)"
        )
    return OAuthSettings(
        "client_credentials",
        token_endpoint_url=endpoint,
        client_id=client_id,
        client_secret=client_secret,
        scope=body.get("sasl_oauthbearer_scope"),
    )


def from_properties(
    values: Mapping[str, str],
    at: Callable[[str], str],
    where: str,
    module: str | None,
    options: Mapping[str, str],
) -> OAuthSettings:
    """client.properties' OAUTHBEARER settings: `module` is the JAAS login module's kind
    ("OAUTHBEARER" or "AWS_MSK_IAM"), `options` its options."""
    handlers = [
        k
        for k in ("sasl.login.callback.handler.class", "sasl.client.callback.handler.class")
        if k in values
    ]
    names = [values[k].strip() for k in handlers]
    for key, name in zip(handlers, names, strict=True):
        if name not in OIDC_HANDLERS + IAM_HANDLERS:
            raise OAuthConfigError(
                f"{at(key)} names a callback handler kafka-tui does not know; it knows Kafka's "
                "OAuthBearerLoginCallbackHandler (3.x secured.* and 4.x) and AWS's "
                "IAMClientCallbackHandler / IAMOAuthBearerLoginCallbackHandler"
            )
    if module == MSK_IAM or any(n in IAM_HANDLERS for n in names):
        return OAuthSettings(
            "aws_msk_iam",
            aws_profile=options.get("awsProfileName"),
            aws_role_arn=options.get("awsRoleArn"),
            aws_role_session_name=options.get("awsRoleSessionName"),
            from_properties=True,
        )
    url = values.get("sasl.oauthbearer.token.endpoint.url", "").strip()
    if not url:
        raise OAuthConfigError(
            f"{where}: sasl.mechanism=OAUTHBEARER needs sasl.oauthbearer.token.endpoint.url "
            "(and sasl.login.callback.handler.class=...OAuthBearerLoginCallbackHandler)"
        )
    try:
        endpoint, file = _endpoint(url, at("sasl.oauthbearer.token.endpoint.url"))
    except OAuthConfigError as exc:
        raise OAuthConfigError(str(exc)) from None
    claims = {
        "sub_claim_name": values.get("sasl.oauthbearer.sub.claim.name", "sub").strip() or "sub",
        "scope_claim_name": values.get("sasl.oauthbearer.scope.claim.name", "scope").strip()
        or "scope",
    }
    if file is not None:
        return OAuthSettings("file", token_file=file, from_properties=True, **claims)
    client_id = options.get("clientId") or values.get(
        "sasl.oauthbearer.client.credentials.client.id"
    )
    client_secret = options.get("clientSecret") or values.get(
        "sasl.oauthbearer.client.credentials.client.secret"
    )
    if not client_id or client_secret is None:
        raise OAuthConfigError(
            f"{where}: sasl.oauthbearer.token.endpoint.url needs clientId= and clientSecret= in "
            "sasl.jaas.config (OAuthBearerLoginModule), or "
            "sasl.oauthbearer.client.credentials.client.id and .client.secret"
        )
    return OAuthSettings(
        "client_credentials",
        token_endpoint_url=endpoint,
        client_id=client_id,
        client_secret=client_secret,
        scope=options.get("scope") or values.get("sasl.oauthbearer.scope"),
        from_properties=True,
        **claims,
    )
