"""The topics screen's automatic refresh: a cluster whose read costs much CPU (2.1 s at
1,000,000 partitions, bench/README.md) is refreshed less often, and the screen says so."""

from __future__ import annotations

from kafka_tui.tui.screens.base import REFRESH_SHARE, refresh_interval

from .conftest import loaded, recording
from .replay import replay_app


def test_the_interval_keeps_refreshes_to_a_share_of_a_core() -> None:
    assert refresh_interval(10, 0.1) == 10  # cheap: the setting
    assert refresh_interval(10, 2.1) == 2.1 / REFRESH_SHARE == 42
    assert refresh_interval(60, 2.1) == 60  # a longer setting stays


async def test_a_costly_read_stretches_the_interval_and_the_status_line_says_so() -> None:
    data = recording("kraft-demo")
    profile = data.profile(read_only=False, under_replicated="disabled")
    app = replay_app(data, profile, refresh_seconds=10)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await loaded(app, pilot)
        status = screen.query_one("#status")
        assert screen.interval == 10 and "refreshed every" not in str(status.render())
        screen._schedule_refresh(2.1)
        await pilot.pause()
        assert screen.interval == 42
        assert "refreshed every 42s (a read takes 2.1s)" in str(status.render())
        timer = screen._next_refresh
        screen._schedule_refresh(0.01)  # cheap again: back to the setting, one timer
        await pilot.pause()
        assert screen.interval == 10 and "refreshed every" not in str(status.render())
        assert timer is not None and timer is not screen._next_refresh
