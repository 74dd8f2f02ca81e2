"""One raw request through aiokafka's own admin client, as a whole process: the yardstick.

Usage: python bench/raw_admin.py create|delete|describe BOOTSTRAP NAMES_FILE [--partitions 3]
       [--rf 3] [--assignments FILE]
`--assignments`: a JSON object, topic -> [[replica ids] per partition]; the request then
carries those explicit assignments (as kafka-tui's own placement sends) instead of counts.
`describe`: aiokafka's describe_topics (one Metadata request) for the names.
Prints one JSON line: {"ok": n, "failed": n, "errors": {...}}. No kafka-tui code involved.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections import Counter
from pathlib import Path

from aiokafka.admin import AIOKafkaAdminClient, NewTopic


async def run(
    action: str,
    bootstrap: str,
    names: list[str],
    partitions: int,
    rf: int,
    assignments: dict[str, list[list[int]]] | None,
) -> None:
    client = AIOKafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=300_000)
    await client.start()
    try:
        if action == "create":
            if assignments:
                topics = [
                    NewTopic(n, -1, -1, {p: r for p, r in enumerate(assignments[n])}) for n in names
                ]
            else:
                topics = [NewTopic(n, partitions, rf) for n in names]
            response = await client.create_topics(topics, timeout_ms=300_000)
            codes = [t[1] for t in response.topic_errors]
        elif action == "describe":
            described = await client.describe_topics(names)
            codes = [t["error_code"] for t in described]
        else:
            response = await client.delete_topics(names, timeout_ms=300_000)
            codes = [t[1] for t in response.topic_error_codes]
    finally:
        await client.close()
    errors = Counter(c for c in codes if c)
    print(json.dumps({"ok": codes.count(0), "failed": sum(errors.values()), "errors": errors}))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("action", choices=["create", "delete", "describe"])
    parser.add_argument("bootstrap")
    parser.add_argument("names_file", type=Path)
    parser.add_argument("--partitions", type=int, default=3)
    parser.add_argument("--rf", type=int, default=3)
    parser.add_argument("--assignments", type=Path)
    args = parser.parse_args()
    names = args.names_file.read_text().split()
    assignments = json.loads(args.assignments.read_text()) if args.assignments else None
    asyncio.run(run(args.action, args.bootstrap, names, args.partitions, args.rf, assignments))


if __name__ == "__main__":
    main()
