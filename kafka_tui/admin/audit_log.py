"""The audit log: one JSON line per change kafka-tui asked a cluster for.

Every change method of KafkaAdmin goes through `audited`, so the CLI, the TUI, plan apply
and placeholder fill all leave the same record: when, who (OS user and host), which
profile and cluster, what was asked (a summary, never a secret) and what each topic got.
The operation the operator issued ("plan apply", which creates topics in batches) is named
by the commands layer with `with operation(...)`; the admin call's own name is the default.

A line is appended with one write() on a file opened O_APPEND, under an exclusive flock
that also covers reading the line before it: each line carries that line's SHA-256
("prev") and its place in the chain ("seq"), so an edited, removed or inserted line shows
(`audit verify`), also when several kafka-tui processes write at once. Writing the log
must never cost the change its result: a failure is reported once (per path) and the
change goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import hashlib
import json
import os
import socket
import sys
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from ..paths import user_path
from .model import ConfigChange, ConfigOp, ConnectionSettings, NewPartitions, TopicSpec

T = TypeVar("T")

ENV = "KAFKA_TUI_AUDIT_LOG"
# Topic config values are not secrets, but a key that looks like one is never written.
_SECRET_MARKERS = ("password", "secret", "sasl.jaas", "ssl.key")
_REDACTED = "(redacted)"
_SECRET_SETTINGS = ("sasl_password", "ssl_password", "ssl_key_pem")
_MESSAGE_CHARS = 200
_DISTINCT_VALUES = 10
# Errors after which the change may still happen: the outcome is unknown, not a failure.
_UNKNOWN_ERRORS = frozenset({"REQUEST_TIMED_OUT"})

_operation: ContextVar[str | None] = ContextVar("kafka_tui_audit_operation", default=None)
_rollback: ContextVar[str | None] = ContextVar("kafka_tui_audit_rollback", default=None)


def _stderr(text: str) -> None:
    print(text, file=sys.stderr)


@dataclass
class _Config:
    path: Path | None = None
    profile: str | None = None
    warn: Callable[[str], None] = _stderr
    warned: Path | None = None


_config = _Config()


def default_path() -> Path:
    return user_path(ENV, "XDG_STATE_HOME", ".local/state", "audit.jsonl")


def configure(
    *,
    path: str | Path | None = None,
    profile: str | None = None,
    warn: Callable[[str], None] | None = None,
) -> None:
    """Called where a profile is chosen (CLI start, TUI profile switch). `path`: the
    profile's `audit_log`; $KAFKA_TUI_AUDIT_LOG still wins. `warn` shows a write failure."""
    _config.path = Path(path).expanduser() if path else None
    _config.profile = profile
    _config.warn = warn or _stderr


def log_path() -> Path:
    """$KAFKA_TUI_AUDIT_LOG, else the profile's audit_log, else the XDG state folder."""
    if os.environ.get(ENV) or _config.path is None:
        return default_path()
    return _config.path


@contextlib.contextmanager
def operation(name: str) -> Iterator[None]:
    """Name the operator's operation for the changes made inside (across awaits too)."""
    token = _operation.set(name)
    try:
        yield
    finally:
        _operation.reset(token)


@contextlib.contextmanager
def rollback_file(path: str) -> Iterator[None]:
    """Record `path` (the rollback file written before replicas move) on the entries of the
    changes made inside, as "rollback_file"."""
    token = _rollback.set(path)
    try:
        yield
    finally:
        _rollback.reset(token)


class Connected(Protocol):
    """What `audited` reads of the admin client: the connection and the cluster id it
    already learned from Metadata (no extra round trip for the log)."""

    @property
    def settings(self) -> ConnectionSettings: ...

    @property
    def cluster_id(self) -> str | None: ...


class _Result(Protocol):
    @property
    def topic(self) -> str: ...

    @property
    def ok(self) -> bool: ...

    @property
    def error(self) -> str | None: ...

    @property
    def message(self) -> str: ...


async def audited(
    admin: Connected,
    action: str,
    topics: Sequence[str],
    request: Mapping[str, object] | Callable[[], Mapping[str, object]],
    change: Awaitable[T],
    *,
    skip: bool = False,
    cluster_id: str | None = None,
) -> T:
    """Await `change` and record its outcome (also when it raises; the error is re-raised).
    `request`: its summary, or what makes it when the outcome is recorded.
    `skip`: not a change (validate-only), nothing is recorded."""
    if skip:
        return await change
    try:
        value = await change
    except (asyncio.CancelledError, KeyboardInterrupt):
        _record(
            admin,
            action,
            topics,
            request,
            {
                "status": "unknown",
                "error": "INTERRUPTED",
                "message": "Interrupted before the cluster answered: the change may or may "
                "not have been made.",
                "topics": [],
            },
            cluster_id,
        )
        raise
    except Exception as exc:
        name = getattr(exc, "name", None)
        _record(
            admin,
            action,
            topics,
            request,
            {
                "status": "failed",
                "error": name if isinstance(name, str) else type(exc).__name__,
                "message": _short(str(getattr(exc, "message", exc))),
                "topics": [],
            },
            cluster_id,
        )
        raise
    _record(admin, action, topics, request, result_of(value), cluster_id)
    return value


