"""AWS MSK IAM tokens from AWS's own signer (aws-msk-iam-sasl-signer-python), sent as
OAUTHBEARER as MSK accepts them. Credentials: the AWS chain (environment, profile, SSO,
instance role), a named profile (`aws_profile` / awsProfileName), and a role assumed with
them (`aws_role_arn` / awsRoleArn, as the Java IAMLoginModule does)."""

from __future__ import annotations

import os
import time
from typing import Any

from .oauth_settings import OAuthSettings, TokenError

SESSION_NAME = "kafka-tui"


def msk_iam_token(s: OAuthSettings) -> tuple[str, float]:
    """(token, lifetime in seconds)."""
    from aws_msk_iam_sasl_signer import MSKAuthTokenProvider as signer
    from botocore.exceptions import BotoCoreError, ClientError

    region = s.aws_region or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
    if not region:
        raise TokenError(
            f"AWS MSK IAM needs the cluster's region: set {s.setting('aws_region')} (or AWS_REGION)"
        )
    try:
        if s.aws_role_arn:
            token, expiry_ms = signer.generate_auth_token_from_credentials_provider(
                region, _assumed_role(s, region)
            )
        elif s.aws_profile:
            token, expiry_ms = signer.generate_auth_token_from_profile(region, s.aws_profile)
        else:
            token, expiry_ms = signer.generate_auth_token(region)
    except (AttributeError, ValueError):
        # the signer's own words when the chain found nothing (get_credentials() is None)
        where = f"profile '{s.aws_profile}'" if s.aws_profile else "the AWS credential chain"
        raise TokenError(
            f"no AWS credentials found in {where}: set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, "
            f"AWS_PROFILE or {s.setting('aws_profile')}, or log in (aws sso login)"
        ) from None
    except (BotoCoreError, ClientError) as exc:
        what = s.setting("aws_role_arn") if s.aws_role_arn else s.setting("aws_profile")
        raise TokenError(f"AWS credentials could not be loaded ({exc}): check {what}") from None
    return token, max(expiry_ms / 1000 - time.time(), 0.0)


def _assumed_role(s: OAuthSettings, region: str) -> Any:
    from botocore.credentials import CredentialProvider, Credentials
    from botocore.session import Session

    class AssumedRole(CredentialProvider):
        METHOD = "kafka-tui-assume-role"

        def load(self) -> Credentials:
            session = Session(profile=s.aws_profile) if s.aws_profile else Session()
            sts = session.create_client("sts", region_name=region)
            answer = sts.assume_role(
                RoleArn=s.aws_role_arn,
                RoleSessionName=s.aws_role_session_name or SESSION_NAME,
            )["Credentials"]
            return Credentials(
                answer["AccessKeyId"], answer["SecretAccessKey"], answer["SessionToken"]
            )

    return AssumedRole()
