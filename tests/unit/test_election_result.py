"""An election's result per partition, as `leaders elect` prints it."""

from __future__ import annotations

from kafka_tui.admin.elections import ElectionResult
from kafka_tui.services.leader_elections import ELECTION_NOT_NEEDED, PartitionLeadership, _result


def test_a_partition_that_needs_no_election_is_led_after_as_before() -> None:
    """Seen in CI (ZooKeeper mode): the command's read came from a broker that had not yet
    learnt of the last election and showed leader 1; the controller answered
    ELECTION_NOT_NEEDED (the preferred replica 2 leads) and Metadata then showed 2. The
    controller changed nothing: the leader before is the leader after, not the stale read."""
    stale = PartitionLeadership("t", 0, [2, 1, 3], [2, 1, 3], 1)
    answer = ElectionResult("t", 0, True, ELECTION_NOT_NEEDED, "Already led by 2.")
    result = _result(stale, answer, {("t", 0): 2})
    assert (result.leader_before, result.leader_after, result.ok) == (2, 2, True)
    assert result.message.endswith("Leader: 2.")

    elected = _result(stale, ElectionResult("t", 0, True, None, "Elected."), {("t", 0): 2})
    assert (elected.leader_before, elected.leader_after) == (1, 2)
    assert elected.message.endswith("Leader: 1 -> 2.")