def result_of(value: object) -> dict[str, object]:
    """The `result` field: each topic's (or partition's) outcome and the overall status.
    A call that returns no per-topic results (None, a bool) succeeded as a whole."""
    items = value if isinstance(value, list) else []
    return _field([_outcome(r) for r in items if _is_result(r)])


def _field(outcomes: list[dict[str, object]]) -> dict[str, object]:
    kinds = {_kind(o) for o in outcomes}
    if kinds <= {"ok"}:
        status = "ok"
    elif "ok" in kinds:
        status = "partial"
    else:
        status = "unknown" if "unknown" in kinds else "failed"
    return {"status": status, "error": None, "message": None, "topics": outcomes}


def _is_result(item: object) -> bool:
    return all(hasattr(item, a) for a in ("topic", "ok", "error", "message"))


def _outcome(r: _Result) -> dict[str, object]:
    entry: dict[str, object] = {"topic": r.topic}
    partition = getattr(r, "partition", None)
    if isinstance(partition, int):
        entry["partition"] = partition
    entry |= {"ok": bool(r.ok), "error": r.error, "message": _short(r.message)}
    return entry


def _kind(outcome: Mapping[str, object]) -> str:
    if outcome["ok"]:
        return "ok"
    return "unknown" if outcome["error"] in _UNKNOWN_ERRORS else "failed"


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MESSAGE_CHARS else text[: _MESSAGE_CHARS - 1] + "…"


# -- request summaries (small, never a secret) ---------------------------------------------


def _distinct(values: Iterable[object]) -> object:
    """One value when all agree, else the distinct values (the first few, then a count)."""
    # Distinct values first (a 2,000-topic create has one or two), then their JSON: dumping
    # every value cost ~10 ms per bulk change. Unhashable values (lists, dicts) are told
    # apart by their JSON alone, as before.
    every = list(values)
    try:
        distinct: list[object] = list(dict.fromkeys(every))
    except TypeError:
        distinct = every
    seen = sorted({json.dumps(v) for v in distinct})
    if len(seen) == 1:
        return json.loads(seen[0])
    shown = [json.loads(v) for v in seen[:_DISTINCT_VALUES]]
    if len(seen) > _DISTINCT_VALUES:
        shown.append(f"+{len(seen) - _DISTINCT_VALUES} more")
    return shown


def _is_secret(key: str) -> bool:
    lowered = key.lower()
    return any(marker in lowered for marker in _SECRET_MARKERS)


def _configs(pairs: Iterable[tuple[str, str | None]]) -> dict[str, object]:
    by_key: dict[str, list[str | None]] = {}
    for key, value in pairs:
        by_key.setdefault(key, []).append(_REDACTED if _is_secret(key) else value)
    return {k: _distinct(v) for k, v in sorted(by_key.items())}


def creates(specs: Sequence[TopicSpec]) -> dict[str, object]:
    def counts(s: TopicSpec) -> tuple[int | None, int | None]:
        if s.assignment:
            return len(s.assignment), max(len(r) for r in s.assignment.values())
        return s.partitions, s.replication_factor

    every = [counts(s) for s in specs]
    return {
        "partitions": _distinct(c[0] for c in every),
        "replication_factor": _distinct(c[1] for c in every),
        "configs": _configs((k, v) for s in specs for k, v in s.configs.items()),
        "assignment": any(s.assignment for s in specs),
    }


def grows(requests: Sequence[NewPartitions]) -> dict[str, object]:
    return {
        "partitions": _distinct(r.total for r in requests),
        "assignment": any(r.assignment for r in requests),
    }


def config_changes(changes: Mapping[str, Sequence[ConfigChange]]) -> dict[str, object]:
    every = [c for cs in changes.values() for c in cs]
    return {
        "set": _configs((c.name, c.value) for c in every if c.op is ConfigOp.SET),
        "delete": sorted({c.name for c in every if c.op is ConfigOp.DELETE}),
    }


# -- writing -------------------------------------------------------------------------------


def _now() -> str:
    """UTC, to the millisecond: 2026-11-22T10:00:00.123Z (time, not datetime: one import
    fewer at every start)."""
    now = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S.", time.gmtime(now)) + f"{int(now * 1000) % 1000:03d}Z"


