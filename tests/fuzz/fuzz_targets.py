"""What the fuzzers generate and what they check, shared by tests/fuzz/test_fuzz.py (a few hundred
derandomized examples per target, in CI) and bench/fuzz.py (10,000 with a fresh seed).

Each target's `check` gets one generated input and returns None (accepted) or the message of
the expected error (rejected); any other exception, or a broken promise, is a failure.
"""

from __future__ import annotations

import atexit
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

Check = Callable[[Any], str | None]


@dataclass(frozen=True)
class Target:
    name: str
    strategy: st.SearchStrategy[Any]
    check: Check


TARGETS: dict[str, Target] = {}


def target(name: str, strategy: st.SearchStrategy[Any]) -> Callable[[Check], Check]:
    def register(check: Check) -> Check:
        TARGETS[name] = Target(name, strategy, check)
        return check

    return register


def pattern(message: str) -> str:
    """A message reduced to its kind: no place prefix, quoted parts, numbers or paths."""
    text = re.sub(r"'[^']*'|\"[^\"]*\"|`[^`]*`", "Q", message, flags=re.DOTALL)
    text = text.splitlines()[0] if text.strip() else ""
    text = re.sub(r"^\S*?:\d+(:\d+)?:? ", "", text)  # file:line[:column]:
    text = re.sub(r"[\w$.]*LoginModule", "M", text)
    text = re.sub(r"/\S*", "P", text)
    text = re.sub(r"\d+", "N", text)
    return " ".join(text.split()[:7])


def inside_text(text: str, line: int, column: int) -> bool:
    lines = text.split("\n")
    return 1 <= line <= len(lines) and 1 <= column <= len(lines[line - 1]) + 1


# -- generic text -------------------------------------------------------------------------------

# Characters parsers trip over: separators, quotes, escapes, odd line breaks and whitespace.
_AWKWARD = (
    ",:;=[]{}\"'\\#!$^*+?()|.-_ \t\n\r\x00\x0b\x0c\x1c\x85\xa0\u2028\u3000"
    "0123456789²\u0661\U0001f600\ud800"
)
awkward_text = st.text(alphabet=st.sampled_from(_AWKWARD) | st.characters(), max_size=60)


@st.composite
def mutated(draw: st.DrawFn, base: st.SearchStrategy[str]) -> str:
    """A valid string with a few characters or slices deleted, inserted, swapped or doubled."""
    text = draw(base)
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["delete", "insert", "replace", "repeat", "cut"]))
        width = draw(st.integers(1, 8))
        if op == "delete":
            text = text[:at] + text[at + width :]
        elif op == "insert":
            text = text[:at] + draw(awkward_text)[:width] + text[at:]
        elif op == "replace":
            text = text[:at] + draw(st.sampled_from(_AWKWARD)) + text[at + 1 :]
        elif op == "repeat":
            text = text[:at] + text[at : at + width] * draw(st.integers(2, 5)) + text[at:]
        else:
            text = text[:at]
    return text


