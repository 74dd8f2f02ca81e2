"""The topics table's rows and filters: kafka-tui's own record topic (KIP-409 placeholders)
is shown like an internal topic and kept out of the user's health counts and toggle
filters, though it is under-replicated while a broker is down (issue 28, point 9)."""

from __future__ import annotations

from kafka_tui.admin.model import PartitionInfo, TopicDescription
from kafka_tui.tui.screens.metadata import Filters
from kafka_tui.tui.widgets.topic_table import TopicRow

# As Metadata answers with broker 3 stopped: replica 3 offline and out of the ISR.
DEGRADED = [PartitionInfo(0, 1, [1, 2, 3], [1, 2], [3])]


def rows() -> list[TopicRow]:
    live = {1, 2}
    return [
        TopicRow.of(TopicDescription("orders", "id1", False, DEGRADED), live, None),
        TopicRow.of(
            TopicDescription("__kafka_tui_placeholders", "id2", False, DEGRADED),
            live,
            None,
            own=True,
        ),
    ]


def test_the_record_topic_is_shown_as_kafka_tui_s_and_kept_out_of_the_filters() -> None:
    orders, own = rows()
    assert orders.under_replicated == own.under_replicated == 1
    assert (orders.marker, own.marker) == ("~ ", "  ")
    names = [r.name.lower() for r in rows()]
    lengths = [len(n) for n in names]
    shown, longest = Filters("", {"under_replicated"}).apply(rows(), names, lengths)
    assert ([r.name for r in shown], longest) == (["orders"], len("orders"))
    # Asked for by name, it is there.
    shown, longest = Filters("kafka_tui", set()).apply(rows(), names, lengths)
    assert ([r.name for r in shown], longest) == ([own.name], len(own.name))


def test_the_fill_offer_says_what_goes_where() -> None:
    from kafka_tui.services.placeholder_view import PlaceholderState

    state = PlaceholderState(5, frozenset({"a", "b"}), 5, ("a-0 -> 4", "a-1 -> 4", "b-0 -> 4"))
    assert state.where() == "a-0 -> 4, a-1 -> 4, b-0 -> 4 and 2 more"
    assert state.line("f") == (
        "5 open placeholder(s) in 2 topic(s); 5 can be filled now (a-0 -> 4, a-1 -> 4, b-0 -> 4 "
        "and 2 more): press f."
    )
