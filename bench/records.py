"""Reading and producing records, side by side in one run (issue 50).

    .venv/bin/python bench/records.py [--records 300000] [--bootstrap HOST:PORT]

Without --bootstrap, starts a 1-broker KRaft dev cluster of its own (and stops it after).
Fills a 3-partition topic with N JSON values of ~200 B, then reads all of it to /dev/null:
`kafka-tui messages read --output jsonl` (the whole record object per line; values decoded as
JSON by auto, and as plain strings), Kafka's ConsoleConsumer (the dev cluster's jars, JVM start
included), `kcat -C -e` and a bare aiokafka loop printing values. Then produces N records from
a file: `kafka-tui messages produce --file` (record objects) vs Kafka's ConsoleProducer and
`kcat -P` (one value per line). Prints seconds (best of --repeat) and ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from aiokafka import AIOKafkaProducer

from kafka_tui.admin import ConnectionSettings, KafkaAdmin, TopicSpec
from kafka_tui.devcluster import KRAFT_VERSION, DevCluster, ensure_kafka
from kafka_tui.devcluster.node import java_bin

PARTITIONS = 3
BARE_LOOP = """
import asyncio, sys
from aiokafka import AIOKafkaConsumer, TopicPartition

async def main(bootstrap, topic, partitions):
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False,
                                max_partition_fetch_bytes=4 << 20, fetch_max_bytes=16 << 20)
    await consumer.start()
    tps = [TopicPartition(topic, p) for p in range(partitions)]
    consumer.assign(tps)
    await consumer.seek_to_beginning(*tps)
    ends = await consumer.end_offsets(tps)
    out = sys.stdout.buffer
    left = sum(ends.values())
    while left > 0:
        for records in (await consumer.getmany(timeout_ms=500)).values():
            left -= len(records)
            out.write(b"\\n".join(r.value for r in records) + b"\\n")
    await consumer.stop()

asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
"""


def value(n: int) -> bytes:
    body = {"id": n, "user": f"user-{n % 9973}", "amount": n % 1000 / 10, "pad": ""}
    text = json.dumps(body)
    body["pad"] = "x" * max(0, 200 - len(text))
    return json.dumps(body).encode()


async def fill(bootstrap: str, topic: str, count: int) -> None:
    async with KafkaAdmin(ConnectionSettings(bootstrap)) as admin:
        [made] = await admin.create_topics([TopicSpec(topic, PARTITIONS, 1)])
        assert made.ok, made.message
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, linger_ms=20, max_batch_size=1 << 20)
    await producer.start()
    try:
        pending = []
        for n in range(count):
            pending.append(await producer.send(topic, value(n), key=str(n).encode()))
            if len(pending) >= 20_000:
                await asyncio.gather(*pending)
                pending.clear()
        await asyncio.gather(*pending)
    finally:
        await producer.stop()


Figure = tuple[float, float]  # wall seconds, CPU seconds (user + system) of the process


def timed(command: list[str], *, stdin: Path | None = None) -> Figure:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    with open(stdin or os.devnull, "rb") as given, open(os.devnull, "wb") as null:
        done = subprocess.run(command, stdin=given, stdout=null, stderr=subprocess.PIPE)
    took = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{command[:6]}... failed: {done.stderr.decode()[-1500:]}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return took, cpu


def best(repeat: int, run: Callable[[], Figure]) -> Figure:
    return min((run() for _ in range(repeat)), key=lambda figure: figure[0])


def load() -> str:
    """The machine's load (1, 5 and 15 minutes) and cores: wall figures mean little without it."""
    one, five, fifteen = os.getloadavg()
    return f"load {one:.1f} {five:.1f} {fifteen:.1f} on {os.cpu_count()} cores"


