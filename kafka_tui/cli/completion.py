"""`kafka-tui completion bash|zsh|fish`: a completion script generated from the parser itself,
so a new command, sub-command, flag or choice completes without touching this module.

What completes: commands and sub-commands, flags, a flag's or a positional's choices, files
for FILE flags, profile names read from the config file (by the shell, no Python), and topic
names only when KAFKA_TUI_COMPLETE_TOPICS=1: then `kafka-tui topics list` runs with the
connection flags already typed, under `timeout` (KAFKA_TUI_COMPLETE_TIMEOUT, default 5 s).
The zsh script is the bash one through zsh's bashcompinit; fish gets its own.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .command_line import RecordingParser

FUNCTION = "_kafka_tui"
PROGRAM = "kafka-tui"


@dataclass
class Flag:
    names: list[str]
    takes_value: bool
    kind: str  # "choice:a b c", "file", "profile", "topic" or "" (free text)
    help: str


@dataclass
class Node:
    """One parser level: `kafka-tui`, `kafka-tui topics`, `kafka-tui topics delete`."""

    number: int
    path: tuple[str, ...]
    flags: list[Flag] = field(default_factory=list)
    positional: str = ""  # how its positional arguments complete (a kind, as Flag.kind)
    commands: dict[str, tuple[str, Node]] = field(default_factory=dict)  # name -> (help, node)


def _kind(action: argparse.Action) -> str:
    if action.choices is not None:
        return "choice:" + " ".join(str(c) for c in action.choices)
    metavar = str(action.metavar or "")
    if metavar == "TOPIC" or "--topic" in action.option_strings:
        return "topic"
    if "--profile" in action.option_strings:
        return "profile"
    if action.type is Path or metavar.endswith(("FILE", "DIR")):
        return "file"
    return ""


def _help(action: argparse.Action) -> str:
    text = action.help if isinstance(action.help, str) and action.help != argparse.SUPPRESS else ""
    return " ".join(text.split())


def tree(parser: RecordingParser) -> list[Node]:
    """Every level of the parser, numbered depth first (0: the top level)."""
    nodes: list[Node] = []

    def visit(level: RecordingParser, path: tuple[str, ...]) -> Node:
        node = Node(len(nodes), path)
        nodes.append(node)
        for action in level.options:
            if action.option_strings and action.help != argparse.SUPPRESS:
                node.flags.append(
                    Flag(
                        list(action.option_strings), action.nargs != 0, _kind(action), _help(action)
                    )
                )
        node.positional = next(
            (k for k in map(_kind, level.positionals) if k and not k.startswith("choice:")), ""
        )
        if not level.commands:  # a positional's choices (e.g. `completion SHELL`)
            node.positional = next(
                (_kind(a) for a in level.positionals if a.choices is not None), node.positional
            )
        for name, (help_text, child) in level.commands.items():
            node.commands[name] = (" ".join((help_text or "").split()), visit(child, (*path, name)))
        return node

    visit(parser, ())
    return nodes


def script(shell: str, parser: RecordingParser) -> str:
    nodes = tree(parser)
    if shell == "fish":
        return _fish(nodes)
    return _bash(nodes, zsh=shell == "zsh")


# The shell side, shared by bash and zsh (bashcompinit runs it in sh emulation: arrays from 0).
_BASH_FUNCTIONS = r"""
_kafka_tui_profiles() {
    local config="${KAFKA_TUI_CONFIG:-${XDG_CONFIG_HOME:-$HOME/.config}/kafka-tui/config.toml}"
    local i
    for ((i = 1; i < ${#COMP_WORDS[@]} - 1; i++)); do
        [[ ${COMP_WORDS[i]} == --config-file ]] && config="${COMP_WORDS[i + 1]}"
    done
    [[ -r $config ]] || return 0
    sed -n 's/^[[:space:]]*\[profiles\.\([A-Za-z0-9_-]*\)\][[:space:]]*$/\1/p' "$config"
}

_kafka_tui_topics() {
    [[ ${KAFKA_TUI_COMPLETE_TOPICS:-} == 1 ]] || return 0
    local -a given=()
    local i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case "${COMP_WORDS[i]}" in
            --bootstrap-server|--profile|--config-file|--command-config)
                given+=("${COMP_WORDS[i]}" "${COMP_WORDS[i + 1]}") ;;
        esac
    done
    timeout "${KAFKA_TUI_COMPLETE_TIMEOUT:-5}" "${COMP_WORDS[0]}" "${given[@]}" \
        topics list --output table 2>/dev/null
}

_kafka_tui_values() {
    local kind="$1" cur="$2"
    case "$kind" in
        choice:*) COMPREPLY=($(compgen -W "${kind#choice:}" -- "$cur")) ;;
        file) COMPREPLY=($(compgen -f -- "$cur")) ;;
        profile) COMPREPLY=($(compgen -W "$(_kafka_tui_profiles)" -- "$cur")) ;;
        topic) COMPREPLY=($(compgen -W "$(_kafka_tui_topics)" -- "$cur")) ;;
    esac
}

