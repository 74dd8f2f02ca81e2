"""Records through a real Schema Registry: Apicurio Registry 2.6.13.Final (its Confluent API,
/apis/ccompat/v7) from Maven Central, started once for this module (~3-5 s, ~150 MB). Avro
(with a named-type reference), Protobuf (with an imported .proto) and JSON Schema records are
registered, written in Confluent's wire format to the KRaft cluster and read back through
`messages read`; an unreachable registry and an unknown id are one sentence each."""

from __future__ import annotations

import asyncio
import io
import json
import struct
from collections.abc import Callable, Iterator
from pathlib import Path

import fastavro
import pytest
from aiokafka import AIOKafkaProducer
from textual.widgets import Input, Label, Select, Static, TextArea

from kafka_tui.admin import ConnectionSettings, KafkaAdmin, TopicSpec
from kafka_tui.config import Profile, Settings
from kafka_tui.devcluster import probe
from kafka_tui.devcluster import registry as dev_registry
from kafka_tui.registry import RegistrySettings, SchemaError
from kafka_tui.registry.client import Reference, RegisteredSchema, RegistryClient
from kafka_tui.registry.codec import RecordSchemas
from kafka_tui.tui.app import make_app
from kafka_tui.tui.screens.produce import ProduceDialog
from kafka_tui.tui.screens.records import RecordsScreen

from ..conftest import Cluster
from .test_cli import run
from .test_consumer_groups import create
from .test_tui_groups import SMALL
from .test_tui_records import until

Names = Callable[[str], str]

ADDRESS = {
    "type": "record",
    "name": "Address",
    "namespace": "shop",
    "fields": [{"name": "city", "type": "string"}],
}
# shop.Address comes from the registry's subject "shop-address" (a named-type reference)
CUSTOMER = {
    "type": "record",
    "name": "Customer",
    "namespace": "shop",
    "fields": [
        {"name": "name", "type": "string"},
        {"name": "visits", "type": "long"},
        {"name": "home", "type": ["null", "shop.Address"], "default": None},
    ],
}
MONEY_PROTO = """syntax = "proto3";
package common;
message Money { string currency = 1; int64 units = 2; }
"""
TWO_PROTO = """syntax = "proto3";
package k;
message A { string a = 1; }
message B { string b = 1; }
"""
ORDER_PROTO = """syntax = "proto3";
package shop;
import "common/money.proto";
message Header { string source = 1; }
message Order {
  string id = 1;
  common.Money price = 2;
  message Line { string sku = 1; int32 count = 2; }
  repeated Line lines = 3;
}
"""
PLACE_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}}
# "place.json" is the registry's subject "<topic>-place" (a reference)
EVENT_SCHEMA = {
    "type": "object",
    "properties": {
        "kind": {"type": "string"},
        "n": {"type": "integer"},
        "where": {"$ref": "place.json"},
    },
    "required": ["kind"],
}


@pytest.fixture(scope="module")
def registry_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("schema-registry")
    state = dev_registry.up(root, timeout=180)
    try:
        yield state.url
    finally:
        dev_registry.down(root)


@pytest.fixture
def client(registry_url: str) -> Iterator[RegistryClient]:
    made = RegistryClient(RegistrySettings(registry_url))
    yield made
    made.close()


async def _produce(servers: str, topic: str, *values: bytes) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=servers, acks="all")
    await producer.start()
    try:
        for value in values:
            await producer.send_and_wait(topic, value, key=b"k", partition=0)
    finally:
        await producer.stop()


def _written(kraft_cluster: Cluster, topic: str, *values: bytes) -> None:
    servers = kraft_cluster.bootstrap_servers
    asyncio.run(create(servers, TopicSpec(topic, 1, 1)))
    asyncio.run(_produce(servers, topic, *values))


def _read(
    capsys: pytest.CaptureFixture[str], cluster: Cluster, topic: str, *flags: str
) -> tuple[int, list[dict[str, object]], str]:
    code, out, err = run(capsys, cluster, "--output", "jsonl", "messages", "read", topic, *flags)
    return code, [json.loads(line) for line in out.splitlines()], err


