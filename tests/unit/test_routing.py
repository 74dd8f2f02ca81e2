"""The routing rules of the admin connection (admin/routing.py) and the broker map
(admin/transport.py): which broker a request goes to, without a broker."""

from __future__ import annotations

from kafka_tui.admin import routing
from kafka_tui.admin.journal import Expectation
from kafka_tui.admin.protocol import Metadata, MetadataBroker, MetadataTopic
from kafka_tui.admin.transport import BrokerAddress, BrokerMap, bootstrap_addresses


def _metadata(
    brokers: list[int], controller: int = -1, topics: dict[str, int] | None = None
) -> Metadata:
    listed = [MetadataBroker(n, f"b{n}", 9090 + n, f"r{n % 2}" if n else None, {}) for n in brokers]
    described = [
        MetadataTopic(0, name, None, False, [], count, 0, {})
        for name, count in (topics or {}).items()
    ]
    return Metadata(0, listed, "cluster-a", controller, described, {})


def _first(nodes: object) -> int:
    assert isinstance(nodes, list)
    return int(nodes[0])


def test_any_broker_after_a_failure_is_the_lowest_other_one() -> None:
    assert routing.any_broker([3, 1, 2], avoid=1) == 2
    assert routing.any_broker([3, 1, 2], avoid=2) == 1
    # The only broker known is tried again (a one-broker cluster back after a restart).
    assert routing.any_broker([1], avoid=1) == 1
    assert routing.any_broker([], avoid=1) is None
    assert routing.any_broker([]) is None


def test_any_broker_without_a_failure_is_any_known_one() -> None:
    assert routing.any_broker([3, 1, 2], choose=_first) == 1
    seen = {routing.any_broker([1, 2, 3]) for _ in range(200)}
    assert seen <= {1, 2, 3} and len(seen) > 1


def test_reads_stick_to_their_broker_while_it_is_listed_and_answers() -> None:
    assert routing.read_broker([1, 2, 3], current=2, avoid=None) == 2
    assert routing.read_broker([1, 2, 3], current=2, avoid=3) == 2
    assert routing.read_broker([1, 2, 3], current=2, avoid=2) is None  # its link just broke
    assert routing.read_broker([1, 3], current=2, avoid=None) is None  # gone from metadata
    assert routing.read_broker([1, 2, 3], current=None, avoid=None) is None


def test_the_read_broker_nearest_to_the_journal() -> None:
    assert routing.nearest({3: {"a"}, 1: {"a", "b"}, 2: set()}) == 2
    assert routing.nearest({3: {"a"}, 2: {"b"}}) == 2  # a tie: the lowest id


def test_unmet_names_the_topics_an_answer_does_not_show_as_expected() -> None:
    answer = _metadata([1], topics={"made": 3, "grown": 2})
    pending = [
        Expectation("made", True, 3),
        Expectation("grown", True, 4),
        Expectation("gone", False),
        Expectation("new", True, 1),
    ]
    assert routing.unmet(answer, pending) == {"grown", "new"}
    assert routing.unmet(answer, []) == set()


def test_a_change_goes_to_the_controller_metadata_names() -> None:
    assert routing.controller(2, [1, 2, 3], avoid=None) == 2
    # Its connection was just lost: brokers may still name it; another one is tried (KRaft
    # forwards; ZooKeeper mode answers NOT_CONTROLLER until a new one is elected).
    assert routing.controller(2, [1, 2, 3], avoid=2) == 1
    # Named but not listed (or none named): the lowest listed broker.
    assert routing.controller(4, [3, 2], avoid=None) == 2
    assert routing.controller(-1, [3, 2], avoid=None) == 2
    assert routing.controller(None, [3, 2], avoid=2) == 3
    assert routing.controller(2, [2], avoid=2) is None
    assert routing.controller(2, [], avoid=None) is None


def test_a_controller_named_recently_is_not_read_again() -> None:
    # Named by the last refresh of the brokers, 1 s ago: fresh for 2 s.
    assert routing.recent_controller(2, 9.0, None, now=10.0, fresh_s=2.0) == 2
    # Too old: the one read on its own, if recent.
    assert routing.recent_controller(2, 5.0, (9.5, 3), now=10.0, fresh_s=2.0) == 3
    assert routing.recent_controller(2, 5.0, (5.0, 3), now=10.0, fresh_s=2.0) is None
    assert routing.recent_controller(None, None, None, now=10.0, fresh_s=2.0) is None
    assert routing.recent_controller(None, 9.9, (9.9, 1), now=10.0, fresh_s=2.0) == 1


def test_a_config_of_a_broker_goes_to_that_broker_even_after_a_failure() -> None:
    assert routing.config_owner(3) == 3
    assert routing.config_owner(3, failed=3) == 3


def test_a_refresh_asks_the_brokers_that_answer_first() -> None:
    assert routing.refresh_order([3, 1, 2], suspect=set()) == [1, 2, 3]
    assert routing.refresh_order([3, 1, 2], suspect={1}) == [2, 3, 1]
    assert routing.refresh_order([], suspect={1}) == []


def test_the_broker_map_learns_brokers_from_metadata_and_the_controller_from_refreshes() -> None:
    brokers = BrokerMap()
    assert brokers.brokers() == [] and brokers.controller is None
    brokers.learn(_metadata([3, 1, 2], controller=2), refreshed=True)
    assert brokers.node_ids() == [1, 2, 3]
    assert brokers.brokers()[0] == BrokerAddress(1, "b1", 9091, "r1")
    assert [b.nodeId for b in brokers.brokers()] == [1, 2, 3]  # aiokafka's spelling
    assert brokers.controller == 2 and brokers.refreshed_at is not None
    assert brokers.cluster_id == "cluster-a"
    refreshed_at = brokers.refreshed_at
    # A read's answer updates the brokers, not the controller a refresh named.
    brokers.learn(_metadata([1, 2], controller=1), refreshed=False)
    assert brokers.node_ids() == [1, 2] and brokers.address(3) is None
    assert brokers.controller == 2 and brokers.refreshed_at == refreshed_at
    # An answer listing no broker (one still starting) changes nothing.
    brokers.learn(_metadata([], controller=-1), refreshed=True)
    assert brokers.node_ids() == [1, 2] and brokers.controller == 2


def test_bootstrap_servers_are_read_in_order() -> None:
    assert bootstrap_addresses("a:9092, b:9093,[::1]:9094") == [
        ("a", 9092),
        ("b", 9093),
        ("::1", 9094),
    ]
    assert bootstrap_addresses("nohost, :1, c:x") == []
