"""Where a profile's secrets come from (secrets.py): each source, which one wins, the errors.

No JVM: the command is a real process, the keyring a real backend (keyrings.alt's
PlaintextKeyring in a temp dir; keyring's own fail backend for "none here"), the terminal a
real pseudo-terminal in tests/integration/test_secret_sources.py.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keyring
import pexpect
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from keyring.backends import fail
from keyrings.alt.file import PlaintextKeyring

from kafka_tui import secrets
from kafka_tui.config import ConfigError, Profile, parse_settings, with_command_config, with_secrets

SECRET = "pw-7d1c-never-shown"
PY = sys.executable
SASL = {
    "bootstrap_servers": "h:1",
    "security_protocol": "SASL_SSL",
    "sasl_mechanism": "SCRAM-SHA-512",
    "sasl_username": "alice",
}


def profile(**keys: Any) -> Profile:
    return parse_settings({"profiles": {"p": {**SASL, **keys}}}, Path("kt.toml")).profiles["p"]


def command(code: str) -> str:
    """A command line running Python `code` (quoted for shlex, as an operator writes one)."""
    return f"{PY} -c {code!r}"


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    secrets.forget()
    yield
    secrets.forget()


@pytest.fixture
def file_keyring(tmp_path: Path) -> Iterator[PlaintextKeyring]:
    backend = PlaintextKeyring()
    backend.file_path = str(tmp_path / "keyring_pass.cfg")  # type: ignore[misc]
    before = keyring.get_keyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(before)


def no_ask(question: secrets.SecretSource) -> str:
    raise AssertionError(f"asked for {question.setting}")


def test_a_command_gives_the_first_line_of_its_output_once_per_process(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    code = f"open({str(runs)!r}, 'a').write('x'); print({SECRET!r}); print('second line')"
    p = profile(sasl_password_command=command(code))
    assert p.connection.sasl_password is None  # nothing runs when the file is read
    assert SECRET not in repr(p)
    first = with_secrets(p, no_ask)
    again = with_secrets(p, no_ask)
    assert first.connection.sasl_password == again.connection.sasl_password == SECRET
    assert runs.read_text() == "x"  # run once for the process
    assert SECRET not in repr(first)


def test_a_command_runs_without_a_shell() -> None:
    # a shell would expand $HOME and run the second command; without one they are words
    p = profile(sasl_password_command=command("import sys; print(sys.argv[1:])") + " $HOME ; x")
    assert with_secrets(p, no_ask).connection.sasl_password == "['$HOME', ';', 'x']"


@pytest.mark.parametrize(
    ("line", "says"),
    [
        (
            command(f"import sys; print({SECRET!r}); sys.stderr.write({SECRET!r}); sys.exit(3)"),
            "kt.toml: profile 'p': sasl_password_command: the command failed with exit code 3 "
            "(its output is not shown: it may hold the secret)",
        ),
        (
            "no-such-program-kafka-tui show kafka",
            "kt.toml: profile 'p': sasl_password_command: no program "
            "no-such-program-kafka-tui on PATH",
        ),
        (
            command("print()"),
            "kt.toml: profile 'p': sasl_password_command: the command printed an empty first line",
        ),
    ],
)
def test_a_failing_command_names_the_setting_never_its_output(line: str, says: str) -> None:
    with pytest.raises(ConfigError) as failure:
        with_secrets(profile(sasl_password_command=line), no_ask)
    assert str(failure.value) == says
    assert SECRET not in str(failure.value)


def test_a_keyring_entry_gives_the_secret(file_keyring: PlaintextKeyring) -> None:
    file_keyring.set_password("kafka/prod", "alice", SECRET)
    p = profile(sasl_password_keyring="kafka/prod/alice")  # split at the last slash
    assert with_secrets(p, no_ask).connection.sasl_password == SECRET
    assert SECRET not in Path(file_keyring.file_path).read_text()  # base64 in the file, at least


def test_a_missing_keyring_entry_or_backend_is_one_line(file_keyring: PlaintextKeyring) -> None:
    p = profile(sasl_password_keyring="kafka/nobody")
    with pytest.raises(ConfigError) as failure:
        with_secrets(p, no_ask)
    assert str(failure.value) == (
        "kt.toml: profile 'p': sasl_password_keyring: the keyring has no entry for service "
        "'kafka', user 'nobody'"
    )
    keyring.set_keyring(fail.Keyring())
    with pytest.raises(ConfigError) as failure:
        with_secrets(p, no_ask)
    assert str(failure.value) == (
        "kt.toml: profile 'p': sasl_password_keyring: no keyring backend is available here "
        "(set PYTHON_KEYRING_BACKEND, or use sasl_password_command)"
    )


@pytest.mark.parametrize(
    ("keys", "says"),
    [
        (
            {"sasl_password_env": "X", "sasl_password_command": "pass show kafka"},
            "kt.toml: profile 'p': give one source for sasl_password, not sasl_password_env "
            "and sasl_password_command",
        ),
        (
            {"ssl_password_command": "a", "ssl_password_keyring": "s/u"},
            "give one source for ssl_password, not ssl_password_command and ssl_password_keyring",
        ),
        (
            {"sasl_password_command": "pass show 'kafka"},
            "'sasl_password_command' must be a command line, e.g. \"pass show kafka\"",
        ),
        (
            {"sasl_password_keyring": "kafka"},
            "'sasl_password_keyring' must be SERVICE/USERNAME, e.g. \"kafka/alice\"",
        ),
        ({"sasl_password_keyring": 3}, "'sasl_password_keyring' must be a str"),
        ({"sasl_password_vault": "x"}, "unknown key(s) ['sasl_password_vault']"),
    ],
)
def test_a_bad_source_is_a_config_error(keys: dict[str, Any], says: str) -> None:
    with pytest.raises(ConfigError) as failure:
        profile(**keys)
    assert says in str(failure.value)


def test_the_connections_secret_settings_take_a_command_and_a_keyring() -> None:
    # Only settings of the connection itself: OAUTHBEARER's token command is a setting of its
    # own (run again for each new token), not a source of a `sasl_oauthbearer_token` secret.
    keys = ["sasl_password_env", "ssl_password_env", "sasl_oauthbearer_token_env", "client_id"]
    assert secrets.source_keys(keys) == {
        "sasl_password_command": str,
        "sasl_password_keyring": str,
        "ssl_password_command": str,
        "ssl_password_keyring": str,
    }
    assert secrets.profile_sources({"sasl_oauthbearer_token_command": "get-token"}, "p") == ()


def test_a_password_in_the_command_config_wins_over_the_profiles_source(tmp_path: Path) -> None:
    scram = "org.apache.kafka.common.security.scram.ScramLoginModule"
    config = tmp_path / "client.properties"
    config.write_text(
        "sasl.mechanism=SCRAM-SHA-512\n"
        f'sasl.jaas.config={scram} required username="bob" password="{SECRET}";\n'
    )
    p = profile(sasl_password_command="false")  # would fail if it ran
    p = with_command_config(p, config)
    resolved = with_secrets(p, no_ask)
    assert (resolved.connection.sasl_username, resolved.connection.sasl_password) == ("bob", SECRET)


def test_a_command_config_without_a_password_takes_the_profiles_or_asks(tmp_path: Path) -> None:
    scram = "org.apache.kafka.common.security.scram.ScramLoginModule"
    config = tmp_path / "client.properties"
    config.write_text(
        f'sasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config={scram} required username="bob";\n'
    )
    from_command = with_command_config(profile(sasl_password_command=command("print('c')")), config)
    assert with_secrets(from_command, no_ask).connection.sasl_password == "c"
    bare = with_command_config(profile(), config)
    with pytest.raises(ConfigError) as failure:
        with_secrets(bare, None)
    assert str(failure.value) == (
        f"{config} (sasl.jaas.config has no password=): sasl_password is needed and not given: "
        "set sasl_password_env, sasl_password_command or sasl_password_keyring in the profile, "
        "or run kafka-tui on a terminal to be asked"
    )
    asked: list[str] = []

    def ask(question: secrets.SecretSource) -> str:
        asked.append(secrets.prompt_text(question))
        return SECRET

    assert with_secrets(bare, ask).connection.sasl_password == SECRET
    assert with_secrets(bare, ask).connection.sasl_password == SECRET  # once per process
    assert asked == [f"sasl_password for bob ({config} (sasl.jaas.config has no password=))"]


def test_a_needed_secret_is_asked_once_and_only_when_no_source_gives_it() -> None:
    asked: list[str] = []

    def ask(question: secrets.SecretSource) -> str:
        asked.append(question.setting)
        return SECRET

    p = profile()
    assert with_secrets(p, ask).connection.sasl_password == SECRET
    assert with_secrets(p, ask).connection.sasl_password == SECRET
    assert asked == ["sasl_password"]
    # a profile that needs no password (no SASL) is not asked anything
    plain = parse_settings({"profiles": {"q": {"bootstrap_servers": "h:1"}}}).profiles["q"]
    assert with_secrets(plain, no_ask).connection.sasl_password is None
    # the source wins over the question
    sourced = profile(sasl_password_command=command("print('from-command')"))
    assert with_secrets(sourced, no_ask).connection.sasl_password == "from-command"


def test_an_empty_or_missing_answer_is_an_error() -> None:
    with pytest.raises(ConfigError) as failure:
        with_secrets(profile(), lambda q: "")
    assert str(failure.value) == "kt.toml: profile 'p': no sasl_password was typed"
    with pytest.raises(ConfigError) as failure:
        with_secrets(profile(), lambda q: None)
    assert str(failure.value) == "kt.toml: profile 'p': no sasl_password was given"


def test_an_encrypted_key_file_needs_its_password(tmp_path: Path) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    encrypted = tmp_path / "client.key"
    encrypted.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(b"key-pass"),
        )
    )
    plain = tmp_path / "plain.key"
    plain.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    body = {"bootstrap_servers": "h:1", "security_protocol": "SSL", "ssl_certfile": str(plain)}
    tls = parse_settings({"profiles": {"t": {**body, "ssl_keyfile": str(encrypted)}}})
    with pytest.raises(ConfigError) as failure:
        with_secrets(tls.profiles["t"], None)
    assert "profile 't': ssl_password is needed and not given" in str(failure.value)
    unlocked = parse_settings({"profiles": {"t": {**body, "ssl_keyfile": str(plain)}}})
    assert with_secrets(unlocked.profiles["t"], no_ask).connection.ssl_password is None


def test_off_a_terminal_a_missing_secret_is_a_usage_error(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        '[profiles.prod]\nbootstrap_servers = "127.0.0.1:1"\nsecurity_protocol = "SASL_SSL"\n'
        'sasl_mechanism = "SCRAM-SHA-512"\nsasl_username = "alice"\n'
    )
    done = subprocess.run(
        [PY, "-m", "kafka_tui.cli", "--config-file", str(config), "topics", "list"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"kafka-tui: {config}: profile 'prod': sasl_password is needed and not given: set "
        "sasl_password_env, sasl_password_command or sasl_password_keyring in the profile, or "
        "run kafka-tui on a terminal to be asked\n"
    )


def _no_broker_config(tmp_path: Path) -> Path:
    config = tmp_path / "config.toml"
    config.write_text(
        '[profiles.p]\nbootstrap_servers = "127.0.0.1:1"\nsecurity_protocol = "SASL_PLAINTEXT"\n'
        'sasl_mechanism = "SCRAM-SHA-512"\nsasl_username = "alice"\nrequest_timeout_ms = 2000\n'
    )
    return config


def test_on_a_terminal_the_password_is_asked_hidden(tmp_path: Path) -> None:
    config = _no_broker_config(tmp_path)
    args = ["-m", "kafka_tui.cli", "--config-file", str(config), "topics", "list"]
    child = pexpect.spawn(PY, args, encoding="utf-8", timeout=60)
    child.expect_exact(f"sasl_password for alice ({config}: profile 'p'): ")
    child.sendline(SECRET)
    child.expect(pexpect.EOF)
    child.close()
    # asked, then used: no broker there, so the connection is what fails
    assert child.exitstatus == 2 and "kafka-tui: Cannot connect" in str(child.before)
    assert SECRET not in str(child.before)  # never echoed


def test_cancelling_the_tuis_dialog_ends_it_with_a_sentence(tmp_path: Path) -> None:
    config = _no_broker_config(tmp_path)
    args = ["-m", "kafka_tui.cli", "--config-file", str(config)]
    child = pexpect.spawn(PY, args, encoding="utf-8", timeout=60, dimensions=(30, 100))
    child.expect_exact("sasl_password needed")
    child.send("\x1b")  # Escape
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
    assert str(child.before).endswith(
        f"kafka-tui: {config}: profile 'p': no sasl_password was given; not connected\r\n"
    )
