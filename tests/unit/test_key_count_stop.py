"""The partitions form's key count (F3) stops when asked, whether its loop runs already in its
thread or has not started yet (esc pressed at once)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from kafka_tui.tui.screens.partitions import _Counting


async def _count(counting: _Counting, started: threading.Event | None = None) -> None:
    counting.running(asyncio.get_running_loop(), asyncio.current_task())
    if started is not None:
        started.set()
    await asyncio.Event().wait()  # a read that never ends


def test_a_count_stopped_before_its_loop_runs_is_cancelled_as_it_starts() -> None:
    counting = _Counting()
    counting.stop()
    with pytest.raises(asyncio.CancelledError):
        asyncio.run(_count(counting))


def test_a_running_count_is_stopped_from_the_ui_thread() -> None:
    counting, started = _Counting(), threading.Event()
    outcome: list[str] = []

    def run() -> None:
        try:
            asyncio.run(_count(counting, started))
        except asyncio.CancelledError:
            outcome.append("cancelled")

    thread = threading.Thread(target=run)
    thread.start()
    assert started.wait(30)
    counting.stop()
    thread.join(30)
    assert outcome == ["cancelled"] and counting.stopped
    counting.stop()  # again, its loop closed: nothing happens
