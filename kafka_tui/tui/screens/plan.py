"""Bulk plans in the TUI (issue 8): open a plan file, or grow the marked topics to N
partitions; place it in process or with the Spark job through the workflow `plan preview`
runs (`services.plan_workflow`: its progress drives the bar; `esc` cancels it, the Spark
subprocess included); see the per-broker chart
before -> after, the statistics, warnings and each topic's assignment; then apply exactly
that, in batches, with per-topic results (`services.plan_apply.apply_document`, as the CLI does).
"""

from __future__ import annotations

import asyncio
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Input, Label, ProgressBar, Select, Static

from ...admin import AdminError, TopicResult
from ...config import Profile
from ...fields import FieldError
from ...planning import plan_parquet, plan_rows
from ...planning.bulk_plan import Intent, PlanOptions
from ...planning.placement import MODES
from ...services import plan_workflow
from ...services.key_reports_saved import lines as key_lines
from ...services.placing import PlacementOptions
from ...services.plan_apply import ConfigsApplied, apply_document, broker_differences
from ...services.plan_documents import (
    PlanDocument,
    config_change_count,
    config_change_lines,
    findings,
    topics_named,
)
from ...services.plan_keys import moves_of
from ...services.plan_workflow import (
    GrowTopics,
    PlanFile,
    PlanRequest,
    Progress,
    SparkSettings,
    Watch,
)
from ...services.ports import AdminPort
from ...services.snapshot import take_snapshot
from ...services.spark_runner import run_spark_job, spark_log_path, spark_settings
from .. import notices
from ..widgets.broker_chart import BrokerBars, BrokerChart
from ..widgets.plan_topics import PlanTopics
from ..widgets.tables import PreviewTable
from ..words import FORM_FIELDS, field_error_words, remedy_words
from .base import KafkaScreen, placeholder_store

APPLY_BATCH = 100  # topics per step of the bar (and per CreateTopics request)


def grouped_warnings(document: PlanDocument) -> list[str]:
    """Refusals and warnings, each distinct one once with how many topics it concerns, its
    remedy worded for the screen; then the plan's own warnings."""
    lines = []
    for f in findings(document.data):
        text = f"{f.error}: {f.message}" if f.error else f.message
        advice = remedy_words(f.remedies)
        text = f"{text} {advice}".rstrip()
        lines.append(f"{len(f.topics)} topic(s) ({topics_named(f.topics)}): {text}")
    sanity = document.stats["sanity"]
    return lines + document.warnings + [f"SANITY: {p}" for p in sanity["problems"]]


def _stat_line(name: str, s: dict[str, Any]) -> str:
    return (
        f"{name} per live broker: min {s['min']}  max {s['max']}  avg {s['avg']}  "
        f"std {s['std']}  max/avg {s['max_avg']}"
    )


