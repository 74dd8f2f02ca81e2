"""Kafka's own KRaft placer, StripedReplicaPlacer, re-implemented for comparison (bench only).

Mirrors metadata/src/main/java/org/apache/kafka/metadata/placement/StripedReplicaPlacer.java
(apache/kafka trunk at 1eb7644, Oct 2024; the file's last change, a formatting pass, is older
than 4.0, so 4.1 places the same way): racks in a sorted list (no rack first), each rack with
a sorted list of unfenced and one of fenced brokers, random start offsets, one new
RackList per topic (`place` call) sharing the controller's Random, the leader from an
unfenced broker, followers from the next racks, unfenced first but fenced when a rack has no
unfenced broker left in this partition, and a shuffle every `unfenced brokers` partitions.
`random.Random` stands in for java.util.Random: same shapes, different draws, so run several
seeds. Kafka ignores the cluster's load entirely.
"""

from __future__ import annotations

import random
from collections.abc import Iterable


class BrokerList:
    def __init__(self) -> None:
        self.brokers: list[int] = []
        self.index = 0
        self.offset = 0
        self.epoch = 0

    def initialize(self, rng: random.Random) -> None:
        if self.brokers:
            self.brokers.sort()
            self.offset = rng.randrange(len(self.brokers))

    def shuffle(self, rng: random.Random) -> None:
        rng.shuffle(self.brokers)

    def next(self, epoch: int) -> int:
        if not self.brokers:
            return -1
        if self.epoch != epoch:
            self.epoch = epoch
            self.index = 0
            self.offset = (self.offset + 1) % len(self.brokers)
        if self.index >= len(self.brokers):
            return -1
        broker = self.brokers[(self.index + self.offset) % len(self.brokers)]
        self.index += 1
        return broker


class Rack:
    def __init__(self) -> None:
        self.fenced = BrokerList()
        self.unfenced = BrokerList()

    def initialize(self, rng: random.Random) -> None:
        self.fenced.initialize(rng)
        self.unfenced.initialize(rng)

    def shuffle(self, rng: random.Random) -> None:
        self.fenced.shuffle(rng)
        self.unfenced.shuffle(rng)

    def next(self, epoch: int) -> int:
        result = self.unfenced.next(epoch)
        return result if result >= 0 else self.fenced.next(epoch)


class RackList:
    def __init__(self, rng: random.Random, brokers: Iterable[tuple[int, str | None, bool]]):
        self.rng = rng
        self.racks: dict[str | None, Rack] = {}
        self.rack_names: list[str | None] = []
        self.total = 0
        self.unfenced = 0
        for broker, rack_name, fenced in brokers:
            rack = self.racks.get(rack_name)
            if rack is None:
                rack = self.racks[rack_name] = Rack()
                self.rack_names.append(rack_name)
            if fenced:
                rack.fenced.brokers.append(broker)
            else:
                self.unfenced += 1
                rack.unfenced.brokers.append(broker)
            self.total += 1
        for rack in self.racks.values():
            rack.initialize(rng)
        self.rack_names.sort(key=lambda name: (name is not None, name or ""))
        self.epoch = 0
        self.offset = rng.randrange(len(self.rack_names)) if self.rack_names else 0

    def place(self, replication_factor: int) -> list[int]:
        _check(replication_factor, self.total, self.unfenced)
        if self.epoch == self.unfenced and self.unfenced > 1:
            self.shuffle()
            self.epoch = 0
        if self.offset == len(self.rack_names):
            self.offset = 0
        brokers: list[int] = []
        first_rack = self.offset
        while True:
            result = self.racks[self.rack_names[first_rack]].unfenced.next(self.epoch)
            if result >= 0:
                brokers.append(result)
                break
            first_rack = (first_rack + 1) % len(self.rack_names)
        rack_index = self.offset
        for _ in range(1, replication_factor):
            result = -1
            while result < 0:
                if rack_index == first_rack:
                    first_rack = -1
                else:
                    result = self.racks[self.rack_names[rack_index]].next(self.epoch)
                rack_index = (rack_index + 1) % len(self.rack_names)
            brokers.append(result)
        self.epoch += 1
        self.offset += 1
        return brokers

    def shuffle(self) -> None:
        self.rng.shuffle(self.rack_names)
        for rack in self.racks.values():
            rack.shuffle(self.rng)


def _check(replication_factor: int, total: int, unfenced: int) -> None:
    if replication_factor <= 0:
        raise ValueError(f"Invalid replication factor {replication_factor}")
    if replication_factor > total:
        raise ValueError(f"only {total} broker(s) are registered")
    if unfenced == 0:
        raise ValueError("All brokers are currently fenced.")


def striped_place(
    rng: random.Random,
    brokers: list[tuple[int, str | None, bool]],
    partitions: int,
    replication_factor: int,
) -> list[list[int]]:
    """One topic, as the controller places it: `brokers` holds (id, rack, fenced)."""
    racks = RackList(rng, brokers)
    return [racks.place(replication_factor) for _ in range(partitions)]
