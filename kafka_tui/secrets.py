"""Where a profile's secrets come from, none of them a file: an environment variable, a
command's output, the OS keyring, or a question on the terminal (the TUI's dialog).

Every secret setting `<name>` of a profile (a ConnectionSettings field: sasl_password,
ssl_password, ...) takes one of `<name>_env` (read when the file is loaded, config.py),
`<name>_command` or `<name>_keyring` (read only for the profile that connects, once per
process). A needed secret given by none is asked for, once per process, kept in memory only.
Messages name the setting and never hold a value: a command's output and its stderr are
never shown (either may be the secret).
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .admin.model import ConnectionSettings, Secret

# The profile keys that name a source, after the setting's name (`sasl_password_command`).
SOURCE_SUFFIXES = ("_env", "_command", "_keyring")
COMMAND_TIMEOUT_S = 120.0


class SecretError(Exception):
    """A secret could not be had; the message names the setting, never a value."""


@dataclass(frozen=True)
class SecretSource:
    """Where one secret setting's value comes from: kind "command", "keyring" or "prompt"."""

    setting: str
    kind: str
    # the command line (it may carry a token: kept out of reprs), "SERVICE/USERNAME", or who
    # the secret is for (prompt)
    ref: str = dataclasses.field(repr=False)
    where: str = ""  # "config.toml: profile 'prod'" or a client.properties file: what to fix

    @property
    def key(self) -> str:
        """The profile key that names it (a prompt has none)."""
        return f"{self.setting}_{self.kind}"


Asker = Callable[[SecretSource], str | None]

# When a secret that no source gives is needed (then it is asked for): SASL/PLAIN and SCRAM
# need a password; a key file needs one when it is encrypted. Other mechanisms add their own.
NEEDED: dict[str, Callable[[ConnectionSettings], bool]] = {
    "sasl_password": lambda c: (
        c.security_protocol.startswith("SASL")
        and (c.sasl_mechanism or "PLAIN") in ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
        and bool(c.sasl_username)
    ),
    "ssl_password": lambda c: _encrypted_pem(c.ssl_keyfile) or _encrypted_pem(c.ssl_certfile),
}

# Values had this process: (kind, ref or where, setting) -> the secret. Memory only.
_HAD: dict[tuple[str, str, str], Secret] = {}


def source_keys(keys: Iterable[str]) -> dict[str, type]:
    """For each secret key `<name>_env` of a profile, its siblings `<name>_command` and
    `<name>_keyring` (strings)."""
    return {
        f"{key.removesuffix('_env')}{suffix}": str
        for key in keys
        if key.endswith("_env") and key.removesuffix("_env") in NEEDED
        for suffix in SOURCE_SUFFIXES[1:]
    }


def profile_sources(body: Mapping[str, Any], at: str) -> tuple[SecretSource, ...]:
    """The command and keyring sources a profile's table names; one source per setting."""
    found: list[SecretSource] = []
    # The secret settings of a connection only: another key that ends so is its own setting
    # (sasl_oauthbearer_token_command runs again for each new token, oauth_config.py).
    stems = {
        k.removesuffix(s)
        for k in body
        for s in SOURCE_SUFFIXES[1:]
        if k.endswith(s) and k.removesuffix(s) in NEEDED
    }
    for stem in sorted(stems):
        given = [stem + s for s in SOURCE_SUFFIXES if stem + s in body]
        if len(given) > 1:
            raise SecretError(f"{at}: give one source for {stem}, not {' and '.join(given)}")
        kind = given[0].removeprefix(stem + "_")
        ref = body[given[0]]
        if kind == "command" and not _argv(ref):
            raise SecretError(
                f"{at}: '{given[0]}' must be a command line, e.g. \"pass show kafka\""
            )
        if kind == "keyring" and _service_user(ref) is None:
            raise SecretError(f"{at}: '{given[0]}' must be SERVICE/USERNAME, e.g. \"kafka/alice\"")
        found.append(SecretSource(stem, kind, ref, at))
    return tuple(found)


