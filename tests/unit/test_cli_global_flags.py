"""Global flags before or after the command and its sub-command, with one meaning (parse only:
no Kafka, no config file read)."""

from __future__ import annotations

import argparse
import contextlib
import difflib
import io
import subprocess
import sys

import pytest

from kafka_tui.cli.command_line import GLOBAL_DEFAULTS, GLOBAL_TITLE, build_parser, parse_args

DELETE = ["topics", "delete", "--topic", "x-.*", "--yes"]


def _without_argv(args: argparse.Namespace) -> dict[str, object]:
    return {k: v for k, v in vars(args).items() if k != "argv"}


def test_the_issue_s_command_line_parses_as_with_the_flag_first() -> None:
    after = parse_args([*DELETE, "--output", "json"])
    before = parse_args(["--output", "json", *DELETE])
    assert after.output == "json" and (after.command, after.action) == ("topics", "delete")
    assert _without_argv(after) == _without_argv(before)


@pytest.mark.parametrize(
    ("flag", "value", "name", "expected"),
    [
        ("--bootstrap-server", "h1:9092,h2:9092", "bootstrap_server", "h1:9092,h2:9092"),
        ("--profile", "prod", "profile", "prod"),
        ("--config-file", "/etc/k.toml", "config_file", "/etc/k.toml"),
        ("--command-config", "client.properties", "command_config", "client.properties"),
        ("--output", "jsonl", "output", "jsonl"),
        ("--zookeeper", "zk:2181", "zookeeper", "zk:2181"),
    ],
)
@pytest.mark.parametrize("where", [0, 1, 2, 3])
def test_each_global_flag_means_the_same_at_every_place(
    flag: str, value: str, name: str, expected: str, where: int
) -> None:
    """Before the command, between command and sub-command, after the sub-command, after a
    positional argument."""
    words = ["topics", "describe", "t1"]
    words[where:where] = [flag, value]
    args = parse_args(words)
    assert str(getattr(args, name)) == expected
    assert (args.command, args.action, args.topics) == ("topics", "describe", ["t1"])


@pytest.mark.parametrize("where", [0, 1, 2])
def test_verbose_anywhere(where: int) -> None:
    words = ["topics", "list"]
    words[where:where] = ["-v"]
    assert parse_args(words).verbose is True
    assert parse_args(["topics", "list"]).verbose is False


def test_defaults_when_no_level_gives_a_flag() -> None:
    args = parse_args(["topics", "list"])
    assert {name: getattr(args, name) for name in GLOBAL_DEFAULTS} == GLOBAL_DEFAULTS
    assert not [k for k in vars(args) if "@" in k]  # the per-level names are gone


def test_the_same_value_twice_is_fine() -> None:
    args = parse_args(["--profile", "p", "topics", "--profile", "p", "list", "--profile", "p"])
    assert args.profile == "p"


@pytest.mark.parametrize(
    "words",
    [
        ["--output", "json", *DELETE, "--output", "table"],  # across levels
        [*DELETE, "--output", "json", "--output", "table"],  # at one level
        ["topics", "--output", "json", "delete", "--output", "table", "t"],
    ],
)
def test_different_values_are_a_usage_error_naming_the_flag(
    words: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        parse_args(words)
    assert exited.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert "--output" in last and "json" in last and "table" in last, last


def test_only_topics_describe_streams_jsonl() -> None:
    assert parse_args(["topics", "describe", "--output", "jsonl"]).output == "jsonl"
    assert parse_args(["topics", "list", "--output", "jsonl"]).output == "json"


def test_a_command_s_own_flag_of_the_same_name_keeps_its_meaning() -> None:
    """The dev cluster's `--output table|json` (no jsonl) is its own, and still the one
    value the command reads."""
    assert parse_args(["dev-cluster", "status", "--output", "json"]).output == "json"
    assert parse_args(["--output", "json", "dev-cluster", "status"]).output == "json"
    with pytest.raises(SystemExit):
        parse_args(["dev-cluster", "status", "--output", "jsonl"])


def test_every_sub_command_s_help_lists_the_global_flags() -> None:
    parser = build_parser(every_command=True)
    for words in (["topics", "delete"], ["topics"], ["groups"], ["plan"]):
        text = _help_of(parser, words)
        assert GLOBAL_TITLE in text and "--bootstrap-server" in text and "--verbose" in text


def test_top_level_help_without_the_command_modules_is_the_real_one() -> None:
    """`kafka-tui --help` loads no command module: each command's line comes from
    main._COMMANDS, which must say what the command's own module registers."""
    static = build_parser().format_help().splitlines()
    real = build_parser(every_command=True).format_help().splitlines()
    differ = "\n".join(difflib.unified_diff(static, real, "_COMMANDS", "modules", lineterm=""))
    assert static == real, f"make main._COMMANDS say what the modules register:\n{differ}"


def _help_of(parser: argparse.ArgumentParser, words: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        parser.parse_args([*words, "--help"])
    return out.getvalue()


def test_version_and_help_load_only_what_they_print() -> None:
    """--version answers before argparse (or typing) is imported; --help loads no command's
    module, hence neither aiokafka nor the admin layer (bench/startup.py has the times)."""
    code = """
import contextlib, io, sys
from kafka_tui.cli import main
main(["--version"])
print(sorted(m for m in ("argparse", "typing") if m in sys.modules))
with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):
    main(["--help"])
from kafka_tui.cli.main import _COMMANDS
heavy = ("aiokafka", "kafka_tui.admin", "kafka_tui.config", "kafka_tui.devcluster", "textual")
commands = {module for module, _ in _COMMANDS.values()}
print(sorted(m for m in sys.modules if m.startswith(heavy) or m in commands))
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.splitlines()[1:] == ["[]", "[]"], proc.stdout + proc.stderr