def _user() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError, ImportError):
        uid = getattr(os, "getuid", None)
        return f"uid:{uid()}" if uid is not None else "unknown"


def _scrub(value: Any, secrets: Sequence[str]) -> Any:
    """Belt and braces: an error message that quotes a password loses it here."""
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, "***")
        return value
    if isinstance(value, dict):
        return {k: _scrub(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v, secrets) for v in value]
    return value


def _record(
    admin: Connected,
    action: str,
    topics: Sequence[str],
    request: Mapping[str, object] | Callable[[], Mapping[str, object]],
    result: Mapping[str, object],
    cluster_id: str | None,
) -> None:
    settings = admin.settings
    entry = {
        "time": _now(),
        "user": _user(),
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "profile": _config.profile,
        "bootstrap_servers": settings.bootstrap_servers,
        "security_protocol": settings.security_protocol,
        "cluster_id": cluster_id or admin.cluster_id,
        "operation": _operation.get() or action,
        "action": action,
        "topics": list(topics),
        "request": dict(request() if callable(request) else request),
    }
    if _rollback.get() is not None:
        entry["rollback_file"] = _rollback.get()
    entry["result"] = dict(result)
    line = _json(entry)
    values = [getattr(settings, key, None) for key in _SECRET_SETTINGS]
    secrets = [s for s in values if isinstance(s, str) and s]
    # Walking a 2,000-topic entry costs tens of milliseconds: only when a secret is in the
    # line (JSON escapes a string character by character, so a secret inside a value shows
    # as its own escaped form).
    if any(json.dumps(s, ensure_ascii=False)[1:-1] in line for s in secrets):
        line = _json(_scrub(entry, secrets))
    _write(line)


def _json(entry: Mapping[str, object]) -> str:
    return json.dumps(entry, ensure_ascii=False, separators=(",", ":"))


def append(entry: Mapping[str, object]) -> None:
    """Append one entry as one line; on failure, warn once per path and carry on."""
    _write(_json(entry))


def _write(text: str) -> None:
    path = log_path()
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            # The lock spans reading the last line and appending the one chained to it, so
            # concurrent kafka-tui processes never chain two lines to the same predecessor.
            _lock(fd)
            line = (chained(text, last_line(fd)) + "\n").encode()
            written = os.write(fd, line)
        finally:
            os.close(fd)  # closing releases the lock
        if written != len(line):
            raise OSError(f"only {written} of {len(line)} bytes were written")
    except OSError as exc:
        if _config.warned != path:
            _config.warned = path
            reason = exc.strerror or str(exc)
            text = (
                f"kafka-tui: warning: cannot write the audit log {path} ({reason}); "
                "changes are not being audited."
            )
            try:
                _config.warn(text)
            except Exception:  # a closed app's notify: the change's result matters more
                _stderr(text)


# -- the chain (audit verify: cli/audit.py) ------------------------------------------------
#
# Each line carries "seq" (its place in the chain, 1 for a file's first line) and "prev" (the
# SHA-256 of the line before it, as stored without its newline; null on a file's first line).
# kafka-tui does not rotate the log, so no line names a predecessor file. Anyone who can
# write the file can also recompute the chain after an edit: the chain shows an edit that
# did not, and the head hash `audit verify` prints, kept elsewhere, pins the rest.

_READ_BLOCK = 64 * 2**10


def _lock(fd: int) -> None:
    try:
        import fcntl
    except ImportError:  # no flock (Windows): O_APPEND still keeps lines whole
        return
    fcntl.flock(fd, fcntl.LOCK_EX)


def line_hash(line: bytes) -> str:
    return hashlib.sha256(line).hexdigest()


def last_line(fd: int) -> bytes | None:
    """The file's last line without its newline (None: an empty file), read backwards from
    the end in blocks, so a long log costs no more than a short one."""
    end = os.lseek(fd, 0, os.SEEK_END)
    if end == 0:
        return None
    chunks: list[bytes] = []
    position = end
    while position > 0:
        step = min(_READ_BLOCK, position)
        position -= step
        chunk = os.pread(fd, step, position)
        chunks.append(chunk)
        # A newline before the final byte marks where the last line starts.
        if b"\n" in (chunk[:-1] if position + step == end else chunk):
            break
    data = b"".join(reversed(chunks))
    if data.endswith(b"\n"):
        data = data[:-1]
    return data[data.rfind(b"\n") + 1 :]


def chained(text: str, before: bytes | None) -> str:
    """`text` (one JSON object) with "seq" and "prev" first, after the line `before`."""
    seq = 1
    if before is not None:
        try:
            previous = json.loads(before)
            seq = int(previous["seq"]) + 1 if isinstance(previous, dict) else 1
        except (ValueError, KeyError, TypeError):
            seq = 1  # a line from before the chain, or a damaged one: verify tells
    prev = "null" if before is None else f'"{line_hash(before)}"'
    rest = text[1:].lstrip()
    return f'{{"seq":{seq},"prev":{prev}' + ("" if rest.startswith("}") else ",") + rest