def near(valid: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(valid, mutated(valid), awkward_text, st.text(max_size=80))


_SCRATCH: list[str] = []


@contextmanager
def temp_dir() -> Iterator[str]:
    """One scratch folder for the whole run (a folder per example costs more than the check)."""
    if not _SCRATCH:
        _SCRATCH.append(tempfile.mkdtemp(prefix="kafka-tui-fuzz-"))
        atexit.register(shutil.rmtree, _SCRATCH[0], True)
    yield _SCRATCH[0]


INT32 = (-(2**31), 2**31 - 1)
big_ints = st.one_of(
    st.integers(-5, 40),
    st.sampled_from([0, 2**15 - 1, 2**15, 2**31 - 1, 2**31, -(2**31) - 1, 2**63, 10**30]),
    st.integers(),
)


# -- 1. topic names, TopicSpec, NewPartitions ---------------------------------------------------

_NAME_CHARS = "abcXYZ019._-"


def kafka_legal_name(name: str) -> bool:
    """Kafka's rule (org.apache.kafka.common.internals.Topic.validate), restated."""
    return (
        0 < len(name) <= 249
        and name not in (".", "..")
        and all(c in "._-" or (c.isascii() and c.isalnum()) for c in name)
    )


topic_names = st.one_of(
    st.text(alphabet=_NAME_CHARS, max_size=12),
    st.text(alphabet=_NAME_CHARS, min_size=245, max_size=252),
    st.sampled_from(["", ".", "..", "...", "a" * 249, "a" * 250, "ä", "a b", "a/b", "\u0661"]),
    awkward_text,
)


@target("topic_names", topic_names)
def check_topic_name(name: str) -> str | None:
    from kafka_tui.admin.validation import check_name, collision_warning, topic_name_problem

    problem = topic_name_problem(name)
    assert (problem is None) == kafka_legal_name(name), (name, problem)
    assert (collision_warning(name) is not None) == ("." in name and "_" in name)
    error = check_name(name)
    if problem is None:
        assert error is None
        return None
    assert problem.strip() and error is not None
    assert error.name == "INVALID_TOPIC_EXCEPTION" and problem in str(error)
    return problem


def _fits_the_wire(lists: list[list[int]]) -> bool:
    return all(0 <= b <= INT32[1] for replicas in lists for b in replicas)


replica_lists_strategy = st.lists(st.lists(big_ints, max_size=4), max_size=4)
topic_specs = st.builds(
    lambda name, partitions, factor, assignment, configs: (
        name,
        partitions,
        factor,
        assignment,
        configs,
    ),
    st.sampled_from(["t", "a.b", "t", "a.b", "bad name", ""]),
    st.none() | big_ints,
    st.none() | big_ints,
    st.none()
    | st.none()
    | st.dictionaries(st.integers(-2, 5) | big_ints, st.lists(big_ints, max_size=4), max_size=4)
    | replica_lists_strategy.map(lambda lists: dict(enumerate(lists))),
    st.dictionaries(st.sampled_from(["", " ", "retention.ms", "x"]), st.text(max_size=5)),
)
_SPEC_ERRORS = {
    "INVALID_TOPIC_EXCEPTION",
    "INVALID_REQUEST",
    "INVALID_REPLICA_ASSIGNMENT",
    "INVALID_PARTITIONS",
    "INVALID_REPLICATION_FACTOR",
    "INVALID_CONFIG",
}


@target("topic_specs", topic_specs)
def check_topic_spec(drawn: tuple[Any, ...]) -> str | None:
    """Accepted specs are what Kafka accepts and can carry (int32 counts and ids, int16 RF)."""
    from kafka_tui.admin.errors import ValidationError
    from kafka_tui.admin.model import TopicSpec
    from kafka_tui.admin.validation import check_spec

    name, partitions, factor, assignment, configs = drawn
    spec = TopicSpec(name, partitions, factor, assignment, configs)
    error = check_spec(spec)
    # The placer's own lists go unchecked (lists=False): every other refusal is the same.
    unchecked = check_spec(spec, lists=False)
    if error is None or error.name != "INVALID_REPLICA_ASSIGNMENT":
        assert str(unchecked) == str(error), (unchecked, error)
    else:
        assert assignment is not None
    if error is not None:
        assert isinstance(error, ValidationError) and error.name in _SPEC_ERRORS
        assert str(error).strip() and error.topic == name
        return str(error)
    assert kafka_legal_name(name) and all(k.strip() for k in configs)
    assert partitions is None or 1 <= partitions <= INT32[1], partitions
    assert factor is None or 1 <= factor <= 2**15 - 1, factor
    if assignment is not None:
        assert partitions is None and factor is None
        assert sorted(assignment) == list(range(len(assignment))) and assignment
        lists = list(assignment.values())
        assert len({len(r) for r in lists}) == 1 and all(len(set(r)) == len(r) for r in lists)
        assert _fits_the_wire(lists) and all(lists) and len(lists) <= INT32[1]
    return None


new_partitions = st.tuples(
    st.sampled_from(["t", "x"]),
    big_ints,
    st.none() | replica_lists_strategy,
    st.integers(0, 6) | big_ints,
    st.integers(1, 4) | big_ints,
)


@target("new_partitions", new_partitions)
def check_new_partitions(drawn: tuple[Any, ...]) -> str | None:
    from kafka_tui.admin.errors import ValidationError
    from kafka_tui.admin.model import NewPartitions
    from kafka_tui.admin.validation import check_new_partitions as check

    topic, total, assignment, current, factor = drawn
    error = check(NewPartitions(topic, total, assignment), current, factor)
    if error is not None:
        assert isinstance(error, ValidationError) and error.name in _SPEC_ERRORS
        assert str(error).strip()
        return str(error)
    assert current < total <= INT32[1], (current, total)
    if assignment is not None:
        assert len(assignment) == total - current
        assert all(len(r) == factor and len(set(r)) == factor for r in assignment)
        assert _fits_the_wire(assignment)
    return None


# -- 2. command-line formats: assignments, regexes, configs -------------------------------------


def format_lists(lists: list[list[int]]) -> str:
    return ",".join(":".join(map(str, replicas)) for replicas in lists)


valid_assignments = st.lists(
    st.lists(st.integers(0, 2**31 - 1) | st.integers(0, 9), min_size=1, max_size=4),
    min_size=1,
    max_size=5,
).map(format_lists)


@target("replica_assignments", near(valid_assignments))
def check_replica_assignment(text: str) -> str | None:
    from kafka_tui.cli.words import field_error_text
    from kafka_tui.fields import Field, FieldError
    from kafka_tui.services.parsing import replica_assignment, replica_lists

    try:
        lists = replica_lists(text)
    except FieldError as exc:
        assert exc.field is Field.REPLICA_ASSIGNMENT, exc
        assert field_error_text(exc).startswith("--replica-assignment "), exc
        return field_error_text(exc)
    assert lists and all(lists)
    assert all(INT32[0] <= b <= INT32[1] for replicas in lists for b in replicas), lists
    assert replica_lists(format_lists(lists)) == lists
    assert replica_assignment(text) == dict(enumerate(lists))
    return None


@target("topic_regexes", near(st.sampled_from(["orders.*", "a|b", "[a-z]+_v\\d", "x{2,3}"])))
def check_topic_regex(text: str) -> str | None:
    from kafka_tui.cli.words import field_error_text
    from kafka_tui.fields import Field, FieldError
    from kafka_tui.services.parsing import topic_regex

    try:
        compiled = topic_regex(text)
    except FieldError as exc:
        assert exc.field is Field.TOPIC_PATTERN and "regular expression" in exc.message
        assert field_error_text(exc).startswith("--topic "), exc
        return field_error_text(exc)
    assert compiled.pattern == text
    return None


config_keys = st.text(alphabet="abcz.-_09", min_size=1, max_size=12)
config_values = st.text(alphabet="abc019 .:=-[]/", max_size=12) | st.text(max_size=8)


def format_add_config(configs: dict[str, str]) -> str:
    """kafka-configs.sh's --add-config: a value with a comma (or in brackets) gets brackets."""

    def value(v: str) -> str:
        return f"[{v}]" if "," in v or (v.startswith("[") and v.endswith("]")) else v

    return ",".join(f"{k}={value(v)}" for k, v in configs.items())


def _add_config_value(value: str) -> bool:
    """Values --add-config can carry: no surrounding space, no ']' inside brackets."""
    return value == value.strip() and not ("," in value and "]" in value)


valid_add_configs = st.dictionaries(
    config_keys, config_values.filter(_add_config_value), min_size=1, max_size=4
)


@target(
    "config_strings",
    st.tuples(
        near(valid_add_configs.map(format_add_config)),
        st.lists(near(st.tuples(config_keys, config_values).map("=".join)), max_size=4),
        near(st.lists(config_keys, min_size=1, max_size=4).map(",".join)),
    ),
)
def check_config_strings(drawn: tuple[str, list[str], str]) -> str | None:
    from kafka_tui.cli.words import field_error_text
    from kafka_tui.fields import FieldError
    from kafka_tui.services.parsing import add_config, config_pairs, delete_config

    add_text, pairs, delete_text = drawn
    rejected = []
    try:
        added = add_config(add_text)
        if all(_add_config_value(v) and "]" not in v for v in added.values()):
            assert add_config(format_add_config(added)) == added, added
    except FieldError as exc:
        assert field_error_text(exc).startswith("--add-config "), exc
        rejected.append(field_error_text(exc))
    try:
        configs = config_pairs(pairs)
        assert config_pairs([f"{k}={v}" for k, v in configs.items()]) == configs
        assert all(k == k.strip() and k for k in configs)
    except FieldError as exc:
        assert field_error_text(exc).startswith("--config "), exc
        rejected.append(field_error_text(exc))
    try:
        keys = delete_config(delete_text)
        assert delete_config(",".join(keys)) == keys and all(keys)
    except FieldError as exc:
        assert field_error_text(exc).startswith("--delete-config "), exc
        rejected.append(field_error_text(exc))
    return rejected[0] if rejected else None


# -- 3. TOML profiles ---------------------------------------------------------------------------

_PROFILE_KEYS = [
    "bootstrap_servers",
    "client_id",
    "request_timeout_ms",
    "security_protocol",
    "sasl_mechanism",
    "sasl_username",
    "sasl_password_env",
    "sasl_password_command",
    "sasl_password_keyring",
    "ssl_cafile",
    "ssl_certfile",
    "ssl_keyfile",
    "ssl_password_env",
    "ssl_check_hostname",
    "zookeeper_connect",
    "read_only",
    "under_replicated",
    "placement",
    "placeholders_topic",
    "command_config",
]
_WORDS = [
    "PLAINTEXT",
    "SSL",
    "SASL_SSL",
    "SASL_PLAINTEXT",
    "PLAIN",
    "SCRAM-SHA-512",
    "GSSAPI",
    "disabled",
    "enabled",
    "enabled_prefer_observed",
    "client",
    "broker",
    "127.0.0.1:9092",
    "",
    "~nosuchuser-kafka-tui/x",
    "/nonexistent/file.pem",
    "a\x00b",
    "KAFKA_TUI_FUZZ_UNSET_VARIABLE",
]
toml_scalars = st.one_of(
    st.sampled_from(_WORDS),
    st.text(max_size=10),
    big_ints,
    st.booleans(),
    st.floats(allow_nan=True),
    st.dates(),
    st.datetimes(),
)
toml_values = st.one_of(
    toml_scalars,
    st.lists(toml_scalars | st.lists(toml_scalars, max_size=2), max_size=3),
    st.dictionaries(st.text(max_size=5), toml_scalars | st.lists(toml_scalars), max_size=3),
)
valid_bodies = st.fixed_dictionaries(
    {"bootstrap_servers": st.sampled_from(["h:1", ["a:1", "b:2"]])},
    optional={
        "client_id": st.text(max_size=5),
        "request_timeout_ms": st.integers(1, 10**6),
        "security_protocol": st.sampled_from(["PLAINTEXT", "SSL"]),
        "ssl_check_hostname": st.booleans(),
        "read_only": st.booleans(),
        "under_replicated": st.sampled_from(["disabled", "enabled", "enabled_prefer_observed"]),
        "placement": st.just("client"),
        "placeholders_topic": st.text(max_size=8),
        "zookeeper_connect": st.text(max_size=8),
    },
)
near_valid_bodies = valid_bodies.flatmap(
    lambda body: (
        st.just(body)
        | st.tuples(st.sampled_from(_PROFILE_KEYS), st.sampled_from(_WORDS) | toml_values).map(
            lambda pair: {**body, pair[0]: pair[1]}
        )
    )
)
profile_bodies = near_valid_bodies | st.dictionaries(
    st.sampled_from(_PROFILE_KEYS) | st.text(max_size=8),
    st.one_of(st.sampled_from(_WORDS), toml_values),
    max_size=8,
)
settings_data = st.fixed_dictionaries(
    {},
    optional={
        "profiles": st.dictionaries(st.text(max_size=6), profile_bodies, max_size=3) | toml_values,
        "default_profile": st.text(max_size=6) | toml_values,
        "keys": st.dictionaries(st.text(max_size=8), toml_values, max_size=3) | toml_values,
    },
).flatmap(
    lambda data: (
        st.just(data)
        | st.dictionaries(st.text(max_size=8), toml_values, max_size=1).map(
            lambda extra: {**extra, **data}
        )
    )
)


def _check_settings(settings: Any) -> None:
    for profile in settings.profiles.values():
        connection = profile.connection
        assert isinstance(connection.bootstrap_servers, str) and connection.bootstrap_servers
        assert type(connection.request_timeout_ms) is int and connection.request_timeout_ms > 0
        assert isinstance(connection.client_id, str)
        assert isinstance(connection.ssl_check_hostname, bool)
        assert isinstance(profile.read_only, bool)
    assert all(isinstance(v, str) for v in settings.key_bindings.values())
    assert settings.default_profile is None or settings.default_profile in settings.profiles


@target("toml_profiles", settings_data)
def check_settings(data: dict[str, Any]) -> str | None:
    from kafka_tui.config import ConfigError, parse_settings

    source = Path("/fuzz/config.toml")
    try:
        settings = parse_settings(data, source)
    except ConfigError as exc:
        assert str(exc).startswith(f"{source}: "), exc
        return str(exc)
    _check_settings(settings)
    return None


_EXAMPLE_TOML = (Path(__file__).parents[2] / "config.example.toml").read_text()
toml_texts = st.one_of(
    mutated(st.just(_EXAMPLE_TOML)),
    mutated(st.just('[profiles.a]\nbootstrap_servers = "h:1"\nrequest_timeout_ms = 5\n')),
    st.just("a = " + "[" * 3000),
    awkward_text,
)
toml_files = st.one_of(
    toml_texts.map(lambda text: text.encode("utf-8", "surrogatepass")),
    st.binary(max_size=200),
)


@target("toml_files", toml_files)
def check_settings_file(data: bytes) -> str | None:
    from kafka_tui.config import ConfigError, load_settings

    with temp_dir() as folder:
        path = Path(folder) / "config.toml"
        path.write_bytes(data)
        try:
            settings = load_settings(path)
        except ConfigError as exc:
            assert str(exc).startswith(f"{path}: "), exc
            return str(exc)
    _check_settings(settings)
    return None


# -- 4. client.properties -----------------------------------------------------------------------

_JAVA_SPACE = " \t\f"


def _escape_char(char: str, escape_unicode: bool) -> str:
    """One character as java.util.Properties.store would write it (or as \\uXXXX)."""
    named = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\f": "\\f"}
    if char in named:
        return named[char]
    if escape_unicode:
        data = char.encode("utf-16-be", "surrogatepass")
        return "".join(f"\\u{data[i]:02x}{data[i + 1]:02X}" for i in range(0, len(data), 2))
    return char


@st.composite
def escaped(draw: st.DrawFn, text: str, key: bool) -> str:
    out = []
    for i, char in enumerate(text):
        piece = _escape_char(char, draw(st.booleans()) if ord(char) > 126 else False)
        if piece == char and (
            (key and char in "=: ")
            or (char in _JAVA_SPACE and (key or i == 0))
            or (i == 0 and key and char in "#!")
            or (i == 0 and not key and char in "=:")
        ):
            piece = "\\" + char
        elif piece == char and char in "=: #!" and draw(st.integers(0, 4)) == 0:
            piece = "\\" + char  # a needless escape is allowed too
        out.append(piece)
    return "".join(out)


@st.composite
def continued(draw: st.DrawFn, text: str) -> str:
    """`text` split over physical lines with backslash continuations (not inside escapes)."""
    cuts = []
    i = 0
    while i < len(text):
        step = 6 if text.startswith("\\u", i) else 2 if text[i] == "\\" else 1
        i += step
        # a continuation line loses its leading whitespace, so no cut before a space
        if i < len(text) and text[i] not in _JAVA_SPACE and draw(st.integers(0, 9)) == 0:
            cuts.append(i)
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    joints = [
        draw(st.sampled_from(["\\\n", "\\\r\n", "\\\r", "\\\n   ", "\\\n\t\f"])) for _ in cuts
    ]
    return pieces[0] + "".join(j + p for j, p in zip(joints, pieces[1:], strict=True))


property_keys = st.text(min_size=1, max_size=12) | st.sampled_from(
    ["sasl.jaas.config", "a=b", "a:b", " k", "#k", "!k", "k\\", "\U0001f600", "k\xa0"]
)
property_values = st.text(max_size=16) | st.sampled_from(
    ["", " lead", "trail ", "\\", "a\\", "\u2028", "\x85x", "\xa0v", "\fv", "=v", ":v"]
)


@st.composite
def properties_files(draw: st.DrawFn) -> tuple[str, dict[str, tuple[int, str]]]:
    """A .properties text and what Java's Properties.load reads from it (key -> line, value)."""
    entries = draw(st.lists(st.tuples(property_keys, property_values), max_size=6))
    lines: list[str] = []
    expected: dict[str, tuple[int, str]] = {}
    number = 1
    for key, value in entries:
        for _ in range(draw(st.integers(0, 2))):
            filler = draw(st.sampled_from(["", "  ", "# a comment \\", "! other", "\t#x=y"]))
            lines.append(filler)
            number += 1
        separator = draw(st.sampled_from(["=", ":", " ", " = ", "\t: ", "  ", "\f="]))
        indent = draw(st.sampled_from(["", " ", "\t", "\f"]))
        body = draw(
            continued(indent + draw(escaped(key, True)) + separator + draw(escaped(value, False)))
        )
        lines.append(body)
        expected[key] = (number, value)
        number += len(re.split(r"\r\n|\r|\n", body))
    ending = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    return ending.join(lines) + draw(st.sampled_from(["", ending])), expected


def _no_secret(message: str, secret: str) -> str:
    assert secret not in message, f"the error shows a secret: {message}"
    return message


@target("properties_round_trip", properties_files())
def check_properties(drawn: tuple[str, dict[str, tuple[int, str]]]) -> str | None:
    from kafka_tui.client_properties import parse_properties

    text, expected = drawn
    assert parse_properties(text, "client.properties") == expected
    return None


@target("properties_text", near(properties_files().map(lambda drawn: drawn[0])))
def check_properties_text(text: str) -> str | None:
    from kafka_tui.client_properties import PropertiesError, parse_properties

    try:
        entries = parse_properties(text, "client.properties")
    except PropertiesError as exc:
        assert str(exc).startswith("client.properties:"), exc
        return str(exc)
    lines = len(re.split(r"\r\n|\r|\n", text))
    assert all(1 <= line <= lines and key for key, (line, _) in entries.items())
    return None


secrets_ = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_",
    min_size=24,
    max_size=24,
).filter(lambda token: len(set(token)) > 4)


