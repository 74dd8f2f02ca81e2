"""The plan's data: intents as read from a plan file, the cluster they are planned on, the
validated rows and the groups `plan.prepare` cuts them into.

Plain frozen dataclasses, imported by `plan.py` (which builds them), `plan_document.py` and
`plan_stats.py` (which read them) and the plan readers (`plan_rows.py`, `plan_csv.py`,
`plan_json.py`, `plan_saved.py`), so none of those imports another to reach them.
Pure, like the rest of `planning/`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from kafka_tui.planning.config_diff import ConfigChange, ConfigState
from kafka_tui.planning.placement import Broker, Load, Mode, Request

# "configs": an existing topic whose partitions stay; only its overrides differ from the plan's.
Action = Literal["create", "grow", "configs"]
DEFAULT_GROUP_PARTITIONS = 20_000


@dataclass(frozen=True)
class Intent:
    """One plan row; None = the cluster's default (or, for a grow, the topic's own)."""

    topic: str
    partitions: int | None = None
    replication_factor: int | None = None
    min_required: int | None = None
    configs: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class ExistingTopic:
    partitions: tuple[tuple[int, ...], ...]
    replication_factor: int  # intended: a placeholder record's, else the topic's
    min_insync: int | None = None
    # Its configs as read for the plan (None: not read, so no config difference is shown).
    configs: Mapping[str, ConfigState] | None = None


@dataclass(frozen=True)
class ClusterView:
    brokers: tuple[Broker, ...]
    load: Load
    topics: dict[str, ExistingTopic]
    num_partitions: int = 1
    replication_factor: int = 1
    min_insync: int = 1


@dataclass(frozen=True)
class PlanOptions:
    mode: Mode = "disabled"
    min_required: int | None = None
    group_partitions: int = DEFAULT_GROUP_PARTITIONS


@dataclass(frozen=True)
class Row:
    """A validated intent: what to place, or why not (`error`, `message`)."""

    topic: str
    action: Action
    total: int  # partitions after the plan (a create: its count)
    request: Request
    mode: Mode
    configs: tuple[tuple[str, str], ...] = ()
    min_required: int | None = None
    warnings: tuple[str, ...] = ()
    error: str | None = None
    message: str = ""
    # An existing topic's overrides -> the row's `configs` (config_diff.py).
    config_changes: tuple[ConfigChange, ...] = ()


@dataclass(frozen=True)
class Group:
    """Rows placed together, on `load`: the group's share of the cluster's load (plan.py)."""

    index: int
    rows: tuple[Row, ...]
    load: Load = field(default_factory=Load)


@dataclass(frozen=True)
class Prepared:
    brokers: tuple[Broker, ...]
    before: Load
    groups: tuple[Group, ...]
    warnings: tuple[str, ...]
    options: PlanOptions
    skipped: int = 0  # rows with nothing to do (a grow to the current count)
    # The cluster the plan is made for, and when its snapshot was read (ISO 8601, UTC): a
    # saved plan is applied only to that cluster.
    cluster_id: str | None = None
    snapshot_time: str | None = None
