"""A SCRAM user's password from a command, the OS keyring, the terminal's hidden prompt (a real
pseudo-terminal) and the TUI's dialog, logging in to the secured dev cluster; and never
shown: not in the output, -v, the errors or the audit log."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pexpect
import pytest
from textual.screen import Screen
from textual.widgets import Input, Static

from kafka_tui import secrets
from kafka_tui.config import load_settings
from kafka_tui.tui.app import KafkaTuiApp, make_app
from kafka_tui.tui.screens.metadata import MetadataScreen
from kafka_tui.tui.screens.profiles import ProfilePicker
from kafka_tui.tui.screens.secret import SecretDialog
from kafka_tui.tui.widgets.topic_table import TopicTable

from ..conftest import SecuredCluster
from .test_security import assert_no_secret

Names = Callable[[str], str]
S = TypeVar("S", bound=Screen[Any])
PY = sys.executable
# the profile's audit_log is the log (the test session's $KAFKA_TUI_AUDIT_LOG would win)
ENV = {k: v for k, v in os.environ.items() if k != "KAFKA_TUI_AUDIT_LOG"}


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    secrets.forget()
    yield
    secrets.forget()


def config_file(tmp_path: Path, c: SecuredCluster, user: str, **keys: str) -> Path:
    """A profile `p` logging in as `user`, its password from `keys`' source (or asked)."""
    extra = "".join(f"{k} = {json.dumps(v)}\n" for k, v in keys.items())
    path = tmp_path / "config.toml"
    path.write_text(
        f'[profiles.p]\nbootstrap_servers = "{c.bootstrap_servers}"\n'
        'security_protocol = "SASL_SSL"\nsasl_mechanism = "SCRAM-SHA-512"\n'
        f'sasl_username = "{user}"\nssl_cafile = "{c.ca_file}"\n'
        f'audit_log = "{tmp_path / "audit.jsonl"}"\n{extra}'
    )
    return path


