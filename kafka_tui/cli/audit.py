"""`kafka-tui audit tail [-n N]`: the last entries of the audit log (admin/audit_log.py);
`kafka-tui audit verify`: is the hash chain of its lines intact (exit 0), or which line
was changed, removed or inserted first (exit 1).

Needs no cluster: it reads the local file only. A readable line per entry, or with
`--output json` the stored JSON lines exactly, for jq. The tail is read from the end of the
file, so a log of millions of lines costs no more than a short one.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from ..admin import audit_log as audit
from ..config import Profile, Settings
from . import output
from .profiles import resolve_profile

DEFAULT_LINES = 20
_BLOCK = 64 * 2**10
_TOPICS_SHOWN = 3


def add_parser(commands: Any) -> None:
    parser = commands.add_parser("audit", help="the audit log of the changes kafka-tui made")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    tail = actions.add_parser("tail", help="the last entries (newest last)")
    tail.add_argument(
        "-n",
        "--lines",
        type=int,
        default=DEFAULT_LINES,
        metavar="N",
        help=f"how many entries (default {DEFAULT_LINES})",
    )
    actions.add_parser(
        "verify",
        help="check the hash chain: exit 0 when intact, 1 naming the first line changed, "
        "removed or inserted",
    )


def _profile(args: argparse.Namespace, settings: Settings) -> Profile | None:
    """The profile named or implied, for its audit_log; none is needed to read the log."""
    if args.profile or settings.default_profile or len(settings.profiles) == 1:
        return resolve_profile(
            settings, profile=args.profile, bootstrap_server=args.bootstrap_server
        )
    return None


def run_local(args: argparse.Namespace, settings: Settings) -> int:
    """Run without a connection to Kafka; returns the exit code."""
    profile = _profile(args, settings)
    if profile is not None:
        audit.configure(path=profile.audit_log, profile=profile.name)
    path = audit.log_path()
    as_json = args.output == "json"
    if args.action == "verify":
        return verify(path, as_json)
    try:
        lines = tail_lines(path, args.lines)
    except FileNotFoundError:
        print(f"no audit log yet at {path}", file=sys.stderr if as_json else sys.stdout)
        return 0
    except OSError as exc:
        print(f"kafka-tui: cannot read the audit log {path}: {exc.strerror}", file=sys.stderr)
        return 2
    for raw in lines:
        text = raw.decode("utf-8", errors="replace")
        print(text if as_json else describe(text))
    return 0


def verify(path: Path, as_json: bool) -> int:
    try:
        check = audit.verify_chain(audit.read_lines(path))
    except FileNotFoundError:
        print(f"no audit log yet at {path}", file=sys.stderr if as_json else sys.stdout)
        return 0
    except OSError as exc:
        print(f"kafka-tui: cannot read the audit log {path}: {exc.strerror}", file=sys.stderr)
        return 2
    problem = check.problem
    if as_json:
        output.emit_json(
            {
                "path": str(path),
                "lines": check.lines,
                "unchained": check.unchained,
                "intact": problem is None,
                "head": check.head,
                "problem": None
                if problem is None
                else {
                    "line": problem.line,
                    "kind": problem.kind,
                    "removed": problem.removed,
                    "message": problem.message,
                },
            }
        )
    elif problem is None:
        older = (
            f" ({check.unchained} older line(s) before the chain began cannot be checked)"
            if check.unchained
            else ""
        )
        print(f"{path}: {check.lines} line(s), chain intact{older}.")
        if check.head:
            print(
                f"Head: sha256 {check.head}. Keep it elsewhere: an edit that also rewrote "
                "every later line shows only against it."
            )
    else:
        print(f"{path}: chain broken: {problem.message}.", file=sys.stderr)
    return 0 if problem is None else 1


def tail_lines(path: Path, count: int) -> list[bytes]:
    """The last `count` non-empty lines of `path`, read backwards in blocks from the end."""
    if count <= 0:
        return []
    chunks: list[bytes] = []
    newlines = 0
    with path.open("rb") as f:
        position = f.seek(0, os.SEEK_END)
        # count + 1 newlines: the one before the first line wanted marks where it starts.
        while position > 0 and newlines <= count:
            step = min(_BLOCK, position)
            position -= step
            f.seek(position)
            chunk = f.read(step)
            chunks.append(chunk)
            newlines += chunk.count(b"\n")
    lines = b"".join(reversed(chunks)).split(b"\n")
    if position > 0:
        lines = lines[1:]  # the tail of a line that starts before what was read
    return [line for line in lines if line.strip()][-count:]


def describe(line: str) -> str:
    """One entry as a readable line: time, who, where, what, on which topics, the result."""
    try:
        entry = json.loads(line)
        if not isinstance(entry, dict):
            raise ValueError("not an object")
        where = entry.get("profile")
        if where in (None, "(command line)"):
            where = entry.get("bootstrap_servers") or "?"
        return "  ".join(
            [
                str(entry["time"]),
                f"{entry.get('user', '?')}@{entry.get('host', '?')}",
                str(where),
                str(entry["operation"]),
                _topics(entry.get("topics") or []),
                _result(entry.get("result") or {}),
            ]
        )
    except (ValueError, KeyError, TypeError, AttributeError):
        shown = line if len(line) <= 120 else line[:119] + "…"
        return f"(malformed audit line: {shown})"


def _topics(topics: list[Any]) -> str:
    if not topics:
        return "-"
    shown = ", ".join(str(t) for t in topics[:_TOPICS_SHOWN])
    more = len(topics) - _TOPICS_SHOWN
    return f"{shown} +{more} more" if more > 0 else shown


def _result(result: dict[str, Any]) -> str:
    status = str(result.get("status", "?"))
    if result.get("error"):
        return f"{status}: {result['error']}"
    outcomes = result.get("topics") or []
    if status == "ok" or not outcomes:
        return status
    ok = sum(1 for o in outcomes if o.get("ok"))
    errors = sorted({str(o.get("error")) for o in outcomes if not o.get("ok")})
    return f"{status}: {ok} ok, {len(outcomes) - ok} not ({', '.join(errors)})"
