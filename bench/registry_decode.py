"""Decoding registry-framed records, per record as `messages read` does: kafka_tui's
RecordSchemas.decode (header, schema by id from its cache, fastavro, JSON-ready values;
Protobuf: message indexes, a dynamic message, json_format) against the bare library loop on
the same bytes (fastavro.schemaless_reader; ParseFromString + MessageToDict). Side by side in
one run, best of --rounds. The schemas are registered in a real registry, Apicurio 2.6.13
(devcluster/registry.py: fetched once with Maven, started for the run, stopped after).

    python bench/registry_decode.py [--records 200000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import fastavro

from kafka_tui.devcluster import registry as dev_registry
from kafka_tui.registry import RegistrySettings
from kafka_tui.registry.client import RegisteredSchema, RegistryClient
from kafka_tui.registry.codec import RecordSchemas

AVRO = {
    "type": "record",
    "name": "Order",
    "fields": [
        {"name": "id", "type": "string"},
        {"name": "customer", "type": "string"},
        {"name": "amount", "type": "double"},
        {"name": "items", "type": {"type": "array", "items": "string"}},
        {"name": "note", "type": ["null", "string"], "default": None},
        {"name": "created", "type": "long"},
    ],
}
PROTO = """syntax = "proto3";
message Order {
  string id = 1; string customer = 2; double amount = 3; repeated string items = 4;
  string note = 5; int64 created = 6;
}
"""


def _value(i: int) -> dict[str, object]:
    return {
        "id": f"order-{i:09d}",
        "customer": f"customer-{i % 5000:06d}",
        "amount": i * 1.25,
        "items": [f"sku-{i % 97:04d}", f"sku-{i % 89:04d}", f"sku-{i % 83:04d}"],
        "note": "gift wrap, deliver after 18:00, ring twice" if i % 2 else None,
        "created": 1_795_000_000_000 + i,
    }


def _best(rounds: int, run: Callable[[], object]) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="kafka-tui-bench-"))
    registry = dev_registry.up(work)
    try:
        _run(args.records, args.rounds, registry.url)
    finally:
        dev_registry.down(work)
        shutil.rmtree(work, ignore_errors=True)


def _run(records: int, rounds: int, url: str) -> None:
    client = RegistryClient(RegistrySettings(url))
    client.register("bench-avro", RegisteredSchema(None, "AVRO", json.dumps(AVRO)))
    client.register("bench-proto", RegisteredSchema(None, "PROTOBUF", PROTO))
    schemas = RecordSchemas(client)
    values = [_value(i) for i in range(records)]
    avro_records = [schemas.encode(v, "avro", subject="bench-avro") for v in values]
    proto_records = [
        schemas.encode(
            {k: x for k, x in v.items() if x is not None}, "protobuf", subject="bench-proto"
        )
        for v in values
    ]
    parsed = fastavro.parse_schema(AVRO)
    size = sum(map(len, avro_records)) / len(avro_records)
    print(f"{records:,} records; Avro ~{size:.0f} B framed, best of {rounds}")
    reader = fastavro.schemaless_reader

    def bare_avro() -> None:
        for data in avro_records:
            reader(io.BytesIO(data[5:]), parsed, None)

    def ours_avro() -> None:
        decode = schemas.decode
        for data in avro_records:
            decode(data, "avro")

    from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory

    from kafka_tui.registry.protobuf import MAIN_FILE, compile_proto

    pool = descriptor_pool.DescriptorPool()
    for proto in descriptor_pb2.FileDescriptorSet.FromString(compile_proto(PROTO, {})).file:
        pool.Add(proto)
    assert proto.name == MAIN_FILE
    message_class = message_factory.GetMessageClass(pool.FindMessageTypeByName("Order"))

    def bare_proto() -> None:
        for data in proto_records:
            m = message_class()
            m.ParseFromString(data[6:])
            json_format.MessageToDict(
                m, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
            )

    def ours_proto() -> None:
        decode = schemas.decode
        for data in proto_records:
            decode(data, "protobuf")

    for name, bare, ours in (
        ("avro", bare_avro, ours_avro),
        ("protobuf", bare_proto, ours_proto),
    ):
        b, o = _best(rounds, bare), _best(rounds, ours)
        rate = records / o
        print(
            f"{name:9} bare library loop {b:6.2f} s   RecordSchemas.decode {o:6.2f} s "
            f"({rate:,.0f} records/s)   ratio {o / b:.2f}x"
        )


if __name__ == "__main__":
    main()
