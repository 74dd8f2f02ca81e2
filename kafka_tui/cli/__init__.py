"""The command line: `kafka-tui` and its sub-commands (kafka-topics.sh habits). Front ends
only: flags, output formats, exit codes, prompts; the use-cases live in `services/`."""

from .main import main

__all__ = ["main"]
