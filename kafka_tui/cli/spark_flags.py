"""The Spark settings of a plan command: the profile's [spark] table, then --spark-conf."""

from __future__ import annotations

import argparse

from ..config import Profile
from ..services import parsing
from ..services.spark_runner import spark_settings


def spark_conf(args: argparse.Namespace, profile: Profile) -> dict[str, str]:
    """The profile's [spark] settings, then each --spark-conf KEY=VALUE over them."""
    try:
        return spark_settings(args.spark_conf, profile.spark)
    except ValueError as exc:
        raise parsing.UsageError(f"--spark-conf: {exc}") from None
