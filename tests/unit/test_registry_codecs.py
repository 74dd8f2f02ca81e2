"""Confluent's wire format and message-index varints (bytes written out by hand, as
Confluent's serializers write them), local schema files, and the schema_registry_* profile
keys and flags. The registry itself is tested against a real one in
tests/integration/test_registry.py."""

from __future__ import annotations

import argparse
import base64
import http.server
import io
import json
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path

import fastavro
import pytest

from kafka_tui.cli.registry_flags import add_registry_flags, registry_settings
from kafka_tui.config import ConfigError, parse_settings
from kafka_tui.devcluster.security import write_tls_material
from kafka_tui.registry import RegistrySettings, SchemaError
from kafka_tui.registry.avro import AvroSchema
from kafka_tui.registry.client import RegistryClient
from kafka_tui.registry.codec import LocalSchema, RecordSchemas
from kafka_tui.registry.settings import shown_url
from kafka_tui.registry.wire import (
    decode_indexes,
    encode_indexes,
    frame,
    is_framed,
    unframe,
)
from kafka_tui.services.parsing import UsageError


def test_the_header_is_magic_zero_and_a_big_endian_id() -> None:
    assert frame(258, b"xy") == b"\x00\x00\x00\x01\x02xy"
    assert frame(0xFFFFFFFF, b"") == b"\x00\xff\xff\xff\xff"
    schema_id, payload = unframe(b"\x00\x00\x00\x01\x02xy")
    assert (schema_id, bytes(payload)) == (258, b"xy")
    assert not is_framed(b"\x00\x00\x00\x01")  # too short for an id
    assert not is_framed(b'{"a": 1}')
    with pytest.raises(SchemaError, match="wire format"):
        unframe(b"\x01\x00\x00\x00\x01")
    with pytest.raises(SchemaError, match="4 bytes"):
        frame(1 << 32, b"")


@pytest.mark.parametrize(
    ("indexes", "written"),
    [
        ((0,), b"\x00"),  # the first message: one byte, not [1, 0]
        ((1,), b"\x02\x02"),  # count 1, index 1, both zigzag
        ((0, 2), b"\x04\x00\x04"),
        ((2, 0, 1), b"\x06\x04\x00\x02"),
        ((64,), b"\x02\x80\x01"),  # zigzag 128: two varint bytes
    ],
)
def test_message_indexes_are_zigzag_varints(indexes: tuple[int, ...], written: bytes) -> None:
    assert encode_indexes(indexes) == written
    read, rest = decode_indexes(memoryview(written + b"\x0a\x01x"))
    assert read == indexes and bytes(rest) == b"\x0a\x01x"


def test_malformed_indexes_are_one_sentence() -> None:
    with pytest.raises(SchemaError, match="end before"):
        decode_indexes(memoryview(b"\x04\x00"))  # two announced, one there
    with pytest.raises(SchemaError, match="end before"):
        decode_indexes(memoryview(b"\x80"))
    with pytest.raises(SchemaError, match="negative"):
        decode_indexes(memoryview(b"\x02\x01"))


AVSC = '{"type": "record", "name": "User", "fields": [{"name": "name", "type": "string"}]}'
PROTO = """syntax = "proto3";
package shop;
import "google/protobuf/timestamp.proto";
message Order {
  string id = 1;
  message Line { string sku = 1; int32 count = 2; }
  repeated Line lines = 2;
  google.protobuf.Timestamp at = 3;
}
message Refund { string order_id = 1; }
"""


def test_an_avsc_file_reads_plain_and_framed_avro(tmp_path: Path) -> None:
    path = tmp_path / "user.avsc"
    path.write_text(AVSC)
    out = io.BytesIO()
    fastavro.schemaless_writer(out, fastavro.parse_schema(json.loads(AVSC)), {"name": "ann"})
    plain = out.getvalue()
    schemas = RecordSchemas(value_schema=LocalSchema.load(path))
    assert schemas.decode(plain, "avro") == ({"name": "ann"}, "avro", None)
    # framed by a registry that is not reachable from here: the file's schema after the header
    assert schemas.decode(frame(7, plain), None) == ({"name": "ann"}, "avro", 7)
    assert schemas.encode({"name": "ann"}, "avro", subject="t-value") == plain
    with pytest.raises(SchemaError, match="byte\\(s\\) left"):
        schemas.decode(plain + b"zz", "avro")
    with pytest.raises(SchemaError, match=r"user\.avsc is an Avro schema, not protobuf"):
        schemas.decode(plain, "protobuf")
    # the key side has no schema file
    with pytest.raises(SchemaError, match="wire format"):
        schemas.side("key").decode(plain, None)


