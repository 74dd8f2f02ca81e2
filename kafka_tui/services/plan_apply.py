"""`plan apply`'s sending half, shared with the TUI's plan screen: exactly the document's
assignments, in batches of explicit assignments (CreateTopics, then CreatePartitions, or
ZooKeeper for a grow onto offline brokers), per-topic results, resumable (a topic already as
planned is reported ok and skipped), placeholders recorded, and a final check by metadata."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, Literal

from ..admin import (
    AdminError,
    ConfigChange,
    ConfigOp,
    NewPartitions,
    TopicResult,
    TopicSpec,
)
from ..admin import (
    audit_log as audit,
)
from ..admin.model import DEFAULT_TIMEOUT_MS
from ..admin.placeholders import PlaceholderStore
from ..planning.placement import Placement
from . import placing
from .growing import grow_in_zookeeper
from .placing import Planned
from .ports import AdminPort
from .snapshot import Snapshot


def broker_differences(document: dict[str, Any], snapshot: Snapshot) -> list[str]:
    """How the cluster's brokers differ from the ones the plan was made for."""
    then = {b["id"]: (b["rack"], b["live"]) for b in document["brokers"]}
    now = {b.id: (b.rack, b.live) for b in snapshot.brokers}
    differences = []
    for broker in sorted(then.keys() | now.keys()):
        before, after = then.get(broker), now.get(broker)
        if before == after:
            continue
        if before is None:
            differences.append(f"broker {broker} is new")
        elif after is None:
            differences.append(f"broker {broker} is gone")
        elif before[0] != after[0]:
            differences.append(f"broker {broker} moved from rack {before[0]} to {after[0]}")
        else:
            state = "live" if after[1] else "offline"
            differences.append(f"broker {broker} is {state} now (was {'not ' * after[1]}live)")
    return differences


def _placement(entry: dict[str, Any], live: set[int]) -> Placement:
    assignment = tuple(tuple(a) for a in entry["assignment"])
    racks = entry.get("placeholder_racks") or [[] for _ in assignment]
    factor = entry["replication_factor"]
    under = tuple(i for i, a in enumerate(assignment) if sum(1 for b in a if b in live) < factor)
    return Placement(entry["topic"], assignment, tuple(tuple(r) for r in racks), under)


def _real(assignment: list[list[int]]) -> list[list[int]]:
    return [[b for b in a if b >= 0] for a in assignment]