@st.composite
def jaas_texts(draw: st.DrawFn, secret: str) -> str:
    module = draw(
        st.sampled_from(
            [
                "org.apache.kafka.common.security.scram.ScramLoginModule",
                "org.apache.kafka.common.security.plain.PlainLoginModule",
                "com.sun.security.auth.module.Krb5LoginModule",
            ]
        )
    )
    quoted = draw(st.booleans())
    password = f'"{secret}"' if quoted else secret
    options = [f'username="{draw(st.text(alphabet="abc_-", max_size=6))}"', f"password={password}"]
    options = draw(st.permutations(options))
    text = f"{module} {draw(st.sampled_from(['required', 'optional']))} {' '.join(options)};"
    words = text.split(" ")
    if draw(st.booleans()):
        words = draw(st.permutations(words))
    for _ in range(draw(st.integers(0, 2))):  # drop a word, or split one at its '='
        at = draw(st.integers(0, len(words) - 1))
        words[at : at + 1] = draw(st.sampled_from([[], words[at].split("=", 1)]))
    text = " ".join(words) or text
    return draw(st.one_of(st.just(text), mutated(st.just(text))))


@target("jaas", secrets_.flatmap(lambda secret: st.tuples(st.just(secret), jaas_texts(secret))))
def check_jaas(drawn: tuple[str, str]) -> str | None:
    from kafka_tui.client_properties import PropertiesError, parse_jaas

    secret, text = drawn
    try:
        kind, options = parse_jaas(text, "client.properties:3")
    except PropertiesError as exc:
        return _no_secret(str(exc), secret)
    # SCRAM and PLAIN name a user; the password may come from the profile's source or be
    # asked (secrets.py). Krb5LoginModule (a keytab or a ticket cache), OAuthBearerLoginModule
    # and AWS's IAMLoginModule name no user.
    assert kind in ("SCRAM", "PLAIN", "GSSAPI", "OAUTHBEARER", "AWS_MSK_IAM")
    assert kind not in ("SCRAM", "PLAIN") or "username" in options
    return None