def pending(connection: ConnectionSettings, sources: Iterable[SecretSource], where: str) -> bool:
    """True when connecting needs secrets filled first: a source to read, or a needed one
    none gives (asked, or taken from this process's answers)."""
    sources = tuple(sources)
    return bool(_unread(connection, sources) or questions(connection, where, sources))


def read_sources(
    connection: ConnectionSettings, sources: Iterable[SecretSource]
) -> ConnectionSettings:
    """`connection` with its command and keyring secrets read (a value already there, e.g. a
    client.properties file's, wins). Blocking: a command may take a while."""
    values: dict[str, Secret] = {}
    for source in _unread(connection, sources):
        cached = (source.kind, source.ref, source.setting)
        if cached not in _HAD:
            reader = _run_command if source.kind == "command" else _read_keyring
            _HAD[cached] = Secret(reader(source))
        values[source.setting] = _HAD[cached]
    return _with(connection, values)


def read_source(source: SecretSource) -> Secret:
    """One command or keyring source's value (a setting outside ConnectionSettings, e.g. the
    schema registry's password), read once per process. Blocking."""
    cached = (source.kind, source.ref, source.setting)
    if cached not in _HAD:
        reader = _run_command if source.kind == "command" else _read_keyring
        _HAD[cached] = Secret(reader(source))
    return _HAD[cached]


def questions(
    connection: ConnectionSettings, where: str, sources: Iterable[SecretSource]
) -> list[SecretSource]:
    """The needed secrets no source gives, to ask for (answers of this process are reused:
    `connection` must first take them with `answered`)."""
    named = {s.setting for s in sources}
    asked = [
        setting
        for setting, needed in NEEDED.items()
        if getattr(connection, setting, None) is None
        and setting not in named
        and needed(connection)
    ]
    who = connection.sasl_username or ""
    return [SecretSource(s, "prompt", who if s == "sasl_password" else "", where) for s in asked]


def answered(connection: ConnectionSettings, where: str) -> ConnectionSettings:
    """`connection` with the answers this process already got for `where`'s questions."""
    values = {
        setting: value
        for (kind, at, setting), value in _HAD.items()
        if kind == "prompt" and at == where and getattr(connection, setting, None) is None
    }
    return _with(connection, values)


def remember(
    connection: ConnectionSettings, question: SecretSource, value: str
) -> ConnectionSettings:
    """`connection` with the answer to `question`, kept (in memory) for this process."""
    if not value:
        raise SecretError(f"{question.where}: no {question.setting} was typed")
    _HAD[("prompt", question.where, question.setting)] = Secret(value)
    return _with(connection, {question.setting: Secret(value)})


def resolve(
    connection: ConnectionSettings,
    sources: Iterable[SecretSource],
    where: str,
    ask: Asker | None,
) -> ConnectionSettings:
    """Every secret `connection` needs, from its sources or `ask` (None: no terminal, so a
    missing one is an error naming the setting)."""
    sources = tuple(sources)
    connection = answered(read_sources(connection, sources), where)
    for question in questions(connection, where, sources):
        if ask is None:
            raise SecretError(unasked(question))
        value = ask(question)
        if value is None:
            raise SecretError(f"{where}: no {question.setting} was given")
        connection = remember(connection, question, value)
    return connection


def unasked(question: SecretSource) -> str:
    """The error for a needed secret that nothing gives, off a terminal."""
    s = question.setting
    return (
        f"{question.where}: {s} is needed and not given: set {s}_env, {s}_command or "
        f"{s}_keyring in the profile, or run kafka-tui on a terminal to be asked"
    )


def prompt_text(question: SecretSource) -> str:
    who = f" for {question.ref}" if question.ref else ""
    return f"{question.setting}{who} ({question.where})"