async def apply_document(
    admin: AdminPort,
    snapshot: Snapshot,
    store: PlaceholderStore,
    zookeeper: str | None,
    document: dict[str, Any],
    batch_size: int = 500,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    advance: Callable[[int], object] = lambda done: None,
    configs: ConfigsApplied = "none",
) -> list[TopicResult]:
    """Send the document's assignments; one result per topic entry, in order. `advance(n)`
    is told each time n more topics are settled. `configs`: whether the existing topics'
    config changes are applied too ("changed": overrides set; "pruned": and removed).

    Replicas of existing partitions never change here (a plan creates topics and adds
    partitions, which cannot be undone by a reassignment), so no rollback file is written."""
    live = {b.id for b in snapshot.brokers if b.live}
    results: dict[str, TopicResult] = {}
    creates: list[Planned] = []
    grows: list[Planned] = []
    entries = {t["topic"]: t for t in document["topics"]}
    for entry in document["topics"]:
        name = entry["topic"]
        if entry["error"]:
            results[name] = TopicResult(
                name, ok=False, error=entry["error"], message=entry["message"]
            )
            continue
        if entry["action"] == "configs":
            continue  # settled by the config step below
        placement = _placement(entry, live)
        lists = _real(entry["assignment"])
        current = snapshot.topics.get(name)
        have = [list(p.replicas) for p in current.partitions] if current else None
        if entry["action"] == "create":
            if have is not None:
                results[name] = _already(name, have == lists, "created")
                continue
            spec = TopicSpec(name, assignment=dict(enumerate(lists)), configs=entry["configs"])
            creates.append(Planned(name, spec=spec, placement=placement))
            continue
        first = entry["partitions"] - len(lists)
        if have is not None and len(have) == entry["partitions"]:
            results[name] = _already(name, have[first:] == lists, "grown")
        elif have is None or len(have) != first:
            results[name] = TopicResult(
                name,
                ok=False,
                error="INVALID_PARTITIONS",
                message=f"Topic '{name}' has {len(have) if have else 'no'} partitions now; the "
                f"plan grows it from {first}. Preview again.",
            )
        else:
            offline = {b for a in lists for b in a} - live
            grows.append(
                Planned(
                    name,
                    grow=NewPartitions(name, entry["partitions"], lists),
                    placement=placement,
                    via_zookeeper=bool(offline) and not snapshot.kraft,
                )
            )
    batches = [creates[i : i + batch_size] for i in range(0, len(creates), batch_size)]
    batches += [grows[i : i + batch_size] for i in range(0, len(grows), batch_size)]
    altered = _config_changes(document, configs)
    for entry in document["topics"]:
        if entry["action"] == "configs" and not entry["error"] and entry["topic"] not in altered:
            results[entry["topic"]] = _configs_left(entry, configs)
    advance(len(results))  # settled without sending: refused by the plan, or already done
    with audit.operation("plan apply"):
        for i, batch in enumerate(batches):
            try:
                done = await _send(admin, snapshot, store, zookeeper, batch, timeout_ms)
            except AdminError as exc:
                # The cluster is out of reach: what was done stands and is reported; the
                # batch that was on its way may or may not have been applied (a resume finds
                # out: topics already as planned are skipped).
                unsent = [p.topic for b in batches[i:] for p in b]
                raise ApplyInterrupted(
                    [results[t["topic"]] for t in document["topics"] if t["topic"] in results],
                    unsent,
                    exc,
                ) from None
            results.update((r.topic, r) for r in done)
            advance(len(batch))
        await _verify(admin, entries, results, [p.topic for b in batches for p in b])
        if altered:
            try:
                settled = await _alter_configs(admin, altered, batch_size)
            except AdminError as exc:
                raise ApplyInterrupted(
                    [results[t["topic"]] for t in document["topics"] if t["topic"] in results],
                    list(altered),
                    exc,
                ) from None
            for name, result in settled.items():
                results[name] = _merged(results.get(name), result)
            advance(
                sum(
                    1
                    for e in document["topics"]
                    if e["action"] == "configs" and e["topic"] in altered
                )
            )
    return [results[t["topic"]] for t in document["topics"]]


ConfigsApplied = Literal["none", "changed", "pruned"]


def _config_changes(
    document: dict[str, Any], configs: ConfigsApplied
) -> dict[str, list[ConfigChange]]:
    """What the config step sends: each planned topic's overrides set to the plan's values
    (the document's own `configs`, never the masked values of a sensitive key), and with
    "pruned" the overrides the plan does not name deleted."""
    if configs == "none":
        return {}
    altered: dict[str, list[ConfigChange]] = {}
    for entry in document["topics"]:
        if entry["error"]:
            continue
        ops = [
            ConfigChange(c["key"], ConfigOp.SET, entry["configs"][c["key"]])
            if c["after"] is not None
            else ConfigChange(c["key"], ConfigOp.DELETE)
            for c in entry.get("config_changes") or []
            if c["after"] is not None or configs == "pruned"
        ]
        if ops:
            altered[entry["topic"]] = ops
    return altered


def _configs_left(entry: dict[str, Any], configs: ConfigsApplied) -> TopicResult:
    """A config-only topic the config step does not touch."""
    name, changes = entry["topic"], entry.get("config_changes") or []
    if configs == "none":
        why = "config changes were not asked for"
    else:
        why = "they only remove overrides, and removals were not asked for"
    return TopicResult(
        name,
        ok=True,
        message=f"Topic '{name}': {len(changes)} config change(s) previewed, not applied: {why}.",
    )