_STORE_FILES = st.one_of(
    st.binary(max_size=64),
    st.binary(max_size=64).map(lambda b: b"-----BEGIN CERTIFICATE-----\n" + b),
    st.binary(max_size=64).map(lambda b: b"\xfe\xed\xfe\xed" + b),
    st.just(b"0\x82\x01\x00"),
)
_LOCATIONS = st.sampled_from(["STORE", "MISSING", "~nosuchuser-kafka-tui/x", "a\x00b", "", "."])


@st.composite
def client_entries(draw: st.DrawFn) -> tuple[str, dict[str, str], bytes]:
    """Settings of a client.properties file with a password in every secret place."""
    secret = draw(secrets_)
    choices: dict[str, st.SearchStrategy[str]] = {
        "security.protocol": st.sampled_from(["SASL_SSL", "ssl", "PLAINTEXT", "SASL_PLAINTEXT"])
        | st.text(max_size=6),
        "sasl.mechanism": st.sampled_from(["PLAIN", "SCRAM-SHA-512", "scram-sha-256", "GSSAPI"])
        | st.text(max_size=6),
        "sasl.jaas.config": jaas_texts(secret),
        "ssl.truststore.location": _LOCATIONS,
        "ssl.truststore.type": st.sampled_from(["PEM", "PKCS12", "JKS", "BKS", ""]),
        "ssl.truststore.password": st.just(secret),
        "ssl.truststore.certificates": st.sampled_from(["", "-----BEGIN CERTIFICATE-----\nx"])
        | st.just(secret),
        "ssl.keystore.location": _LOCATIONS,
        "ssl.keystore.type": st.sampled_from(["PEM", "PKCS12", "JKS", "X"]),
        "ssl.keystore.password": st.just(secret),
        "ssl.keystore.key": st.just(f"-----BEGIN PRIVATE KEY-----\n{secret}\n"),
        "ssl.keystore.certificate.chain": st.sampled_from(["", "-----BEGIN CERTIFICATE-----\n"])
        | st.just(secret),
        "ssl.key.password": st.just(secret),
        "ssl.endpoint.identification.algorithm": st.sampled_from(["", "https", "HTTPS ", "x"]),
        "client.id": st.text(max_size=6),
        "request.timeout.ms": st.sampled_from(["1000", "0", "-1", "²", "\u0661٢", "1e3", " 5 "])
        | st.text(max_size=4),
        "bootstrap.servers": st.text(max_size=10),
        "unknown.key": st.text(max_size=4),
    }
    keys = draw(st.lists(st.sampled_from(sorted(choices)), unique=True, max_size=8))
    values = {key: draw(choices[key]) for key in keys}
    return secret, values, draw(_STORE_FILES)


