"""The hand-written messages of a create's path (hand_wire.py) write kio's bytes and read
kio's bytes as the kio-read answers are read: headers, Metadata v12's request, DescribeCluster
v2, DescribeLogDirs v5, DescribeConfigs v4, CreateTopics v4's answer. Real brokers answering
them is covered by every create, describe and cordon test."""

from __future__ import annotations

import datetime
import io
from typing import Any

from kio.schema.errors import ErrorCode

from kafka_tui.admin import hand_wire, protocol, protocol_cluster, wire
from kafka_tui.admin.kio_loader import entity_writer, load_response_schema, request_header


def _kio_bytes(entity: Any) -> bytes:
    buffer = io.BytesIO()
    entity_writer(type(entity))(buffer, entity)
    return buffer.getvalue()


def test_request_headers_are_kios() -> None:
    for key, version in ((3, 12), (19, 4), (18, 3), (18, 0), (60, 2), (35, 5), (35, 1)):
        flexible = hand_wire.flexible_request(key, version)
        for client in ("kafka-tui", "", "clïent"):
            header = request_header(key, version)(
                request_api_key=key,
                request_api_version=version,
                correlation_id=123_456,
                client_id=client,
            )
            mine = hand_wire.request_header(key, version, 123_456, client, flexible)
            assert mine == _kio_bytes(header), (key, version, client)


def test_requests_are_kios_bytes() -> None:
    for topics in (None, [], ["orders", "pâté", "x" * 200]):
        request = protocol.MetadataRequest(topics)
        assert request.encode_message(12) == wire.encode(request.message(12))
    for fenced in (True, False):
        cluster = protocol.DescribeClusterRequest(fenced)
        assert cluster.encode_message(2) == wire.encode(cluster.message(2))
    for asked in (None, [], [("orders", [0, 1, 2]), ("pâté", [])]):
        dirs = protocol_cluster.DescribeLogDirsRequest(asked)
        assert dirs.encode_message(5) == wire.encode(dirs.message(5))
    for keys in (None, [], ["cordoned.log.dirs", "min.insync.réplicas"]):
        for synonyms in (True, False):
            resources = [(protocol.RESOURCE_BROKER, "3"), (protocol.RESOURCE_TOPIC, "pâté")]
            configs = protocol.DescribeConfigsRequest(resources, keys, synonyms=synonyms)
            assert configs.encode_message(4) == wire.encode(configs.message(4))


def _both(key: int, version: int, request: Any, entity: Any) -> tuple[Any, Any]:
    """The answer read by hand and by kio, each through the request's `answer`."""
    data = b"\0" * 3 + _kio_bytes(entity)
    mine, end = request.read(version)(data, 3)
    theirs, kio_end = wire.decode(load_response_schema(key, version), data, 3)
    assert end == kio_end == len(data)
    return mine, theirs


def test_describe_cluster_v2_answers_read_as_kio_reads_them() -> None:
    response = load_response_schema(60, 2)
    broker = wire.nested(response, "DescribeClusterBroker")
    for brokers, message in (
        ((broker(broker_id=1, host="h1", port=9092, rack="r1", is_fenced=False),
          broker(broker_id=1000, host="héte", port=1, rack=None, is_fenced=True)), None),
        ((), "not allowed"),
    ):  # fmt: skip
        entity = response(
            throttle_time=datetime.timedelta(milliseconds=5),
            error_code=ErrorCode(0 if brokers else 31),
            error_message=message,
            endpoint_type=1,
            cluster_id="abc-ID",
            controller_id=1000,
            brokers=brokers,
            cluster_authorized_operations=-2147483648,
        )
        request = protocol.DescribeClusterRequest()
        mine, theirs = _both(60, 2, request, entity)
        assert request.answer(mine) == request.answer(theirs)


def test_describe_log_dirs_v5_answers_read_as_kio_reads_them() -> None:
    response = load_response_schema(35, 5)
    result = wire.nested(response, "DescribeLogDirsResult")
    topic = wire.nested(response, "DescribeLogDirsTopic")
    partition = wire.nested(response, "DescribeLogDirsPartition")
    parts = (
        partition(partition_index=0, partition_size=2**40, offset_lag=7, is_future_key=False),
        partition(partition_index=9, partition_size=0, offset_lag=0, is_future_key=True),
    )
    ok, offline = ErrorCode(0), ErrorCode(57)
    first = result(
        error_code=ok,
        log_dir="/d/1",
        topics=(topic(name="o", partitions=parts),),
        total_bytes=10,
        usable_bytes=5,
        is_cordoned=True,
    )
    second = result(
        error_code=offline,
        log_dir="/d/ü",
        topics=(),
        total_bytes=-1,
        usable_bytes=-1,
        is_cordoned=False,
    )
    entity = response(throttle_time=datetime.timedelta(0), error_code=ok, results=(first, second))
    request = protocol_cluster.DescribeLogDirsRequest([])
    mine, theirs = _both(35, 5, request, entity)
    assert request.answer(mine) == request.answer(theirs)
    assert request.answer(mine).dirs[0].cordoned


def test_create_topics_v4_answers_read_as_kio_reads_them() -> None:
    response = load_response_schema(19, 4)
    result = wire.nested(response, "CreatableTopicResult")
    entity = response(
        throttle_time=datetime.timedelta(milliseconds=1),
        topics=(
            result(name="a", error_code=ErrorCode(0), error_message=None),
            result(name="bé", error_code=ErrorCode(36), error_message="Topic 'bé' already exists."),
        ),
    )
    request = protocol.CreateTopicsRequest([], 1000, False, details=False)
    mine, theirs = _both(19, 4, request, entity)
    assert request.topic_answers(mine) == request.topic_answers(theirs)


def test_describe_configs_v4_answers_read_as_kio_reads_them() -> None:
    response = load_response_schema(32, 4)
    result = wire.nested(response, "DescribeConfigsResult")
    config = wire.nested(response, "DescribeConfigsResourceResult")
    synonym = wire.nested(response, "DescribeConfigsSynonym")
    hidden = (synonym(name="log.retention.hours", value="168", source=5),
              synonym(name="x", value=None, source=4))  # fmt: skip
    configs = (
        config(name="cordoned.log.dirs", value="*", read_only=False, config_source=1,
               is_sensitive=False, synonyms=hidden, config_type=7, documentation="cordons"),
        config(name="sasl.jaas.config", value=None, read_only=True, config_source=-1,
               is_sensitive=True, synonyms=(), config_type=9, documentation=None),
    )  # fmt: skip
    entity = response(
        throttle_time=datetime.timedelta(milliseconds=2),
        results=(
            result(error_code=ErrorCode(0), error_message=None, resource_type=4,
                   resource_name="1", configs=configs),
            result(error_code=ErrorCode(42), error_message="Unexpected broker id, expected 2",
                   resource_type=4, resource_name="1", configs=()),
        ),
    )  # fmt: skip
    request = protocol.DescribeConfigsRequest([(protocol.RESOURCE_BROKER, "1")], None)
    mine, theirs = _both(32, 4, request, entity)
    assert request.answer(mine) == request.answer(theirs)
    assert request.answer(mine)[0].configs[0].synonyms[0].value == "168"