def test_avro_with_a_reference_written_and_read_through_the_registry(
    kraft_cluster: Cluster,
    capsys: pytest.CaptureFixture[str],
    topic_name: Names,
    client: RegistryClient,
    registry_url: str,
    tmp_path: Path,
) -> None:
    topic = topic_name("avro")
    address_id = client.register(
        "shop-address", RegisteredSchema(None, "AVRO", json.dumps(ADDRESS))
    )
    customer = RegisteredSchema(
        None, "AVRO", json.dumps(CUSTOMER), (Reference("shop.Address", "shop-address", 1),)
    )
    customer_id = client.register(f"{topic}-value", customer)
    assert customer_id != address_id
    value = {"name": "Ann", "visits": 3, "home": {"city": "Oslo"}}
    schemas = RecordSchemas(client)
    ours = schemas.encode(value, "avro", subject=f"{topic}-value")
    # The same record made without our code: fastavro's own writer and the header by hand.
    named: dict[str, object] = {}
    fastavro.parse_schema(ADDRESS, named_schemas=named)
    body = io.BytesIO()
    fastavro.schemaless_writer(body, fastavro.parse_schema(CUSTOMER, named_schemas=named), value)
    theirs = b"\x00" + struct.pack(">I", customer_id) + body.getvalue()
    assert ours == theirs
    _written(kraft_cluster, topic, theirs)

    # messages produce with schema files: the key's (a JSON Schema, .json) is under no
    # subject yet, so without --register nothing is written and nothing registered
    avsc, key_json = tmp_path / "address.avsc", tmp_path / "key.json"
    avsc.write_text(json.dumps(ADDRESS))
    key_json.write_text(json.dumps({"type": "object", "properties": {"id": {"type": "string"}}}))
    produce = [
        "messages", "produce", topic, "--schema-registry", registry_url,
        "--key-schema-file", str(key_json), "--key-format", "jsonschema", "--key", '{"id": "k"}',
        "--value-schema-file", str(avsc), "--value-subject", "shop-address",
        "--value-format", "avro", "--value", '{"city": "Rome"}',
    ]  # fmt: skip
    code, out, err = run(capsys, kraft_cluster, *produce)
    assert (code, out) == (2, "") and f"has no subject '{topic}-key'" in err, err
    assert f"{topic}-key" not in client.subjects()
    for flags, said in (
        (["--register"], "--register needs --key-schema-file or --value-schema-file"),
        (["--register", "--value-schema-file", str(avsc)], "--register needs a schema registry"),
    ):
        code, out, err = run(capsys, kraft_cluster, "messages", "produce", topic, *flags)
        assert (code, out) == (2, "") and said in err, err
    # --register: each file under its subject (TopicNameStrategy unless named), ids said;
    # the Avro schema is the one shop-address holds: the same id
    code, out, err = run(capsys, kraft_cluster, *produce, "--register")
    assert code == 0, err
    key_id = client.version(f"{topic}-key", 1).schema_id
    assert err.splitlines() == [
        f"The key schema is registered under subject '{topic}-key': schema id {key_id}.",
        f"The value schema is registered under subject 'shop-address': schema id {address_id}.",
    ]
    assert out == f"Record written to '{topic}' partition 0 at offset 1.\n"
    # --value-schema-id: that schema, not the subject's latest (shop-address's here)
    by_id = [
        "messages", "produce", topic, "--schema-registry", registry_url, "--value-format",
        "avro", "--value-schema-id", str(customer_id), "--value-subject", "shop-address",
    ]  # fmt: skip
    bo = {"name": "Bo", "visits": 1, "home": {"city": "Pisa"}}
    code, out, err = run(capsys, kraft_cluster, *by_id, "--value", json.dumps(bo))
    assert (code, err) == (0, "") and out.endswith("at offset 2.\n"), err
    code, out, err = run(capsys, kraft_cluster, *by_id, "--file", str(avsc))
    assert (code, out) == (2, "") and "--key-schema-id and --value-schema-id are for" in err

    code, records, err = _read(capsys, kraft_cluster, topic, "--schema-registry", registry_url)
    assert (code, err) == (0, "")
    assert [(r["value"], r["value_format"], r["schema_id"]) for r in records] == [
        (value, "avro", customer_id),
        ({"city": "Rome"}, "avro", address_id),
        (bo, "avro", customer_id),
    ]
    assert [(r["key"], r["key_format"]) for r in records] == [
        ("k", "string"),
        ({"id": "k"}, "jsonschema"),
        (None, "auto"),
    ]
    # Asked as protobuf, the Avro record is kept as bytes with a sentence (exit 1).
    code, records, _ = _read(
        capsys,
        kraft_cluster,
        topic,
        "--schema-registry",
        registry_url,
        "--value-format",
        "protobuf",
        "--limit",
        "1",
    )
    assert code == 1
    assert records[0]["value_format"] == "bytes"
    assert f"schema id {customer_id} is an Avro schema, not protobuf" in str(records[0]["error"])


