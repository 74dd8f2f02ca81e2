"""ZooKeeper-mode extras for KIP-409: observed brokers, and partitions on offline brokers.

KIP-409 keeps the brokers known to a ZooKeeper-mode cluster as persistent znodes
`/brokers/observed_ids/<id>` holding the JSON of the broker's (ephemeral) `/brokers/ids/<id>`.
CreatePartitions refuses ids missing from `/brokers/ids`, so `add_partitions` does what
Kafka's own `AdminZkClient.addPartitions` does: it writes the new partitions into
`/brokers/topics/<topic>`, and the controller, watching that znode, creates them.
kazoo is thread-based: every call runs in a worker thread, never on the event loop.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Self, TypeVar

from kazoo.client import KazooClient
from kazoo.exceptions import (
    BadVersionError,
    ConnectionLoss,
    NodeExistsError,
    NoNodeError,
    SessionExpiredError,
    ZookeeperError,
)
from kazoo.handlers.threading import KazooTimeoutError
from kazoo.retry import KazooRetry

from .errors import AdminError, ConnectionFailed, ValidationError
from .reassignments import BrokerStillLive

T = TypeVar("T")

IDS = "/brokers/ids"
OBSERVED = "/brokers/observed_ids"
TOPICS = "/brokers/topics"
REASSIGN = "/admin/reassign_partitions"


# What an observed znode holds for a broker known only from topics' replica lists (it never
# ran while kafka-tui looked, so there is no registration to copy).
FROM_REPLICAS = json.dumps({"source": "replica-lists"}).encode()


@dataclass(frozen=True)
class ObservedBroker:
    id: int
    rack: str | None
    host: str | None
    port: int | None
    live: bool
    # Where kafka-tui knows it from: "live" (/brokers/ids), "recorded" (its registration,
    # copied to /brokers/observed_ids while it ran), "replica lists" (a topic names it).
    source: str = "live"


def _broker(broker_id: int, data: bytes, live: bool) -> ObservedBroker:
    try:
        info: dict[str, Any] = json.loads(data)
    except ValueError:
        info = {}
    if not isinstance(info, dict):
        info = {}
    source = "live" if live else "replica lists" if data == FROM_REPLICAS else "recorded"
    host, port = info.get("host"), info.get("port")
    if not host or port is None or port < 0:
        # host/port are null / -1 when no listener is PLAINTEXT; endpoints has them all.
        endpoints = info.get("endpoints") or []
        if endpoints:
            address = str(endpoints[0]).split("://", 1)[-1]
            host, _, text = address.rpartition(":")
            port = int(text) if text.isdigit() else None
    return ObservedBroker(broker_id, info.get("rack"), host or None, port, live, source)


def _ids(children: list[str]) -> list[int]:
    return sorted(int(c) for c in children if c.lstrip("-").isdigit())


class ZooKeeperExtras:
    """`async with ZooKeeperExtras("127.0.0.1:2181") as zk:` (a chroot such as
    `host:2181/kafka` works too)."""

    def __init__(self, connect: str, timeout_s: float = 10.0) -> None:
        self.connect = connect
        self.timeout_s = timeout_s
        self._zk: KazooClient | None = None

    async def __aenter__(self) -> Self:
        await asyncio.to_thread(self._start)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._zk is not None:
            await asyncio.to_thread(self._stop, self._zk)
            self._zk = None

    def _unreachable(self) -> ConnectionFailed:
        return ConnectionFailed(
            f"Cannot reach ZooKeeper at {self.connect} within {self.timeout_s:.0f}s. Check "
            "the address (host:port[,host:port][/chroot]) and that ZooKeeper is running."
        )

    def _start(self) -> None:
        retry = KazooRetry(max_tries=2, max_delay=1.0)
        try:
            zk = KazooClient(
                hosts=self.connect,
                timeout=self.timeout_s,
                connection_retry=retry,
                command_retry=KazooRetry(max_tries=3, max_delay=1.0),
            )
        except (ValueError, ZookeeperError) as exc:
            raise ConnectionFailed(f"Invalid ZooKeeper address '{self.connect}': {exc}") from None
        try:
            zk.start(timeout=self.timeout_s)
        except (KazooTimeoutError, ZookeeperError, OSError):
            self._stop(zk)
            raise self._unreachable() from None
        self._zk = zk

    @staticmethod
    def _stop(zk: KazooClient) -> None:
        zk.stop()
        zk.close()

    async def _run(self, work: Callable[[KazooClient], T]) -> T:
        zk = self._zk
        if zk is None:
            raise ConnectionFailed("Not connected to ZooKeeper (use `async with`).")

        def call() -> T:
            try:
                result: T = zk.retry(work, zk)
                return result
            except (ConnectionLoss, SessionExpiredError, KazooTimeoutError):
                raise self._unreachable() from None

        return await asyncio.to_thread(call)

    # -- observed brokers ----------------------------------------------------------------------

    async def record_observed(self) -> list[int]:
        """Copy each live broker's registration into its observed znode (created, or updated
        when it changed); return the ids written."""

        def work(zk: KazooClient) -> list[int]:
            written = []
            for broker_id in _ids(zk.get_children(IDS)):
                try:
                    data, _ = zk.get(f"{IDS}/{broker_id}")
                except NoNodeError:
                    continue  # it stopped in between
                path = f"{OBSERVED}/{broker_id}"
                try:
                    current, stat = zk.get(path)
                except NoNodeError:
                    try:
                        zk.create(path, data, makepath=True)
                    except NodeExistsError:
                        zk.set(path, data)
                    written.append(broker_id)
                    continue
                if current != data:
                    zk.set(path, data, version=stat.version)
                    written.append(broker_id)
            return written

        return await self._run(work)

    async def record_from_replicas(self, broker_ids: list[int]) -> list[int]:
        """Record brokers that topics' replica lists name but that were never seen live: a
        broker id in an assignment belonged to the cluster (KIP-409's observed brokers do
        not depend on kafka-tui having run while the broker did). Returns the ids written."""

        def work(zk: KazooClient) -> list[int]:
            written = []
            for broker_id in broker_ids:
                if broker_id < 0 or zk.exists(f"{IDS}/{broker_id}"):
                    continue
                try:
                    zk.create(f"{OBSERVED}/{broker_id}", FROM_REPLICAS, makepath=True)
                    written.append(broker_id)
                except NodeExistsError:
                    continue
            return written

        return await self._run(work)

    async def observed_brokers(self) -> list[ObservedBroker]:
        """Live brokers and recorded ones, by id; `live` says which are registered now."""

        def work(zk: KazooClient) -> list[ObservedBroker]:
            live = set(_ids(zk.get_children(IDS)))
            observed = set(_ids(zk.get_children(OBSERVED))) if zk.exists(OBSERVED) else set()
            brokers = []
            for broker_id in sorted(live | observed):
                data = None
                for parent in (IDS, OBSERVED) if broker_id in live else (OBSERVED,):
                    try:
                        data, _ = zk.get(f"{parent}/{broker_id}")
                        break
                    except NoNodeError:
                        continue
                if data is not None:
                    brokers.append(_broker(broker_id, data, broker_id in live))
            return brokers

        return await self._run(work)

    async def forget(self, broker_id: int) -> bool:
        """Forget a broker retired for good; False when it was not recorded."""

        def work(zk: KazooClient) -> bool:
            if zk.exists(f"{IDS}/{broker_id}"):
                raise BrokerStillLive(
                    "BROKER_STILL_LIVE",
                    f"Broker {broker_id} is running (registered in {IDS}): stop it for good "
                    "before forgetting it, or it will be recorded again.",
                )
            try:
                zk.delete(f"{OBSERVED}/{broker_id}")
            except NoNodeError:
                return False
            return True

        return await self._run(work)

    # -- partitions on offline brokers ---------------------------------------------------------

    async def add_partitions(self, topic: str, new: dict[int, list[int]]) -> None:
        """Add partitions with these replica lists (first = preferred leader), which may name
        offline observed brokers. Returns once written; the controller creates them (see
        `leaders_of` to wait for that)."""
        data, version = await self._run(lambda zk: self._new_assignment(zk, topic, new))
        await self._run(lambda zk: self._write_assignment(zk, topic, data, version))

    async def leaders_of(self, topic: str, partitions: list[int]) -> dict[int, int]:
        """Each partition's leader as its state znode says (-1: none yet; a partition whose
        state znode the controller has not written yet is left out)."""

        def work(zk: KazooClient) -> dict[int, int]:
            leaders = {}
            for p in partitions:
                try:
                    raw, _ = zk.get(f"{TOPICS}/{topic}/partitions/{p}/state")
                except NoNodeError:
                    continue
                try:
                    leaders[p] = int(json.loads(raw).get("leader", -1))
                except (ValueError, TypeError, AttributeError):
                    leaders[p] = -1
            return leaders

        return await self._run(work)

    def _new_assignment(
        self, zk: KazooClient, topic: str, new: dict[int, list[int]]
    ) -> tuple[bytes, int]:
        """The topic znode's new content and the version it was read at (checks as Kafka's
        AdminZkClient.createNewPartitionsAssignment, plus: every id is an observed broker)."""
        try:
            raw, stat = zk.get(f"{TOPICS}/{topic}")
        except NoNodeError:
            raise ValidationError(
                "UNKNOWN_TOPIC_OR_PARTITION",
                f"Topic '{topic}' does not exist. Check the name (topic names are case-sensitive).",
                topic,
            ) from None
        znode: dict[str, Any] = json.loads(raw)
        partitions: dict[str, list[int]] = znode.get("partitions") or {}
        if znode.get("adding_replicas") or znode.get("removing_replicas") or zk.exists(REASSIGN):
            raise AdminError(
                "REASSIGNMENT_IN_PROGRESS",
                f"Topic '{topic}': a partition reassignment is in progress. Wait for it to "
                "finish, then add partitions.",
                topic,
            )
        count = len(partitions)
        rf = len(partitions.get("0") or next(iter(partitions.values()), []))

        def invalid(name: str, detail: str) -> ValidationError:
            return ValidationError(name, f"Topic '{topic}': {detail}", topic)

        wanted = list(range(count, count + len(new)))
        if not new or sorted(new) != wanted:
            raise invalid(
                "INVALID_PARTITIONS",
                f"the new partitions must continue the existing {count}: expected ids "
                f"{wanted or [count]}, got {sorted(new)}.",
            )
        known = set(_ids(zk.get_children(IDS)))
        if zk.exists(OBSERVED):
            known |= set(_ids(zk.get_children(OBSERVED)))
        for p in wanted:
            replicas = new[p]
            problem = None
            if len(replicas) != rf:
                problem = f"has {len(replicas)} replica(s), the topic's replication factor is {rf}"
            elif len(set(replicas)) != len(replicas):
                problem = f"names a broker twice: {replicas}"
            elif any(r < 0 for r in replicas):
                problem = f"has a negative broker id: {replicas}"
            elif not set(replicas) <= known:
                unknown = sorted(set(replicas) - known)
                problem = (
                    f"names broker(s) {unknown}, neither live nor observed (record the "
                    "observed brokers while they run)"
                )
            if problem:
                raise invalid("INVALID_REPLICA_ASSIGNMENT", f"new partition {p} {problem}.")
        partitions.update({str(p): list(new[p]) for p in wanted})
        znode["partitions"] = partitions
        # Kafka writes compact JSON (Jackson); other fields stay as they were.
        return json.dumps(znode, separators=(",", ":")).encode(), stat.version

    @staticmethod
    def _write_assignment(zk: KazooClient, topic: str, data: bytes, version: int) -> None:
        try:
            zk.set(f"{TOPICS}/{topic}", data, version=version)
        except BadVersionError:
            raise AdminError(
                "CONCURRENT_CHANGE",
                f"Topic '{topic}' changed while its partitions were being added (another "
                "admin or the controller wrote it). Nothing was written; describe the topic "
                "and try again.",
                topic,
            ) from None
        except NoNodeError:
            raise ValidationError(
                "UNKNOWN_TOPIC_OR_PARTITION",
                f"Topic '{topic}' was deleted while its partitions were being added.",
                topic,
            ) from None
