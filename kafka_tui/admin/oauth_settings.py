"""How kafka-tui gets an OAUTHBEARER token: OIDC client credentials, a token command, a
token file, or AWS MSK IAM's signer. Plain data: admin/oauth.py makes the tokens."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal


class TokenError(Exception):
    """No token: the message is one line naming the setting to fix."""


_MSK_HOST = re.compile(r"\.kafka(?:-serverless)?\.([a-z0-9-]+)\.amazonaws\.com(?::\d+)?$")


def region_of(bootstrap_servers: str) -> str | None:
    """The AWS region in an MSK broker's host name (b-1.x.y.c2.kafka.eu-west-1.amazonaws.com)."""
    for server in bootstrap_servers.split(","):
        found = _MSK_HOST.search(server.strip())
        if found:
            return found[1]
    return None


OAuthKind = Literal["client_credentials", "command", "file", "static", "aws_msk_iam"]

# The settings' names where the operator wrote them (a profile key / a client.properties
# key), for the sentence that says which one to fix.
_PROFILE_NAMES = {
    "url": "sasl_oauthbearer_token_endpoint_url",
    "client_id": "sasl_oauthbearer_client_id",
    "secret": "sasl_oauthbearer_client_secret_env",
    "scope": "sasl_oauthbearer_scope",
    "command": "sasl_oauthbearer_token_command",
    "ca": "ssl_cafile",
    "aws_region": "aws_region",
    "aws_profile": "aws_profile",
    "aws_role_arn": "aws_role_arn",
}
_PROPERTIES_NAMES = {
    "url": "sasl.oauthbearer.token.endpoint.url",
    "client_id": "clientId in sasl.jaas.config",
    "secret": "clientSecret in sasl.jaas.config",
    "scope": "scope in sasl.jaas.config",
    "command": "sasl_oauthbearer_token_command (profile)",
    "ca": "ssl.truststore.location",
    "aws_region": "aws_region (profile) or AWS_REGION",
    "aws_profile": "awsProfileName in sasl.jaas.config",
    "aws_role_arn": "awsRoleArn in sasl.jaas.config",
}


@dataclass(frozen=True)
class OAuthSettings:
    kind: OAuthKind
    token_endpoint_url: str | None = None
    client_id: str | None = None
    # A Secret (model.py) once in ConnectionSettings; never shown.
    client_secret: str | None = None
    scope: str | None = None
    token_command: str | None = None
    token_file: str | None = None
    static_token: str | None = None
    # Claims the token must carry (sasl.oauthbearer.sub.claim.name / scope.claim.name).
    sub_claim_name: str = "sub"
    scope_claim_name: str = "scope"
    aws_region: str | None = None
    aws_profile: str | None = None
    aws_role_arn: str | None = None
    aws_role_session_name: str | None = None
    # Where the settings came from: True for a client.properties file.
    from_properties: bool = False

    def __repr__(self) -> str:
        return f"OAuthSettings(kind={self.kind!r}, url={self.token_endpoint_url!r})"

    def setting(self, what: str) -> str:
        """The name of setting `what` as the operator wrote it."""
        return (_PROPERTIES_NAMES if self.from_properties else _PROFILE_NAMES)[what]
