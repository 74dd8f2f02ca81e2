"""Where a schema registry is and how to log in: what a profile or the command line gives
(kept apart from the client, so reading a config file does not load it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

DEFAULT_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class RegistrySettings:
    """Where the registry is and how to log in; `password` and `token` are Secrets (masked in
    every repr)."""

    url: str
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    token: str | None = field(default=None, repr=False)
    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S


def shown_url(url: str) -> str:
    """`url` without a user or password in it (http://user:pass@host is allowed)."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url.rstrip("/")
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit(parts._replace(netloc=netloc)).rstrip("/")


def url_problem(url: str) -> str | None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "must be an http:// or https:// URL, e.g. http://127.0.0.1:8081"
    return None