async def _alter_configs(
    admin: AdminPort,
    altered: dict[str, list[ConfigChange]],
    batch_size: int,
) -> dict[str, TopicResult]:
    """IncrementalAlterConfigs (only the named keys change), a batch at a time; each waits
    until every live broker shows the new overrides, so a later read from any broker agrees
    (admin/client.py)."""
    names = list(altered)
    results: dict[str, TopicResult] = {}
    for start in range(0, len(names), batch_size):
        part = {n: altered[n] for n in names[start : start + batch_size]}
        for result in await admin.alter_topic_configs(part):
            results[result.topic] = result
    return results


def _merged(first: TopicResult | None, configs: TopicResult) -> TopicResult:
    """A grown topic's result and its config change's, as one."""
    if first is None:
        return configs
    if not first.ok:
        return first
    if not configs.ok:
        return configs
    return replace(first, message=f"{first.message} {configs.message}")


class ApplyInterrupted(Exception):
    """The cluster went out of reach mid-apply: the results so far, the topics not known to
    be sent (in order; the first batch may have reached the controller), and why."""

    def __init__(self, done: list[TopicResult], unsent: list[str], cause: AdminError) -> None:
        super().__init__(cause.message)
        self.done = done
        self.unsent = unsent
        self.cause = cause


def _already(name: str, same: bool, verb: str) -> TopicResult:
    if same:
        return TopicResult(name, ok=True, message=f"Topic '{name}' is already {verb} as planned.")
    return TopicResult(
        name,
        ok=False,
        error="TOPIC_ALREADY_EXISTS",
        message=f"Topic '{name}' exists with another assignment than the plan's. Preview again.",
    )


async def _send(
    admin: AdminPort,
    snapshot: Snapshot,
    store: PlaceholderStore,
    zookeeper: str | None,
    batch: list[Planned],
    timeout_ms: int,
) -> list[TopicResult]:
    results: list[TopicResult] = []
    specs = [p.spec for p in batch if p.spec is not None]
    if specs:
        ids = any(placing.has_placeholders(p) for p in batch)
        sent = await admin.create_topics(specs, timeout_ms=timeout_ms, topic_ids=ids)
        results = [placing.decorate(r, p, False) for r, p in zip(sent, batch, strict=True)]
    else:
        by_kafka = [p for p in batch if not p.via_zookeeper and p.grow is not None]
        answers = iter(
            await admin.create_partitions(
                [p.grow for p in by_kafka if p.grow is not None], timeout_ms=timeout_ms
            )
            if by_kafka
            else []
        )
        for p in batch:
            if p.via_zookeeper:
                results.append(
                    await grow_in_zookeeper(admin, snapshot, p, zookeeper, False, timeout_ms)
                )
            else:
                results.append(placing.decorate(next(answers), p, False))
    first = {t: len(d.partitions) for t, d in snapshot.topics.items()}
    await placing.record_placeholders(admin, store, snapshot, batch, results, first)
    return results


async def _verify(
    admin: AdminPort,
    entries: dict[str, dict[str, Any]],
    results: dict[str, TopicResult],
    sent: list[str],
) -> None:
    """The final check: the cluster's metadata holds the planned replicas."""
    names = [n for n in sent if results[n].ok]
    if not names:
        return
    found, _ = await admin.describe_topics(names, configs=False)
    by_name = {t.name: t for t in found}
    for name in names:
        entry = entries[name]
        lists = _real(entry["assignment"])
        topic = by_name.get(name)
        have = [list(p.replicas) for p in topic.partitions] if topic else []
        if have[entry["partitions"] - len(lists) :] != lists or len(have) != entry["partitions"]:
            results[name] = TopicResult(
                name,
                ok=False,
                error="ASSIGNMENT_MISMATCH",
                message=f"Topic '{name}': the metadata shows {have}, not the planned {lists}.",
            )
