"""Moving a group's offsets, with kafka-consumer-groups.sh's modes, words and rules
(org.apache.kafka.tools.GroupOffsetsResetter, Kafka 4.x):

- to-earliest / to-latest: the log start / log end of each partition.
- to-current: the committed offset; where none, the log end.
- to-offset N, shift-by N, from-file: clamped to [log start, log end]; shift-by needs a
  committed offset on every partition (refused whole otherwise, as Kafka's tool does).
- to-datetime / by-duration: the first offset at or after the time (ListOffsets); where no
  record is that new, the log end.
- Partitions: `--topic T` (every partition), `--topic T:0,2`, or `--all-topics` (the topics the
  group committed on); from-file takes the file's partitions (of the named topics, if any).

A preview is the default; executing commits the new offsets as an admin (OffsetCommit; a share
group's start offsets with AlterShareGroupOffsets), which Kafka takes only while the group has
no member: a group with members is refused before anything is sent, naming its state. Before
the commit, the offsets it replaces are written to a rollback file in the CSV that
`--from-file` reads, and the change goes to the audit log with that file's path.
"""

from __future__ import annotations

import asyncio
import csv
import datetime
import io
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..admin import audit_log as audit
from ..admin.errors import AdminError, error_name, sentence
from ..admin.group_work import ListedGroupInfo, OffsetCommitResult
from ..admin.protocol_group_changes import EARLIEST, LATEST
from ..admin.protocol_groups import CLASSIC, SHARE
from . import rollback
from .parsing import UsageError
from .ports import AdminPort

Partition = tuple[str, int]

TO_EARLIEST = "to-earliest"
TO_LATEST = "to-latest"
TO_CURRENT = "to-current"
TO_OFFSET = "to-offset"
SHIFT_BY = "shift-by"
TO_DATETIME = "to-datetime"
BY_DURATION = "by-duration"
FROM_FILE = "from-file"
MODES = (
    TO_EARLIEST,
    TO_LATEST,
    TO_CURRENT,
    TO_OFFSET,
    SHIFT_BY,
    TO_DATETIME,
    BY_DURATION,
    FROM_FILE,
)
# The modes of a share group's start offsets (kafka-share-groups.sh 4.x: earliest, latest,
# datetime, duration; an offset and a file too, so that a rollback file restores it). Not
# shift-by or to-current: its start offsets are the persisted share state, which can stay
# behind what its consumers acknowledged.
SHARE_MODES = (TO_EARLIEST, TO_LATEST, TO_DATETIME, BY_DURATION, TO_OFFSET, FROM_FILE)
_INACTIVE = frozenset({"empty", "dead", ""})


@dataclass(frozen=True)
class ResetSpec:
    """What to reset to. `value`: the offset (to-offset), the shift (shift-by), the time in
    ms since the epoch (to-datetime, by-duration resolved against the clock), unused
    otherwise. `rows`: from-file's offsets. `topics`: "T" or "T:0,1" each."""

    mode: str
    value: int | None = None
    rows: Mapping[Partition, int] = field(default_factory=dict)
    topics: Sequence[str] = ()
    all_topics: bool = False


@dataclass(frozen=True)
class ResetRow:
    topic: str
    partition: int
    before: int | None  # the committed offset now (None: nothing committed)
    after: int
    log_start: int | None
    log_end: int | None

    @property
    def rereads(self) -> int:
        """Records the group will read again (moving back)."""
        return (
            self.before - self.after if self.before is not None and self.after < self.before else 0
        )

    @property
    def skips(self) -> int:
        """Records the group will never read (moving forward)."""
        return (
            self.after - self.before if self.before is not None and self.after > self.before else 0
        )

    def to_json(self) -> dict[str, object]:
        return {
            "topic": self.topic,
            "partition": self.partition,
            "before": self.before,
            "after": self.after,
            "log_start": self.log_start,
            "log_end": self.log_end,
            "rereads": self.rereads,
            "skips": self.skips,
        }


@dataclass(frozen=True)
class ResetPlan:
    group: str
    type: str
    state: str
    coordinator: int
    members: int
    rows: tuple[ResetRow, ...]
    notes: tuple[str, ...] = ()

    @property
    def refusal(self) -> tuple[str, str] | None:
        """(Kafka error name, sentence) when Kafka would refuse it now: the group has members."""
        if self.members == 0 and self.state.lower() in _INACTIVE:
            return None
        return (
            "NON_EMPTY_GROUP",
            f"Group '{self.group}' has {self.members} active member(s) (state {self.state}): "
            "Kafka takes offsets from an admin only while a group has no member. Stop its "
            "consumers (the group becomes Empty), then reset.",
        )


