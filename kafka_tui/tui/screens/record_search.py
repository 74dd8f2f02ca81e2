"""The records screen's search of the whole topic (`S`): the jq filter typed in the filter box
over every record of the topic (or of the partition shown), as `messages search` runs it
(services/message_search.py, the local engine), off the UI thread.

The topic is checked and its ranges taken on the app's loop; the scan runs in a thread of its
own with its own event loop (decoding and jq cost CPU: a whole topic would freeze the screen
on the UI's loop). A progress bar and the status line say what was scanned, the rate and the
time left; the matches fill the list as they come, at most the screen's WINDOW (then the
search stops and says so). `S` again (or `r`, or leaving) cancels it; what was found stays.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from textual.widgets import Input, ProgressBar

from ...admin import AdminError
from ...fields import FieldError
from ...services.messages import RecordDocument
from ...services.ports import AdminPort
from .. import notices
from ..words import field_error_words
from .base import KafkaScreen

if TYPE_CHECKING:  # loaded at the first search, not with the TUI (issue 52: its first frame)
    from ...services.message_search import Search, SearchProgress

GROUP = "records"  # the screen's reads' group: a search and a read cancel each other
NAME = "search"
_BAR = "records-search-progress"
_REDRAW_S = 0.2  # progress shown at most this often


class SearchingScreen(KafkaScreen):
    """What a search needs of the records screen, which derives from it (records.py sets
    these; this module does not import it)."""

    WINDOW: ClassVar[int]
    admin: AdminPort
    topic: str
    partition: int | None
    following: bool
    held: deque[RecordDocument]
    filter_error: str | None
    search_note: str | None

    def apply_filter(self) -> None:
        raise NotImplementedError


def toggle_search(screen: SearchingScreen) -> None:
    """Start a search with the filter typed, or cancel the one running."""
    if any(w.name == NAME and w.node is screen and w.is_running for w in screen.workers):
        screen.workers.cancel_group(screen, GROUP)
        return
    text = screen.query_one("#records-filter", Input).value.strip()
    if not text or screen.filter_error:
        screen.tell(
            notices.hint(
                screen.filter_error or "Type a jq filter first (/), e.g. .value.amount > 100.",
                "Search the whole topic",
            )
        )
        return
    screen.following = False
    screen.workers.cancel_group(screen, "follow")
    screen.run_worker(
        search(screen, text), name=NAME, group=GROUP, exclusive=True, exit_on_error=False
    )


async def search(screen: SearchingScreen, expression: str) -> None:
    from ...services.message_search import SearchRequest, open_search

    partitions = () if screen.partition is None else (screen.partition,)
    request = SearchRequest(screen.topic, expression, partitions, limit=screen.WINDOW)
    try:
        prepared = await open_search(screen.admin, request, getattr(screen, "schemas", None))
    except FieldError as exc:
        screen.tell(notices.failed(field_error_words(exc), "Cannot search"))
        return
    except AdminError as exc:
        screen.tell(notices.failed(exc.message, "Cannot search"))
        return
    screen.held = deque(maxlen=screen.WINDOW)
    screen.search_note = f"searching for {expression} (S stops)"
    bar = ProgressBar(total=max(1, prepared.total), id=_BAR, show_eta=True)
    await screen.mount(bar, before="#records-status")
    screen.apply_filter()
    cancelled = threading.Event()
    last = [0.0]

    def progress(p: SearchProgress) -> None:
        now = time.monotonic()
        if now - last[0] < _REDRAW_S and p.scanned < p.total:
            return
        last[0] = now
        screen.app.call_from_thread(_progressed, screen, bar, p)

    def found(documents: list[RecordDocument]) -> None:
        screen.app.call_from_thread(_found, screen, documents)

    try:
        await asyncio.to_thread(_scan, prepared, progress, found, cancelled)
        o = prepared.outcome
        stopped = f", the first {screen.WINDOW:,} kept" if o.limited else ""
        screen.search_note = (
            f"searched {expression}: {o.matches:,} matches in {o.scanned:,} records{stopped}"
        )
    except asyncio.CancelledError:
        cancelled.set()
        o = prepared.outcome
        screen.search_note = (
            f"search stopped: {o.matches:,} matches in {o.scanned:,} of {o.total:,} records"
        )
        raise
    except AdminError as exc:
        screen.search_note = f"search failed: {exc.message}"
        screen.tell(notices.failed(exc.message, "Cannot search"))
    finally:
        if screen.is_attached:  # not when leaving the screen cancelled it
            await bar.remove()
            screen.apply_filter()


def _scan(
    prepared: Search,
    progress: Callable[[SearchProgress], None],
    found: Callable[[list[RecordDocument]], None],
    cancelled: threading.Event,
) -> None:
    """The search on this thread's own loop, until done or `cancelled` (looked at every
    0.1 s, also while a fetch waits)."""

    async def consume() -> None:
        async for documents in prepared.matches(progress):
            found(documents)

    async def run() -> None:
        task = asyncio.ensure_future(consume())
        while not task.done():
            if cancelled.is_set():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
                return
            await asyncio.wait({task}, timeout=0.1)
        await task

    asyncio.run(run())


def _progressed(screen: SearchingScreen, bar: ProgressBar, p: SearchProgress) -> None:
    bar.update(total=max(1, p.total), progress=p.scanned)
    screen.search_note = f"searching: {p.words()} (S stops)"
    screen.apply_filter()


def _found(screen: SearchingScreen, documents: list[RecordDocument]) -> None:
    screen.held.extend(documents)
