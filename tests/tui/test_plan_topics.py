"""The plan screen's topics (a virtual table: only the visible lines are drawn) on a plan of
thousands of topics, placed against the recorded demo cluster (pure: nothing is sent): every
topic is there in the plan's order, the keys move the cursor and the drill-down follows it,
refused topics say why."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from kafka_tui.tui.screens.plan import PlanScreen
from kafka_tui.tui.widgets.plan_topics import PlanTopics

from .conftest import SIZE, loaded, recorded_app, settle

TOPICS = 3_000


def _detail(screen: PlanScreen) -> str:
    return str(screen.query_one("#plan-topic-detail", Static).render())


@pytest.fixture
def names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """plan.csv in the working folder (the screen reads the path as typed): TOPICS topics of
    2 partitions, RF 2, then one the 3 brokers cannot take (RF 9)."""
    monkeypatch.chdir(tmp_path)
    names = [f"bulk-{n:05d}" for n in range(TOPICS)]
    rows = [f"{name},2,2" for name in names] + ["too-wide,1,9"]
    (tmp_path / "plan.csv").write_text(
        "topic,partitions,replication_factor\n" + "\n".join(rows) + "\n"
    )
    return names


async def test_thousands_of_topics_are_listed_and_walked_with_the_drill_down_following(
    names: list[str],
) -> None:
    app = recorded_app("kraft-demo")
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("P")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, PlanScreen)
        await pilot.press(*"plan.csv", "enter")  # reads and places
        await settle(app, pilot)
        table = screen.query_one(PlanTopics)
        assert [table.topic_at(i) for i in range(table.row_count)] == [*names, "too-wide"]
        assert _detail(screen).startswith(f"{names[0]}: create to 2 partition(s), RF 2")

        table.focus()
        await pilot.press("down", "down")
        await settle(app, pilot)
        assert table.cursor == 2 and _detail(screen).startswith(f"{names[2]}:")
        await pilot.press("pagedown")
        await settle(app, pilot)
        page = table.cursor - 2
        assert page > 1 and _detail(screen).startswith(f"{names[table.cursor]}:")
        # The cursor's line is drawn where the table shows it (the header is line 0).
        shown = table.cursor - table.scroll_offset.y + 1
        assert 1 <= shown < table.size.height

        await pilot.press("end")
        await settle(app, pilot)
        assert table.cursor == TOPICS
        assert _detail(screen).startswith("too-wide:")
        assert "Refused (INVALID_REPLICATION_FACTOR)" in _detail(screen)
        assert table.row_text(TOPICS).endswith("INVALID_REPLICATION_FACTOR")
        assert table.scroll_offset.y > 0
        await pilot.press("home")
        await settle(app, pilot)
        assert table.cursor == 0 and table.scroll_offset.y == 0
        assert table.row_text(0).split() == [names[0], "create", "2", "2", "-", "planned"]