@dataclass(frozen=True)
class ResetOutcome:
    plan: ResetPlan
    executed: bool
    rollback_file: str | None
    results: tuple[OffsetCommitResult, ...] = ()
    error: str | None = None
    message: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and all(r.ok for r in self.results)

    def to_json(self) -> dict[str, object]:
        failed = {(r.topic, r.partition): r for r in self.results if not r.ok}
        rows = []
        for row in self.plan.rows:
            entry = row.to_json()
            if (row.topic, row.partition) in failed:
                r = failed[(row.topic, row.partition)]
                entry |= {"error": r.error, "message": r.message}
            rows.append(entry)
        document: dict[str, object] = {
            "group": self.plan.group,
            "type": self.plan.type,
            "state": self.plan.state,
            "executed": self.executed,
            "rollback_file": self.rollback_file,
            "partitions": rows,
        }
        if self.plan.notes:
            document["notes"] = list(self.plan.notes)
        first = next((r for r in self.results if not r.ok), None)
        error = self.error or (first.error if first else None)
        if error:
            document["error"] = error
            document["message"] = self.message or (first.message if first else None)
        return document


# -- the modes' values ----------------------------------------------------------------------

_DURATION = re.compile(
    r"(?P<sign>[-+]?)P(?:(?P<d>[-+]?\d+)D)?"
    r"(?:T(?:(?P<h>[-+]?\d+)H)?(?:(?P<m>[-+]?\d+)M)?(?:(?P<s>[-+]?\d+)(?:[.,](?P<f>\d{1,9}))?S)?)?",
    re.IGNORECASE,
)


def parse_duration(text: str) -> int:
    """Java's Duration.parse format (`PnDTnHnMn.nS`, what --by-duration takes) -> ms."""
    match = _DURATION.fullmatch(text.strip())
    if not match or text.strip().upper() in ("P", "PT") or text.strip().upper().endswith("T"):
        raise UsageError(
            f"'{text}' is not a duration: use ISO-8601's PnDTnHnMnS, e.g. PT30M or P1DT2H."
        )
    days, hours, minutes, seconds = (int(match.group(k) or 0) for k in ("d", "h", "m", "s"))
    fraction = (match.group("f") or "").ljust(3, "0")[:3]
    ms = ((days * 24 + hours) * 60 + minutes) * 60_000 + seconds * 1000 + int(fraction or 0)
    return -ms if match.group("sign") == "-" else ms


def parse_datetime(text: str) -> int:
    """An ISO-8601 time (what --to-datetime takes: 'YYYY-MM-DDTHH:mm:SS.sss', a zone such as
    'Z' or '+02:00' optional, local time without one, as Kafka's tool reads it) -> ms."""
    try:
        when = datetime.datetime.fromisoformat(text.strip())
    except ValueError:
        raise UsageError(
            f"'{text}' is not a time: use ISO-8601, e.g. 2026-11-27T02:00:00 (local) or "
            "2026-11-27T02:00:00Z."
        ) from None
    if when.tzinfo is None:
        when = when.astimezone()  # local time, as kafka-consumer-groups.sh takes it
    return int(when.timestamp() * 1000)


def topic_selector(text: str) -> tuple[str, tuple[int, ...] | None]:
    """'T' -> (T, None: every partition); 'T:0,2' -> (T, (0, 2))."""
    if ":" not in text:
        return text, None
    topic, _, rest = text.rpartition(":")
    try:
        partitions = tuple(sorted({int(p) for p in rest.split(",")}))
    except ValueError:
        raise UsageError(f"'{text}': expected TOPIC or TOPIC:P,P (partition numbers).") from None
    if not topic or any(p < 0 for p in partitions):
        raise UsageError(f"'{text}': expected TOPIC or TOPIC:P,P (partition numbers).")
    return topic, partitions