@target("client_properties", client_entries())
def check_client_properties(drawn: tuple[str, dict[str, str], bytes]) -> str | None:
    from kafka_tui.client_properties import PropertiesError, client_properties

    secret, values, store = drawn
    with temp_dir() as folder:
        (Path(folder) / "store").write_bytes(store)
        places = {"STORE": str(Path(folder) / "store"), "MISSING": f"{folder}/missing"}
        values = {k: places.get(v, v) for k, v in values.items()}
        entries = {key: (line, value) for line, (key, value) in enumerate(values.items(), 1)}
        try:
            result = client_properties(entries, "client.properties")
        except PropertiesError as exc:
            assert str(exc).startswith("client.properties"), exc
            return _no_secret(str(exc), secret)
    assert secret not in repr(result)
    assert all(key in values for key in result.ignored)
    return None


@target("client_properties_files", near(properties_files().map(lambda drawn: drawn[0])))
def check_client_properties_file(text: str) -> str | None:
    from kafka_tui.client_properties import PropertiesError, read_client_properties

    with temp_dir() as folder:
        path = Path(folder) / "client.properties"
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
        try:
            read_client_properties(path)
        except PropertiesError as exc:
            assert str(exc).startswith((str(path), f"command config {path}")), exc
            return str(exc)
    return None


