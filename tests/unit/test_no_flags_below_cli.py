"""Issue 31.2: below the front ends no text names a CLI flag. Refusals carry a field
(fields.py) that each front end words; a string literal such as "--replica-assignment" in
the package's own modules, admin/, services/ or planning/ would reach the TUI's forms as a
flag it has no use for."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import kafka_tui

ROOT = Path(kafka_tui.__file__).parent
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]+")
# Modules that build the command line of a process of their own (the Spark job's flags).
COMMAND_LINES = {"services/spark_runner.py", "planning/spark_job.py"}


def _literals(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


def test_no_string_below_the_front_ends_names_a_flag() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text!r}"
        for layer in ("", "admin", "services", "planning")
        for path in sorted((ROOT / layer).glob("*.py"))
        if str(path.relative_to(ROOT)) not in COMMAND_LINES
        for line, text in _literals(path)
        if FLAG.search(text)
    ]
    assert not found, "\n".join(found)


def test_the_check_finds_a_flag(tmp_path: Path) -> None:
    """The scan itself: a literal naming a flag is found, a docstring naming one is not."""
    source = '"""Uses --topic."""\nX = "pass --replica-assignment 1:2"\nY = "a-b --c"\n'
    path = tmp_path / "probe.py"
    path.write_text(source)
    assert [t for _, t in _literals(path) if FLAG.search(t)] == ["pass --replica-assignment 1:2"]
