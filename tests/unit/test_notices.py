"""The TUI's one notice policy (tui/notices.py): what each result becomes, and the app
showing posted notices with their kind's severity and time."""

from __future__ import annotations

from typing import Any

from kafka_tui.admin import TopicResult
from kafka_tui.config import Settings
from kafka_tui.services.filling import NO_BROKER_AVAILABLE, FillResult
from kafka_tui.services.leader_elections import ElectionOutcome, LeaderResult
from kafka_tui.services.placing import UNDER_REPLICATED_WARNING
from kafka_tui.tui import notices
from kafka_tui.tui.app import make_app
from kafka_tui.tui.notices import Kind, Told


def kinds(items: list[notices.Notice]) -> list[Kind]:
    return [n.kind for n in items]


def test_failures_stay_longest_and_are_errors() -> None:
    assert notices.failed("x").severity == "error"
    assert notices.failed("x").timeout == max(t for _, t in notices.POLICY.values())
    assert notices.hint("x").severity == "warning"
    assert notices.hint("x").timeout < notices.warning("x").timeout


def test_topic_results() -> None:
    results = [
        TopicResult("a", True, message="Created topic a."),
        TopicResult("b", False, "TOPIC_ALREADY_EXISTS", "Topic 'b' already exists."),
        TopicResult("c", True, message="Created c.", warning=UNDER_REPLICATED_WARNING),
        TopicResult("d.x", True, message="Created d.x.", warning="collides with d_x"),
    ]
    told = notices.for_topic_results(results)
    assert kinds(told) == [Kind.DONE, Kind.FAILED, Kind.WARNING, Kind.DONE, Kind.WARNING]
    assert told[1].title == "b: TOPIC_ALREADY_EXISTS"
    assert told[2].title == f"c: {UNDER_REPLICATED_WARNING}"
    assert told[4].text == "collides with d_x"


def test_fills() -> None:
    assert kinds(notices.for_fills([])) == [Kind.NOTE]
    results = [
        FillResult("t", 0, [4], True, message="added 4"),
        FillResult("t", 1, [], False, NO_BROKER_AVAILABLE, "no broker"),
        FillResult("t", 2, [], False, "NOT_CONTROLLER", "lost"),
    ]
    told = notices.for_fills(results)
    assert kinds(told) == [Kind.DONE, Kind.WARNING, Kind.FAILED]
    assert told[2].title == "t-2: NOT_CONTROLLER"


def test_election() -> None:
    fine = ElectionOutcome([LeaderResult("t", 0, 2, 1, True)], {}, {})
    assert notices.for_election(fine).kind is Kind.DONE
    bad = ElectionOutcome([LeaderResult("t", 0, 2, 2, False, "X", "no replica in sync")], {}, {})
    told = notices.for_election(bad)
    assert told.kind is Kind.WARNING
    assert told.text.endswith("First failure: no replica in sync")


async def test_the_app_shows_a_posted_notice_by_its_policy() -> None:
    app = make_app(Settings(profiles={}))
    shown: list[tuple[str, dict[str, object]]] = []
    notify = app.notify

    def record(message: str, **kwargs: Any) -> None:
        shown.append((message, kwargs))
        notify(message, **kwargs)

    app.notify = record  # type: ignore[method-assign]
    async with app.run_test() as pilot:
        app.screen.post_message(Told(notices.failed("Broker 3 refused it.", "Delete failed")))
        await pilot.pause()
    assert shown == [
        (
            "Broker 3 refused it.",
            {"title": "Delete failed", "severity": "error", "timeout": 12.0, "markup": False},
        )
    ]