_kafka_tui() {
    local cur="${COMP_WORDS[COMP_CWORD]}" prev="" node=0 word i
    ((COMP_CWORD > 0)) && prev="${COMP_WORDS[COMP_CWORD - 1]}"
    COMPREPLY=()
    for ((i = 1; i < COMP_CWORD; i++)); do
        word="${COMP_WORDS[i]}"
        if [[ $word == -* ]]; then
            if [[ ${_kafka_tui_valued[$node/$word]+set} ]]; then
                ((i + 1 == COMP_CWORD)) && {
                    _kafka_tui_values "${_kafka_tui_valued[$node/$word]}" "$cur"
                    return 0
                }
                ((i++))
            fi
        elif [[ ${_kafka_tui_children[$node/$word]+set} ]]; then
            node="${_kafka_tui_children[$node/$word]}"
        fi
    done
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "${_kafka_tui_flags[$node]}" -- "$cur"))
    elif [[ -n ${_kafka_tui_commands[$node]} ]]; then
        COMPREPLY=($(compgen -W "${_kafka_tui_commands[$node]}" -- "$cur"))
    elif [[ -n ${_kafka_tui_positional[$node]} ]]; then
        _kafka_tui_values "${_kafka_tui_positional[$node]}" "$cur"
    fi
    return 0
}
"""


def _bash(nodes: list[Node], zsh: bool) -> str:
    tables: dict[str, dict[str, str]] = {
        "children": {},
        "valued": {},
        "flags": {},
        "commands": {},
        "positional": {},
    }
    for node in nodes:
        n = str(node.number)
        tables["flags"][n] = " ".join(name for f in node.flags for name in f.names)
        tables["commands"][n] = " ".join(node.commands)
        tables["positional"][n] = node.positional
        for name, (_, child) in node.commands.items():
            tables["children"][f"{n}/{name}"] = str(child.number)
        for flag in node.flags:
            if flag.takes_value:
                for name in flag.names:
                    tables["valued"][f"{n}/{name}"] = flag.kind
    shell = "zsh" if zsh else "bash"
    lines = [f"# {PROGRAM} {shell} completion, generated by `{PROGRAM} completion {shell}`"]
    if zsh:
        lines += [
            "(( ${+functions[compdef]} )) || { autoload -U +X compinit && compinit; }",
            "autoload -U +X bashcompinit && bashcompinit",
        ]
    for name, table in tables.items():
        if zsh:  # key value pairs: every zsh version reads them
            body = " ".join(f"{_quote(k)} {_quote(v)}" for k, v in table.items())
        else:
            body = " ".join(f"[{_quote(k)}]={_quote(v)}" for k, v in table.items())
        lines.append(
            f"typeset -gA _kafka_tui_{name}=({body})"
            if zsh
            else f"declare -gA _kafka_tui_{name}=({body})"
        )
    lines.append(_BASH_FUNCTIONS)
    lines.append(f"complete -o default -F {FUNCTION} {PROGRAM}")
    return "\n".join(lines) + "\n"


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


_FISH_FUNCTIONS = r"""
function __kafka_tui_node
    set -l node 0
    set -l skip 0
    for word in (commandline -opc)[2..-1]
        if test $skip = 1
            set skip 0
        else if string match -q -- '-*' $word
            __kafka_tui_valued $node $word; and set skip 1
        else
            set -l next (__kafka_tui_child $node $word)
            test -n "$next"; and set node $next
        end
    end
    echo $node
