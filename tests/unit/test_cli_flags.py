"""Flag combinations kafka-topics.sh refuses as usage errors are refused the same way, before
any connection is tried (the bootstrap server below does not exist)."""

from __future__ import annotations

import pytest

from kafka_tui.cli.main import main

NOWHERE = ["--bootstrap-server", "127.0.0.1:1"]


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--partitions", "2"], "--partitions"),
        (["--replication-factor", "2"], "--replication-factor"),
        (
            ["--partitions", "2", "--replication-factor", "2"],
            "--partitions or --replication-factor",
        ),
    ],
)
def test_an_assignment_with_counts_is_a_usage_error(
    flags: list[str], named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [*NOWHERE, "topics", "create", "T", *flags, "--replica-assignment", "1:2,2:3"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.strip() == (
        f"kafka-tui: topics create: --replica-assignment cannot be used with {named}: "
        "the assignment gives every partition and its replicas"
    )
