"""A broker's Kafka release read from its ApiVersions answer, over real brokers' answers
(tests/data/api-versions.json, recorded from the dev clusters of each version)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kafka_tui.admin.releases import MARKERS, kafka_release

ANSWERS: dict[str, dict[int, tuple[int, int]]] = {
    name: {int(key): (low, high) for key, (low, high) in answer.items()}
    for name, answer in json.loads(
        (Path(__file__).parent.parent / "data" / "api-versions.json").read_text()
    )["answers"].items()
}

EXPECTED = {
    "2.1.1-zk": "2.1",
    "2.2.2-zk": "2.2",
    "2.8.2-zk": "2.8",
    "3.3.2-zk": "3.3",
    # KRaft brokers do not list the ZooKeeper-mode controller's requests, the only ones 3.4
    # changed: 3.3 and 3.4 answer alike.
    "3.3.2-kraft": "3.3+",
    "3.9.2-zk": "3.9",
    "3.9.2-kraft": "3.9",
    "4.0.2-kraft": "4.0",
    "4.1.2-kraft": "4.1",
    "4.2.2-kraft": "4.2",
    "4.3.1-kraft": "4.3",
    "4.4.0-kraft": "4.4+",  # the newest release known: a newer one answers at least the same
}


def test_every_recorded_answer_is_expected() -> None:
    assert set(ANSWERS) == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_release_of_a_real_answer(name: str) -> None:
    assert kafka_release(ANSWERS[name]) == EXPECTED[name]


def test_markers_run_newest_first_and_each_release_once() -> None:
    releases = [tuple(map(int, release.split("."))) for release, _ in MARKERS]
    assert releases == sorted(set(releases), reverse=True)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_older_releases_markers_hold_on_newer_brokers(name: str) -> None:
    """No marker of a release at or below a broker's is above what that broker answers:
    a broker never reads older than it is."""
    answer = ANSWERS[name]
    release = tuple(map(int, EXPECTED[name].rstrip("+").split(".")))
    for marker_release, markers in MARKERS:
        if tuple(map(int, marker_release.split("."))) <= release:
            for key, version in markers:
                assert key not in answer or answer[key][1] >= version, (marker_release, key)


def test_an_answer_older_than_every_release() -> None:
    kafka_2_0 = {0: (0, 6), 1: (0, 8), 2: (0, 3), 3: (0, 6), 18: (0, 2)}  # 2.0's request classes
    assert kafka_release(kafka_2_0) == "<2.1"


def test_a_marker_the_broker_does_not_list_tells_nothing() -> None:
    zk_only_keys = {4, 5, 6}
    kraft_3_4 = {k: v for k, v in ANSWERS["3.3.2-zk"].items() if k not in zk_only_keys}
    assert kafka_release(kraft_3_4) == "3.3+"
