"""The demo's moving traffic, so a walkthrough of the groups screen shows lag that changes:

- one background Python process: a producer writing to `orders` (RATE records a second, keyed)
  and a classic group `billing-live` reading it more slowly (half the rate, committing every
  second): its lag grows at every look (WARN);
- Kafka's own console consumers, once each, where the broker has their kind: a KIP-848 group
  `inventory` (group.protocol=consumer, Kafka 4.0+) and a share group `audit-share` (KIP-932,
  Kafka 4.1+) read a few records and leave, so their lag grows with the producer's (STOP).

Started by `kafka-tui demo`, stopped by `kafka-tui dev-cluster down` (the pids are kept in the
cluster's folder, each process marked as the cluster's own, as its brokers are).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from . import node
from .jars import ensure_kafka

NAME = "demo-traffic"
STATE_FILE = "demo-traffic.json"
TOPIC = "orders"
LIVE_GROUP = "billing-live"
KIP848_GROUP = "inventory"
SHARE_GROUP = "audit-share"
RATE = 4  # records a second written; the live group reads half as many


def start(
    root: Path, bootstrap_servers: str, version: str, cache: Path | None, topic: str = TOPIC
) -> list[int]:
    """Start the demo's traffic on `topic` beside the cluster in `root` (once: a running one
    is kept); returns the pids started."""
    root = root.resolve()
    if running(root):
        return []
    log = root / "logs" / f"{NAME}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        traffic = subprocess.Popen(
            [sys.executable, "-m", __name__, bootstrap_servers, topic, node.marker(root, NAME)],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    pids = [traffic.pid]
    major = tuple(int(n) for n in version.split(".")[:2])
    classpath = ensure_kafka(version, cache).classpath
    tools = "org.apache.kafka.tools.consumer."
    ones = []
    if major >= (4, 0):
        ones.append(
            (
                "ConsoleConsumer",
                [
                    "--group",
                    KIP848_GROUP,
                    "--consumer-property",
                    "group.protocol=consumer",
                    "--from-beginning",
                    "--max-messages",
                    "30",
                ],
            )
        )
    if major >= (4, 1):
        ones.append(("ConsoleShareConsumer", ["--group", SHARE_GROUP, "--max-messages", "5"]))
    for tool, args in ones:
        pids.append(
            node.spawn(
                cluster_dir=root,
                name=NAME,
                classpath=classpath,
                main_class=tools + tool,
                args=[
                    "--bootstrap-server",
                    bootstrap_servers,
                    "--topic",
                    topic,
                    "--timeout-ms",
                    "60000",
                    *args,
                ],
                heap_mb=128,
                log=root / "logs" / f"{NAME}-{tool}.log",
            )
        )
    (root / STATE_FILE).write_text(json.dumps({"pids": pids}))
    return pids


def _pids(root: Path) -> list[int]:
    try:
        return [int(p) for p in json.loads((root / STATE_FILE).read_text())["pids"]]
    except (FileNotFoundError, ValueError, KeyError, TypeError):
        return []


def running(root: Path) -> bool:
    return any(node.is_running(p, root.resolve(), NAME) for p in _pids(root))


def stop(root: Path, timeout: float = 10.0) -> bool:
    """Stop the traffic beside the cluster in `root`; False when none was there."""
    root = root.resolve()
    pids = _pids(root)
    for pid in pids:
        if node.is_running(pid, root, NAME):
            node.stop(pid, root, NAME, kill=False, timeout=timeout)
    (root / STATE_FILE).unlink(missing_ok=True)
    return bool(pids)


async def _run(bootstrap_servers: str, topic: str) -> None:
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

    producer = AIOKafkaProducer(bootstrap_servers=bootstrap_servers)
    consumer = AIOKafkaConsumer(
        topic,
        bootstrap_servers=bootstrap_servers,
        group_id=LIVE_GROUP,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
    )
    await producer.start()
    await consumer.start()
    try:
        n = 0
        while True:
            started = time.monotonic()
            for _ in range(RATE):
                value = json.dumps({"order": n, "at": int(time.time() * 1000)}).encode()
                await producer.send(topic, value, key=f"customer-{n % 50}".encode())
                n += 1
            await consumer.getmany(timeout_ms=200, max_records=RATE // 2)
            await consumer.commit()
            await asyncio.sleep(max(0.0, 1.0 - (time.monotonic() - started)))
    finally:
        await consumer.stop()
        await producer.stop()


def main(argv: list[str]) -> int:
    """`python -m kafka_tui.devcluster.traffic BOOTSTRAP TOPIC MARKER` (the marker names the
    cluster whose process it is): runs until stopped."""
    if len(argv) < 2:
        print(
            "usage: python -m kafka_tui.devcluster.traffic BOOTSTRAP TOPIC [MARKER]",
            file=sys.stderr,
        )
        return 2
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_run(argv[0], argv[1]))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main(sys.argv[1:]))