def test_a_proto_file_compiles_with_its_imports_and_picks_messages(tmp_path: Path) -> None:
    path = tmp_path / "order.proto"
    path.write_text(PROTO)
    refund = LocalSchema.load(path, "shop.Refund")
    assert refund.parsed.indexes("shop.Refund") == (1,)
    assert refund.parsed.indexes("Order.Line") == (0, 0)
    assert refund.parsed.message_name((0, 0)) == "shop.Order.Line"
    schemas = RecordSchemas(value_schema=refund)
    data = schemas.encode({"order_id": "o-1"}, "protobuf", subject="t-value")
    assert data == b"\x0a\x03o-1"  # field 1, length 3: a plain message, no header
    assert schemas.decode(data, None) == ({"order_id": "o-1"}, "protobuf", None)
    order = RecordSchemas(value_schema=LocalSchema.load(path))
    value = {"id": "o-2", "lines": [{"sku": "a", "count": 2}], "at": "2026-01-02T03:04:05Z"}
    assert order.decode(order.encode(value, "protobuf", subject="s"), "protobuf")[0] == value
    with pytest.raises(SchemaError, match="has no message 'Nope'"):
        LocalSchema.load(path, "Nope")
    broken = tmp_path / "broken.proto"
    broken.write_text('syntax = "proto3";\nmessage A { strin x = 1; }\n')
    with pytest.raises(SchemaError, match=r"does not compile: broken\.proto:2"):
        LocalSchema.load(broken)


def _profile(**keys: object) -> dict[str, object]:
    return {"profiles": {"p": {"bootstrap_servers": "h:1", **keys}}}


@pytest.mark.parametrize(
    ("keys", "message"),
    [
        ({"schema_registry_username": "u"}, "schema_registry_username needs schema_registry_url"),
        ({"schema_registry_url": "registry:8081"}, "must be an http:// or https:// URL"),
        ({"schema_registry_url": 8081}, "'schema_registry_url' must be a str"),
        (
            {"schema_registry_url": "http://r", "schema_registry_username": "u"},
            "go together",
        ),
        (
            {
                "schema_registry_url": "http://r",
                "schema_registry_token_env": "HOME",
                "schema_registry_username": "u",
                "schema_registry_password_env": "HOME",
            },
            "not both",
        ),
        (
            {
                "schema_registry_url": "http://r",
                "schema_registry_username": "u",
                "schema_registry_password_env": "HOME",
                "schema_registry_password_command": "pass x",
            },
            "give one source for schema_registry_password",
        ),
        (
            {"schema_registry_url": "http://r", "schema_registry_token_keyring": "nouser"},
            "'schema_registry_token_keyring' must be SERVICE/USERNAME",
        ),
        (
            {"schema_registry_url": "http://r", "schema_registry_ca_file": "/no/ca.pem"},
            "'schema_registry_ca_file' file /no/ca.pem does not exist",
        ),
        ({"schema_registry_url": "http://r", "schema_registry_tls": True}, "unknown key(s)"),
    ],
)
def test_registry_profile_keys_are_strict(keys: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", "\\(").replace(")", "\\)")):
        parse_settings(_profile(**keys))


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_registry_flags(parser)
    return parser.parse_args(argv)