@dataclass(frozen=True)
class ChainBreak:
    """The first place the chain breaks: `line` (1-based, in the file as it is now) was
    "changed", "inserted", or stands where lines were "removed" (`removed` of them)."""

    line: int
    kind: str
    message: str
    removed: int = 0


@dataclass(frozen=True)
class ChainCheck:
    lines: int
    unchained: int  # leading lines written before kafka-tui chained its log
    head: str | None  # SHA-256 of the last line: kept elsewhere, it pins the whole file
    problem: ChainBreak | None


@dataclass(frozen=True)
class _Link:
    seq: int
    prev: str | None


def _link(raw: bytes) -> _Link | bool | None:
    """A chained line's link; False: a line from before the chain; None: no valid line."""
    try:
        entry = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(entry, dict):
        return None
    if "prev" not in entry and "seq" not in entry:
        return False
    seq, prev = entry.get("seq"), entry.get("prev")
    if type(seq) is not int or not (prev is None or isinstance(prev, str)):
        return None
    return _Link(seq, prev)


def verify_chain(lines: Iterable[bytes]) -> ChainCheck:
    """Walk the lines (without newlines) and name the first that was changed, removed or
    inserted. Three lines at a time, so a log of any size fits in memory.

    Line i must carry prev = SHA-256(line i-1) and seq = seq(i-1) + 1. Where it does not:
    if line i+1 links to line i-1, line i was inserted; if line i's seq skips ahead, lines
    before it were removed; if line i+1 still links to line i, line i-1 was changed;
    otherwise line i itself was."""
    count = unchained = 0
    window: list[tuple[bytes, _Link | bool | None]] = []
    before: tuple[bytes, _Link | bool | None] | None = None  # the line before window[0]
    problem: ChainBreak | None = None
    head: str | None = None
    in_prefix = True

    def check(at: int) -> ChainBreak | None:
        raw, link = window[0]
        ahead = window[1] if len(window) > 1 else None
        prev_raw = before[0] if before else None
        expected_prev = line_hash(prev_raw) if prev_raw is not None else None
        prev_link = before[1] if before else None
        expected_seq = prev_link.seq + 1 if isinstance(prev_link, _Link) else 1
        if isinstance(link, _Link) and link.prev == expected_prev and link.seq == expected_seq:
            return None
        nxt = ahead[1] if ahead else None
        if isinstance(nxt, _Link) and nxt.prev == expected_prev and nxt.seq == expected_seq:
            return ChainBreak(
                at,
                "inserted",
                f"line {at} was inserted: line {at + 1} follows line {at - 1} in the chain",
            )
        if not isinstance(link, _Link):
            what = "is not a chained audit entry" if link is False else "is not valid JSON"
            return ChainBreak(at, "changed", f"line {at} was changed: it {what}")
        if link.prev == expected_prev:
            return ChainBreak(
                at, "changed", f"line {at} was changed: its seq is {link.seq}, not {expected_seq}"
            )
        if link.seq > expected_seq:
            gone = link.seq - expected_seq
            where = f"after line {at - 1}" if at > 1 else "at the start of the file"
            return ChainBreak(
                at,
                "removed",
                f"{gone} line(s) were removed {where} (seq {expected_seq}"
                f"{f'-{link.seq - 1}' if gone > 1 else ''} missing before line {at})",
                gone,
            )
        if at > 1 and (not isinstance(nxt, _Link) or nxt.prev == line_hash(raw)):
            return ChainBreak(
                at - 1,
                "changed",
                f"line {at - 1} was changed: line {at} holds the hash of a different line",
            )
        return ChainBreak(
            at, "changed", f"line {at} was changed: its link to line {at - 1} does not match"
        )

    def step() -> None:
        nonlocal before, problem, in_prefix, unchained
        at = count - len(window) + 1
        if in_prefix and window[0][1] is False:
            unchained += 1
        else:
            in_prefix = False
            if problem is None:
                problem = check(at)
        before = window.pop(0)

    for raw in lines:
        count += 1
        head = line_hash(raw)
        window.append((raw, _link(raw)))
        if len(window) == 3:
            step()
    while window:
        step()
    return ChainCheck(count, unchained, head, problem)


def read_lines(path: Path) -> Iterator[bytes]:
    """The lines of `path`, without newlines (a last line without one too)."""
    with path.open("rb") as f:
        for raw in f:
            yield raw[:-1] if raw.endswith(b"\n") else raw