def test_protobuf_with_an_imported_proto(
    kraft_cluster: Cluster,
    capsys: pytest.CaptureFixture[str],
    topic_name: Names,
    client: RegistryClient,
    registry_url: str,
) -> None:
    topic = topic_name("proto")
    client.register("common-money", RegisteredSchema(None, "PROTOBUF", MONEY_PROTO))
    order_id = client.register(
        f"{topic}-value",
        RegisteredSchema(
            None, "PROTOBUF", ORDER_PROTO, (Reference("common/money.proto", "common-money", 1),)
        ),
    )
    order = {
        "id": "o-1",
        "price": {"currency": "EUR", "units": "1250"},  # int64 as a string: proto3's JSON
        "lines": [{"sku": "a", "count": 2}],
    }
    writer = RecordSchemas(client, proto_message="shop.Order")
    data = writer.encode(order, "protobuf", subject=f"{topic}-value")
    # the second message of the file: message indexes [1], a count and an index, zigzag
    assert data[:7] == b"\x00" + struct.pack(">I", order_id) + b"\x02\x02"
    header = RecordSchemas(client).encode({"source": "web"}, "protobuf", subject=f"{topic}-value")
    assert header[5:6] == b"\x00"  # the first message: the single byte 0

    _written(kraft_cluster, topic, data, header)
    code, records, err = _read(
        capsys,
        kraft_cluster,
        topic,
        "--schema-registry",
        registry_url,
        "--value-format",
        "protobuf",
    )
    assert (code, err) == (0, "")
    assert [(r["value"], r["value_format"], r["schema_id"]) for r in records] == [
        (order, "protobuf", order_id),
        ({"source": "web"}, "protobuf", order_id),
    ]


def test_json_schema_records_validated_when_asked(
    kraft_cluster: Cluster,
    capsys: pytest.CaptureFixture[str],
    topic_name: Names,
    client: RegistryClient,
    registry_url: str,
) -> None:
    topic = topic_name("json")
    client.register(f"{topic}-place", RegisteredSchema(None, "JSON", json.dumps(PLACE_SCHEMA)))
    event = RegisteredSchema(
        None, "JSON", json.dumps(EVENT_SCHEMA), (Reference("place.json", f"{topic}-place", 1),)
    )
    event_id = client.register(f"{topic}-value", event)
    assert client.schema(event_id).references == event.references
    checked = RecordSchemas(client, validate_json=True)
    data = checked.encode({"kind": "click", "n": 2}, "jsonschema", subject=f"{topic}-value")
    assert data == b"\x00" + struct.pack(">I", event_id) + b'{"kind":"click","n":2}'
    with pytest.raises(SchemaError, match="does not match the JSON Schema at n: 'two' is not"):
        checked.encode({"kind": "click", "n": "two"}, "jsonschema", subject=f"{topic}-value")
    # the referenced schema checks its part
    with pytest.raises(SchemaError, match="at where/city: 7 is not of type 'string'"):
        checked.encode({"kind": "k", "where": {"city": 7}}, "jsonschema", subject=f"{topic}-value")
    placed = {"kind": "visit", "where": {"city": "Oslo"}}
    framed = checked.encode(placed, "jsonschema", subject=f"{topic}-value")
    assert checked.decode(framed, None) == (placed, "jsonschema", event_id)
    unchecked = RecordSchemas(client).encode({"n": 1}, "jsonschema", subject=f"{topic}-value")
    with pytest.raises(SchemaError, match="'kind' is a required property"):
        checked.decode(unchecked, None)

    _written(kraft_cluster, topic, data, framed)
    code, records, err = _read(
        capsys,
        kraft_cluster,
        topic,
        "--schema-registry",
        registry_url,
        "--validate-json-schema",
    )
    assert (code, err) == (0, "")
    assert [(r["value"], r["value_format"], r["schema_id"]) for r in records] == [
        ({"kind": "click", "n": 2}, "jsonschema", event_id),
        (placed, "jsonschema", event_id),
    ]


def test_an_unreachable_registry_and_unknown_names_are_one_sentence(
    client: RegistryClient, registry_url: str
) -> None:
    closed = f"http://127.0.0.1:{probe.free_ports(1)[0]}"
    away = RecordSchemas(RegistryClient(RegistrySettings(closed)))
    with pytest.raises(SchemaError) as unreachable:
        away.decode(b"\x00\x00\x00\x00\x01\x02", None)
    assert str(unreachable.value) == f"the schema registry at {closed} cannot be reached"
    schemas = RecordSchemas(client)
    with pytest.raises(SchemaError) as unknown:
        schemas.decode(b"\x00\x00\x00\xff\xff\x02", None)
    assert str(unknown.value) == f"the schema registry at {registry_url} has no schema id 65535"
    with pytest.raises(SchemaError) as no_subject:
        schemas.encode({}, "avro", subject="no-such-subject-value")
    assert str(no_subject.value) == (
        f"the schema registry at {registry_url} has no subject 'no-such-subject-value'"
    )
    # Apicurio's root is not Confluent's API: the 404 names where the API is
    wrong = RecordSchemas(RegistryClient(RegistrySettings(registry_url.split("/apis")[0])))
    with pytest.raises(SchemaError, match=r"HTTP 404: is the URL .*/apis/ccompat/v7"):
        wrong.decode(b"\x00\x00\x00\x00\x01\x02", None)


