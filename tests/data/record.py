"""Record what real dev clusters answer to the screens' reads, for the screen tests.

    .venv/bin/python tests/data/record.py [scenario ...]      (default: all)

Starts real local clusters (kafka_tui.devcluster, as the integration tests do), prepares
each scenario with real admin calls, records the answers of the `AdminPort` reads into
tests/data/<scenario>.json (.json.gz when large), and tears the clusters down. The screen
tests (tests/tui) replay these files; nothing in them is written by hand.

Scenarios (the KRaft ones build on each other, on one cluster, in this order):
  kraft-empty  KRaft (Kafka 4.4), 3 brokers, no topic yet.
  kraft-demo   KRaft (Kafka 4.4), 3 brokers, `kafka-tui demo`'s topics, broker 3 stopped,
               KIP-409 placeholders (`audit-log`, RF 4), one reassignment left pending on
               the stopped broker, a little data in `orders`.
  kraft-fill   kraft-demo after `dev-cluster add-broker` (broker 4, live): the placeholders
               can now be filled (nothing is filled: that is a change).
  zk-demo      ZooKeeper mode (Kafka 3.9), 3 brokers, the demo topics, broker 3 stopped.
  kraft-10k    kraft-fill's cluster plus 10,000 topics (1 partition, RF 1); configs are
               recorded for the demo topics only (min.insync.replicas for all), and so
               are the eligible leader replicas.
  kraft-big    On a cluster of its own, built as kraft-fill's (the demo topics, broker 3
               stopped, the placeholders and the pending reassignment, broker 4 added), plus
               `--big-topics` topics `big-NNNNN` x `--big-partitions` partitions (RF 1;
               default 1,000 x 10); configs as kraft-10k. Not replayed by the screen tests:
               bench/big_cluster.py expands it (below).

    .venv/bin/python tests/data/record.py --expand kraft-big 1000000 OUT.json.gz

writes `expand(recording, 1000000)`: NOT a recording, but a deterministic expansion of one
(see `expand`), for the 1,000,000-partition TUI figures no machine here can hold for real
(each partition costs its broker open files; see README "Benchmarks").
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import gzip
import json
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from kafka_tui.admin import ConnectionSettings, KafkaAdmin, TopicSpec  # noqa: E402
from kafka_tui.admin.partition_moves import PartitionMove  # noqa: E402
from kafka_tui.admin.placeholders import PlaceholderStore  # noqa: E402
from kafka_tui.devcluster import DevCluster, Mode  # noqa: E402
from kafka_tui.devcluster.seed import DEMO_STOPPED_BROKER, seed_demo_topics  # noqa: E402
from kafka_tui.services import placing  # noqa: E402
from kafka_tui.services.snapshot import take_snapshot  # noqa: E402
from tests.tui.replay import (  # noqa: E402
    DATA,
    FORMAT,
    encode_cluster,
    encode_configs,
    encode_elr,
    encode_reassignment,
    encode_topic,
    load_recording,
)

DEFAULT_KEYS = ["num.partitions", "default.replication.factor", "min.insync.replicas"]
MANY_TOPICS = 10_000
SCENARIOS = ["kraft-empty", "kraft-demo", "kraft-fill", "kraft-10k", "kraft-big", "zk-demo"]
BIG_TOPICS, BIG_PARTITIONS = 1_000, 10


def log(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)


async def record(
    bootstrap: str,
    scenario: str,
    status: dict[str, Any],
    *,
    configs_for: Callable[[str], bool] = lambda name: True,
    gz: bool = False,
) -> Path:
    settings = ConnectionSettings(bootstrap)
    async with KafkaAdmin(settings) as admin:
        cluster = await admin.describe_cluster()
        topics = await admin.list_topics()
        names = [t.name for t in topics]
        described, errors = await admin.describe_topics(
            [n for n in names if configs_for(n)], elr=True
        )
        assert not errors, errors
        min_isr = await admin.topic_config_value("min.insync.replicas", names)
        defaults = await admin.broker_configs(None, DEFAULT_KEYS)
        reassignments = await admin.list_partition_reassignments()
        sizes = await admin.partition_sizes(names, cluster.live_broker_ids)
        releases = await admin.kafka_releases(cluster.live_broker_ids)
        log_dirs = await admin.log_dirs(cluster.live_broker_ids)
    store = PlaceholderStore(settings)
    by_name = {t.name: t for t in topics}
    entries = (
        await store.load(len(by_name[store.topic].partitions)) if store.topic in by_name else {}
    )
    data = {
        "format": FORMAT,
        "scenario": scenario,
        "recorded": {"mode": status["mode"], "kafka_version": status["kafka_version"]},
        "bootstrap_servers": bootstrap,
        "cluster": encode_cluster(cluster),
        "topics": [encode_topic(t) for t in topics],
        "topic_configs": {t.name: encode_configs(t.configs) for t in described},
        "eligible_leader_replicas": encode_elr(described),
        "topic_config_values": {"min.insync.replicas": min_isr},
        "broker_defaults": defaults,
        "reassignments": [encode_reassignment(r) for r in reassignments],
        "partition_sizes": sorted([t, p, s] for (t, p), s in sizes.items()),
        "kafka_releases": {str(b): r for b, r in sorted(releases.items())},
        "log_dirs": {str(b): [list(d.dirs), list(d.cordoned)] for b, d in sorted(log_dirs.items())},
        "placeholders": {
            "topic": store.topic,
            "entries": {k: v.to_json() for k, v in sorted(entries.items())},
        },
    }
    path = DATA / f"{scenario}.json{'.gz' if gz else ''}"
    text = json.dumps(data, separators=(",", ":") if gz else (",", ": "), indent=None)
    if gz:
        # mtime=0: the same answers give the same bytes.
        path.write_bytes(gzip.compress(text.encode(), mtime=0))
    else:
        path.write_text(text + "\n", encoding="utf-8")
    log(f"{scenario}: {len(topics)} topics -> {path.relative_to(ROOT)} ({path.stat().st_size} B)")
    return path


async def produce(bootstrap: str, topic: str, count: int) -> None:
    from aiokafka import AIOKafkaProducer

    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
    await producer.start()
    try:
        for i in range(count):
            await producer.send(topic, f"order {i:05d} ".encode() * 8, key=str(i % 6).encode())
        await producer.flush()
    finally:
        await producer.stop()


async def seed_placeholders_and_move(bootstrap: str) -> None:
    """What `kafka-tui demo` adds once broker 3 is stopped (an RF-4 topic under KIP-409,
    enabled mode), and a reassignment that waits for the stopped broker."""
    settings = ConnectionSettings(bootstrap)
    store = PlaceholderStore(settings)
    async with KafkaAdmin(settings) as admin:
        snapshot = await take_snapshot(admin, store=store)
        options = placing.PlacementOptions.of("enabled", 1, None)
        spec = TopicSpec("audit-log", 3, 4, configs={"min.insync.replicas": "1"})
        result = (await placing.create_topics(admin, snapshot, [spec], options, store))[0]
        assert result.ok, result.message
        moved = await admin.alter_partition_reassignments(
            [PartitionMove("moving", 0, [1, 2, DEMO_STOPPED_BROKER])]
        )
        assert all(m.ok for m in moved), moved


async def create_many(bootstrap: str, count: int) -> None:
    async with KafkaAdmin(ConnectionSettings(bootstrap)) as admin:
        for start in range(0, count, 1000):
            specs = [TopicSpec(f"load-{i:05d}", 1, 1) for i in range(start, start + 1000)]
            results = await admin.create_topics(specs, timeout_ms=120_000)
            failed = [r for r in results if not r.ok and r.error != "TOPIC_ALREADY_EXISTS"]
            assert not failed, failed[:3]
            log(f"kraft-10k: {start + 1000} topics created")


async def create_big(bootstrap: str, topics: int, partitions: int) -> None:
    async with KafkaAdmin(ConnectionSettings(bootstrap, request_timeout_ms=300_000)) as admin:
        for start in range(0, topics, 500):
            names = range(start, min(start + 500, topics))
            specs = [TopicSpec(f"big-{i:05d}", partitions, 1) for i in names]
            results = await admin.create_topics(specs, timeout_ms=300_000)
            failed = [r for r in results if not r.ok and r.error != "TOPIC_ALREADY_EXISTS"]
            assert not failed, failed[:3]
            log(f"kraft-big: {names.stop} topics x {partitions} partitions created")


def record_kraft_big(scratch: Path, topics: int, partitions: int) -> None:
    """kraft-fill's cluster, on a cluster of its own (kraft-10k's topics stay out of it),
    plus `topics` x `partitions` (RF 1)."""
    os.environ.setdefault("KAFKA_TUI_BROKER_HEAP_MB", "768")
    dev = DevCluster(scratch / "kraft-big")
    try:
        log("kraft-big: starting 3 brokers")
        bootstrap = up(dev, "kraft")
        seed_demo(dev, bootstrap)
        asyncio.run(seed_placeholders_and_move(bootstrap))
        demo_topics = {t.name for t in asyncio.run(_list(bootstrap))}
        dev.add_broker()
        asyncio.run(create_big(bootstrap, topics, partitions))
        asyncio.run(
            record(
                bootstrap, "kraft-big", dev.status(), configs_for=demo_topics.__contains__, gz=True
            )
        )
    finally:
        dev.down()


# -- the expansion: a large cluster built from copies of a recorded one ----------------------


def _copied_id(topic_id: str | None, copy: int) -> str | None:
    """A topic id for copy `copy` of a recorded topic: derived (UUID 5) from the recorded id,
    in Kafka's form (URL-safe base64 of 16 bytes, no padding)."""
    if topic_id is None:
        return None
    derived = uuid.uuid5(uuid.NAMESPACE_OID, f"kafka-tui-expansion/{topic_id}/{copy}")
    return base64.urlsafe_b64encode(derived.bytes).decode().rstrip("=")


