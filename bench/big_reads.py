"""What reads about many topics cost the broker, per batch size (issue 30).

    .venv/bin/python bench/big_reads.py BOOTSTRAP [PREFIX]

On a cluster holding many topics (e.g. 10,000 x 3 partitions made with
`kafka-tui topics create`), times one DescribeConfigs and one Metadata-by-name request for
batches of 100 ... all topics, and the whole read split into batches sent 1, 2, 4 and 8 at
a time. Figures: seconds per request and topics per second."""

from __future__ import annotations

import asyncio
import sys
import time

from kafka_tui.admin import ConnectionSettings, KafkaAdmin, protocol
from kafka_tui.admin.batches import batched


async def _timed(admin: KafkaAdmin, request: object, node: int) -> float:
    started = time.perf_counter()
    await admin._send(request, node)
    return time.perf_counter() - started


async def main(bootstrap: str, prefix: str) -> None:
    async with KafkaAdmin(ConnectionSettings(bootstrap)) as admin:
        names = sorted(t.name for t in await admin.list_topics() if t.name.startswith(prefix))
        node = admin._reader()
        print(f"{len(names)} topics named {prefix}*; broker {node}")
        for size in (100, 250, 500, 1000, 2000, 5000, len(names)):
            batch = names[:size]
            configs = min(
                [
                    await _timed(
                        admin,
                        protocol.DescribeConfigsRequest(
                            [(protocol.RESOURCE_TOPIC, t) for t in batch]
                        ),
                        node,
                    )
                    for _ in range(3)
                ]
            )
            metadata = min(
                [await _timed(admin, protocol.MetadataRequest(batch), node) for _ in range(3)]
            )
            print(
                f"batch {size:6d}: DescribeConfigs {configs:6.3f} s ({size / configs:8.0f}/s)"
                f"   Metadata {metadata:6.3f} s ({size / metadata:8.0f}/s)"
            )
        for size in (500, 1000, 2000):
            for parallel in (1, 2, 4, 8):
                started = time.perf_counter()
                limit = asyncio.Semaphore(parallel)

                async def one(batch: list[str], limit: asyncio.Semaphore = limit) -> None:
                    async with limit:
                        await admin._send(
                            protocol.DescribeConfigsRequest(
                                [(protocol.RESOURCE_TOPIC, t) for t in batch]
                            ),
                            node,
                        )

                await asyncio.gather(*(one(b) for b in batched(names, size)))
                took = time.perf_counter() - started
                print(
                    f"all configs in batches of {size}, {parallel} at a time: {took:.2f} s "
                    f"({len(names) / took:.0f} topics/s)"
                )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else ""))
