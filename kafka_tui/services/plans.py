"""Bulk plans: what the planner needs to know of the cluster, for `plan preview|apply` and the
TUI's plan screen alike."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..fields import Field, Remedy
from ..planning.config_diff import ConfigState, change_words
from ..planning.plan import ClusterView, ExistingTopic
from .ports import AdminPort
from .snapshot import Snapshot, min_insync_replicas


async def cluster_view(admin: AdminPort, snapshot: Snapshot, names: list[str]) -> ClusterView:
    """What the planner needs to know of the cluster; `names`: the plan's topics (their
    min.insync.replicas matters to grows in enabled modes)."""
    existing = [n for n in names if n in snapshot.topics]
    min_isr = await min_insync_replicas(admin, existing)
    configs = await config_states(admin, existing)
    topics = {}
    for name, topic in snapshot.topics.items():
        entry = snapshot.placeholders.get(name)
        topics[name] = ExistingTopic(
            tuple(tuple(p.replicas) for p in topic.partitions),
            entry.replication_factor if entry else topic.replication_factor,
            min_isr.get(name),
            configs.get(name),
        )
    return ClusterView(
        tuple(snapshot.brokers),
        snapshot.load,
        topics,
        snapshot.default_int("num.partitions", 1),
        snapshot.default_int("default.replication.factor", 1),
        snapshot.default_int("min.insync.replicas", 1),
    )


@dataclass
class Finding:
    """One distinct refusal or warning of a plan document, and the topics it concerns (a
    plan with a broker down refuses many topics for one reason: shown once, with a count)."""

    error: str | None  # Kafka's error name for a refusal; None for a warning
    message: str
    remedies: list[Remedy]
    topics: list[str] = field(default_factory=list)


async def config_states(admin: AdminPort, names: list[str]) -> dict[str, dict[str, ConfigState]]:
    """The plan's existing topics' configs, for the desired-state difference (config_diff.py).
    A topic deleted since the snapshot is left out (its row then plans a create)."""
    if not names:
        return {}
    found, _ = await admin.topic_configs_with_defaults(names)
    return {
        topic: {
            key: ConfigState(
                c.entry.value,
                c.entry.is_override,
                c.default,
                c.entry.read_only,
                c.entry.sensitive,
            )
            for key, c in entries.items()
        }
        for topic, entries in found.items()
    }


def config_change_lines(topic: dict[str, Any]) -> list[str]:
    """A document topic's config changes, one line each (never a sensitive value)."""
    return [
        change_words((c["key"], c["before"], c["after"])) for c in topic.get("config_changes") or []
    ]


def config_change_count(document: dict[str, Any]) -> tuple[int, int]:
    """(topics with config changes, changes) in a document (a saved one may have none)."""
    counts = [len(t.get("config_changes") or []) for t in document["topics"] if not t["error"]]
    return sum(1 for n in counts if n), sum(counts)


def findings(document: dict[str, Any]) -> list[Finding]:
    """The document's refusals, then its topics' warnings, each distinct one once."""
    found: dict[tuple[str | None, str, str], Finding] = {}
    for t in document["topics"]:
        if t["error"]:
            remedies = [
                Remedy(tuple((Field(f), v) for f, v in r["settings"]), r.get("purpose", ""))
                for r in t.get("remedies", [])
            ]
            key = (t["error"], t["message"], repr(remedies))
            found.setdefault(key, Finding(t["error"], t["message"], remedies)).topics.append(
                t["topic"]
            )
        for w in t["warnings"]:
            found.setdefault((None, w, ""), Finding(None, w, [])).topics.append(t["topic"])
    return sorted(found.values(), key=lambda f: f.error is None)


def topics_named(names: list[str], shown: int = 3) -> str:
    """'a, b, c and 7 more'."""
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more