def expand(data: dict[str, Any], partitions: int) -> dict[str, Any]:
    """A recording grown to at least `partitions` partitions by renamed copies of its topics.

    NOT a recording: no cluster ever held the result. It exists because the 1,000,000-
    partition TUI figures need that many partitions and this machine's brokers cannot hold
    them (open-file limits). The rule, deterministic (same input, same bytes):
    - copy 0 is the recording itself, unchanged;
    - copy k (1, 2, ...) repeats every recorded topic that is neither internal nor
      kafka-tui's own placeholder topic, in recorded order, as `copyKKK-<name>`, with a topic
      id derived from the recorded one (`_copied_id`), until the partition total reaches
      `partitions` (the last copy stops after the topic that reaches it);
    - a copy has its original's partitions exactly as recorded (leaders, replicas, ISR,
      offline replicas: the brokers, racks and states are the recorded ones), its configs
      and config values, partition sizes, pending reassignments and placeholder records;
    - the cluster (brokers, controller, defaults) is the recorded one.
    """
    topics: list[list[Any]] = list(data["topics"])
    own = data["placeholders"]["topic"]
    sources = [t for t in data["topics"] if not t[2] and t[0] != own]
    configs = dict(data["topic_configs"])
    values = {k: dict(v) for k, v in data["topic_config_values"].items()}
    sizes_of: dict[str, list[list[Any]]] = {}
    for t, p, size in data["partition_sizes"]:
        sizes_of.setdefault(t, []).append([p, size])
    sizes = list(data["partition_sizes"])
    moving_of: dict[str, list[list[Any]]] = {}
    for r in data["reassignments"]:
        moving_of.setdefault(r[0], []).append(r[1:])
    reassignments = list(data["reassignments"])
    entries = dict(data["placeholders"]["entries"])
    total = sum(len(t[3]) for t in topics)
    copy = 0
    while total < partitions and sources:
        copy += 1
        for name, topic_id, internal, parts in sources:
            renamed = f"copy{copy:03d}-{name}"
            topics.append([renamed, _copied_id(topic_id, copy), internal, parts])
            if name in configs:
                configs[renamed] = configs[name]
            for by_topic in values.values():
                if name in by_topic:
                    by_topic[renamed] = by_topic[name]
            sizes += [[renamed, p, size] for p, size in sizes_of.get(name, [])]
            reassignments += [[renamed, *r] for r in moving_of.get(name, [])]
            if name in entries:
                entries[renamed] = {
                    **entries[name],
                    "topic": renamed,
                    "topic_id": _copied_id(entries[name]["topic_id"], copy),
                }
            total += len(parts)
            if total >= partitions:
                break
    return {
        **data,
        "scenario": f"{data['scenario']}, expanded to {total} partitions (not a recording)",
        "expanded": {"from": data["scenario"], "copies": copy, "partitions": total},
        "topics": sorted(topics, key=lambda t: t[0]),
        "topic_configs": configs,
        "topic_config_values": values,
        "reassignments": reassignments,
        "partition_sizes": sizes,
        "placeholders": {"topic": own, "entries": entries},
    }


