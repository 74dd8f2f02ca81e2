"""Fuzzing: topic names, assignment and config strings, TOML profiles, client.properties and
plan files never end in a traceback, always in an error that says what is wrong (and never
shows a secret). The strategies and checks live in tests/fuzz/fuzz_targets.py; bench/fuzz.py runs
the same with 10,000 examples each."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from tests.fuzz.fuzz_targets import TARGETS

# A smoke run in the suite (~0.5 s per target on a quiet 2-core machine; 400 took 8-13 s
# each at CI's load, the largest share of the no-JVM tier); bench/fuzz.py runs 10,000 each.
EXAMPLES = 200


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_fuzz(name: str) -> None:
    fuzz = TARGETS[name]

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(fuzz.strategy)
    def run(value: Any) -> None:
        fuzz.check(value)

    run()


# -- the bugs the fuzzers found, as plain examples ----------------------------------------------


def test_counts_and_broker_ids_beyond_int32_are_refused_before_sending() -> None:
    from kafka_tui.admin.model import NewPartitions, TopicSpec
    from kafka_tui.admin.validation import check_new_partitions, check_spec

    too_many = check_spec(TopicSpec("t", partitions=2**31))
    assert too_many is not None and too_many.name == "INVALID_PARTITIONS"
    big_id = check_spec(TopicSpec("t", assignment={0: [1, 2**31]}))
    assert big_id is not None and big_id.name == "INVALID_REPLICA_ASSIGNMENT"
    assert "above 2147483647" in str(big_id)
    grow = check_new_partitions(NewPartitions("t", 2**31), 3, 1)
    assert grow is not None and grow.name == "INVALID_PARTITIONS"
    assert check_spec(TopicSpec("t", partitions=2**31 - 1)) is None


@pytest.mark.parametrize("text", ["1_0", "\u0661", "2147483648", "1e3", "0x1"])
def test_a_broker_id_is_int32_in_ascii_digits(text: str) -> None:
    from kafka_tui.fields import FieldError
    from kafka_tui.services.parsing import replica_lists

    with pytest.raises(FieldError, match="is not a broker id"):
        replica_lists(f"1:{text}")


def test_broker_ids_kafka_would_parse_still_parse() -> None:
    from kafka_tui.services.parsing import replica_lists

    assert replica_lists(" 1 : +2,-1:2147483647") == [[1, 2], [-1, 2147483647]]


@pytest.mark.parametrize("text", ["a{4294967296}", "(" * 3000 + ")" * 3000])
def test_a_regex_python_cannot_compile_is_a_usage_error(text: str) -> None:
    from kafka_tui.fields import FieldError
    from kafka_tui.services.parsing import topic_regex

    with pytest.raises(FieldError, match="is not a valid regular expression"):
        topic_regex(text)


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ({"default_profile": [], "profiles": {}}, "default_profile"),
        ({"profiles": {"p": {"bootstrap_servers": "h:1", "request_timeout_ms": True}}}, "int"),
        ({"profiles": {"p": {"bootstrap_servers": [1, 2]}}}, "bootstrap_servers"),
        ({"profiles": {"p": {"bootstrap_servers": ["h:1", ""]}}}, "bootstrap_servers"),
        (
            {"profiles": {"p": {"bootstrap_servers": "h:1", "ssl_cafile": "~nosuchuser-x/ca"}}},
            "'ssl_cafile' starts with an unknown user's ~",
        ),
    ],
)
def test_profiles_with_wrong_values_are_config_errors(data: dict[str, Any], says: str) -> None:
    from pathlib import Path

    from kafka_tui.config import ConfigError, parse_settings

    with pytest.raises(ConfigError, match=r"^/x/config\.toml: ") as caught:
        parse_settings(data, Path("/x/config.toml"))
    assert says in str(caught.value)


def test_a_config_file_nested_too_deeply_is_a_config_error(tmp_path: Path) -> None:
    from kafka_tui.config import ConfigError, load_settings

    path = tmp_path / "config.toml"
    path.write_text("a = " + "[" * 3000)
    with pytest.raises(ConfigError, match="nested too deeply"):
        load_settings(path)


@pytest.mark.parametrize(
    ("text", "entries"),
    [
        ("k\fv", {"k": (1, "v")}),  # \f is a separator, not a line end
        ("k=\u2028v\x85\nx=1", {"k": (1, "\u2028v\x85"), "x": (2, "1")}),
        ("k=\xa0v\n\xa0k2=w", {"k": (1, "\xa0v"), "\xa0k2": (2, "w")}),
        ("k=\\ud83d\\ude00", {"k": (1, "\U0001f600")}),
        ("a=1\rb=2\r\nc=\\\r 3", {"a": (1, "1"), "b": (2, "2"), "c": (3, "3")}),
    ],
)
def test_properties_are_read_as_java_reads_them(text: str, entries: dict[str, Any]) -> None:
    from kafka_tui.client_properties import parse_properties

    assert parse_properties(text, "c.properties") == entries


def test_half_a_surrogate_pair_is_a_properties_error() -> None:
    from kafka_tui.client_properties import PropertiesError, parse_properties

    with pytest.raises(PropertiesError, match=r"^c\.properties:2: .*surrogate"):
        parse_properties("a=1\nk=\\ud83d", "c.properties")


@pytest.mark.parametrize("location", ["~nosuchuser-x/client.properties", "a\x00b"])
def test_an_unusable_command_config_path_is_a_properties_error(location: str) -> None:
    from kafka_tui.client_properties import PropertiesError, read_client_properties

    with pytest.raises(PropertiesError, match="is not a usable path"):
        read_client_properties(Path(location))


@pytest.mark.parametrize(
    "entry",
    [
        ("request.timeout.ms", "\u00b2"),
        ("ssl.truststore.location", "a\x00b"),
        ("ssl.keystore.location", "~nosuchuser-x/k.p12"),
    ],
)
def test_odd_values_are_properties_errors(entry: tuple[str, str]) -> None:
    from kafka_tui.client_properties import PropertiesError, client_properties

    with pytest.raises(PropertiesError, match=rf"^c\.properties:1: {re.escape(entry[0])}"):
        client_properties({entry[0]: (1, entry[1])}, "c.properties")


def test_a_password_that_lost_its_quotes_is_not_shown() -> None:
    from kafka_tui.client_properties import PropertiesError, parse_jaas

    secret = "q8Zr2vXk3LmN5pT7wY9aB1cD"
    with pytest.raises(PropertiesError, match="names a login module") as caught:
        parse_jaas(f'{secret} required username="u" password={secret};', "c.properties:1")
    assert secret not in str(caught.value)


@pytest.mark.parametrize(
    ("name", "text", "error"),
    [
        ("p.csv", "topic,partitions\ra,\u00b2\r", "p.csv:2:3: partitions must be a whole number"),
        ("p.csv", "topic,partitions\na," + "1" * 5000, "p.csv:2:3: partitions must be at most"),
        ("p.csv", "topic,partitions\na,2147483648", "p.csv:2:3: partitions must be at most"),
        ("p.csv", 'topic,configs,partitions\na,"x=\n1",0', "p.csv:3:4: partitions must be"),
        ("p.json", "[" * 5000, "p.json:1:1: not JSON that can be read: arrays or objects nested"),
        ("p.json", '[{"topic": "a", "partitions": 1' + "0" * 5000 + "}]", "p.json:1:1: not JSON"),
        ("p.json", '[{"topic": "a", "configs": ["x=1"]}]', "p.json:1:17: configs must be"),
        (
            "p.json",
            '{"note": "a \\"topics\\" [{", "topics": [{"topic": "b", "extra": 1}]}',
            "p.json:1:55: unknown field 'extra'",
        ),
        ("p.jsonl", '{"topic": "a\u2028b"}\n{"topic": 1, "x": 2}', "p.jsonl:1:2: 'a\u2028b' is"),
    ],
)
def test_plan_files_the_fuzzer_broke(name: str, text: str, error: str) -> None:
    from kafka_tui.planning import plan_io, plan_rows

    with pytest.raises(plan_rows.PlanFileErrors) as caught:
        plan_io.parse_plan(name, text)
    assert str(caught.value.errors[0]).startswith(error), caught.value.errors


def test_a_deeply_nested_file_is_not_a_saved_plan() -> None:
    from kafka_tui.planning import plan_saved

    assert not plan_saved.is_saved_plan('{"topics": [], "brokers": ' + "[" * 5000)


def test_a_broken_saved_plan_names_the_field_and_its_place() -> None:
    import json

    from kafka_tui.planning import plan_rows, plan_saved
    from kafka_tui.planning.bulk_plan import Intent
    from tests.fuzz.fuzz_targets import _saved_document

    text = _saved_document([Intent("a", 2, 2), Intent("old", 3)], "disabled")
    assert plan_saved.saved_plan("s.json", text) == json.loads(text)
    document = json.loads(text)
    document["topics"][0]["assignment"][1] = "1,2"
    document["topics"][1]["assignment"] *= 3
    del document["stats"]["sanity"]
    broken = json.dumps(document, indent=1)
    with pytest.raises(plan_rows.PlanFileErrors) as caught:
        plan_saved.saved_plan("s.json", broken)
    lines = broken.split("\n")
    messages = {e.message: lines[e.line - 1][e.column - 1 :] for e in caught.value.errors}
    assert messages == {
        "plan.topics[0].assignment[1]: expected a list": '"1,2"',
        "plan.stats: 'sanity' is missing": "{",
    }
    del document["stats"]
    document["topics"][0]["assignment"][1] = [3, 4]
    with pytest.raises(plan_rows.PlanFileErrors) as caught:
        plan_saved.saved_plan("s.json", json.dumps(document).replace('"stats"', '"x"'))
    assert [e.message for e in caught.value.errors] == ["plan: 'stats' is missing"]
    document["stats"] = json.loads(text)["stats"]
    with pytest.raises(plan_rows.PlanFileErrors) as caught:
        plan_saved.saved_plan("s.json", json.dumps(document))
    assert [e.message for e in caught.value.errors] == [
        "plan.topics[1]: 3 new replica lists to grow to 3 partitions"
    ]


def test_a_regex_python_frowns_on_compiles_without_a_python_warning() -> None:
    import warnings

    from kafka_tui.services.parsing import topic_regex

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert topic_regex("[[a]").fullmatch("[")
