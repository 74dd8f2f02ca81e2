"""The bookkeeping behind the placer: who is least loaded, per rack, per topic, per pair.

`placement.place` validates requests and words the results; this module only chooses brokers.
Brokers are handled by index (their position when sorted by id), so "ties broken by index" is
"ties broken by broker id". Every structure is a list or a dict read by key: no sets are
iterated, nothing random, nothing hashed for order.

A partition is placed in two steps. First its replica set, one broker at a time, each the
least loaded that the mode and the rack rule allow. Then its leader: the live member that
leads least. Naming the leader moves no replica, so replica balance and leader balance do not
fight (choosing the leader first made the last partitions of a topic take a forced leader
that already had one replica too many).

Each pool (one rack's live brokers, or one rack's offline brokers) keeps its brokers in a list
sorted by (holds this topic, replicas in the cluster, index), updated with bisect when a broker
is chosen: the best candidate sits at the front, so a slot costs a short scan per rack instead
of a sort of the cluster.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Sequence
from dataclasses import dataclass, field

from kafka_tui.planning.leader_balance import rebalance_leaders

# How many equally loaded candidates a slot compares on pair history before taking the lowest
# id. Wider spreads pairs better and costs time on every slot; 16 reaches every possible
# partner on 30 brokers without racks, where 6 left some brokers with 13 of 29.
PAIR_WINDOW = 16

# Clusters of up to this many brokers remember each topic's placement by the state it started
# from (see Balancer._memo_key); 0 turns the memory off. The key costs a pass over every pair
# of brokers, which on larger clusters costs about what it saves.
MEMO_BROKERS = 16
# Topics placed in a row without a replay after which a call stops remembering: states come
# back within a few topics when they do (3-5 brokers), and on 6+ brokers (pairs shared grow
# apart) they never did, so the keys only cost time there (2,000 topics on 12 brokers:
# 56 ms placed, 103 ms while remembering every one).
MEMO_PATIENCE = 16
_MODE_NUMBER = {"disabled": 0, "enabled": 1, "enabled_prefer_observed": 2}

# (holds this topic, cluster replicas, index). "Holds this topic" (0 or 1) comes first, so a
# topic spreads over as many brokers as possible; past that the cluster's load decides, so a
# big topic on a skewed cluster fills the light brokers. A broker already at its fair share
# of the call's end state (`full_at`) counts as holding every topic: on a skewed cluster new
# topics spread over the brokers with room instead of topping up the overloaded ones.
PoolKey = tuple[int, int, int]
# A pool's best candidate: its pool key, the pairs it would repeat, a leader tie-break, index.
Ranked = tuple[int, int, int, int, int]


@dataclass
class _Pool:
    number: int
    rack: int
    live: bool
    order: list[PoolKey] = field(default_factory=list)


@dataclass
class PartitionChoice:
    """One placed partition, in broker ids; placeholders come as preferred rack indexes."""

    brokers: list[int]
    live: int
    placeholder_racks: list[int]


class Balancer:
    """Mutable state for one `place` call; never shared between calls."""

    def __init__(
        self,
        ids: Sequence[int],
        racks: Sequence[int],
        live: Sequence[bool],
        replicas: Sequence[int],
        leaders: Sequence[int],
        rack_count: int,
        full_at: int,
    ) -> None:
        # `ids` must be sorted; `racks` holds rack indexes in 0..rack_count-1.
        self.ids = list(ids)
        self.index_of = {broker: index for index, broker in enumerate(self.ids)}
        self.rack_of = list(racks)
        self.live = list(live)
        self.replicas = list(replicas)
        self.leaders = list(leaders)
        self.topic_replicas = [0] * len(self.ids)
        self.topic_leaders = [0] * len(self.ids)
        self.touched: list[int] = []
        # How many partitions of this call each pair of brokers shares, one row per broker.
        self.shared: list[dict[int, int]] = [{} for _ in self.ids]
        self.placeholder_preferences = [0] * rack_count
        self.rack_count = rack_count
        self.full_at = full_at
        # Pools in rack order, a rack's live brokers before its offline ones.
        slots = sorted({(rack, not alive) for rack, alive in zip(racks, live, strict=True)})
        pool_numbers = {slot: number for number, slot in enumerate(slots)}
        self.pools = [
            _Pool(number, rack, not offline) for number, (rack, offline) in enumerate(slots)
        ]
        self.pool_of = [
            pool_numbers[(rack, not alive)] for rack, alive in zip(racks, live, strict=True)
        ]
        self.pool_size = [0] * len(self.pools)
        self.pool_key = [self._pool_key(index) for index in range(len(self.ids))]
        self.pool_replicas = [0] * len(self.pools)
        for index, key in enumerate(self.pool_key):
            self.pool_size[self.pool_of[index]] += 1
            self.pool_replicas[self.pool_of[index]] += self.replicas[index]
            self.pools[self.pool_of[index]].order.append(key)
        for pool in self.pools:
            pool.order.sort()
        self.live_pools = [pool for pool in self.pools if pool.live]
        self.offline_pools = [pool for pool in self.pools if not pool.live]
        self.live_total = sum(1 for flag in live if flag)
        self.observed_total = len(self.ids)
        self.memo: dict[tuple[int, ...], list[PartitionChoice]] = {}
        self.last_key: tuple[int, ...] | None = None
        self.misses = 0  # topics remembered in a row without a replay

    def _pool_key(self, index: int) -> PoolKey:
        replicas = self.replicas[index]
        if replicas >= self.full_at:
            # Already at the call's fair share: spreading a topic is no reason to load it more.
            return (1, replicas, index)
        return (min(self.topic_replicas[index], 1), replicas, index)

    def _rekey(self, index: int) -> None:
        order = self.pools[self.pool_of[index]].order
        del order[bisect_left(order, self.pool_key[index])]
        key = self.pool_key[index] = self._pool_key(index)
        insort(order, key)

    def _count(self, index: int, topic_only: bool = False) -> None:
        if self.topic_replicas[index] == 0:
            self.touched.append(index)
        self.topic_replicas[index] += 1
        if not topic_only:
            self.replicas[index] += 1
            self.pool_replicas[self.pool_of[index]] += 1
        self._rekey(index)

    def place_topic(
        self,
        partitions: int,
        replication_factor: int,
        mode: str,
        min_live: int,
        existing: Sequence[Sequence[int]],
    ) -> list[PartitionChoice]:
        """Place one request's partitions; the caller has checked the mode's limits. The
        list returned is read-only: a replayed placement returns the remembered one.
        `last_key` says which remembered state it started from (None: not remembered); a
        key seen before in this call means the placement was replayed."""
        key = None
        if not existing and self.misses < MEMO_PATIENCE:
            key = self._memo_key(partitions, replication_factor, mode, min_live)
        self.last_key = key
        seen = self.memo.get(key) if key is not None else None
        if seen is not None:
            self.misses = 0
            self._replay(seen)
            return seen
        choices = self._place_topic(partitions, replication_factor, mode, min_live, existing)
        if key is not None:
            self.misses += 1
            self.memo[key] = choices
        return choices

    def _memo_key(
        self, partitions: int, replication_factor: int, mode: str, min_live: int
    ) -> tuple[int, ...] | None:
        """What decides a new topic's placement, up to a constant added to every broker's
        count: every choice compares counts between brokers (replicas, leaders, pairs shared,
        placeholder racks), never a count alone, except the fair share (`full_at`), which no
        broker may reach during this topic for the key to hold. A bulk create of like topics
        on a small cluster comes back to a few such states, and each later topic is then
        replayed instead of placed (2,000 topics on 3 brokers: one placed, 1,999 replayed).
        None: not remembered."""
        count = len(self.ids)
        if count > MEMO_BROKERS or max(self.replicas) + partitions >= self.full_at:
            return None
        base = min(self.replicas)
        lead = min(self.leaders)
        pairs = (
            min(
                self.shared[first].get(second, 0)
                for first in range(count)
                for second in range(count)
                if first != second
            )
            if count > 1
            else 0
        )
        preference = min(self.placeholder_preferences) if self.placeholder_preferences else 0
        key = [partitions, replication_factor, _MODE_NUMBER[mode], min_live]
        key += [replicas - base for replicas in self.replicas]
        key += [leaders - lead for leaders in self.leaders]
        for first in range(count):
            row = self.shared[first]
            key += [row.get(second, 0) - pairs for second in range(count) if second != first]
        key += [p - preference for p in self.placeholder_preferences]
        return tuple(key)

    def _replay(self, choices: list[PartitionChoice]) -> None:
        """Apply a remembered placement: the counts change as placing it changed them."""
        moved: list[int] = []
        for choice in choices:
            members = [self.index_of[broker] for broker in choice.brokers]
            self.leaders[members[0]] += 1
            for index in members:
                self.replicas[index] += 1
                self.pool_replicas[self.pool_of[index]] += 1
                if index not in moved:
                    moved.append(index)
                row = self.shared[index]
                for second in members:
                    if second != index:
                        row[second] = row.get(second, 0) + 1
            for rack in choice.placeholder_racks:
                self.placeholder_preferences[rack] += 1
        for index in moved:
            self._rekey(index)

    def _place_topic(
        self,
        partitions: int,
        replication_factor: int,
        mode: str,
        min_live: int,
        existing: Sequence[Sequence[int]],
    ) -> list[PartitionChoice]:
        # A growing topic's current partitions count as this topic's (the cluster's load
        # already holds them).
        for replicas in existing:
            for position, broker in enumerate(replicas):
                index = self.index_of.get(broker)
                if index is not None:
                    self._count(index, topic_only=True)
                    self.topic_leaders[index] += position == 0
        placed = [
            self._place_partition(replication_factor, mode, min_live) for _ in range(partitions)
        ]
        rebalance_leaders(
            [members for members, _, _ in placed], self.live, self.leaders, self.topic_leaders
        )
        for index in self.touched:
            self.topic_replicas[index] = 0
            self.topic_leaders[index] = 0
            self._rekey(index)
        self.touched = []
        return [
            PartitionChoice([self.ids[index] for index in members], live, placeholders)
            for members, live, placeholders in placed
        ]

    def _place_partition(
        self, replication_factor: int, mode: str, min_live: int
    ) -> tuple[list[int], int, list[int]]:
        members: list[int] = []
        # Members per rack index, and per pool number.
        rack_count = [0] * self.rack_count
        pool_used = [0] * len(self.pools)
        live_count = 0
        real_slots = replication_factor
        if mode != "disabled":
            real_slots = min(replication_factor, self.observed_total)
        for slot in range(real_slots):
            # min_live >= 1 keeps a live member for the leader in every mode.
            pools = self._pools_for(mode, slot, real_slots, min_live - live_count, live_count)
            chosen = self._pick(pools, members, rack_count, pool_used)
            if not self.live[chosen] and min_live > live_count:
                # An offline replica must leave enough unused racks with a live broker for
                # the live minimum, or the live replicas would have to share a rack later.
                spare = sum(
                    1
                    for pool in self.live_pools
                    if pool.rack != self.rack_of[chosen]
                    and rack_count[pool.rack] == 0
                    and pool_used[pool.number] < self.pool_size[pool.number]
                )
                if spare < min_live - live_count:
                    chosen = self._pick(self.live_pools, members, rack_count, pool_used)
            members.append(chosen)
            rack = self.rack_of[chosen]
            rack_count[rack] += 1
            pool = self.pool_of[chosen]
            pool_used[pool] += 1
            live_count += self.live[chosen]
            self._count(chosen)
        leader = self._leader_of(members)
        self.leaders[leader] += 1
        self.topic_leaders[leader] += 1
        members.remove(leader)
        members.insert(0, leader)
        placeholders = [
            self._placeholder_rack(rack_count) for _ in range(replication_factor - real_slots)
        ]
        for first in members:
            row = self.shared[first]
            for second in members:
                if second != first:
                    row[second] = row.get(second, 0) + 1
        return members, live_count, placeholders

    def _leader_of(self, members: list[int]) -> int:
        """The live member leading fewest: this topic first (none before one), then the
        cluster, then this topic again, then the lowest index. Compared field by field: a
        key tuple per member costs more than the comparisons, compiled or not."""
        leader = -1
        best_spread = best_leaders = best_topic = 0
        for index in members:
            if not self.live[index]:
                continue
            topic = self.topic_leaders[index]
            spread = 1 if topic > 0 else 0
            leaders = self.leaders[index]
            if leader >= 0:
                if spread != best_spread:
                    if spread > best_spread:
                        continue
                elif leaders != best_leaders:
                    if leaders > best_leaders:
                        continue
                elif topic != best_topic:
                    if topic > best_topic:
                        continue
                elif index > leader:
                    continue
            leader, best_spread, best_leaders, best_topic = index, spread, leaders, topic
        return leader

    def _pools_for(
        self, mode: str, slot: int, real_slots: int, live_needed: int, live_used: int
    ) -> list[_Pool]:
        if mode == "disabled":
            return self.live_pools
        if mode == "enabled":
            return self.live_pools if live_used < self.live_total else self.offline_pools
        # enabled_prefer_observed: every observed broker competes, unless the remaining
        # slots are just enough to reach the live minimum.
        if live_needed >= real_slots - slot and live_used < self.live_total:
            return self.live_pools
        return self.pools

    def _pick(
        self,
        pools: list[_Pool],
        members: list[int],
        rack_count: list[int],
        pool_used: list[int],
    ) -> int:
        # The rack rule comes before balance: with uneven racks a small rack's brokers take
        # more replicas than the average rather than let two replicas share a rack.
        # Ranked by (brokers already in its rack, spread, replicas, the pool's average load,
        # shared, leads, index), compared field by field (see _leader_of).
        chosen = -1
        best_rack = best_spread = best_replicas = best_shared = best_leads = 0
        best_average = 0.0
        for pool in pools:
            if pool_used[pool.number] >= self.pool_size[pool.number]:
                continue
            in_rack = rack_count[pool.rack]
            if chosen >= 0 and in_rack > best_rack:
                continue
            spread, replicas, shared, leads, index = self._best_in(pool, members)
            # Between equally loaded brokers, the rack (pool) with the lighter average: racks
            # then fill evenly, so the last partitions do not find their only light brokers
            # crowded into one rack.
            average = self.pool_replicas[pool.number] / self.pool_size[pool.number]
            if chosen >= 0:
                if in_rack != best_rack:
                    if in_rack > best_rack:
                        continue
                elif spread != best_spread:
                    if spread > best_spread:
                        continue
                elif replicas != best_replicas:
                    if replicas > best_replicas:
                        continue
                elif average != best_average:
                    if average > best_average:
                        continue
                elif shared != best_shared:
                    if shared > best_shared:
                        continue
                elif leads != best_leads:
                    if leads > best_leads:
                        continue
                elif index > chosen:
                    continue
            chosen, best_rack, best_spread, best_replicas = index, in_rack, spread, replicas
            best_average, best_shared, best_leads = average, shared, leads
        if chosen < 0:
            raise AssertionError("no pool has a free broker; the caller's limits are wrong")
        return chosen

    def _best_in(self, pool: _Pool, members: list[int]) -> Ranked:
        # Among the equally loaded front of the pool, prefer brokers that have shared fewer
        # partitions with this partition's replicas so far (topicmappr's "degree"). The
        # leader is named afterwards as the member that leads least, so the first member is
        # the broker leading least and the others those leading most: every replica set
        # then holds a broker that needs a leader, and no set is all brokers that don't.
        # Candidates come in (spread, replicas, index) order and only the front ones with
        # the first's spread and replicas compete, so a later one wins only on fewer shared
        # partitions or, tied, the leader tie-break; compared field by field (see _leader_of).
        rows = [self.shared[member] for member in members]
        sign = -1 if rows else 1
        found = False
        best_spread = best_replicas = best_shared = best_leads = best_index = 0
        seen = 0
        for spread, replicas, index in pool.order:
            if index in members:
                continue
            if found and (spread != best_spread or replicas != best_replicas):
                break
            shared = 0
            for row in rows:
                shared += row.get(index, 0)
            leads = sign * self.leaders[index]
            if not found or shared < best_shared or (shared == best_shared and leads < best_leads):
                found = True
                best_spread, best_replicas, best_index = spread, replicas, index
                best_shared, best_leads = shared, leads
            seen += 1
            if seen == PAIR_WINDOW:
                break
        if not found:
            raise AssertionError("a pool with a free broker returned none")
        return best_spread, best_replicas, best_shared, best_leads, best_index

    def _placeholder_rack(self, rack_count: list[int]) -> int:
        """The rack the next replica would have gone to, spread over racks and partitions."""
        rack = min(
            range(self.rack_count),
            key=lambda r: (rack_count[r], self.placeholder_preferences[r], r),
        )
        rack_count[rack] += 1
        self.placeholder_preferences[rack] += 1
        return rack
