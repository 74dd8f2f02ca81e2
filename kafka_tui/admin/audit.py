"""The audit log: one JSON line per change kafka-tui asked a cluster for.

Every change method of KafkaAdmin goes through `audited`, so the CLI, the TUI, plan apply
and placeholder fill all leave the same record: when, who (OS user and host), which
profile and cluster, what was asked (a summary, never a secret) and what each topic got.
The operation the operator issued ("plan apply", which creates topics in batches) is named
by the commands layer with `with operation(...)`; the admin call's own name is the default.

A line is appended with one write() on a file opened O_APPEND, so concurrent kafka-tui
processes never interleave within a line. Writing the log must never cost the change its
result: a failure is reported once (per path) and the change goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import getpass
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
from .ahead import Ahead, AheadOfList
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
    `request`: its summary, or what makes it when the outcome is recorded (a bulk create's
    makes it while the controller works; see KafkaAdmin.create_topics).
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
    text = _whole.take(value if isinstance(value, list) else ())
    if text is not None:
        _ahead.clear()
    _record(admin, action, topics, request, result_of(value) if text is None else text, cluster_id)
    return value


# Outcomes worked out while the cluster works (`prepare`): each result's, and the JSON of the
# whole `result` field for the results expected, in their order.
_ahead: Ahead[_Result, dict[str, object]] = Ahead()
_whole: AheadOfList[_Result, str] = AheadOfList()


def prepare(results: Iterable[_Result]) -> None:
    """Work out the outcomes of results expected, while the cluster works (see
    KafkaAdmin.create_topics); `result_of` uses one only for the very object it came from,
    and `audited` the whole field's JSON only for those very results, in order (after a
    2,000-topic answer, the brokers compete for the CPU; the outcomes and their JSON took
    ~4.5 ms there)."""
    items = list(results)
    _whole.prepare(items, _json(_field(_ahead.prepare(items, _outcome))))


def result_of(value: object) -> dict[str, object]:
    """The `result` field: each topic's (or partition's) outcome and the overall status.
    A call that returns no per-topic results (None, a bool) succeeded as a whole."""
    items = value if isinstance(value, list) else []
    outcomes = [_ahead.take(r, _outcome) for r in items if _is_result(r)]
    _ahead.clear()
    return _field(outcomes)


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
    result: Mapping[str, object] | str,
    cluster_id: str | None,
) -> None:
    """`result`: the field, or its JSON text (prepared, see `prepare`)."""
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
    if isinstance(result, str):  # the last field: its text goes in as it is
        line = _json(entry)[:-1] + ',"result":' + result + "}"
    else:
        entry["result"] = dict(result)
        line = _json(entry)
    values = [getattr(settings, key, None) for key in _SECRET_SETTINGS]
    secrets = [s for s in values if isinstance(s, str) and s]
    # Walking a 2,000-topic entry costs tens of milliseconds: only when a secret is in the
    # line (JSON escapes a string character by character, so a secret inside a value shows
    # as its own escaped form).
    if any(json.dumps(s, ensure_ascii=False)[1:-1] in line for s in secrets):
        entry["result"] = json.loads(result) if isinstance(result, str) else entry["result"]
        line = _json(_scrub(entry, secrets))
    _write(line)


def _json(entry: Mapping[str, object]) -> str:
    return json.dumps(entry, ensure_ascii=False, separators=(",", ":"))


def append(entry: Mapping[str, object]) -> None:
    """Append one entry as one line; on failure, warn once per path and carry on."""
    _write(_json(entry))


def _write(text: str) -> None:
    path = log_path()
    line = (text + "\n").encode()
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            written = os.write(fd, line)
        finally:
            os.close(fd)
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
