"""How fast a Metadata (all topics) answer decodes: in full, names only, and counted as load.

    .venv/bin/python bench/load_decode.py [--topics 10000] [--partitions 3] [--rf 3]
                                          [--bootstrap HOST:PORT]

(1) A synthetic Metadata v12 body of TOPICS x PARTITIONS (RF replicas each, all in sync),
encoded by kio (Kafka's generated messages), decoded by the hand decoders STYLE 19 lets us
keep only while they buy a figure: protocol.decode_metadata_response (every partition a
record), the same with partitions=False (names, ids and counts), and
protocol.decode_metadata_load (replicas and preferred leaders per broker, no per-partition
object, no topic name); beside them kio's generated reader alone and with the translation to
the same records (what every other Metadata version costs), and what a snapshot of every
topic did for the load (decode, describe, count): the best CPU time of several runs, in
partitions per second, and ratios.
(2) With --bootstrap: the same decoders on the cluster's own answer to one Metadata request
for every topic, beside that request's round trip (sent, answered and read, undecoded) — the
yardstick a placement's read of the load is measured against.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import gc
import time
from collections.abc import Callable
from typing import Any

from kio.schema.errors import ErrorCode

from kafka_tui.admin import ConnectionSettings, KafkaAdmin, protocol, wire
from kafka_tui.admin.reading import AdminReads
from kafka_tui.planning.placement import Load


def synthetic(topics: int, partitions: int, rf: int, brokers: int = 3) -> bytes:
    response = protocol.MetadataRequest.API.response_type(12)
    topic, partition, broker = (
        wire.nested(response, name)
        for name in ("MetadataResponseTopic", "MetadataResponsePartition", "MetadataResponseBroker")
    )
    listed = tuple(
        topic(
            error_code=ErrorCode.none,
            name=f"bench-topic-{t:06d}",
            topic_id=wire.topic_id_value("AQIDBAUGBwgJCgsMDQ4PEA"),
            is_internal=False,
            partitions=tuple(
                partition(
                    error_code=ErrorCode.none,
                    partition_index=p,
                    leader_id=r[0],
                    leader_epoch=0,
                    replica_nodes=r,
                    isr_nodes=r,
                    offline_replicas=(),
                )
                for p in range(partitions)
                for r in [tuple(1 + (t + p + k) % brokers for k in range(rf))]
            ),
            topic_authorized_operations=-2147483648,
        )
        for t in range(topics)
    )
    nodes = tuple(
        broker(node_id=b, host="127.0.0.1", port=9092 + b, rack=f"rack-{b}")
        for b in range(1, brokers + 1)
    )
    return wire.encode(
        response(
            throttle_time=datetime.timedelta(0),
            brokers=nodes,
            cluster_id="c",
            controller_id=1,
            topics=listed,
        )
    )


def described_load(body: bytes) -> Load:
    """What a snapshot of every topic did for the load: decode, describe, count."""
    metadata, _ = protocol.decode_metadata_response(body)
    topics = [AdminReads._description(t) for t in metadata.topics if not t.error_code]
    return Load.from_assignments(p.replicas for t in topics for p in t.partitions)


def best(decode: Callable[[], Any], runs: int) -> float:
    """The best CPU time of `runs` (on a shared machine, wall time also counts the waits for
    a core)."""
    times = []
    for _ in range(runs):
        gc.collect()
        started = time.process_time()
        decode()
        times.append(time.process_time() - started)
    return min(times)


def report(body: bytes, partitions: int, runs: int) -> dict[str, float]:
    decoders: dict[str, Callable[[], Any]] = {
        "full": lambda: protocol.decode_metadata_response(body),
        "names only": lambda: protocol.decode_metadata_response(body, partitions=False),
        "full, described, counted": lambda: described_load(body),
        "load": lambda: protocol.decode_metadata_load(body),
        "kio (generated)": lambda: wire.decode(
            protocol.MetadataRequest.API.response_type(12), body
        ),
        "kio, as records": lambda: protocol.metadata_answer(
            wire.decode(protocol.MetadataRequest.API.response_type(12), body)[0]
        ),
    }
    took = {name: best(decode, runs) for name, decode in decoders.items()}
    for name, seconds in took.items():
        rate = partitions / seconds / 1e6
        print(
            f"  {name:28s} {seconds * 1000:7.1f} ms  {rate:5.2f} M partitions/s"
            f"  ({took['full'] / seconds:4.1f}x the full decode's rate)"
        )
    return took


async def from_cluster(bootstrap: str, runs: int) -> None:
    async with KafkaAdmin(ConnectionSettings(bootstrap, request_timeout_ms=120_000)) as admin:
        node = admin._reader()
        trips, body = [], b""
        for _ in range(runs):
            started = time.perf_counter()
            response = await admin.client.send(node, protocol.MetadataBodyRequest(None))
            trips.append(time.perf_counter() - started)
            body = protocol.MetadataBodyRequest.body(response)
    metadata, _ = protocol.decode_metadata_response(body)
    count = sum(len(t.partitions or ()) for t in metadata.topics)
    print(
        f"cluster {bootstrap}: {len(metadata.topics)} topics, {count} partitions, "
        f"{len(body) / 1e6:.1f} MB; one Metadata request (round trip, undecoded): "
        f"{min(trips) * 1000:.1f} ms best of {runs}"
    )
    took = report(body, count, runs)
    for name, seconds in took.items():
        print(f"  {name:10s} decode / raw request: {seconds / min(trips):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--partitions", type=int, default=3)
    parser.add_argument("--rf", type=int, default=3)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--bootstrap")
    args = parser.parse_args()
    body = synthetic(args.topics, args.partitions, args.rf)
    count = args.topics * args.partitions
    print(
        f"synthetic: {args.topics} topics x {args.partitions} partitions, RF {args.rf}, "
        f"{len(body) / 1e6:.1f} MB; best of {args.runs}"
    )
    report(body, count, args.runs)
    if args.bootstrap:
        asyncio.run(from_cluster(args.bootstrap, args.runs))


if __name__ == "__main__":
    main()
