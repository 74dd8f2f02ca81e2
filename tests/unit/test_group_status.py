"""The group status rules (services/group_status.py) and the reset modes' value formats
(services/group_reset.py): pure code, no cluster."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from kafka_tui.services.group_reset import (
    parse_datetime,
    parse_duration,
    read_csv,
    to_csv,
    topic_selector,
)
from kafka_tui.services.group_status import ERR, OK, STALL, STOP, WARN, WINDOW, Look, evaluate
from kafka_tui.services.parsing import UsageError

T0 = ("t", 0)
T1 = ("t", 1)


def look(at: float, members: int, committed: dict, end: dict, start: dict | None = None) -> Look:  # type: ignore[type-arg]
    return Look(at, members, committed, start or dict.fromkeys(committed, 0), end)


def test_caught_up_is_ok_even_without_members() -> None:
    status = evaluate([look(0, 0, {T0: 5}, {T0: 5})], "Empty")
    assert status.status == OK


def test_lag_without_members_is_stop() -> None:
    status = evaluate([look(0, 0, {T0: 2, T1: 5}, {T0: 5, T1: 9})], "Empty")
    assert status.status == STOP
    assert "7 records behind on 2 partition(s)" in status.reason


def test_behind_the_log_start_is_err_whatever_else_holds() -> None:
    status = evaluate([look(0, 1, {T0: 2}, {T0: 9}, {T0: 4})], "Stable")
    assert status.status == ERR and "behind the log start 4" in status.reason


def test_an_offset_going_back_is_err() -> None:
    looks = [look(0, 1, {T0: 6}, {T0: 9}), look(5, 1, {T0: 4}, {T0: 9})]
    assert evaluate(looks, "Stable").status == ERR


def test_members_lagging_without_progress_over_the_window_is_stall() -> None:
    looks = [
        look(0, 2, {T0: 3, T1: 9}, {T0: 9, T1: 9}),
        look(10, 2, {T0: 3, T1: 9}, {T0: 12, T1: 9}),
    ]
    status = evaluate(looks, "Stable")
    assert status.status == STALL and "'t'-0" in status.reason and "10 s" in status.reason


def test_one_look_with_members_cannot_tell_a_stall() -> None:
    status = evaluate([look(0, 2, {T0: 3}, {T0: 9})], "Stable")
    assert status.status == OK and "one look" in status.reason


def test_lag_growing_at_every_look_while_progressing_is_warn() -> None:
    looks = [
        look(0, 1, {T0: 10}, {T0: 20}),
        look(5, 1, {T0: 15}, {T0: 30}),
        look(10, 1, {T0: 20}, {T0: 45}),
    ]
    status = evaluate(looks, "Stable")
    assert status.status == WARN and "10 -> 25" in status.reason


def test_a_lag_that_holds_for_a_look_then_grows_is_still_warn_and_a_dip_is_not() -> None:
    flat = [
        look(0, 1, {T0: 10}, {T0: 20}),
        look(5, 1, {T0: 14}, {T0: 24}),
        look(10, 1, {T0: 16}, {T0: 30}),
    ]
    assert evaluate(flat, "Stable").status == WARN
    dip = [
        look(0, 1, {T0: 10}, {T0: 20}),
        look(5, 1, {T0: 19}, {T0: 24}),
        look(10, 1, {T0: 20}, {T0: 40}),
    ]
    assert evaluate(dip, "Stable").status == OK


def test_only_the_last_window_of_looks_is_judged() -> None:
    old_dip = [look(0, 1, {T0: 10}, {T0: 30}), look(1, 1, {T0: 29}, {T0: 30})]
    growing = [look(2 + i, 1, {T0: 30 + i}, {T0: 31 + 2 * i}) for i in range(WINDOW)]
    assert evaluate(old_dip + growing, "Stable").status == WARN


def test_lag_shrinking_is_ok() -> None:
    looks = [
        look(0, 1, {T0: 10}, {T0: 30}),
        look(5, 1, {T0: 20}, {T0: 32}),
        look(10, 1, {T0: 30}, {T0: 33}),
    ]
    assert evaluate(looks, "Stable").status == OK


def test_durations_in_javas_format() -> None:
    assert parse_duration("PT30M") == 30 * 60_000
    assert parse_duration("P1DT2H") == 26 * 3600_000
    assert parse_duration("PT1.5S") == 1500
    assert parse_duration("-PT1M") == -60_000
    for bad in ("30m", "P", "PT", "P1H", ""):
        with pytest.raises(UsageError):
            parse_duration(bad)


def test_datetimes_with_and_without_a_zone() -> None:
    two_utc = int(datetime.datetime(2026, 11, 27, 2, tzinfo=datetime.UTC).timestamp() * 1000)
    assert parse_datetime("2026-11-27T02:00:00Z") == two_utc
    assert parse_datetime("2026-11-27T04:00:00.000+02:00") == two_utc
    local = datetime.datetime(2026, 11, 27, 2, 0).astimezone()
    assert parse_datetime("2026-11-27T02:00:00") == int(local.timestamp() * 1000)
    with pytest.raises(UsageError):
        parse_datetime("yesterday")


def test_topic_selectors() -> None:
    assert topic_selector("orders") == ("orders", None)
    assert topic_selector("orders:2,0") == ("orders", (0, 2))
    for bad in ("orders:x", ":1", "orders:-1"):
        with pytest.raises(UsageError):
            topic_selector(bad)


def test_the_csv_both_ways_and_with_a_group_column(tmp_path: Path) -> None:
    path = tmp_path / "plan.csv"
    path.write_text(to_csv("g", {("t", 1): 7, ("t", 0): 3}))
    assert path.read_text() == "t,0,3\nt,1,7\n"
    assert read_csv(path, "g") == {("t", 0): 3, ("t", 1): 7}
    path.write_text("g,t,0,3\nother,t,0,9\ng,u,2,5\n")
    assert read_csv(path, "g") == {("t", 0): 3, ("u", 2): 5}
    with pytest.raises(UsageError, match="no offsets for group 'none'"):
        read_csv(path, "none")
    path.write_text("t,0\n")
    with pytest.raises(UsageError, match=r"plan.csv:1: expected topic,partition,offset"):
        read_csv(path, "g")