VISIT = {"type": "record", "name": "Visit", "fields": [{"name": "page", "type": "string"}]}


async def test_records_screen_decodes_and_produces_through_the_profiles_registry(
    kraft_cluster: Cluster,
    kadmin: KafkaAdmin,
    topic_name: Names,
    client: RegistryClient,
    registry_url: str,
) -> None:
    """The records screen of a profile with schema_registry_url: a record in the registry's
    wire format decoded (auto), and the produce form writing Avro through the topic's
    subject, a value the schema refuses said at its field."""
    topic = topic_name("tui")
    servers = kraft_cluster.bootstrap_servers
    await create(servers, TopicSpec(topic, 1, 1))
    visit_id = client.register(f"{topic}-value", RegisteredSchema(None, "AVRO", json.dumps(VISIT)))
    framed = RecordSchemas(client).encode({"page": "/a"}, "avro", subject=f"{topic}-value")
    await _produce(servers, topic, framed)
    profile = Profile(
        "test", ConnectionSettings(servers), schema_registry=RegistrySettings(registry_url)
    )
    # the profile picker: no cluster read but the records screen's (the path from the topics
    # screen is test_tui_records')
    app = make_app(Settings(profiles={"test": profile}), None, refresh_seconds=0)
    async with app.run_test(size=SMALL) as pilot:
        screen = RecordsScreen(profile, kadmin, topic)
        await app.push_screen(screen)

        def seen() -> list[tuple[object, ...]]:
            return [(d["value"], d["value_format"], d["schema_id"]) for d in screen.shown]

        await until(pilot, lambda: len(screen.shown) == 1, seen)
        assert seen() == [({"page": "/a"}, "avro", visit_id)]
        detail = str(screen.query_one("#record-detail", Static).render())
        assert f"schema id: {visit_id}" in detail and '"page": "/a"' in detail

        await pilot.press("P")
        await until(pilot, lambda: isinstance(app.screen, ProduceDialog), lambda: app.screen)
        dialog = app.screen
        assert isinstance(dialog, ProduceDialog)
        subject = dialog.query_one("#value-schema", Input)
        assert not subject.display  # shown for the schema formats only
        dialog.query_one("#value-format", Select).value = "avro"
        await pilot.pause()
        assert subject.display and f"{topic}-value" in subject.placeholder
        value_error = dialog.query_one("#value-error", Label)
        # JSON, but not a Visit: refused at the value when the registry's schema says so
        value = dialog.query_one("#value", TextArea)
        value.text = '{"path": "/b"}'  # set, not typed: each key would be a revalidation
        await pilot.press("ctrl+s")
        await until(pilot, lambda: bool(value_error.display), lambda: app.screen)
        said = str(value_error.render())
        assert "does not fit the Avro schema" in said and app.screen is dialog, said
        value.text = '{"page": "/b"}'
        await pilot.pause()
        assert not value_error.display  # JSON while typing: the schema is asked when sent
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.screen is screen, lambda: str(value_error.render()))
        await until(pilot, lambda: len(screen.shown) == 2, seen)
        assert seen()[0] == ({"page": "/b"}, "avro", visit_id)  # newest first

        # a Protobuf key of the schema's second message, chosen in the form (the first,
        # k.A, has no field b: written without the choice, it would be refused)
        client.register(f"{topic}-key", RegisteredSchema(None, "PROTOBUF", TWO_PROTO))
        await pilot.press("P")
        await until(pilot, lambda: isinstance(app.screen, ProduceDialog), lambda: app.screen)
        dialog = app.screen
        assert isinstance(dialog, ProduceDialog)
        message = dialog.query_one("#proto-message", Input)
        assert not message.display
        dialog.query_one("#key-format", Select).value = "protobuf"
        await pilot.pause()
        assert message.display
        dialog.query_one("#key", Input).value = '{"b": "x"}'
        dialog.query_one("#value", TextArea).text = "c"
        message.value = "k.B"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await until(pilot, lambda: len(screen.shown) == 3, seen)
        newest = screen.shown[0]
        assert (newest["key"], newest["key_format"], newest["value"]) == (
            {"b": "x"},
            "protobuf",
            "c",
        )