def write_expanded(source: str, partitions: int, path: Path) -> None:
    data = expand(load_recording(source), partitions)
    text = json.dumps(data, separators=(",", ":"))
    path.write_bytes(gzip.compress(text.encode(), compresslevel=1, mtime=0))
    log(f"{data['scenario']}: {len(data['topics'])} topics -> {path}")


def up(dev: DevCluster, mode: Mode) -> str:
    dev.up(mode, brokers=3)
    return str(dev.status()["bootstrap_servers"])


def seed_demo(dev: DevCluster, bootstrap: str) -> None:
    seed_demo_topics(bootstrap)
    asyncio.run(_seed_moving(bootstrap))
    asyncio.run(produce(bootstrap, "orders", 300))
    dev.stop_broker(DEMO_STOPPED_BROKER)
    asyncio.run(_until_offline(bootstrap, DEMO_STOPPED_BROKER))


async def _until_offline(bootstrap: str, broker: int, timeout_s: float = 60) -> None:
    """Until every replica on the stopped broker is offline in Metadata: a ZooKeeper-mode
    broker learns it a moment after the leaders change (a zk-demo recorded at once had
    inventory-0 leaderless but its replica not yet offline)."""
    deadline = time.monotonic() + timeout_s
    async with KafkaAdmin(ConnectionSettings(bootstrap)) as admin:
        while True:
            pending = [
                f"{t.name}-{p.partition}"
                for t in await admin.list_topics()
                for p in t.partitions
                if broker in p.replicas and broker not in p.offline_replicas
            ]
            if not pending:
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"broker {broker}'s replicas still online: {pending[:5]}")
            await asyncio.sleep(0.2)


