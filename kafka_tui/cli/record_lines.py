"""What the record commands (`messages read`, `messages search`) share: their format and
isolation flags, their time and count flags read, a read interrupted cleanly by ctrl+c, and
the record objects printed (JSON lines, a JSON list, or table rows)."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..services.codecs import FORMATS
from ..services.parsing import UsageError, epoch_ms

if TYPE_CHECKING:
    import argparse


def format_flags(parser: argparse.ArgumentParser) -> None:
    for which in ("key", "value"):
        parser.add_argument(
            f"--{which}-format",
            choices=FORMATS,
            default="auto",
            help="auto (default): Schema Registry wire format, JSON, UTF-8 text, then bytes",
        )


def isolation_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--isolation",
        choices=["read_committed", "read_uncommitted"],
        default="read_committed",
        help="read_committed (default) never shows aborted transactions or control records",
    )


def time_flag(flag: str, text: str | None) -> int | None:
    """ms since the epoch from ISO-8601 (UTC unless it names a zone) or a number of ms."""
    if text is None:
        return None
    try:
        return epoch_ms(text)
    except ValueError as exc:
        raise UsageError(f"{flag}: {exc}") from None


def not_negative(flag: str, value: int | None) -> None:
    if value is not None and value < 0:
        raise UsageError(f"{flag}: must be at least 0, not {value}")


async def interruptible(work: Any) -> int:
    """ctrl+c ends the read cleanly: what was read is printed (and committed with --group)."""
    task = asyncio.ensure_future(work)
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGINT, task.cancel)
    except (NotImplementedError, RuntimeError):  # not the main thread, or no signals
        return int(await task)
    try:
        return int(await task)
    except asyncio.CancelledError:
        if task.cancelled():
            return 0
        raise
    finally:
        loop.remove_signal_handler(signal.SIGINT)


class Printer:
    def __init__(self, output: str) -> None:
        self.output = output
        self.stream = sys.stdout.buffer
        self.first = True

    def write_lines(self, lines: list[str]) -> None:
        """Record objects as JSON lines: one per line (jsonl), or items of a list (json)."""
        if self.output == "jsonl":
            self.stream.write(("\n".join(lines) + "\n").encode())
        else:
            text = ",\n".join(lines)
            self.stream.write(("[" if self.first else ",\n").encode() + text.encode())
        self.first = False
        self.stream.flush()

    def write(self, documents: list[Any]) -> None:
        """Record objects as table rows."""
        if self.first:
            self.stream.write(b"PARTITION\tOFFSET\tTIMESTAMP\tKEY\tVALUE\tHEADERS\n")
        self.stream.write("".join(map(row, documents)).encode())
        self.first = False
        self.stream.flush()

    def close(self) -> None:
        if self.output == "json":
            self.stream.write(b"[]\n" if self.first else b"]\n")
        self.stream.flush()


def cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, str):
        return value.replace("\t", "\\t").replace("\n", "\\n")
    return json.dumps(value, ensure_ascii=False)


def row(d: Any) -> str:
    moment = datetime.fromtimestamp(d["timestamp"] / 1000, UTC).isoformat(timespec="milliseconds")
    headers = ",".join(f"{n}={v}" for n, v in d["headers"]) or "-"
    error = f"\tERROR: {d['error']}" if "error" in d else ""
    return (
        f"{d['partition']}\t{d['offset']}\t{moment}\t{cell(d['key'])}\t{cell(d['value'])}"
        f"\t{cell(headers)}{error}\n"
    )
