"""`kafka-tui completion bash|zsh|fish`: the bash script run by a real bash, the others at
least parsed by their shell; what completes comes from the parser."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from kafka_tui.cli.command_line import CommandParser, build_parser
from kafka_tui.cli.completion import script
from kafka_tui.cli.main import main

BASH = shutil.which("bash") or "/bin/bash"


@pytest.fixture(scope="module")
def bash_script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("completion") / "kafka-tui.bash"
    path.write_text(script("bash", build_parser(every_command=True)))
    return path


def complete(script_path: Path, *words: str, env: dict[str, str] | None = None) -> list[str]:
    """What bash offers for the last word of `kafka-tui words...` (it may be "")."""
    program = (
        'source "$1"; shift; COMP_WORDS=(kafka-tui "$@"); COMP_CWORD=$#; '
        '_kafka_tui kafka-tui "${COMP_WORDS[COMP_CWORD]}" ""; printf "%s\\n" "${COMPREPLY[@]}"'
    )
    proc = subprocess.run(
        [BASH, "-c", program, "bash", str(script_path), *words],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **(env or {})},
    )
    assert proc.stderr == "", proc.stderr
    return [line for line in proc.stdout.splitlines() if line]


def test_main_prints_the_script(capsys: pytest.CaptureFixture[str], bash_script: Path) -> None:
    assert main(["completion", "bash"]) == 0
    assert capsys.readouterr().out == bash_script.read_text()


def test_every_command_and_sub_command_of_the_parser_completes(bash_script: Path) -> None:
    parser = build_parser(every_command=True)
    assert complete(bash_script, "") == list(parser.commands)
    for name, (_, command) in parser.commands.items():
        assert name in complete(bash_script, name[:2])
        if command.commands:
            assert complete(bash_script, name, "") == list(command.commands), name


def test_flags_of_the_sub_command_and_the_global_ones_after_it(bash_script: Path) -> None:
    offered = complete(bash_script, "topics", "delete", "--")
    assert {"--yes", "--topic", "--if-exists", "--output", "--bootstrap-server", "--verbose"} <= (
        set(offered)
    )
    assert "--partitions" not in offered  # a flag of topics create, not of delete


def test_choices_of_a_flag_and_of_a_positional(bash_script: Path) -> None:
    words = ["topics", "delete", "--topic", "x-.*", "--yes", "--output", ""]
    assert complete(bash_script, *words) == ["table", "json", "jsonl"]
    assert complete(bash_script, "--output", "j") == ["json", "jsonl"]
    assert complete(bash_script, "completion", "") == ["bash", "zsh", "fish"]


def test_a_flag_s_value_is_not_taken_for_a_command(bash_script: Path) -> None:
    assert complete(bash_script, "--output", "json", "topics", "de") == ["describe", "delete"]
    assert complete(bash_script, "--profile", "topics", "topics", "li") == ["list"]


def test_profile_names_come_from_the_config_file(bash_script: Path, tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        '[profiles.prod]\nbootstrap_servers = "a:9092"\n[profiles.prod.spark]\n'
        '"spark.executor.memory" = "4g"\n[profiles.dev-eu]\nbootstrap_servers = "b:9092"\n'
    )
    assert complete(bash_script, "--config-file", str(config), "topics", "--profile", "") == [
        "prod",
        "dev-eu",
    ]
    env = {"KAFKA_TUI_CONFIG": str(config)}
    assert complete(bash_script, "topics", "list", "--profile", "d", env=env) == ["dev-eu"]
    missing = {"KAFKA_TUI_CONFIG": str(tmp_path / "none.toml")}
    assert complete(bash_script, "--profile", "", env=missing) == []


def test_topics_are_not_looked_up_unless_asked(bash_script: Path) -> None:
    """Without KAFKA_TUI_COMPLETE_TOPICS=1 nothing runs: the bootstrap below would fail."""
    env = {"KAFKA_TUI_COMPLETE_TOPICS": "", "PATH": "/nonexistent"}
    words = ["--bootstrap-server", "127.0.0.1:1", "topics", "describe", ""]
    assert complete(bash_script, *words, env=env) == []


def test_a_command_added_to_the_parser_completes_without_touching_completion(
    tmp_path: Path,
) -> None:
    """As a command module registers itself: its sub-commands, flags and choices complete,
    and so do the global flags after them."""
    root = CommandParser(prog="kafka-tui")
    frob = root.add_subparsers(dest="command").add_parser("frob", help="added later")
    frob.add_subparsers(dest="action").add_parser("now").add_argument(
        "--level", choices=["low", "high"]
    )
    path = tmp_path / "kafka-tui.bash"
    path.write_text(script("bash", root))
    assert complete(path, "") == ["frob"]
    assert complete(path, "frob", "") == ["now"]
    assert complete(path, "frob", "now", "--level", "") == ["low", "high"]
    assert complete(path, "frob", "now", "--output", "") == ["table", "json", "jsonl"]


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_the_script_parses_in_its_shell(shell: str, tmp_path: Path) -> None:
    binary = _shell(shell)
    path = tmp_path / f"kafka-tui.{shell}"
    path.write_text(script(shell, build_parser(every_command=True)))
    proc = subprocess.run([binary, "-n", str(path)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr


def test_zsh_completes_through_bashcompinit(tmp_path: Path) -> None:
    """bashcompinit calls the function in sh emulation (arrays from 0); zsh filters the
    words by what was typed itself, so every sub-command comes back here."""
    path = tmp_path / "kafka-tui.zsh"
    path.write_text(script("zsh", build_parser(every_command=True)))
    program = (
        'source "$1"; emulate sh -c \'COMP_WORDS=(kafka-tui --output json topics delete '
        '--output ""); COMP_CWORD=6; _kafka_tui; print -r -- "${COMPREPLY[*]}"\''
    )
    proc = subprocess.run(
        [_shell("zsh"), "-c", program, "zsh", str(path)],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    assert proc.stdout.split() == ["table", "json", "jsonl"], proc.stderr


def test_fish_completes(tmp_path: Path) -> None:
    path = tmp_path / "kafka-tui.fish"
    path.write_text(script("fish", build_parser(every_command=True)))
    program = (
        f"source {path}; complete -C 'kafka-tui --output json topics de'; "
        "complete -C 'kafka-tui topics delete --topic x --output j'"
    )
    proc = subprocess.run(
        [_shell("fish"), "-c", program], capture_output=True, text=True, check=True
    )
    offered = [line.split("\t")[0] for line in proc.stdout.splitlines()]
    assert offered == ["delete", "describe", "json", "jsonl"], proc.stderr


def _shell(name: str) -> str:
    binary = shutil.which(name)
    if binary is None:
        pytest.skip(f"{name} is not installed here: its script was not tried")
    return binary


def test_bash_parses_its_script_and_every_shell_gets_one(bash_script: Path) -> None:
    assert subprocess.run([BASH, "-n", str(bash_script)], check=False).returncode == 0
    parser = build_parser(every_command=True)
    for shell in ("zsh", "fish"):
        text = script(shell, parser)
        assert all(name in text for name in parser.commands), shell
