"""`kafka-tui plan ...`: bulk assignment plans (issue 8) — being built; not wired to any
behaviour yet beyond refusing clearly."""

from __future__ import annotations

import argparse

from ..admin import KafkaAdmin
from ..config import Profile
from . import parsing


def add_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    commands.add_parser("plan", help="bulk assignment plans: preview, apply, export")


async def run(args: argparse.Namespace, profile: Profile, admin: KafkaAdmin) -> int:
    raise parsing.UsageError("plan: not available yet")
