"""`kafka-tui reassignments ...` (issue 11) — being built; refuses clearly until then."""

from __future__ import annotations

import argparse

from ..admin import KafkaAdmin
from ..config import Profile
from . import parsing


def add_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    commands.add_parser("reassignments", help="partition reassignments: list, cancel")


async def run(args: argparse.Namespace, profile: Profile, admin: KafkaAdmin) -> int:
    raise parsing.UsageError("reassignments: not available yet")
