"""Bulk plans: the plan document, what the planner needs to know of the cluster, and the
document's findings, for `plan preview|apply` and the TUI's plan screen alike (the workflow
that makes a document is `plan_workflow.py`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..fields import Field, Remedy
from ..planning.bulk_plan import ClusterView, ExistingTopic, Intent, PlanOptions
from ..planning.config_diff import ConfigState, change_words
from .ports import AdminPort
from .snapshot import Snapshot, min_insync_replicas


@dataclass(frozen=True, eq=False)
class PlanDocument:
    """A plan document. `text` is its JSON exactly as the engine wrote it (what `plan preview
    --output json` prints and `--save` writes, byte for byte), or as a saved file holds it;
    `data` the same JSON read (its keys in their order), which the readers of documents take;
    `saved_path` the file a saved one was read from."""

    text: str
    data: dict[str, Any]
    saved_path: str | None = None

    @classmethod
    def parse(cls, text: str) -> PlanDocument:
        return cls(text, json.loads(text))

    def __getitem__(self, key: str) -> Any:
        """A top-level key of the JSON, as a saved document is read."""
        return self.data[key]

    @property
    def engine(self) -> str:
        return str(self.data["engine"])

    @property
    def cluster_id(self) -> str | None:
        """The cluster the plan was made for (a saved plan may not say)."""
        cluster = self.data.get("cluster") or {}
        made_for = cluster.get("id")
        return str(made_for) if made_for else None

    @property
    def topics(self) -> list[dict[str, Any]]:
        topics: list[dict[str, Any]] = self.data["topics"]
        return topics

    @property
    def brokers(self) -> list[dict[str, Any]]:
        brokers: list[dict[str, Any]] = self.data["brokers"]
        return brokers

    @property
    def stats(self) -> dict[str, Any]:
        stats: dict[str, Any] = self.data["stats"]
        return stats

    @property
    def warnings(self) -> list[str]:
        return list(self.data.get("warnings") or [])

    @property
    def sane(self) -> bool:
        """Whether the plan passed its own sanity check."""
        return bool(self.stats["sanity"]["ok"])

    @property
    def options(self) -> PlanOptions:
        """The options the plan was made with (a saved plan without them: the defaults)."""
        saved = self.data.get("options") or {}
        return PlanOptions(
            saved.get("mode", "disabled"),
            saved.get("min_required_replication_factor"),
            saved.get("group_partitions", PlanOptions().group_partitions),
        )

    def intents(self) -> list[Intent]:
        """The rows the plan was made of, to place them again."""
        return document_intents(self.data)


def document_intents(document: dict[str, Any]) -> list[Intent]:
    """A document's topics as the rows they were planned from."""
    return [
        Intent(
            t["topic"],
            t["partitions"],
            t["replication_factor"],
            t.get("min_required_replication_factor"),
            tuple(sorted(t.get("configs", {}).items())),
        )
        for t in document["topics"]
    ]


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