def show(figures: dict[str, Figure], n: int, base_name: str, base_label: str) -> None:
    base_wall, base_cpu = figures[base_name]
    for name, (wall, cpu) in figures.items():
        print(
            f"  {name:56s} {wall:6.2f} s {n / wall:>9,.0f}/s  {wall / base_wall:5.2f}x   "
            f"cpu {cpu:6.2f} s {cpu / base_cpu:5.2f}x {base_label}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=300_000)
    parser.add_argument("--bootstrap", metavar="HOST:PORT")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument(
        "--produce-only", action="store_true", help="only the produce figures (no fill, no reads)"
    )
    args = parser.parse_args()
    n = args.records
    cluster = None
    if args.bootstrap:
        bootstrap = args.bootstrap
    else:
        cluster = DevCluster(Path(tempfile.gettempdir()) / "kafka-tui-bench-records")
        cluster.down()
        cluster.up("kraft", brokers=1)
        bootstrap = cluster.bootstrap_servers()
    try:
        run(bootstrap, n, args.repeat, args.produce_only)
    finally:
        if cluster is not None:
            cluster.down()


def run(bootstrap: str, n: int, repeat: int, produce_only: bool = False) -> None:
    topic = f"bench-records-{uuid.uuid4().hex[:8]}"
    py = sys.executable
    ours = [py, "-m", "kafka_tui.cli", "--bootstrap-server", bootstrap, "--output", "jsonl"]
    jars = ensure_kafka(KRAFT_VERSION).classpath
    java = [java_bin(), "-Xmx512m", "-cp", jars, "-Dlog4j2.level=WARN"]
    if not produce_only:
        reading(bootstrap, topic, n, repeat, ours, java)
    producing(bootstrap, topic, n, repeat, ours, java)


def reading(
    bootstrap: str, topic: str, n: int, repeat: int, ours: list[str], java: list[str]
) -> None:
    started = time.perf_counter()
    asyncio.run(fill(bootstrap, topic, n))
    filled = time.perf_counter() - started
    print(f"{n:,} records of ~200 B in {PARTITIONS} partitions: filled in {filled:.1f} s")
    py = sys.executable
    read = [*ours, "messages", "read", topic]
    reads = {
        "kafka-tui messages read (jsonl, auto: JSON values)": read,
        "kafka-tui messages read (jsonl, --value-format string)": [
            *read,
            "--value-format",
            "string",
        ],
        "kafka-console-consumer (JVM)": [
            *java,
            "org.apache.kafka.tools.consumer.ConsoleConsumer",
            *("--bootstrap-server", bootstrap, "--topic", topic),
            *("--from-beginning", "--max-messages", str(n)),
        ],
        "kcat -C -e": ["kcat", "-C", "-b", bootstrap, "-t", topic, "-e", "-q"],
        "bare aiokafka loop (values)": [py, "-c", BARE_LOOP, bootstrap, topic, str(PARTITIONS)],
    }
    print(f"\nread {n:,} records to /dev/null (best wall of {repeat}; ratios to the bare loop):")
    print(f"  ({load()} before)")
    figures = {}
    for name, command in reads.items():
        if command[0] == "kcat" and not shutil.which("kcat"):
            continue
        figures[name] = best(repeat, lambda c=command: timed(c))
    show(figures, n, "bare aiokafka loop (values)", "bare")
    print(f"  ({load()} after)")


def producing(
    bootstrap: str, topic: str, n: int, repeat: int, ours: list[str], java: list[str]
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        objects, values = Path(folder) / "records.jsonl", Path(folder) / "values.txt"
        with objects.open("w") as o, values.open("wb") as v:
            for i in range(n):
                o.write(json.dumps({"key": str(i), "value": json.loads(value(i))}) + "\n")
                v.write(value(i) + b"\n")
        targets = iter(f"{topic}-copy-{i}" for i in range(100))

        async def made(name: str) -> str:
            async with KafkaAdmin(ConnectionSettings(bootstrap)) as admin:
                [result] = await admin.create_topics([TopicSpec(name, PARTITIONS, 1)])
                assert result.ok, result.message
            return name

        def produce(command: Callable[[str], list[str]], stdin: Path | None) -> Figure:
            target = asyncio.run(made(next(targets)))
            return timed(command(target), stdin=stdin)

        ours_produce = "kafka-tui messages produce --file (record objects)"
        producers: dict[str, tuple[Callable[[str], list[str]], Path | None]] = {
            ours_produce: (
                lambda t: [*ours, "messages", "produce", t, "--file", str(objects)],
                None,
            ),
            "kafka-console-producer (JVM)": (
                lambda t: [
                    *java,
                    "org.apache.kafka.tools.ConsoleProducer",
                    *("--bootstrap-server", bootstrap, "--topic", t),
                ],
                values,
            ),
            "kcat -P": (lambda t: ["kcat", "-P", "-b", bootstrap, "-t", t], values),
        }
        print(f"\nproduce {n:,} records from a file (best wall of {repeat}; ratios to ours):")
        print(f"  ({load()} before)")
        produced = {
            name: best(repeat, lambda c=command, s=stdin: produce(c, s))
            for name, (command, stdin) in producers.items()
        }
    show(produced, n, ours_produce, "ours")
    print(f"  ({load()} after)")


if __name__ == "__main__":
    main()