end

function __kafka_tui_at
    test (__kafka_tui_node) = $argv[1]
end

function __kafka_tui_profiles
    set -l config $KAFKA_TUI_CONFIG
    if test -z "$config"
        set -l base $XDG_CONFIG_HOME
        test -z "$base"; and set base $HOME/.config
        set config $base/kafka-tui/config.toml
    end
    set -l words (commandline -opc)
    set -l at (contains -i -- --config-file $words)
    test -n "$at"; and set config $words[(math $at + 1)]
    test -r "$config"; or return 0
    sed -n 's/^[[:space:]]*\[profiles\.\([A-Za-z0-9_-]*\)\][[:space:]]*$/\1/p' $config
end

function __kafka_tui_topics
    test "$KAFKA_TUI_COMPLETE_TOPICS" = 1; or return 0
    set -l words (commandline -opc)
    set -l given
    for i in (seq 2 (count $words))
        if contains -- $words[$i] --bootstrap-server --profile --config-file --command-config
            set -a given $words[$i] $words[(math $i + 1)]
        end
    end
    set -l timeout_s $KAFKA_TUI_COMPLETE_TIMEOUT
    test -z "$timeout_s"; and set timeout_s 5
    timeout $timeout_s $words[1] $given topics list --output table 2>/dev/null
end
"""


def _fish(nodes: list[Node]) -> str:
    lines = [f"# {PROGRAM} fish completion (generated: `{PROGRAM} completion fish`)"]
    lines.append('function __kafka_tui_child\n    switch "$argv[1] $argv[2]"')
    for node in nodes:
        for name, (_, child) in node.commands.items():
            lines.append(
                f"        case {_quote(f'{node.number} {name}')}\n            echo {child.number}"
            )
    lines.append("    end\nend\n")
    valued = [
        _quote(f"{node.number} {name}")
        for node in nodes
        for flag in node.flags
        if flag.takes_value
        for name in flag.names
    ]
    lines.append('function __kafka_tui_valued\n    switch "$argv[1] $argv[2]"')
    lines.append(f"        case {' '.join(valued) or _quote('')}\n            return 0")
    lines.append("    end\n    return 1\nend")
    lines.append(_FISH_FUNCTIONS)
    lines.append(f"complete -c {PROGRAM} -f")
    for node in nodes:
        at = f"-n {_quote(f'__kafka_tui_at {node.number}')}"
        for name, (help_text, _) in node.commands.items():
            lines.append(f"complete -c {PROGRAM} {at} -a {_quote(name)} -d {_quote(help_text)}")
        for flag in node.flags:
            names = " ".join(
                f"-l {_quote(n[2:])}" if n.startswith("--") else f"-s {_quote(n[1:])}"
                for n in flag.names
            )
            value = _fish_value(flag.kind, flag.takes_value)
            lines.append(f"complete -c {PROGRAM} {at} {names}{value} -d {_quote(flag.help)}")
        if node.positional and not node.commands:
            lines.append(f"complete -c {PROGRAM} {at}{_fish_value(node.positional, True)}")
    return "\n".join(lines) + "\n"


def _fish_value(kind: str, takes_value: bool) -> str:
    if not takes_value:
        return ""
    if kind.startswith("choice:"):
        return f" -x -a {_quote(kind[len('choice:') :])}"
    if kind == "file":
        return " -r -F"
    if kind in ("profile", "topic"):
        return f" -x -a {_quote(f'(__kafka_tui_{kind}s)')}"
    return " -x"
