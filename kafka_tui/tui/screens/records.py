"""A topic's records (`v` on the topics screen or a topic's detail): the newest first, or
from a chosen offset or time (`o`, oldest first), of every partition or one (`p`), a live
follow (`f`), a jq filter as you type (evaluated in a thread, off the UI), the highlighted
record's object in a detail pane, and a produce form (`P`, hidden on read-only profiles).

It holds a bounded window: the last `LAST` records of each partition when it opens, then what
a follow brings, never more than `WINDOW` records (the oldest leave), so a topic of millions
of records costs what the window costs. What it reads and shows is services/messages.py's
record object, the same as `messages read --output json`. With the profile's schema registry
(schema_registry_url; services/registry_access.py), records in its wire format are decoded
through it (auto: magic byte 0), in a thread, and the produce form writes through it.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from datetime import UTC, datetime
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import DataTable, Footer, Input, Static

from ...admin import AdminError
from ...admin.records import Start, Stop
from ...config import Profile
from ...fields import FieldError
from ...services.messages import (
    Filter,
    Produced,
    ReadRequest,
    RecordDocument,
    compile_filter,
    open_read,
)
from ...services.parsing import epoch_ms
from ...services.ports import AdminPort
from ...services.registry_access import profile_schemas
from .. import notices
from ..words import field_error_words
from . import record_search

if TYPE_CHECKING:
    from ...registry.codec import RecordSchemas

_CELL = 60  # characters of a key or value shown in the table


def _short(value: object) -> str:
    text = "-" if value is None else value if isinstance(value, str) else json.dumps(value)
    text = text.replace("\n", " ")
    return text if len(text) <= _CELL else text[: _CELL - 1] + "…"


def _newest_first(documents: list[RecordDocument]) -> list[RecordDocument]:
    return sorted(
        documents, key=lambda d: (d["timestamp"], d["partition"], d["offset"]), reverse=True
    )


def _oldest_first(documents: list[RecordDocument]) -> list[RecordDocument]:
    return sorted(documents, key=lambda d: (d["timestamp"], d["partition"], d["offset"]))


def parse_start(text: str) -> Start | None:
    """Where to start from the start box: an offset (a whole number), an ISO-8601 time (UTC
    unless it names a zone, as `messages read --from-time` takes it), or empty (None: the
    last records of each partition). ValueError says what to type."""
    text = text.strip()
    if not text:
        return None
    if text.isdigit():
        return Start(offset=int(text))
    try:
        return Start(timestamp=epoch_ms(text))
    except ValueError:
        raise ValueError(
            f"'{text}' is neither an offset nor an ISO-8601 time (e.g. 2026-11-27T10:00:00Z)."
        ) from None


def start_words(start: Start | None) -> str:
    if start is None:
        return "newest first"
    if start.offset is not None:
        return f"from offset {start.offset}, oldest first"
    moment = datetime.fromtimestamp((start.timestamp or 0) / 1000, UTC)
    return f"from {moment.strftime('%Y-%m-%d %H:%M:%S')} UTC, oldest first"


def _pretty(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)


def detail_text(d: RecordDocument) -> str:
    """The detail pane: where and when, the key, the headers, the schema, the value pretty."""
    moment = datetime.fromtimestamp(d["timestamp"] / 1000, UTC)
    lines = [
        f"partition {d['partition']} · offset {d['offset']}",
        f"{moment.strftime('%Y-%m-%d %H:%M:%S.%f')[:-3]} UTC ({d['timestamp_type']})",
        f"key ({d['key_format']}): {'null' if d['key'] is None else _pretty(d['key'])}",
    ]
    if d["headers"]:
        lines.append("headers:")
        lines += [f"  {name}: {'null' if value is None else value}" for name, value in d["headers"]]
    else:
        lines.append("headers: none")
    if d["schema_id"] is not None:
        lines.append(f"schema id: {d['schema_id']}")
    if "error" in d:
        lines.append(f"error: {d['error']}")
    value = "null (a tombstone)" if d["value"] is None else _pretty(d["value"])
    lines.append(f"value ({d['value_format']}):")
    lines.append(value)
    return "\n".join(lines)


class RecordsScreen(record_search.SearchingScreen):
    """The records of `topic`, newest first."""

    profile: Profile
    CHANGE_ACTIONS: ClassVar[frozenset[str]] = frozenset({"produce"})
    LAST = 100  # per partition, read when the screen opens or the partition changes
    WINDOW = 2_000  # records held at most
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="records.back"),
        Binding(
            "slash",
            "focus_filter",
            "Filter",
            id="records.filter",
            tooltip="A jq expression on the record object, e.g. .value.amount > 100",
            key_display="/",
        ),
        Binding("f", "follow", "Follow", id="records.follow", tooltip="Show new records live"),
        Binding(
            "p",
            "next_partition",
            "Partition",
            id="records.partition",
            tooltip="One partition after the other, then all",
        ),
        Binding(
            "o",
            "focus_start",
            "Start",
            id="records.start",
            tooltip="Start from an offset or an ISO-8601 time (empty: the newest)",
        ),
        Binding("r", "reload", "Reload", id="records.reload", tooltip="Read the records again"),
        Binding(
            "S",
            "search_topic",
            "Search topic",
            id="records.search",
            tooltip="The jq filter over every record of the topic (S again stops)",
            key_display="S",
        ),
        Binding(
            "P",
            "produce",
            "Produce",
            id="records.produce",
            tooltip="Produce a record to this topic",
            key_display="P",
        ),
    ]

    def __init__(self, profile: Profile, admin: AdminPort, topic: str) -> None:
        super().__init__()
        self.profile = profile
        self.admin = admin
        self.topic = topic
        self.partition: int | None = None  # None: all
        self.partitions = 0
        self.following = False
        self.held: deque[RecordDocument] = deque(maxlen=self.WINDOW)  # newest first
        self.shown: list[RecordDocument] = []
        self.keep: Filter | None = None
        self.filter_error: str | None = None
        self.ends: dict[int, int] = {}  # where the last read stopped, per partition
        self.generation = 0  # of the filter run last asked for: only its result is shown
        self.start: Start | None = None  # None: the last LAST of each partition, newest first
        self.select: tuple[int, int] | None = None  # (partition, offset) to highlight once shown
        self.loads = 0  # reads shown (tests wait for one)
        self.load_generation = 0  # the filter run that shows the last read
        self.written: str | None = None  # where the last record produced here landed
        self.search_note: str | None = None  # the whole topic's search (record_search.py)
        # The profile's schema registry, opened by the first read (its secrets may come from a
        # command); None without one, or when it could not be had (said in the status line).
        self.schemas: RecordSchemas | None = None
        self.registry_checked = False
        self.registry_error: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(self._title(), id="records-header", markup=False)
        with Horizontal(id="records-inputs"):
            yield Input(placeholder="/ jq filter, e.g. .value.amount > 100", id="records-filter")
            yield Input(placeholder="o start: offset or ISO time", id="records-start")
        with Horizontal(id="records-body"):
            yield DataTable(id="records", cursor_type="row")
            with VerticalScroll(id="record-pane"):
                yield Static("", id="record-detail", markup=False)
        yield Static("Reading the records…", id="records-status", markup=False)
        yield Footer()

    def _title(self) -> str:
        which = "all partitions" if self.partition is None else f"partition {self.partition}"
        return f"Records of {self.topic}, {which}, {start_words(self.start)}  ({self.profile.name})"

    def on_mount(self) -> None:
        table = self.query_one("#records", DataTable)
        table.add_columns("P", "Offset", "Time (UTC)", "Key", "Value")
        table.focus()
        self.load()

    # -- reading --------------------------------------------------------------------------

    def _request(self, start: Start, stop: Stop) -> ReadRequest:
        partitions = () if self.partition is None else (self.partition,)
        return ReadRequest(self.topic, partitions, start, stop)

    @property
    def ascending(self) -> bool:
        return self.start is not None

    @work(exclusive=True, group="records", exit_on_error=False)
    async def load(self) -> None:
        """The last LAST records of each partition shown, newest first; or from the chosen
        start, oldest first, at most WINDOW records."""
        self.workers.cancel_group(self, "follow")
        if self.start is None:
            request = self._request(Start(last=self.LAST), Stop())
        else:
            request = self._request(self.start, Stop(limit=self.WINDOW))
        await self._open_registry()
        try:
            read = await open_read(self.admin, request, self.schemas)
            documents: list[RecordDocument] = []
            async with read:
                async for batch in read.documents():
                    documents += batch
                self.ends = dict(read.ends)
                if len(documents) >= self.WINDOW:  # stopped by the limit: a follow goes on
                    self.ends = dict(read.starts)  # from there, not from the partitions' ends
                    for d in documents:
                        self.ends[d["partition"]] = max(self.ends[d["partition"]], d["offset"] + 1)
            described = await self.admin.describe_topics([self.topic], configs=False)
            self.partitions = len(described[0][0].partitions) if described[0] else 0
        except AdminError as exc:
            self._status(exc.message)
            self.tell(notices.failed(exc.message, "Cannot read the records"))
            return
        order = _oldest_first if self.ascending else _newest_first
        self.held = deque(order(documents), maxlen=self.WINDOW)
        self.loads += 1
        self.search_note = None
        self.query_one("#records-header", Static).update(self._title())
        self.apply_filter()
        self.load_generation = self.generation
        if self.following:
            self.follow()

    @work(exclusive=True, group="follow", exit_on_error=False)
    async def follow(self) -> None:
        """New records as they come, from where the last read stopped."""
        request = self._request(Start(positions=self.ends), Stop(follow=True))
        try:
            read = await open_read(self.admin, request, self.schemas)
            async with read:
                async for batch in read.documents():
                    for d in batch:
                        self.ends[d["partition"]] = d["offset"] + 1
                    if self.ascending:  # new records below, the oldest leave at the top
                        self.held.extend(_oldest_first(batch))
                    else:
                        self.held.extendleft(reversed(_newest_first(batch)))
                    self.apply_filter()
        except AdminError as exc:
            self.following = False
            self._status(exc.message)
            self.tell(notices.failed(exc.message, "Cannot follow the records"))

    async def _open_registry(self) -> None:
        """The profile's registry, once: records in its wire format are decoded through it
        (auto: magic byte 0), and the produce form writes through it."""
        if self.registry_checked or self.profile.schema_registry is None:
            return
        self.registry_checked = True
        try:
            self.schemas = await asyncio.to_thread(profile_schemas, self.profile)
        except FieldError as exc:
            said = field_error_words(exc)
            self.registry_error = said
            self.tell(notices.failed(said, "No schema registry"))

    def on_unmount(self) -> None:
        if self.schemas is not None:
            self.schemas.close()

    # -- the filter -----------------------------------------------------------------------

    @on(Input.Changed, "#records-filter")
    def filter_changed(self, event: Input.Changed) -> None:
        text = event.value.strip()
        try:
            self.keep = compile_filter(text) if text else None
            self.filter_error = None
        except FieldError as exc:
            # while typing: said, the last good filter kept
            self.filter_error = field_error_words(exc)
        self.apply_filter()

    @on(Input.Submitted, "#records-filter")
    def filter_submitted(self) -> None:
        self.query_one("#records", DataTable).focus()

    # -- where to start ---------------------------------------------------------------------

    @on(Input.Submitted, "#records-start")
    def start_submitted(self, event: Input.Submitted) -> None:
        try:
            start = parse_start(event.value)
        except ValueError as exc:
            self._status(str(exc))
            return
        self.start = start
        self.query_one("#records", DataTable).focus()
        self._status("Reading the records…")
        self.load()

    def apply_filter(self) -> None:
        self.generation += 1
        self.run_filter(list(self.held), self.keep, self.generation)

    @work(exclusive=True, group="filter", thread=True, exit_on_error=False)
    def run_filter(self, held: list[RecordDocument], keep: Filter | None, generation: int) -> None:
        shown = held if keep is None else [d for d in held if keep(d)]
        self.app.call_from_thread(self._show, shown, generation)

    def _show(self, shown: list[RecordDocument], generation: int) -> None:
        if generation != self.generation:
            return  # a thread of an older filter or window that finished late
        self.shown = shown
        table = self.query_one("#records", DataTable)
        cursor = table.cursor_row
        table.clear()
        for d in shown:
            moment = datetime.fromtimestamp(d["timestamp"] / 1000, UTC)
            table.add_row(
                str(d["partition"]),
                str(d["offset"]),
                moment.strftime("%m-%d %H:%M:%S"),  # the pane has the year and ms
                _short(d["key"]),
                _short(d["value"]),
                key=f"{d['partition']}:{d['offset']}",
            )
        if self.select is not None:
            wanted = self.select
            at = [i for i, d in enumerate(shown) if (d["partition"], d["offset"]) == wanted]
            if at:
                cursor = at[0]
            if at or generation == self.load_generation:
                self.select = None  # a record outside the read's window is not waited for
        if shown:
            table.move_cursor(row=min(max(cursor, 0), len(shown) - 1))
            self._detail(shown[table.cursor_row])
        else:
            self.query_one("#record-detail", Static).update("")
        undecodable = sum(1 for d in shown if "error" in d)
        parts = [f"{len(shown)} of {len(self.held)} records held (at most {self.WINDOW})"]
        if undecodable:
            parts.append(f"{undecodable} not decodable as asked")
        if self.following:
            parts.append("following (f stops)")
        if self.filter_error:
            parts.append(self.filter_error)
        if self.written:
            parts.append(f"last produced: {self.written}")
        if self.search_note:
            parts.append(self.search_note)
        if self.registry_error:
            parts.append(self.registry_error)
        self._status(" · ".join(parts))

    def _status(self, text: str) -> None:
        self.query_one("#records-status", Static).update(text)

    @on(DataTable.RowHighlighted, "#records")
    def highlighted(self, event: DataTable.RowHighlighted) -> None:
        if 0 <= event.cursor_row < len(self.shown):
            self._detail(self.shown[event.cursor_row])

    def _detail(self, document: RecordDocument) -> None:
        self.query_one("#record-detail", Static).update(detail_text(document))

    # -- actions --------------------------------------------------------------------------

    def action_back(self) -> None:
        self.workers.cancel_group(self, "follow")
        self.app.pop_screen()

    def action_focus_filter(self) -> None:
        self.query_one("#records-filter", Input).focus()

    def action_focus_start(self) -> None:
        self.query_one("#records-start", Input).focus()

    def action_produce(self) -> None:
        if self.profile.read_only:  # check_action hides it; the palette and keys refuse too
            return
        from .produce import ProduceDialog  # loaded when first asked for (issue 52)

        self.app.push_screen(
            ProduceDialog(self.admin, self.topic, self.partitions, self.schemas), self._produced
        )

    def _produced(self, outcome: Produced | None) -> None:
        if outcome is None or outcome.partition is None or outcome.offset is None:
            return
        where = f"partition {outcome.partition}, offset {outcome.offset}"
        self.tell(notices.done(f"Record written to {self.topic}: {where}.", "Produced"))
        self.select = (outcome.partition, outcome.offset)
        self.written = where
        self._status(f"Written to {where}; reading the records…")
        self.load()

    def action_follow(self) -> None:
        self.following = not self.following
        if self.following:
            self.follow()
        else:
            self.workers.cancel_group(self, "follow")
        self.apply_filter()

    def action_next_partition(self) -> None:
        if not self.partitions:
            return
        if self.partition is None:
            self.partition = 0
        elif self.partition + 1 < self.partitions:
            self.partition += 1
        else:
            self.partition = None
        self.load()

    def action_reload(self) -> None:
        self.load()

    def action_search_topic(self) -> None:
        record_search.toggle_search(self)
