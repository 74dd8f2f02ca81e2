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

from kafka_tui.admin import TopicSpec
from kafka_tui.devcluster import probe
from kafka_tui.devcluster import registry as dev_registry
from kafka_tui.registry import RegistrySettings, SchemaError
from kafka_tui.registry.client import Reference, RegisteredSchema, RegistryClient
from kafka_tui.registry.codec import LocalSchema, RecordSchemas

from ..conftest import Cluster
from .test_cli import run
from .test_consumer_groups import create

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
EVENT_SCHEMA = {
    "type": "object",
    "properties": {"kind": {"type": "string"}, "n": {"type": "integer"}},
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
    # A schema file registered on request: the same schema, the same id.
    avsc = tmp_path / "address.avsc"
    avsc.write_text(json.dumps(ADDRESS))
    from_file = RecordSchemas(client, value_schema=LocalSchema.load(avsc))
    framed = from_file.encode({"city": "Rome"}, "avro", subject="shop-address", register=True)
    assert framed[:5] == b"\x00" + struct.pack(">I", address_id)

    _written(kraft_cluster, topic, theirs, framed)
    code, records, err = _read(capsys, kraft_cluster, topic, "--schema-registry", registry_url)
    assert (code, err) == (0, "")
    assert [(r["value"], r["value_format"], r["schema_id"]) for r in records] == [
        (value, "avro", customer_id),
        ({"city": "Rome"}, "avro", address_id),
    ]
    assert records[0]["key"] == "k" and records[0]["key_format"] == "string"
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
    event_id = client.register(
        f"{topic}-value", RegisteredSchema(None, "JSON", json.dumps(EVENT_SCHEMA))
    )
    checked = RecordSchemas(client, validate_json=True)
    data = checked.encode({"kind": "click", "n": 2}, "jsonschema", subject=f"{topic}-value")
    assert data == b"\x00" + struct.pack(">I", event_id) + b'{"kind":"click","n":2}'
    with pytest.raises(SchemaError, match="does not match the JSON Schema at n: 'two' is not"):
        checked.encode({"kind": "click", "n": "two"}, "jsonschema", subject=f"{topic}-value")
    unchecked = RecordSchemas(client).encode({"n": 1}, "jsonschema", subject=f"{topic}-value")
    with pytest.raises(SchemaError, match="'kind' is a required property"):
        checked.decode(unchecked, None)

    _written(kraft_cluster, topic, data)
    code, records, err = _read(capsys, kraft_cluster, topic, "--schema-registry", registry_url)
    assert (code, err) == (0, "")
    assert [(r["value"], r["value_format"], r["schema_id"]) for r in records] == [
        ({"kind": "click", "n": 2}, "jsonschema", event_id)
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
