"""What the headless commands print: kafka-topics.sh-like text, or one JSON document."""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

from ..admin import ClusterInfo, TopicDescription, TopicResult
from ..admin.model import QuorumInfo, QuorumMember
from ..services.config_units import with_unit
from .words import worded


def emit_json(document: Any) -> None:
    """Indented for a person at a terminal; compact for a pipe or a file, which Python's C
    encoder writes ~10x faster (a 2,000-topic create's results took 0.5 s indented)."""
    if sys.stdout.isatty():
        sys.stdout.write(json.dumps(document, indent=2))
    else:
        sys.stdout.write(json.dumps(document))
    sys.stdout.write("\n")


def results(items: Sequence[TopicResult], as_json: bool) -> int:
    """Print one line (or object) per topic; exit code 1 when any topic failed."""
    items = [worded(r) for r in items]  # the same objects unless a refusal names a remedy
    if as_json:
        emit_json([r.to_json() for r in items])
    else:
        for r in items:
            if r.ok:
                print(r.message)
                if r.warning:
                    print(f"WARNING: {r.warning}", file=sys.stderr)
            else:
                print(f"Error ({r.error}): {r.message}", file=sys.stderr)
    return 0 if all(r.ok for r in items) else 1


def rows(
    items: Sequence[Mapping[str, Any]],
    as_json: bool,
    columns: Sequence[str],
    headers: Mapping[str, str] | None = None,
) -> None:
    """A JSON list of objects, or a header and one tab-separated line per item; a column's
    header is its key in capitals unless `headers` names it."""
    if as_json:
        emit_json(list(items))
        return
    print("\t".join((headers or {}).get(c, c.upper()) for c in columns))
    for item in items:
        print("\t".join(_cell(item.get(c)) for c in columns))


def _cell(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(map(str, value)) or "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "-" if value is None else str(value)


def _quorum_json(q: QuorumInfo) -> dict[str, Any]:
    def members(listed: Sequence[QuorumMember]) -> list[dict[str, int]]:
        return [{"id": m.id, "log_end_offset": m.log_end_offset, "lag": m.lag} for m in listed]

    return {
        "leader": q.leader,
        "epoch": q.epoch,
        "voters": members(q.voters),
        "observers": members(q.observers),
    }


def cluster(info: ClusterInfo, as_json: bool) -> None:
    if as_json:
        emit_json(
            {
                "cluster_id": info.cluster_id,
                "controller_id": info.controller_id,
                "lists_fenced_brokers": info.lists_fenced_brokers,
                "brokers": [
                    {"id": b.id, "host": b.host, "port": b.port, "rack": b.rack, "fenced": b.fenced}
                    for b in info.brokers
                ],
                "quorum": None if info.quorum is None else _quorum_json(info.quorum),
            }
        )
        return
    print(f"Cluster id: {info.cluster_id}")
    print(f"Controller: {info.controller_id if info.controller_id is not None else 'none'}")
    if info.quorum is not None:
        q = info.quorum
        voters = ", ".join(f"{m.id} (lag {m.lag})" for m in q.voters)
        observers = ", ".join(f"{m.id} (lag {m.lag})" for m in q.observers)
        print(f"KRaft quorum: leader {q.leader}, epoch {q.epoch}; voters {voters}")
        print(f"Observers: {observers or 'none'}")
    for b in info.brokers:
        state = "FENCED (offline)" if b.fenced else "online"
        print(f"Broker {b.id}\t{b.host}:{b.port}\track: {b.rack or '-'}\t{state}")
    if not info.lists_fenced_brokers:
        print("(this cluster lists only live brokers; offline ones are not shown)")


def topic_list(topics: Sequence[TopicDescription], as_json: bool) -> None:
    if as_json:
        emit_json(
            [
                {
                    "topic": t.name,
                    "partitions": len(t.partitions),
                    "replication_factor": t.replication_factor,
                    "internal": t.internal,
                }
                for t in topics
            ]
        )
        return
    for t in topics:
        print(t.name)


def _ids(ids: Sequence[int]) -> str:
    return ",".join(map(str, ids))


def describe(
    topics: Sequence[TopicDescription],
    as_json: bool,
    *,
    topic_lines_only: bool,
    placeholders: Mapping[str, Mapping[int, list[int]]] | None = None,
) -> None:
    """`placeholders`: KIP-409's missing replicas per topic and partition (slots -1, ...)."""
    writer = DescribeWriter("json" if as_json else "table", topic_lines_only=topic_lines_only)
    writer.write(topics, placeholders)
    writer.close()


class DescribeWriter:
    """`topics describe` printed as it is read, a batch at a time: table lines, one JSON
    object per line (`jsonl`), or one JSON list (`json`, the same text as `emit_json`'s)
    written an object at a time, so memory holds one batch whatever the cluster's size."""

    def __init__(self, output: str, *, topic_lines_only: bool) -> None:
        self.output = output
        self.topic_lines_only = topic_lines_only
        self.indented = sys.stdout.isatty()
        self.written = 0

    def write(
        self,
        topics: Sequence[TopicDescription],
        placeholders: Mapping[str, Mapping[int, list[int]]] | None = None,
    ) -> None:
        missing = placeholders or {}
        out = sys.stdout
        if self.output == "table":
            for t in topics:
                _describe_lines(t, missing.get(t.name, {}), self.topic_lines_only)
        else:
            for t in topics:
                document = t.to_json()
                for p in document["partitions"]:  # type: ignore[attr-defined]
                    p["placeholders"] = missing.get(t.name, {}).get(p["partition"], [])
                if self.output == "jsonl":
                    out.write(json.dumps(document) + "\n")
                elif self.indented:
                    text = textwrap.indent(json.dumps(document, indent=2), "  ")
                    out.write(("[\n" if not self.written else ",\n") + text)
                else:
                    out.write(("[" if not self.written else ", ") + json.dumps(document))
                self.written += 1
        out.flush()

    def close(self) -> None:
        if self.output == "json":
            end = "]" if not self.written else ("\n]" if self.indented else "]")
            sys.stdout.write(("[" if not self.written else "") + end + "\n")
            sys.stdout.flush()


def _describe_lines(
    t: TopicDescription, missing: Mapping[int, list[int]], topic_lines_only: bool
) -> None:
    overrides = ",".join(
        f"{name}={with_unit(name, c.value)}"
        for name, c in sorted(t.configs.items())
        if c.is_override
    )
    lines = [
        f"Topic: {t.name}\tTopicId: {t.topic_id or ''}\tPartitionCount: {len(t.partitions)}\t"
        f"ReplicationFactor: {t.replication_factor}\tConfigs: {overrides}"
        + ("\tInternal: true" if t.internal else "")
    ]
    if not topic_lines_only:
        for p in t.partitions:
            offline = f"\tOffline: {_ids(p.offline_replicas)}" if p.offline_replicas else ""
            slots = missing.get(p.partition)
            offline += f"\tPlaceholders: {_ids(slots)}" if slots else ""
            leader = p.leader if p.leader >= 0 else "none"
            # kafka-topics.sh 3.8+ prints both where the broker reads them (KIP-966).
            elr = (
                ""
                if p.elr is None
                else f"\tElr: {_ids(p.elr)}\tLastKnownElr: {_ids(p.last_known_elr or ())}"
            )
            lines.append(
                f"\tTopic: {t.name}\tPartition: {p.partition}\tLeader: {leader}\t"
                f"Replicas: {_ids(p.replicas)}\tIsr: {_ids(p.isr)}{elr}{offline}"
            )
    sys.stdout.write("\n".join(lines) + "\n")