async def _seed_moving(bootstrap: str) -> None:
    async with KafkaAdmin(ConnectionSettings(bootstrap)) as admin:
        spec = TopicSpec("moving", assignment={0: [1, 2], 1: [2, 1]})
        results = await admin.create_topics([spec])
        assert all(r.ok for r in results), results


def record_kraft(wanted: set[str], scratch: Path) -> None:
    dev = DevCluster(scratch / "kraft")
    try:
        log("kraft: starting 3 brokers")
        bootstrap = up(dev, "kraft")
        if "kraft-empty" in wanted:
            asyncio.run(record(bootstrap, "kraft-empty", dev.status()))
        if not wanted & {"kraft-demo", "kraft-fill", "kraft-10k"}:
            return
        seed_demo(dev, bootstrap)
        asyncio.run(seed_placeholders_and_move(bootstrap))
        status = dev.status()
        demo_topics = {t.name for t in asyncio.run(_list(bootstrap))}
        if "kraft-demo" in wanted:
            asyncio.run(record(bootstrap, "kraft-demo", status))
        if "kraft-fill" in wanted:
            log("kraft-fill: adding broker 4")
            dev.add_broker()
            asyncio.run(record(bootstrap, "kraft-fill", dev.status()))
        if "kraft-10k" in wanted:
            asyncio.run(create_many(bootstrap, MANY_TOPICS))
            asyncio.run(
                record(
                    bootstrap,
                    "kraft-10k",
                    status,
                    configs_for=demo_topics.__contains__,
                    gz=True,
                )
            )
    finally:
        dev.down()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenarios", nargs="*", default=SCENARIOS)
    parser.add_argument("--big-topics", type=int, default=BIG_TOPICS)
    parser.add_argument("--big-partitions", type=int, default=BIG_PARTITIONS)
    parser.add_argument(
        "--expand",
        nargs=3,
        metavar=("RECORDING", "PARTITIONS", "OUT"),
        help="write the expansion of a recording (not a recording: see `expand`) and exit",
    )
    args = parser.parse_args()
    if args.expand:
        source, partitions, out = args.expand
        write_expanded(source, int(partitions), Path(out))
        return
    wanted = set(args.scenarios)
    scratch = Path(tempfile.mkdtemp(prefix="kafka-tui-record-"))
    # The admin's journal and audit log go to the scratch folder, not the user's state.
    os.environ["KAFKA_TUI_JOURNAL"] = str(scratch / "recent-changes.jsonl")
    os.environ["KAFKA_TUI_AUDIT_LOG"] = str(scratch / "audit.jsonl")
    if wanted & {"kraft-empty", "kraft-demo", "kraft-fill", "kraft-10k"}:
        record_kraft(wanted, scratch)
    if "kraft-big" in wanted:
        record_kraft_big(scratch, args.big_topics, args.big_partitions)
    if "zk-demo" in wanted:
        dev = DevCluster(scratch / "zk")
        try:
            log("zk: starting ZooKeeper and 3 brokers")
            bootstrap = up(dev, "zk")
            seed_demo(dev, bootstrap)
            asyncio.run(record(bootstrap, "zk-demo", dev.status()))
        finally:
            dev.down()


async def _list(bootstrap: str) -> list[Any]:
    async with KafkaAdmin(ConnectionSettings(bootstrap)) as admin:
        return await admin.list_topics()


if __name__ == "__main__":
    main()