class PlanScreen(KafkaScreen):
    """`topics`: the marked topics, to grow to N partitions; none: a plan file."""

    profile: Profile
    CHANGE_ACTIONS = frozenset({"apply"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+o", "open", "Open", id="plan.open", tooltip="Read the plan file"),
        Binding(
            "ctrl+r", "run", "Run", id="plan.run", tooltip="Place the plan and show statistics"
        ),
        Binding("ctrl+s", "apply", "Apply", id="plan.apply", tooltip="Apply the previewed plan"),
        Binding(
            "escape",
            "cancel",
            "Cancel / back",
            id="plan.cancel",
            tooltip="Stop the running plan or apply, or go back",
        ),
    ]

    def __init__(
        self,
        profile: Profile,
        admin: AdminPort,
        topics: Sequence[str] = (),
        *,
        path: str = "",
    ) -> None:
        super().__init__()
        self.profile = profile
        self.admin = admin
        self.topics = list(topics)
        self.initial_path = path
        self.intents: list[Intent] | None = None
        self.document: PlanDocument | None = None
        self.results: dict[str, TopicResult] = {}
        self.spark_process: asyncio.subprocess.Process | None = None
        self.stop_apply = asyncio.Event()

    # -- layout --------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        if self.topics:
            header = f"Plan: grow {len(self.topics)} marked topic(s) to N partitions"
        else:
            header = "Plan: open a plan file (CSV, JSON, JSON lines, or a saved plan)"
        yield Static(header, id="plan-header", markup=False)
        with Horizontal(id="plan-inputs"):
            if self.topics:
                yield Input(placeholder="new partition count", id="grow-to", type="integer")
            else:
                yield Input(self.initial_path, placeholder="plan file path", id="plan-path")
            yield Select(
                [("local engine", "local"), ("Spark engine", "spark")],
                value="local",
                allow_blank=False,
                id="engine",
            )
            yield Input("local[*]", placeholder="Spark master", id="spark-master")
        with Horizontal(id="plan-kip409"):
            mode = self.profile.under_replicated
            yield Select(
                [(f"mode {m}", m) for m in MODES],
                value=mode if mode in MODES else "disabled",
                allow_blank=False,
                id="mode",
            )
            yield Input(placeholder="min required RF (optional)", id="min_required", type="integer")
            # Existing topics' config changes, as apply_document takes them (ConfigsApplied).
            yield Select(
                [
                    ("configs: previewed only", "none"),
                    ("configs: apply changes", "changed"),
                    ("configs: apply, remove others", "pruned"),
                ],
                value="none",
                allow_blank=False,
                id="configs-apply",
            )
        # Shell words, as --spark-conf takes them: values such as spark.jars hold commas.
        yield Input(
            shlex.join(f"{key}={value}" for key, value in self.profile.spark),
            placeholder="Spark settings: KEY=VALUE ... (optional)",
            id="spark-conf",
        )
        yield Label("", id="spark-conf-error", classes="field-error", markup=False)
        yield Label("ctrl+r places the plan; nothing is sent before ctrl+s.", id="plan-stage")
        yield ProgressBar(id="plan-progress", show_eta=False)
        yield Static("", id="plan-summary", markup=False)
        yield BrokerChart(id="plan-chart")
        yield Static("", id="plan-stats", markup=False)
        yield Static("", id="plan-warnings", markup=False)
        with Horizontal(id="plan-body"):
            yield PlanTopics(id="plan-topics")
            with Vertical(id="plan-drill"):
                yield Static("", id="plan-topic-detail", markup=False)
                yield PreviewTable(id="plan-assignment")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#plan-progress", ProgressBar).display = False
        self._show_spark_settings()
        self.query_one("#grow-to" if self.topics else "#plan-path", Input).focus()

    def _stage(self, text: str) -> None:
        self.query_one("#plan-stage", Label).update(text)

    def _progress(self, done: int, total: int) -> None:
        bar = self.query_one("#plan-progress", ProgressBar)
        bar.display = True
        bar.update(total=max(total, 1), progress=done)

    def _busy(self, group: str) -> bool:
        return any(w.node is self and w.group == group and w.is_running for w in self.workers)

    # -- opening ---------------------------------------------------------------------------------

    def action_open(self) -> None:
        if not self.topics:
            self.open_plan()

    @on(Input.Submitted, "#plan-path, #grow-to")
    def submitted(self) -> None:
        self.action_run()

    @on(Input.Changed, "#plan-path, #grow-to")
    def input_changed(self) -> None:
        self.intents = None
        self._show_spark_settings()

    @on(Select.Changed, "#engine")
    @on(Input.Changed, "#spark-conf")
    def spark_changed(self) -> None:
        self._show_spark_settings()

    def _uses_spark(self) -> bool:
        """The Spark engine, or a Parquet plan (read by Spark whatever the engine)."""
        if str(self.query_one("#engine", Select).value) == "spark":
            return True
        return not self.topics and plan_parquet.is_parquet(str(self._path()))

    def _show_spark_settings(self) -> None:
        """The settings field only when Spark runs, its error next to it as it is typed."""
        shown = self._uses_spark()
        self.query_one("#spark-conf", Input).display = shown
        error = self.query_one("#spark-conf-error", Label)
        _, problem = self._spark_settings()
        error.update(problem or "")
        error.display = shown and problem is not None

    def _spark_settings(self) -> tuple[dict[str, str], str | None]:
        """The field's settings as `--spark-conf` reads them (the field starts with the
        profile's [spark] table, so it is the whole of them); or why they cannot be read."""
        text = self.query_one("#spark-conf", Input).value
        try:
            return spark_settings(shlex.split(text)), None
        except ValueError as exc:
            return {}, f"Spark settings: {exc}."

    @work(exclusive=True, group="plan-open", exit_on_error=False)
    async def open_plan(self) -> None:
        await self._read()

    def _path(self) -> Path:
        return Path(self.query_one("#plan-path", Input).value.strip()).expanduser()

    def _master(self) -> str:
        return self.query_one("#spark-master", Input).value.strip() or "local[*]"

    def _source(self) -> plan_workflow.PlanSource | None:
        """The plan file, or the marked topics to grow (None, said why, without a count)."""
        if not self.topics:
            return PlanFile(str(self._path()))
        text = self.query_one("#grow-to", Input).value.strip()
        if not text.isdigit() or int(text) < 1:
            self._stage("Type the new partition count of the marked topics.")
            return None
        return GrowTopics(tuple(self.topics), int(text))

    async def _read(self) -> bool:
        """Read the plan into intents (or a saved document, shown); False on a bad file."""
        self.query_one("#plan-warnings", Static).update("")
        source = self._source()
        if source is None:
            return False
        path = self._path() if isinstance(source, PlanFile) else None
        conf: dict[str, str] = {}
        if path is not None and plan_parquet.is_parquet(str(path)):
            # A local Parquet file is read in process (pyarrow); another by Spark.
            conf, problem = self._spark_settings()
            if problem is not None:
                self._stage(problem)
                return False
            self._stage(f"Reading {path}…")
        try:
            found = await plan_workflow.read_plan(source, self._spark(conf), self._watch())
        except plan_workflow.PlanUnreadable as exc:
            reason = exc.reason
            self._stage(
                f"Cannot read {path}: {reason}." if reason else f"{path} is not UTF-8 text."
            )
            return False
        except plan_workflow.SparkJobFailed as exc:
            self._stage(f"{path}: Spark could not read it: {exc.failure}")
            return False
        except plan_rows.PlanFileErrors as exc:
            self.intents = None
            errors = "\n".join(str(e) for e in exc.errors)
            self.query_one("#plan-warnings", Static).update(errors)
            self._stage(f"{path}: {len(exc.errors)} error(s); nothing can be sent.")
            return False
        if isinstance(found, PlanDocument):
            self.intents = []
            self._show(found)
            self._stage(f"{path}: a saved plan; ctrl+s applies it as it is.")
            return True
        self.intents = found
        if path is not None:
            self._stage(f"{path}: {len(found)} row(s); ctrl+r places them.")
        return True

    # -- running ---------------------------------------------------------------------------------

    def action_run(self) -> None:
        if not self._busy("plan-apply"):
            self.run_plan()

    @work(exclusive=True, group="plan-run", exit_on_error=False)
    async def run_plan(self) -> None:
        if (self.intents is None or self.topics) and not await self._read():
            return
        if not self.intents:  # a saved plan is shown already
            return
        spark = self.query_one("#engine", Select).value == "spark"
        engine: plan_workflow.Engine = "spark" if spark else "local"
        conf, problem = self._spark_settings()
        if engine == "spark" and problem is not None:
            self._stage(problem)
            return
        options = self._options()
        source = self._source()
        if options is None or source is None:
            return
        self.document = None
        self.results = {}
        request = PlanRequest(source, engine, self._spark(conf), options)
        try:
            planned = await plan_workflow.run(
                self.admin,
                request,
                self._watch(),
                zookeeper=self.profile.zookeeper_connect,
                store=placeholder_store(self, self.profile),
                read=self.intents,
            )
        except AdminError as exc:
            self.tell(notices.failed(exc.message, "Cannot read the cluster"))
            self._stage("Cannot read the cluster.")
            return
        except plan_workflow.SparkJobFailed as exc:
            self.tell(notices.failed(f"{exc.failure}. Its log: {exc.log}", "Spark job failed"))
            self._stage(f"The Spark job failed ({exc.failure}).")
            return
        except asyncio.CancelledError:
            self._stage("Cancelled: nothing was placed, nothing sent.")
            raise
        self._show(planned.document)
        self._stage(f"Placed ({engine}). ctrl+s applies exactly this plan.")

    def _options(self) -> PlanOptions | None:
        """The KIP-409 options as the create form reads them: a minimum alone implies
        `enabled`; a refusal is worded for this screen."""
        mode = str(self.query_one("#mode", Select).value)
        text = self.query_one("#min_required", Input).value.strip()
        if text and not text.isdigit():
            self._stage(f"min required RF: '{text}' is not a whole number.")
            return None
        minimum = int(text) if text else None
        try:
            chosen = PlacementOptions.of(
                None if mode == "disabled" and minimum is not None else mode, minimum, None
            )
        except FieldError as exc:
            self._stage(f"{FORM_FIELDS[exc.field][1]}: {field_error_words(exc)}")
            return None
        return PlanOptions(chosen.mode, chosen.min_required)

    def _spark(self, conf: dict[str, str]) -> SparkSettings:
        # run_spark_job as this module names it when the plan runs (tests record its calls)
        return SparkSettings(self._master(), conf, run_spark_job)

    def _watch(self) -> Watch:
        return Watch(self._progressed, self._spark_started)

    def _progressed(self, progress: Progress) -> None:
        """The workflow's progress as the stage line and the bar show it."""
        if progress.phase == "snapshot":
            if not progress.done:
                self._stage("Reading the cluster…")
                self._progress(0, 1)
        elif progress.phase == "place":
            if not progress.done:
                self._stage("Placing in process…")
            self._progress(progress.done, progress.total)
        elif progress.phase == "spark_start":
            self._stage(
                f"Starting Spark ({self._master()})… esc cancels. Its log: {spark_log_path()}"
            )
        else:
            self._spark_shown(progress.stage, progress.done, progress.total)

    def _spark_shown(self, stage: str, done: int, total: int) -> None:
        self._stage(f"Spark: {stage} {done}/{total}. esc cancels.")
        self._progress(done, total)

    def _spark_started(self, process: asyncio.subprocess.Process) -> None:
        self.spark_process = process

    # -- the preview -----------------------------------------------------------------------------

    def _show(self, document: PlanDocument) -> None:
        self.document = document
        topics, stats = document.topics, document.stats
        creates = sum(1 for t in topics if t["action"] == "create" and not t["error"])
        grows = sum(1 for t in topics if t["action"] == "grow" and not t["error"])
        refused = [t for t in topics if t["error"]]
        with_configs, changes = config_change_count(document.data)
        configs = f", {with_configs} with {changes} config change(s)" if changes else ""
        self.query_one("#plan-summary", Static).update(
            f"Plan ({document.engine}): {creates} topic(s) to create, {grows} to grow"
            f"{configs}, {len(refused)} refused; {stats['partitions']} new partitions, "
            f"{stats['new_replicas']} replicas."
        )
        self.query_one(BrokerChart).show([BrokerBars.from_document(b) for b in document.brokers])
        sanity = stats["sanity"]
        lines = [
            _stat_line("Replicas", stats["replicas_after"]),
            _stat_line("Leaders", stats["leaders_after"]),
            f"Partitions whose replicas share a rack: {stats['same_rack_partitions']}; "
            f"placeholders: {stats['placeholders']}; replicas on offline brokers: "
            f"{stats['replicas_on_offline_brokers']}; sanity check: "
            + ("ok" if sanity["ok"] else "FAILED"),
        ]
        self.query_one("#plan-stats", Static).update("\n".join(lines))
        self.query_one("#plan-warnings", Static).update("\n".join(grouped_warnings(document)))
        self.query_one(PlanTopics).show(topics, moves_of(document))

    @on(PlanTopics.Highlighted)
    def topic_highlighted(self, event: PlanTopics.Highlighted) -> None:
        self.show_topic(event.name)

    def show_topic(self, name: str) -> None:
        """The drill-down: one topic's planned assignment with the one replica renderer."""
        if self.document is None:
            return
        entry = self.query_one(PlanTopics).entry(name)
        if entry is None:
            return
        offline = [b["id"] for b in self.document.brokers if not b["live"]]
        lists = entry["assignment"]
        first = entry["partitions"] - len(lists) if entry["action"] == "grow" else 0
        lines = [
            f"{name}: {entry['action']} to {entry['partitions']} partition(s), RF "
            f"{entry['replication_factor']}"
            + (f", partitions {first}.. are new" if entry["action"] == "grow" else "")
        ]
        if entry["error"]:
            lines.append(f"Refused ({entry['error']}): {entry['message']}")
        lines += [f"warning: {w}" for w in entry["warnings"]]
        changes = config_change_lines(entry)
        if changes:
            lines.append(
                f"config changes ({len(changes)}; applied when configs is set to apply "
                "them): " + "; ".join(changes)
            )
        moves = self.query_one(PlanTopics).moves.get(name)
        if moves is not None and entry["action"] == "grow" and not entry["error"]:
            lines += key_lines(moves)
            if moves.recent is None:
                lines.append(
                    "The partitions form's F3 (or `kafka-tui topics keys`) counts its keys."
                )
        result = self.results.get(name)
        if result is not None:
            lines.append(f"Applied: {'ok' if result.ok else result.error}: {result.message}")
        self.query_one("#plan-topic-detail", Static).update("\n".join(lines))
        self.query_one(PreviewTable).show(first, lists, offline)

    # -- applying --------------------------------------------------------------------------------

    def action_apply(self) -> None:
        if self.document is None:
            self.tell(notices.hint("Place the plan first (ctrl+r)."))
        elif not self._busy("plan-run"):
            self.apply_plan()

    @work(exclusive=True, group="plan-apply", exit_on_error=False)
    async def apply_plan(self) -> None:
        document = self.document
        if document is None:
            return
        if not document.sane:
            self.tell(notices.failed("The plan failed its own sanity check."))
            return
        store = placeholder_store(self, self.profile)
        zookeeper = self.profile.zookeeper_connect
        configs = _configs_applied(self.query_one("#configs-apply", Select).value)
        self.stop_apply.clear()
        try:
            snapshot = await take_snapshot(self.admin, zookeeper=zookeeper, store=store)
            differences = broker_differences(document.data, snapshot)
            if differences:
                self.tell(
                    notices.failed(
                        "; ".join(differences) + ". Place the plan again (ctrl+r).",
                        "The brokers changed since the preview",
                    )
                )
                return
            entries = document.topics
            self._progress(0, len(entries))
            for start in range(0, len(entries), APPLY_BATCH):
                if self.stop_apply.is_set():
                    break
                self._stage(f"Applying: {start}/{len(entries)} topic(s)… esc stops.")
                part = {**document.data, "topics": entries[start : start + APPLY_BATCH]}
                for r in await apply_document(
                    self.admin, snapshot, store, zookeeper, part, APPLY_BATCH, configs=configs
                ):
                    self._result(r)
                self._progress(min(start + APPLY_BATCH, len(entries)), len(entries))
        except AdminError as exc:
            self.tell(notices.failed(exc.message, "Apply failed"))
            return
        ok = sum(1 for r in self.results.values() if r.ok)
        failed = len(self.results) - ok
        stopped = " Stopped by esc." if self.stop_apply.is_set() else ""
        text = f"Applied: {ok} topic(s) ok, {failed} failed, of {len(entries)}.{stopped}"
        self._stage(text)
        self.tell((notices.failed if failed else notices.done)(text, "Plan applied"))

    def _result(self, result: TopicResult) -> None:
        self.results[result.topic] = result
        self.query_one(PlanTopics).set_result(
            result.topic, "ok" if result.ok else str(result.error)
        )

    def action_cancel(self) -> None:
        if self._busy("plan-apply"):
            self.stop_apply.set()
            self._stage("Stopping after this batch…")
        elif self._busy("plan-run") or self._busy("plan-open"):
            self.workers.cancel_group(self, "plan-run")
            self.workers.cancel_group(self, "plan-open")
        else:
            self.dismiss(bool(self.results))


def _configs_applied(value: object) -> ConfigsApplied:
    """The configs choice as the service takes it."""
    if value == "changed":
        return "changed"
    if value == "pruned":
        return "pruned"
    return "none"