# -- 5. plan files ------------------------------------------------------------------------------

_LEGAL_CHARS = "abcxyz019._-"
plan_topics = st.text(alphabet=_LEGAL_CHARS, min_size=1, max_size=12).filter(
    lambda name: name not in (".", "..")
)
plan_configs = st.lists(
    st.tuples(
        st.text(alphabet="abc.-_09 ", min_size=1, max_size=8).map(str.strip).filter(bool),
        st.text(alphabet="abc019 .:=/\"',\n", max_size=8).map(str.strip),
    ),
    max_size=3,
    unique_by=lambda pair: pair[0],
).map(lambda pairs: tuple(sorted(pairs)))


@st.composite
def intents(draw: st.DrawFn) -> Any:
    from kafka_tui.planning.bulk_plan import Intent

    count = st.none() | st.integers(1, 2**31 - 1) | st.integers(1, 9)
    factor, minimum = draw(st.none() | st.integers(1, 5)), draw(st.none() | st.integers(1, 5))
    if factor is not None and minimum is not None and minimum > factor:
        minimum = factor
    return Intent(draw(plan_topics), draw(count), factor, minimum, draw(plan_configs))


intent_lists = st.lists(intents(), max_size=5)


@target("plan_round_trip", intent_lists)
def check_plan_round_trip(rows: list[Any]) -> str | None:
    from kafka_tui.planning import plan_io

    assert plan_io.parse_plan("plan.csv", plan_io.intents_to_csv(rows)) == rows
    return None


