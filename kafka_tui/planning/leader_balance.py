"""Evening out leaders after a topic's replica sets are chosen.

Each partition names its leader on the fly, and the last partitions of a topic can only pick
among the brokers their replica set happens to hold: replicas come out within one of each
other, leaders sometimes within two. Moving leadership inside a partition (any live member
may lead) changes no replica count, so this pass shifts it along chains — broker A gives a
partition to B, B gives another to C — until no broker leads two more than one it can reach.
Pure and deterministic: lists only, ties broken by index.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence


def rebalance_leaders(
    partitions: list[list[int]],
    live: Sequence[bool],
    leaders: list[int],
    topic_leaders: list[int],
) -> None:
    """Reorder `partitions` (member indexes, leader first) in place; update both counts.

    Only this topic's partitions move, judged against `leaders` (the cluster's count, this
    topic included). A move never lowers the number of brokers leading this topic.
    """
    # Work stays within the topic's own brokers (a call may hold thousands of small topics on
    # a thousand brokers): dicts keyed by broker, read in insertion order.
    led: dict[int, list[int]] = {}
    for number, members in enumerate(partitions):
        led.setdefault(members[0], []).append(number)
        for member in members[1:]:
            led.setdefault(member, [])
    reachable = [broker for broker in led if live[broker]]
    stuck: dict[int, bool] = {}
    # Each successful move lowers the sum of squared leader counts; the cap only bounds the
    # work on pathological inputs.
    for _ in range(4 * len(led) + 4):
        candidates = [b for b in led if led[b] and b not in stuck]
        if not candidates:
            return
        high = max(candidates, key=lambda broker: (leaders[broker], -broker))
        if leaders[high] - min(leaders[b] for b in reachable) <= 1:
            return  # no broker in reach is two lighter: nothing can improve
        path = _path_to_lighter(high, partitions, live, leaders, topic_leaders, led)
        if path is None:
            stuck[high] = True
            continue
        for giver, number, taker in path:
            members = partitions[number]
            members.remove(taker)
            members.insert(0, taker)
            led[giver].remove(number)
            led[taker].append(number)
        leaders[high] -= 1
        topic_leaders[high] -= 1
        taker = path[-1][2]
        leaders[taker] += 1
        topic_leaders[taker] += 1


def _path_to_lighter(
    high: int,
    partitions: list[list[int]],
    live: Sequence[bool],
    leaders: list[int],
    topic_leaders: list[int],
    led: dict[int, list[int]],
) -> list[tuple[int, int, int]] | None:
    """Breadth-first: the shortest chain of moves from `high` to a broker two leaders lighter."""
    came_from: dict[int, tuple[int, int]] = {high: (-1, -1)}
    queue = deque([high])
    while queue:
        giver = queue.popleft()
        for number in led[giver]:
            for member in partitions[number][1:]:
                if not live[member] or member in came_from:
                    continue
                came_from[member] = (giver, number)
                lighter = leaders[member] <= leaders[high] - 2
                keeps_spread = topic_leaders[high] > 1 or topic_leaders[member] == 0
                if lighter and keeps_spread:
                    path = []
                    taker = member
                    while taker != high:
                        previous, through = came_from[taker]
                        path.append((previous, through, taker))
                        taker = previous
                    return path[::-1]
                queue.append(member)
    return None
