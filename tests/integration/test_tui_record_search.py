"""The records screen's search of the whole topic (`S`, tui/screens/record_search.py) against
the real KRaft cluster at 80x24: the screen holds the last 100 records of the partition, the
search finds the filter's matches among all 150 (the older ones too), the same records
`messages search` prints, and says how many it scanned; without a filter it says what to type.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from textual.widgets import Input, Static

from kafka_tui.admin import TopicSpec
from kafka_tui.tui.screens.records import RecordsScreen

from ..conftest import Cluster
from ..tui.conftest import filter_to, loaded
from .test_consumer_groups import create
from .test_messages import send
from .test_tui import app_for
from .test_tui_groups import SMALL
from .test_tui_records import typed, until

Names = Callable[[str], str]


async def test_search_the_whole_topic_from_the_records_screen(
    kraft_cluster: Cluster, topic_name: Names
) -> None:
    topic = topic_name()
    servers = kraft_cluster.bootstrap_servers
    await create(servers, TopicSpec(topic, 1, 1))
    await send(servers, topic, [{"value": json.dumps({"n": n}).encode()} for n in range(150)])
    app = app_for(kraft_cluster)
    async with app.run_test(size=SMALL) as pilot:
        await loaded(app, pilot)
        await filter_to(pilot, topic)
        await pilot.press("v")
        screen = app.screen
        assert isinstance(screen, RecordsScreen)
        status = screen.query_one("#records-status", Static)

        def values() -> list[object]:
            return [d["value"]["n"] for d in screen.shown]

        await until(pilot, lambda: screen.loads == 1 and len(screen.shown) == 100, values)
        await pilot.press("S")  # no filter yet: nothing runs
        await pilot.pause()
        assert screen.search_note is None

        await typed(pilot, screen.query_one("#records-filter", Input), ".value.n % 25 == 0")
        await pilot.press("enter")  # the filter over the window: 50 .. 125
        await until(pilot, lambda: values() == [125, 100, 75, 50], values)
        await pilot.press("S")
        await until(pilot, lambda: (screen.search_note or "").startswith("searched"), values)
        await until(pilot, lambda: sorted(values()) == [0, 25, 50, 75, 100, 125], values)
        said = str(status.render())
        assert "6 matches in 150 records" in said, said
        assert not screen.query("#records-search-progress")  # the bar leaves when done
        assert all(d["topic"] == topic and "key_format" in d for d in screen.shown)
