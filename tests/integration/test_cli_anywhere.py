"""Global flags after the sub-command, and completion of topic names, on a real cluster."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from kafka_tui.cli.command_line import build_parser
from kafka_tui.cli.completion import script
from kafka_tui.cli.main import main

from ..conftest import Cluster


def test_flags_after_the_sub_command_and_topic_names_completed(
    kraft_cluster: Cluster,
    capsys: pytest.CaptureFixture[str],
    topic_name: Callable[[str], str],
    tmp_path: Path,
) -> None:
    bootstrap = kraft_cluster.bootstrap_servers
    name = topic_name("anywhere")
    create = ["topics", "create", name, "--partitions", "1", "--replication-factor", "1"]
    assert main([*create, "--bootstrap-server", bootstrap, "--output", "json"]) == 0
    created = json.loads(capsys.readouterr().out)
    assert [(r["topic"], r["ok"]) for r in created] == [(name, True)]

    # Asked for, completion reads the topics with the connection flags already typed.
    completion = tmp_path / "kafka-tui.bash"
    completion.write_text(script("bash", build_parser(every_command=True)))
    words = ["--bootstrap-server", bootstrap, "topics", "delete", "--topic", name[:-3]]
    deadline = time.monotonic() + 60  # until the broker asked shows the new topic
    while (offered := _complete(completion, words)) != [name] and time.monotonic() < deadline:
        pass
    assert offered == [name]

    # The issue's command line: --output json after the sub-command and its flags.
    issue = ["topics", "delete", "--topic", re.escape(name), "--yes", "--output", "json"]
    assert main([*issue, "--bootstrap-server", bootstrap]) == 0
    deleted = json.loads(capsys.readouterr().out)
    assert [(r["topic"], r["ok"]) for r in deleted] == [(name, True)]


def _complete(path: Path, words: list[str]) -> list[str]:
    program = Path(sys.executable).parent / "kafka-tui"
    assert program.exists(), "the kafka-tui console script (pip install -e .)"
    code = (
        'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); '
        '_kafka_tui; printf "%s\\n" "${COMPREPLY[@]}"'
    )
    env = {**os.environ, "KAFKA_TUI_COMPLETE_TOPICS": "1", "KAFKA_TUI_COMPLETE_TIMEOUT": "60"}
    proc = subprocess.run(
        [shutil.which("bash") or "/bin/bash", "-c", code, "bash", str(path), str(program), *words],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return [line for line in proc.stdout.splitlines() if line]