def test_flags_over_the_profile_and_its_login_only_for_its_own_url(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("REG_PW", "s3cret")
    settings = parse_settings(
        _profile(
            schema_registry_url="https://user:pw@r.example:8081/",
            schema_registry_username="ops",
            schema_registry_password_env="REG_PW",
        )
    )
    profile = settings.profiles["p"]
    assert profile.schema_registry is not None
    assert "s3cret" not in repr(profile)
    own = registry_settings(_args(), profile)
    assert own is not None and (own.username, own.password) == ("ops", "s3cret")
    other = registry_settings(_args("--schema-registry", "http://elsewhere:8081"), profile)
    assert other is not None and (other.url, other.username, other.password) == (
        "http://elsewhere:8081",
        None,
        None,
    )
    monkeypatch.setenv("REG_TOKEN", "t0ken")
    token = registry_settings(_args("--registry-token-env", "REG_TOKEN"), profile)
    assert token is not None and (token.token, token.username) == ("t0ken", None)
    assert registry_settings(_args(), None) is None
    with pytest.raises(UsageError, match="--registry-user needs --schema-registry"):
        registry_settings(_args("--registry-user", "u"), None)
    with pytest.raises(UsageError, match="environment variable NOPE_UNSET is not set"):
        registry_settings(
            _args("--schema-registry", "http://r", "--registry-token-env", "NOPE_UNSET"), None
        )
    # a user and password in the URL are never shown
    assert shown_url("https://user:pw@r.example:8081/x/") == "https://r.example:8081/x"


class _Registry(http.server.BaseHTTPRequestHandler):
    """What a registry with a login answers (Apicurio here runs without one): 401 without
    the right Authorization, 403 for the viewer, the schema for the admin."""

    def do_GET(self) -> None:
        login = self.headers.get("Authorization")
        seen.append(login)
        basic = "Basic " + base64.b64encode(b"admin:s3cret").decode()
        if login in (basic, "Bearer t0ken"):
            status, body = 200, {"id": 1, "schema": '"string"'}
        elif login == "Basic " + base64.b64encode(b"viewer:s3cret").decode():
            status, body = 403, {"error_code": 40301, "message": "User is denied"}
        else:
            status, body = 401, {"error_code": 401, "message": "Unauthorized"}
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/vnd.schemaregistry.v1+json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


seen: list[str | None] = []


@pytest.fixture(scope="module")
def login_registry() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Registry)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_basic_and_bearer_logins_and_refusals_are_sentences(login_registry: str) -> None:
    def schema(**login: str) -> object:
        client = RegistryClient(RegistrySettings(login_registry, **login))  # type: ignore[arg-type]
        try:
            return client.schema(1).text
        finally:
            client.close()

    assert schema(username="admin", password="s3cret") == '"string"'
    assert schema(token="t0ken") == '"string"'
    with pytest.raises(SchemaError) as refused:
        schema(username="admin", password="wrong")
    assert str(refused.value) == (
        f"the schema registry at {login_registry} refused the login (HTTP 401): check the "
        "registry user and password or token"
    )
    with pytest.raises(
        SchemaError, match=r"does not allow this login to read schema id 1 \(HTTP 403\)"
    ):
        schema(username="viewer", password="s3cret")
    with pytest.raises(SchemaError, match="refused the login"):
        schema()
    assert seen[-1] is None  # no login given: none sent


def test_encoding_asks_the_registry_once_per_subject(login_registry: str) -> None:
    schemas = RecordSchemas(RegistryClient(RegistrySettings(login_registry, token="t0ken")))
    asked = len(seen)
    records = [schemas.encode(f"r{i}", "avro", subject="x-value") for i in range(100)]
    assert records[0] == b"\x00\x00\x00\x00\x01\x04r0"
    assert len(seen) - asked == 2  # the subject's latest version, then its schema by id
    assert schemas.decode(records[99], None) == ("r99", "avro", 1)
    assert len(seen) - asked == 2


def test_tls_trusts_the_ca_file_given(tmp_path: Path) -> None:
    tls = write_tls_material(tmp_path)  # the dev cluster's CA and a cert for 127.0.0.1
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Registry)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tls.keystore)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"https://127.0.0.1:{server.server_address[1]}"
    try:
        trusted = RegistryClient(RegistrySettings(url, token="t0ken", ca_file=str(tls.ca)))
        assert trusted.schema(1).text == '"string"'
        untrusted = RegistryClient(RegistrySettings(url, token="t0ken", ca_file=str(tls.other_ca)))
        with pytest.raises(SchemaError) as refused:
            untrusted.schema(1)
        assert str(refused.value) == (
            f"TLS with the schema registry at {url} failed (check its CA file and client "
            "certificate)"
        )
    finally:
        server.shutdown()
        server.server_close()


def test_avro_values_come_out_json_ready() -> None:
    schema = {
        "type": "record",
        "name": "Payment",
        "fields": [
            {"name": "id", "type": {"type": "string", "logicalType": "uuid"}},
            {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
            {"name": "blob", "type": ["null", "bytes"]},
            {"name": "tags", "type": {"type": "map", "values": "string"}},
        ],
    }
    avro = AvroSchema(json.dumps(schema))
    out = io.BytesIO()
    fastavro.schemaless_writer(
        out,
        fastavro.parse_schema(schema),
        {
            "id": "6f1c5a4e-3b1e-4c5e-9a55-0f2f2d8b4c11",
            "at": 1_795_000_000_000,
            "blob": b"\x00\xff",
            "tags": {"a": "b"},
        },
    )
    value = avro.decode(out.getvalue())
    assert value == {
        "id": "6f1c5a4e-3b1e-4c5e-9a55-0f2f2d8b4c11",
        "at": "2026-11-18T11:06:40+00:00",
        "blob": "AP8=",
        "tags": {"a": "b"},
    }
    json.dumps(value)  # nothing that JSON cannot hold