_ROW_VALUES = st.one_of(
    st.none(),
    st.sampled_from(["", "a", "1", "0", "-1", "²", "1" * 4400, "a=1;b=2", "x;y"]),
    big_ints,
    st.booleans(),
    st.floats(),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(
        st.sampled_from(["retention.ms", "topics"]), st.integers() | st.text(max_size=3)
    ),
)
_FIELDS = ["topic", "partitions", "replication_factor", "min_required_replication_factor"]
json_rows = st.lists(
    st.dictionaries(st.sampled_from([*_FIELDS, "configs", "extra", "topics"]), _ROW_VALUES)
    | _ROW_VALUES,
    max_size=4,
)


def _plan_json(rows: list[Any], wrapped: bool) -> str:
    import json

    return json.dumps({"version": 1, "topics": rows} if wrapped else rows, indent=1)


def _plan_jsonl(rows: list[Any]) -> str:
    import json

    return "".join(json.dumps(row) + "\n" for row in rows)


def _csv_of(rows: list[Any]) -> str:
    from kafka_tui.planning import plan_io

    return plan_io.intents_to_csv(rows)


plan_texts = st.one_of(
    st.tuples(st.just("plan.csv"), near(intent_lists.map(_csv_of))),
    st.tuples(st.just("plan.json"), near(st.builds(_plan_json, json_rows, st.booleans()))),
    st.tuples(st.just("plan.jsonl"), near(json_rows.map(_plan_jsonl))),
    st.tuples(
        st.just("plan.json"),
        st.sampled_from(
            [
                "[" * 5000,
                '{"topics": [{"topic": "a", "partitions": 1' + "0" * 5000 + "}]}",
                '{"topics": [], "brokers": ' + "[" * 5000,
            ]
        ),
    ),
    st.tuples(st.sampled_from(["p.csv", "p.json", "p.jsonl"]), awkward_text),
)


@target("plan_files", plan_texts)
def check_plan_file(drawn: tuple[str, str]) -> str | None:
    from kafka_tui.planning import plan_io, plan_rows, plan_saved
    from kafka_tui.planning.bulk_plan import Intent

    name, text = drawn
    if plan_saved.is_saved_plan(text):  # what `plan apply FILE` asks first
        return check_saved_plan(text)
    try:
        rows = plan_io.parse_plan(name, text)
    except plan_rows.PlanFileErrors as exc:
        assert exc.errors
        # CSV counts \r and \r\n as line ends too; JSON decoders count \n.
        lines = text.replace("\r\n", "\n").replace("\r", "\n") if name.endswith(".csv") else text
        for error in exc.errors:
            assert error.file == name and error.message.strip()
            assert inside_text(lines, error.line, error.column), (error, lines.split("\n"))
        return str(exc.errors[0])
    for row in rows:
        assert isinstance(row, Intent) and kafka_legal_name(row.topic)
        for number in (row.partitions, row.replication_factor, row.min_required):
            assert number is None or (type(number) is int and 1 <= number <= INT32[1])
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in row.configs)
    assert plan_io.parse_plan("again.csv", plan_io.intents_to_csv(rows)) == rows
    return None