def run(
    config: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """A whole process off a terminal (stdin is no tty), with the Kafka client's log (-v)."""
    return subprocess.run(
        [PY, "-m", "kafka_tui.cli", "-v", "--config-file", str(config), "--output", "json", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        env=env or ENV,
    )


def test_the_password_from_a_command_logs_in_and_is_never_shown(
    secured_kraft_cluster: SecuredCluster, tmp_path: Path, topic_name: Names
) -> None:
    c = secured_kraft_cluster
    store = tmp_path / "store"  # `pass show`'s stand-in: prints the stored password
    store.write_text(c.users["admin"] + "\n")
    config = config_file(
        tmp_path, c, "admin", sasl_password_command=f"{PY} -c 'print(open(\"{store}\").read())'"
    )
    name = "team-" + topic_name("cmd")
    made = run(config, "topics", "create", name, "--partitions", "1", "--replication-factor", "2")
    assert made.returncode == 0, made.stderr
    listed = run(config, "topics", "list")
    assert listed.returncode == 0, listed.stderr
    assert name in listed.stdout
    gone = run(config, "topics", "delete", name, "--yes")
    assert gone.returncode == 0, gone.stderr
    audit = (tmp_path / "audit.jsonl").read_text()
    assert name in audit
    assert_no_secret(c, audit, *(p.stdout + p.stderr for p in (made, listed, gone)))


def test_a_failing_command_says_its_exit_code_and_never_its_output(
    secured_kraft_cluster: SecuredCluster, tmp_path: Path
) -> None:
    c = secured_kraft_cluster
    secret = c.users["admin"]
    leaky = f"import sys; print({secret!r}); sys.stderr.write({secret!r}); sys.exit(4)"
    config = config_file(tmp_path, c, "admin", sasl_password_command=f"{PY} -c {leaky!r}")
    done = run(config, "topics", "list")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"kafka-tui: {config}: profile 'p': sasl_password_command: the command failed with exit "
        "code 4 (its output is not shown: it may hold the secret)\n"
    )
    assert_no_secret(c, done.stderr)


def test_the_password_from_the_keyring_logs_in(
    secured_kraft_cluster: SecuredCluster, tmp_path: Path
) -> None:
    c = secured_kraft_cluster
    # keyrings.alt's file backend, in a temp dir: the one backend that works headless here
    # (no D-Bus for the Secret Service; keyring's own fail backend is the default without it)
    env = {
        **ENV,
        "PYTHON_KEYRING_BACKEND": "keyrings.alt.file.PlaintextKeyring",
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    setting = "import keyring, sys; keyring.set_password('kafka/dev', 'viewer', sys.stdin.read())"
    subprocess.run([PY, "-c", setting], input=c.users["viewer"], env=env, check=True, text=True)
    config = config_file(tmp_path, c, "viewer", sasl_password_keyring="kafka/dev/viewer")
    done = run(config, "cluster", "describe", env=env)
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["brokers"]) == 2
    assert_no_secret(c, done.stdout, done.stderr)

    missing = config_file(tmp_path, c, "viewer", sasl_password_keyring="kafka/dev/nobody")
    done = run(missing, "cluster", "describe", env=env)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"kafka-tui: {missing}: profile 'p': sasl_password_keyring: the keyring has no entry for "
        "service 'kafka/dev', user 'nobody'\n"
    )
    none = {**env, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    done = run(missing, "cluster", "describe", env=none)
    assert done.returncode == 2
    assert done.stderr.endswith(
        "sasl_password_keyring: no keyring backend is available here (set "
        "PYTHON_KEYRING_BACKEND, or use sasl_password_command)\n"
    )


def test_the_password_asked_on_the_terminal_logs_in_and_is_never_echoed(
    secured_kraft_cluster: SecuredCluster, tmp_path: Path, topic_name: Names
) -> None:
    c = secured_kraft_cluster
    config = config_file(tmp_path, c, "admin")
    name = "team-" + topic_name("tty")
    args = ["-m", "kafka_tui.cli", "-v", "--config-file", str(config), "--output", "json"]
    args += ["topics", "create", name, "--replication-factor", "2"]
    child = pexpect.spawn(PY, args, encoding="utf-8", timeout=120, dimensions=(24, 200), env=ENV)
    transcript: list[str] = []
    child.logfile_read = _Collect(transcript)
    child.expect_exact(f"sasl_password for admin ({config}: profile 'p'): ")
    child.sendline(c.users["admin"])
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, "".join(transcript)
    seen = "".join(transcript)
    assert f'"topic": "{name}"' in seen or name in seen
    audit = (tmp_path / "audit.jsonl").read_text()
    assert name in audit
    assert_no_secret(c, seen, audit)  # hidden input: the terminal never echoed it
    done = run(config, "topics", "list")  # off a terminal, the same profile is a usage error
    assert done.returncode == 2 and "sasl_password is needed and not given" in done.stderr
    assert subprocess.run(
        [PY, "-m", "kafka_tui.cli", "--bootstrap-server", c.bootstrap_servers, "--command-config",
         str(_admin_properties(tmp_path, c)), "topics", "delete", name, "--yes"],
        capture_output=True, check=False, timeout=120,
    ).returncode == 0  # fmt: skip


class _Collect:
    def __init__(self, into: list[str]) -> None:
        self.into = into

    def write(self, text: str) -> None:
        self.into.append(text)

    def flush(self) -> None:
        pass


def _admin_properties(tmp_path: Path, c: SecuredCluster) -> Path:
    path = tmp_path / "admin.properties"
    scram = "org.apache.kafka.common.security.scram.ScramLoginModule"
    path.write_text(
        "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n"
        f'sasl.jaas.config={scram} required username="admin" password="{c.users["admin"]}";\n'
        f"ssl.truststore.type=PEM\nssl.truststore.location={c.ca_file}\n"
    )
    return path


def test_a_command_config_without_a_password_asks_on_the_terminal(
    secured_kraft_cluster: SecuredCluster, tmp_path: Path
) -> None:
    c = secured_kraft_cluster
    properties = _admin_properties(tmp_path, c)
    properties.write_text(properties.read_text().replace(f' password="{c.users["admin"]}"', ""))
    args = ["-m", "kafka_tui.cli", "--bootstrap-server", c.bootstrap_servers, "--command-config"]
    child = pexpect.spawn(PY, [*args, str(properties), "cluster", "describe"], encoding="utf-8",
                          timeout=120)  # fmt: skip
    transcript: list[str] = []
    child.logfile_read = _Collect(transcript)
    child.expect_exact(
        f"sasl_password for admin ({properties} (sasl.jaas.config has no password=)): "
    )
    child.sendline(c.users["admin"])
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, "".join(transcript)
    assert_no_secret(c, "".join(transcript))


async def test_the_tui_asks_in_a_dialog_and_connects(
    secured_kraft_cluster: SecuredCluster, tmp_path: Path
) -> None:
    c = secured_kraft_cluster
    settings = load_settings(config_file(tmp_path, c, "viewer"))
    profile = settings.profiles["p"]
    app = make_app(settings, profile, refresh_seconds=0)
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await _until(app, SecretDialog)
        assert str(dialog.query_one("#secret-for", Static).render()) == (
            f"sasl_password for viewer ({tmp_path / 'config.toml'}: profile 'p')"
        )
        await pilot.press(*c.users["viewer"])
        field = dialog.query_one("#secret", Input)
        assert field.password and c.users["viewer"] not in str(field.render_line(0).text)
        await pilot.press("enter")
        screen = await _until(app, MetadataScreen)
        await asyncio.wait_for(screen.loaded.wait(), 60)
        await app.workers.wait_for_complete()
        assert screen.query_one(TopicTable).rows is not None
        assert screen.profile.connection.sasl_password == c.users["viewer"]
        rendered = "".join(str(w.render()) for w in screen.query(Static))
        assert_no_secret(c, rendered)
        # a second open of the profile this process (the picker, a switch) asks nothing
        app.open_profile(profile)
        screen = await _until(app, MetadataScreen, other_than=screen)
        await asyncio.wait_for(screen.loaded.wait(), 60)
        assert screen.profile.connection.sasl_password == c.users["viewer"]
        assert not list(app.query(SecretDialog))


async def test_cancelling_the_dialog_leaves_the_app_cleanly(
    secured_kraft_cluster: SecuredCluster, tmp_path: Path
) -> None:
    settings = load_settings(config_file(tmp_path, secured_kraft_cluster, "viewer"))
    app = make_app(settings, settings.profiles["p"], refresh_seconds=0)
    async with app.run_test(size=(100, 30)) as pilot:
        await _until(app, SecretDialog)
        await pilot.press("escape")
        await _exited(app)
    assert app.return_code == 2
    assert app.admin is None  # it never connected


async def test_from_the_picker_a_failing_source_or_a_cancel_stays_on_the_picker(
    secured_kraft_cluster: SecuredCluster, tmp_path: Path
) -> None:
    c = secured_kraft_cluster
    config = config_file(tmp_path, c, "viewer", sasl_password_command="false")
    config.write_text(
        config.read_text() + f'\n[profiles.q]\nbootstrap_servers = "{c.bootstrap_servers}"\n'
        'security_protocol = "SASL_SSL"\nsasl_mechanism = "SCRAM-SHA-512"\n'
        f'sasl_username = "viewer"\nssl_cafile = "{c.ca_file}"\n'
    )
    app = make_app(load_settings(config), refresh_seconds=0)
    async with app.run_test(size=(100, 30)) as pilot:
        await _until(app, ProfilePicker)
        await pilot.press("enter")  # p: its command fails
        note = await _notified(app)
        assert note == f"{config}: profile 'p': sasl_password_command: the command failed with " \
            "exit code 1 (its output is not shown: it may hold the secret)"  # fmt: skip
        assert isinstance(app.screen, ProfilePicker)
        await pilot.press("down", "enter")  # q: asked, cancelled
        await _until(app, SecretDialog)
        await pilot.press("escape")
        await _until(app, ProfilePicker)
        assert app.admin is None and app.is_running


async def _until(
    app: KafkaTuiApp, kind: type[S], other_than: object = None, within: float = 60
) -> S:
    """The app's screen once it is a `kind` (polled: a worker reads the sources first)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        screen = app.screen
        if isinstance(screen, kind) and screen is not other_than and screen.is_mounted:
            await app.animator.wait_until_complete()
            if list(screen.query("*")):  # composed
                return screen
        await asyncio.sleep(0.05)
    raise AssertionError(f"no {kind.__name__} within {within} s; on {app.screen}")


async def _exited(app: KafkaTuiApp, within: float = 30) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if app.return_code is not None:
            return
        await asyncio.sleep(0.05)


async def _notified(app: KafkaTuiApp, within: float = 60) -> str:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        notes = list(app._notifications)
        if notes:
            return str(notes[-1].message)
        await asyncio.sleep(0.05)
    raise AssertionError("no notification")