def terminal_asker() -> Asker | None:
    """Hidden input on the terminal, when stdin is one; None otherwise."""
    if not sys.stdin.isatty():
        return None
    import getpass

    def ask(question: SecretSource) -> str | None:
        try:
            return getpass.getpass(f"{prompt_text(question)}: ")
        except EOFError:
            return None

    return ask


def forget() -> None:
    """Drop every secret this process holds (tests; a long-lived process never needs it)."""
    _HAD.clear()


def _with(connection: ConnectionSettings, values: Mapping[str, Any]) -> ConnectionSettings:
    return dataclasses.replace(connection, **values) if values else connection


# -- the sources -------------------------------------------------------------------------------


def _unread(connection: ConnectionSettings, sources: Iterable[SecretSource]) -> list[SecretSource]:
    return [
        s
        for s in sources
        if s.kind in ("command", "keyring") and getattr(connection, s.setting, None) is None
    ]


def _argv(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:  # an unclosed quote
        return []


def _run_command(source: SecretSource) -> str:
    """The first line of the command's stdout. Run without a shell (shlex words; a pipe
    needs `sh -c '...'` written out); stdin is not passed on, stderr is never shown."""
    argv = _argv(source.ref)
    at = f"{source.where}: {source.key}"
    try:
        done = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=COMMAND_TIMEOUT_S,
            check=False,
        )
    except FileNotFoundError:
        raise SecretError(f"{at}: no program {argv[0]} on PATH") from None
    except PermissionError:
        raise SecretError(f"{at}: {argv[0]} cannot be run (permission denied)") from None
    except subprocess.TimeoutExpired:
        raise SecretError(
            f"{at}: the command did not finish in {COMMAND_TIMEOUT_S:.0f} s"
        ) from None
    except OSError as exc:
        raise SecretError(f"{at}: {argv[0]} cannot be run ({exc.strerror})") from None
    if done.returncode != 0:
        raise SecretError(
            f"{at}: the command failed with exit code {done.returncode} (its output is not "
            "shown: it may hold the secret)"
        )
    try:
        line = done.stdout.decode("utf-8").split("\n", 1)[0].rstrip("\r")
    except UnicodeDecodeError:
        raise SecretError(f"{at}: the command printed no UTF-8 text") from None
    if not line:
        raise SecretError(f"{at}: the command printed an empty first line")
    return line


def _service_user(ref: str) -> tuple[str, str] | None:
    service, _, user = ref.rpartition("/")
    return (service, user) if service and user else None


def _read_keyring(source: SecretSource) -> str:
    """The keyring entry SERVICE/USERNAME (split at the last slash), with keyring's own
    choice of backend (PYTHON_KEYRING_BACKEND or keyring's config file choose another)."""
    import keyring
    import keyring.errors

    service, user = _service_user(source.ref) or ("", "")
    at = f"{source.where}: {source.key}"
    try:
        value = keyring.get_password(service, user)
    except keyring.errors.NoKeyringError:
        raise SecretError(
            f"{at}: no keyring backend is available here (set PYTHON_KEYRING_BACKEND, or use "
            f"{source.setting}_command)"
        ) from None
    except Exception as exc:  # a backend's own failure (D-Bus, a locked store): named, not shown
        raise SecretError(f"{at}: the keyring backend failed ({type(exc).__name__})") from None
    if value is None:
        raise SecretError(f"{at}: the keyring has no entry for service '{service}', user '{user}'")
    return value


def _encrypted_pem(path: str | None) -> bool:
    """Whether a PEM file holds an encrypted private key (then it needs ssl_password)."""
    if not path or not os.path.isfile(path):
        return False
    try:
        with open(path, "rb") as file:
            text = file.read(1 << 20)
    except OSError:
        return False
    return b"ENCRYPTED PRIVATE KEY" in text or b"Proc-Type: 4,ENCRYPTED" in text