def read_csv(path: Path, group: str) -> dict[Partition, int]:
    """kafka-consumer-groups.sh's reset CSV: `topic,partition,offset` lines, or
    `group,topic,partition,offset` (the rows of `group` taken). Errors name file and line."""
    try:
        text = path.read_text()
    except OSError as exc:
        raise UsageError(f"{path}: cannot read it ({exc.strerror})") from None
    rows: dict[Partition, int] = {}
    grouped = False
    for n, line in enumerate(csv.reader(io.StringIO(text)), start=1):
        if not line or not "".join(line).strip():
            continue
        if len(line) == 4:
            grouped = True
            if line[0] != group:
                continue
            line = line[1:]
        if len(line) != 3:
            raise UsageError(
                f"{path}:{n}: expected topic,partition,offset (or group,topic,partition,offset)"
            )
        topic, partition, offset = (x.strip() for x in line)
        try:
            rows[(topic, int(partition))] = int(offset)
        except ValueError:
            raise UsageError(f"{path}:{n}: partition and offset must be numbers") from None
    if not rows:
        whose = f" for group '{group}'" if grouped else ""
        raise UsageError(f"{path}: no offsets{whose}.")
    return rows


def to_csv(group: str, offsets: Mapping[Partition, int]) -> str:
    """The CSV --export writes and --from-file reads (one group: no group column)."""
    del group
    return "".join(f"{t},{p},{o}\n" for (t, p), o in sorted(offsets.items()))


# -- planning and executing -----------------------------------------------------------------


async def plan_reset(
    admin: AdminPort, group: str, spec: ResetSpec, clock: Callable[[], float] = time.time
) -> ResetPlan:
    """The offsets `spec` gives each partition of `group`, from one read of the cluster."""
    if spec.mode not in MODES:
        raise UsageError(f"Unknown reset mode '{spec.mode}': one of {', '.join(MODES)}.")
    if spec.mode != FROM_FILE and not spec.topics and not spec.all_topics:
        raise UsageError("Say which partitions: a topic (TOPIC or TOPIC:P,P), or all topics.")
    listed, _ = await admin.all_groups()
    found = next((g for g in listed if g.group == group), None)
    if found is None:  # a group that does not exist yet gets offsets, as Kafka's tool allows
        found = ListedGroupInfo(group, CLASSIC, "Dead", await admin.group_coordinator(group))
    if found.type == SHARE and spec.mode not in SHARE_MODES:
        raise UsageError(
            f"Group '{group}' is a share group: its start offsets can be reset "
            f"{', '.join(SHARE_MODES)}, not {spec.mode}."
        )
    details = await admin.group_details([found])
    detail = details.get(group)
    members = len(detail.members) if detail is not None else 0
    state = detail.state if detail is not None and detail.state else found.state
    unchecked: dict[str, str] = {}
    committed_all, _ = await admin.committed_offsets([found], unchecked)
    if group in unchecked:
        name = unchecked[group]
        raise AdminError(name, sentence(name, group, subject=f"Group '{group}'"))
    committed = committed_all.get(group, {})
    partitions = await _partitions(admin, spec, committed)
    bounds = await _bounds(admin, partitions)
    after, notes = await _targets(admin, spec, partitions, committed, bounds, clock)
    rows = tuple(
        ResetRow(t, p, committed.get((t, p)), after[(t, p)], *bounds.get((t, p), (None, None)))
        for t, p in sorted(partitions)
    )
    return ResetPlan(group, found.type, state, found.coordinator, members, rows, tuple(notes))


async def _partitions(
    admin: AdminPort, spec: ResetSpec, committed: Mapping[Partition, int]
) -> list[Partition]:
    selectors = [topic_selector(t) for t in spec.topics]
    if spec.mode == FROM_FILE:
        named = {t for t, _ in selectors}
        chosen = [tp for tp in spec.rows if not named or tp[0] in named]
    elif spec.all_topics:
        chosen = sorted(committed)
        if not chosen:
            raise UsageError("The group has no committed offsets: name the topics to reset.")
    else:
        chosen = []
    topics = sorted({t for t, _ in selectors} | {t for t, _ in chosen})
    found, errors = await admin.describe_topics(topics, configs=False)
    if errors:
        raise UsageError(errors[0].message)
    counts = {t.name: len(t.partitions) for t in found}
    for topic, only in selectors:
        if spec.mode != FROM_FILE and not spec.all_topics:
            chosen += [(topic, p) for p in (only if only is not None else range(counts[topic]))]
    wrong = sorted(tp for tp in chosen if not 0 <= tp[1] < counts.get(tp[0], 0))
    if wrong:
        t, p = wrong[0]
        raise UsageError(f"Partition {p} of '{t}' does not exist: it has {counts.get(t, 0)}.")
    return sorted(set(chosen))