# -- 5b. saved plans (`plan preview --save`, read back by `plan apply`) -------------------------


def _saved_document(rows: list[Any], mode: Any) -> str:
    import io

    from kafka_tui.planning.bulk_plan import (
        ClusterView,
        ExistingTopic,
        PlanOptions,
        plan_in_process,
        prepare,
    )
    from kafka_tui.planning.placement import Broker, Load

    brokers = tuple(Broker(b, f"r{b % 3}", b != 4) for b in range(1, 7))
    existing = {"old": ExistingTopic(((1, 2), (2, 3)), 2)}
    view = ClusterView(brokers, Load({}, {}), existing, 1, 3, 1)
    out = io.StringIO()
    plan_in_process(prepare(view, rows, PlanOptions(mode, 1 if mode != "disabled" else None)), out)
    return out.getvalue()


_JSON_SCALARS = st.none() | st.booleans() | big_ints | st.floats() | st.text(max_size=4)
_JSON_VALUES = (
    _JSON_SCALARS
    | st.lists(_JSON_SCALARS, max_size=2)
    | st.dictionaries(st.text(max_size=3), _JSON_SCALARS, max_size=2)
)


@st.composite
def saved_plans(draw: st.DrawFn) -> str:
    """A real saved plan with one of its values replaced or removed, or its text mangled."""
    import json

    from kafka_tui.planning.bulk_plan import Intent

    rows = draw(
        st.lists(
            st.builds(
                Intent,
                st.sampled_from(["a", "b", "c", "old", "d.e"]),
                st.none() | st.integers(1, 4),
                st.none() | st.integers(1, 7),
            ),
            min_size=1,
            max_size=3,
        )
    )
    mode = draw(st.sampled_from(["disabled", "enabled", "enabled_prefer_observed"]))
    text = _saved_document(rows, mode)
    if draw(st.integers(0, 3)) == 0:
        return draw(st.just(text) | mutated(st.just(text)))
    document = json.loads(text)
    for _ in range(draw(st.integers(1, 3))):
        node: Any = document
        while isinstance(node, dict | list) and node and draw(st.integers(0, 3)):
            keys = list(node) if isinstance(node, dict) else list(range(len(node)))
            key = draw(st.sampled_from(keys))
            if not isinstance(node[key], dict | list) or not node[key] or draw(st.booleans()):
                if isinstance(node, dict) and draw(st.integers(0, 3)) == 0:
                    del node[key]
                else:
                    node[key] = draw(_JSON_VALUES)
                break
            node = node[key]
    return json.dumps(document, indent=draw(st.sampled_from([None, 1])))


@target("saved_plans", saved_plans())
def check_saved_plan(text: str) -> str | None:
    import contextlib
    import io

    from kafka_tui.admin.model import TopicSpec
    from kafka_tui.admin.validation import check_spec
    from kafka_tui.cli import plan_output
    from kafka_tui.planning import plan_rows, plan_saved
    from kafka_tui.planning.placement import Broker, Load
    from kafka_tui.services import plan_apply
    from kafka_tui.services import plan_documents as plans
    from kafka_tui.services.snapshot import Snapshot

    try:
        document = plan_saved.saved_plan("saved.json", text)
    except plan_rows.PlanFileErrors as exc:
        for error in exc.errors:
            assert error.file == "saved.json" and error.message.strip()
            assert inside_text(text, error.line, error.column), (error, text)
        return str(exc.errors[0])
    # what `plan apply` and the plan screen do with an accepted document must not fail
    assert plan_saved.is_saved_plan(text)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        plan_output.print_summary(document)
    snapshot = Snapshot([Broker(1, "r1", True), Broker(9, None, False)], Load({}, {}), {}, {})
    plan_apply.broker_differences(document, snapshot)
    plans.document_intents(document)
    for entry in document["topics"]:
        if not entry["error"]:
            plan_apply._placement(entry, {1, 2, 3})
            lists = plan_apply._real(entry["assignment"])
            if entry["action"] == "create":
                check_spec(TopicSpec(entry["topic"], assignment=dict(enumerate(lists))))
            assert entry["partitions"] - len(lists) >= 0
    return None