async def _bounds(
    admin: AdminPort, partitions: Sequence[Partition]
) -> dict[Partition, tuple[int, int]]:
    first, last = await asyncio.gather(
        admin.list_offsets(dict.fromkeys(partitions, EARLIEST)),
        admin.list_offsets(dict.fromkeys(partitions, LATEST)),
    )
    missing = [tp for tp in partitions if first[tp].error_code or last[tp].error_code]
    if missing:
        t, p = missing[0]
        code = first[(t, p)].error_code or last[(t, p)].error_code
        raise AdminError(
            error_name(code),
            f"Cannot read the log start and end of '{t}'-{p} ({error_name(code)}): its leader "
            "did not answer. Nothing was changed.",
        )
    return {tp: (first[tp].offset, last[tp].offset) for tp in partitions}


async def _targets(
    admin: AdminPort,
    spec: ResetSpec,
    partitions: Sequence[Partition],
    committed: Mapping[Partition, int],
    bounds: Mapping[Partition, tuple[int, int]],
    clock: Callable[[], float],
) -> tuple[dict[Partition, int], list[str]]:
    notes: list[str] = []

    def clamped(tp: Partition, offset: int) -> int:
        start, end = bounds[tp]
        if offset > end:
            notes.append(f"'{tp[0]}'-{tp[1]}: {offset} is past the log end; set to {end}.")
            return end
        if offset < start:
            notes.append(f"'{tp[0]}'-{tp[1]}: {offset} is before the log start; set to {start}.")
            return start
        return offset

    mode = spec.mode
    if mode == TO_EARLIEST:
        return {tp: bounds[tp][0] for tp in partitions}, notes
    if mode == TO_LATEST:
        return {tp: bounds[tp][1] for tp in partitions}, notes
    if mode == TO_CURRENT:
        return {tp: committed.get(tp, bounds[tp][1]) for tp in partitions}, notes
    if mode == TO_OFFSET:
        assert spec.value is not None
        return {tp: clamped(tp, spec.value) for tp in partitions}, notes
    if mode == SHIFT_BY:
        assert spec.value is not None
        without = [tp for tp in partitions if tp not in committed]
        if without:
            t, p = without[0]
            raise UsageError(
                f"Cannot shift '{t}'-{p}: the group has no committed offset there "
                "(reset it to an offset, the earliest or the latest instead)."
            )
        return {tp: clamped(tp, committed[tp] + spec.value) for tp in partitions}, notes
    if mode == FROM_FILE:
        return {tp: clamped(tp, spec.rows[tp]) for tp in partitions}, notes
    assert spec.value is not None
    at = spec.value if mode == TO_DATETIME else int(clock() * 1000) - spec.value
    found = await admin.list_offsets(dict.fromkeys(partitions, at))
    targets = {}
    for tp in partitions:
        offset = found[tp].offset if not found[tp].error_code else -1
        if offset < 0:
            notes.append(f"'{tp[0]}'-{tp[1]}: no record at or after the time; set to the log end.")
            offset = bounds[tp][1]
        targets[tp] = offset
    return targets, notes


async def execute_reset(admin: AdminPort, plan: ResetPlan) -> ResetOutcome:
    """Commit the plan's offsets, after writing the rollback file; refused whole, nothing
    sent, while the group has members."""
    refusal = plan.refusal
    if refusal is not None:
        return ResetOutcome(plan, False, None, (), *refusal)
    if not plan.rows:
        return ResetOutcome(plan, False, None, (), "INVALID_REQUEST", "No partition to reset.")
    before = {(r.topic, r.partition): r.before for r in plan.rows if r.before is not None}
    path = str(rollback.write_text(f"group-{_safe(plan.group)}", "csv", to_csv(plan.group, before)))
    offsets = {(r.topic, r.partition): r.after for r in plan.rows}
    change = admin.alter_share_group_offsets if plan.type == SHARE else admin.commit_group_offsets
    with audit.rollback_file(path):
        results = await change(plan.group, plan.coordinator, offsets)
    return ResetOutcome(plan, True, path, tuple(results))


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)[:80]
