"""Reading the cluster: brokers, topics, partitions, configs; and waiting for a change to show.

Describing uses Metadata v12 with AllowAutoTopicCreation=false, so it never creates a topic.
"""

from __future__ import annotations

import asyncio
import time
from bisect import bisect_right
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import replace
from functools import partial
from itertools import islice
from operator import attrgetter, itemgetter, le
from typing import TypeVar

from . import protocol
from .batches import (
    RETRIABLE_READ_ERRORS,
    batch_report,
    batched,
    failed,
    from_code,
    pipelined,
)
from .connection import AdminConnection
from .errors import ConnectionFailed, KafkaRequestError
from .model import (
    BrokerInfo,
    BrokerLoad,
    BrokerLogDirs,
    ClusterInfo,
    ConfigEntry,
    ConfigSource,
    PartitionInfo,
    QuorumInfo,
    TopicDescription,
    TopicResult,
)
from .model import QuorumMember as QuorumMemberInfo
from .protocol_cluster import (
    ApiVersionsRequest,
    DescribeLogDirsRequest,
    DescribeQuorumRequest,
    QuorumMember,
)
from .releases import kafka_release
from .wire import UnsupportedByBroker

# A broker's directories taking no new replica (KIP-1066): a list, or `*` for all.
CORDON_KEY = "cordoned.log.dirs"

_new = tuple.__new__
_PARTITION = itemgetter(0)  # PartitionInfo.partition

V = TypeVar("V")
_NAME = attrgetter("name")
# Topics put in name order a bucket of about this many at a time (`in_name_order`).
SORT_BUCKET = 4096


def in_name_order(topics: list[TopicDescription]) -> list[TopicDescription]:
    """`topics` sorted by name, without holding the interpreter for long: the screens read
    while it runs in a worker thread, and one sort in C over 200,000 topics held them for
    70-190 ms (issue 52). A sample sort: names a bucket apart in a sample split the topics
    into buckets of ~SORT_BUCKET, a slice at a time; each bucket is sorted on its own
    (~1-3 ms each); ~1.35x the CPU of one sort, no wait over ~10 ms (bench/big_cluster.py's
    refresh)."""
    if len(topics) <= 4 * SORT_BUCKET:
        return sorted(topics, key=_NAME)
    if _in_order(topics):  # a replay's, or a cluster's that answers in order: one pass
        return list(topics)
    sample = SORT_BUCKET // 16
    splitters = sorted(map(_NAME, topics[::sample]))[16::16]
    buckets: list[list[TopicDescription]] = [[] for _ in range(len(splitters) + 1)]
    bucket_of = partial(bisect_right, splitters)
    for start in range(0, len(topics), SORT_BUCKET):
        piece = topics[start : start + SORT_BUCKET]
        for at, topic in zip(map(bucket_of, map(_NAME, piece)), piece, strict=True):
            buckets[at].append(topic)
    ordered: list[TopicDescription] = []
    for bucket in buckets:
        bucket.sort(key=_NAME)
        ordered += bucket
    return ordered


def _in_order(topics: list[TopicDescription]) -> bool:
    """Whether `topics` are in name order, a slice at a time (stops at the first pair out of
    order: at once for Kafka's answers, in hash order)."""
    step = 4 * SORT_BUCKET
    for start in range(0, len(topics), step):
        names = list(map(_NAME, topics[max(start - 1, 0) : start + step]))
        if not all(map(le, names, islice(names, 1, None))):
            return False
    return True


# What one batch read gives: found topics by name, and the errors of the others.
BatchRead = Callable[[list[str]], Awaitable[tuple[dict[str, V], list[TopicResult]]]]


async def _no_quorum() -> QuorumInfo | None:
    return None


class AdminReads(AdminConnection):
    async def describe_cluster(self, *, quorum: bool = True) -> ClusterInfo:
        """The cluster: id, brokers (KRaft: fenced ones too), controller. `quorum=False`:
        without the KRaft quorum (DescribeQuorum), for a caller that needs only the brokers
        (a placement's snapshot): the controller is then the DescribeCluster answer's (a
        random broker on KRaft) and `quorum` None."""
        # The quorum alongside, not after: a create's snapshot waited for both in turn.
        response, quorum_info = await asyncio.gather(
            self._cluster(), self._quorum() if quorum else _no_quorum()
        )
        if response.error_code:
            raise KafkaRequestError.from_code(
                response.error_code, "(cluster)", response.error_message, subject="The cluster"
            )
        brokers = sorted(
            (
                BrokerInfo(
                    id=b.broker_id, host=b.host, port=b.port, rack=b.rack, fenced=b.is_fenced
                )
                for b in response.brokers
            ),
            key=lambda b: b.id,
        )
        controller = response.controller_id
        if quorum_info is not None:
            controller = quorum_info.leader if quorum_info.leader is not None else -1
        return ClusterInfo(
            cluster_id=response.cluster_id,
            controller_id=controller if controller >= 0 else None,
            brokers=brokers,
            lists_fenced_brokers=response.lists_fenced_brokers,
            quorum=quorum_info,
        )

    def known_brokers(self) -> list[int]:
        """The brokers the client's last metadata listed (live ones), without a request;
        none before the connection. A hint for sending per-broker requests before
        DescribeCluster answers: the caller checks them against its answer."""
        return self._client.cluster.node_ids() if self._client is not None else []

    async def kafka_releases(self, brokers: Sequence[int]) -> dict[int, str]:
        """Each of `brokers` (live ones) -> the Kafka release it runs ("3.9", "3.3+": see
        releases.py), from its own ApiVersions answer. A broker that does not answer is left
        out."""
        request = ApiVersionsRequest()
        answers = await self._ask_each(request, brokers)
        return {
            broker: kafka_release(read.versions)
            for broker, answer in answers.items()
            if not (read := request.answer(answer)).error_code
        }

    async def log_dirs(self, brokers: Sequence[int]) -> dict[int, BrokerLogDirs]:
        """Each of `brokers` (live ones) -> its log directories and the cordoned ones
        (DescribeLogDirs about no topic; is_cordoned from v5, Kafka 4.3). Left out: a broker
        that does not answer, or refuses (DescribeLogDirs needs DESCRIBE on the cluster)."""
        request = DescribeLogDirsRequest([])
        found = {}
        for broker, answer in (await self._ask_each(request, brokers)).items():
            read = request.answer(answer)
            if read.error_code:
                continue
            dirs = [d for d in read.dirs if not d.error_code]
            found[broker] = BrokerLogDirs(
                tuple(d.log_dir for d in dirs), tuple(d.log_dir for d in dirs if d.cordoned)
            )
        return found

    async def cordons(self, brokers: Sequence[int]) -> dict[int, BrokerLogDirs]:
        """What `log_dirs` answers, for those of `brokers` (live ones) that cordon any
        directory; a broker left out cordons none. Each broker is asked its own
        `cordoned.log.dirs` first (DescribeConfigs, ~1 ms), and DescribeLogDirs only where
        that is set or was not answered: DescribeLogDirs costs the broker ~10 ms per 6,000
        replicas it holds even about no topic (Kafka 4.4, measured: 5 brokers of a
        30,000-partition cluster answered all at once in ~50 ms, a third of a create's
        request). The config is Kafka's only way to cordon (KIP-1066, 4.3+); a broker older
        than that does not know the key and answers no value: it cordons nothing."""
        asked = {
            b: protocol.DescribeConfigsRequest([(protocol.RESOURCE_BROKER, str(b))], [CORDON_KEY])
            for b in brokers
        }
        answers = await self._ask_each_its_own(asked.__getitem__, brokers)
        unsure = [
            b
            for b in brokers
            if b not in answers
            or any(
                r.error_code or any(c.value for c in r.configs) for r in asked[b].answer(answers[b])
            )
        ]
        return await self.log_dirs(unsure) if unsure else {}

    async def _quorum(self) -> QuorumInfo | None:
        """The KRaft controller quorum (DescribeQuorum, forwarded by a broker to the
        controller); None on ZooKeeper-mode brokers, which lack the request, and where the
        principal may not describe the cluster (the Metadata answer's controller then
        stands, a random broker on KRaft)."""
        try:
            answer = DescribeQuorumRequest.answer(await self._send(DescribeQuorumRequest()))
        except UnsupportedByBroker:
            return None
        if answer.error_code:
            return None

        # Lag: behind the leader's log end offset (kafka-metadata-quorum.sh's "Lag").
        ahead = next(
            (m.log_end_offset for m in answer.voters if m.node_id == answer.leader_id),
            answer.high_watermark,
        )

        def members(listed: list[QuorumMember]) -> list[QuorumMemberInfo]:
            return [
                QuorumMemberInfo(
                    m.node_id,
                    m.log_end_offset,
                    ahead - m.log_end_offset if m.log_end_offset >= 0 and ahead >= 0 else -1,
                )
                for m in listed
            ]

        return QuorumInfo(
            answer.leader_id if answer.leader_id >= 0 else None,
            answer.leader_epoch,
            members(answer.voters),
            members(answer.observers),
        )

    @staticmethod
    def _description(topic: protocol.MetadataTopic) -> TopicDescription:
        # The lists are the decoder's own, made for this answer (interned): not copied.
        # Positional, through tuple.__new__: a NamedTuple's keyword constructor costs ~3x
        # (2,000,000 partitions a read on the largest clusters).
        partitions = sorted(
            (
                _new(
                    PartitionInfo,
                    (
                        p.partition_index,
                        p.leader_id,
                        p.replica_nodes,
                        p.isr_nodes,
                        p.offline_replicas,
                        None,
                        None,
                    ),
                )
                for p in topic.partitions
            ),
            key=_PARTITION,
        )
        return TopicDescription(
            name=topic.name,
            topic_id=topic.topic_id,
            internal=topic.is_internal,
            partitions=partitions,
        )

    async def list_topics(
        self, *, consistent_for: Sequence[str] | None = None
    ) -> list[TopicDescription]:
        """Every topic with its partitions (one Metadata request; no configs). By default a
        broker that has kafka-tui's recent changes answers; with `consistent_for`, only the
        changes to those topics are waited for."""
        metadata = await self._metadata(None, consistent_for=consistent_for)
        # Off the event loop, as the answer's decoding (protocol.UndecodedMetadata): a record
        # per partition, 2,000,000 on the largest clusters.
        return await asyncio.to_thread(self._descriptions, metadata)

    @classmethod
    def _descriptions(cls, metadata: protocol.Metadata) -> list[TopicDescription]:
        return in_name_order([cls._description(t) for t in metadata.topics if not t.error_code])

    async def topics_with_load(
        self, names: Sequence[str]
    ) -> tuple[list[TopicDescription], BrokerLoad]:
        """`names` as `list_topics` lists them (a topic with an error is left out), and the
        load of every topic, both from brokers that show kafka-tui's recent changes to
        `names`: what a placement touching `names` needs. The load is counted from one
        Metadata request for every topic, decoded without a partition record or a topic name
        (protocol.decode_metadata_load): on 30,000 partitions, ~6x faster than the full
        decode and ~12x faster than describing every topic (bench/load_decode.py); the
        broker's own cost of that answer remains, and grows with the cluster (issue 30)."""
        wanted = list(dict.fromkeys(names))
        if not wanted:
            return [], await self._load()
        if self._behind(wanted):
            metadata = await self._metadata(wanted)  # sticks to a broker that meets them
            load = await self._load()
        else:
            metadata, load = await asyncio.gather(self._metadata(wanted), self._load())
        topics = [self._description(t) for t in metadata.topics if not t.error_code]
        return sorted(topics, key=lambda t: t.name), load

    def _behind(self, names: Sequence[str]) -> bool:
        """Whether a read about `names` may have to wait for a broker (see `_metadata`): some
        expectations about them, or a cluster not known yet (its expectations are not)."""
        return self.cluster_id is None or bool(self.journal.expectations(self.cluster_id, names))

    async def _load(self) -> BrokerLoad:
        """Replicas and preferred leaders (first replicas) per broker, over every topic."""
        request = protocol.MetadataLoadRequest()
        load = request.load(await self._send(request, self._reader()))
        self._read_node = self._answered_by
        self.cluster_id = load.cluster_id or self.cluster_id
        return BrokerLoad(load.replicas, load.leaders, load.topics, load.partitions)

    async def describe_topics(
        self,
        names: Sequence[str] | None = None,
        *,
        configs: bool = True,
        config_keys: Sequence[str] | None = None,
        elr: bool = False,
    ) -> tuple[list[TopicDescription], list[TopicResult]]:
        """Describe `names` (None: all). Never creates a topic. Returns (found, errors).
        `elr`: also each partition's eligible leader replicas (one more request a batch,
        where the broker has it: for what an operator reads, not for kafka-tui's own
        checks)."""
        found: list[TopicDescription] = []
        errors: list[TopicResult] = []
        async for batch, batch_errors in self.describe_topics_in_batches(
            names, configs=configs, config_keys=config_keys, elr=elr
        ):
            found += batch
            errors += batch_errors
        return found, errors

    async def topic_names(self) -> list[str]:
        """Every topic's name, sorted: one Metadata request whose partitions are not decoded."""
        metadata = await self._metadata(None, partitions=False)
        return sorted(t.name for t in metadata.topics if not t.error_code)

    async def describe_topics_in_batches(
        self,
        names: Sequence[str] | None = None,
        *,
        configs: bool = True,
        config_keys: Sequence[str] | None = None,
        elr: bool = False,
    ) -> AsyncIterator[tuple[list[TopicDescription], list[TopicResult]]]:
        """`describe_topics`, a batch at a time (READ_BATCH topics; None: every topic, sorted
        by name), in order, as each batch is read: a caller prints the first topics while
        later batches are on the wire, and holds one batch at a time. A batch that fails
        fails alone: it is retried within the request timeout, and reported (one line when
        the whole batch failed for one reason). `config_keys`: only these configs."""
        order = list(dict.fromkeys(names)) if names is not None else await self.topic_names()
        keys = None if config_keys is None else list(config_keys)

        async def read(batch: list[str]) -> tuple[list[TopicDescription], list[TopicResult]]:
            found, errors = await self._read_batch(batch, self._describe_batch)
            if elr and found:
                await self._add_elr(found)
            if configs and found:
                topic_configs, config_errors = await self._read_batch(
                    list(found), lambda b: self._topic_configs(b, keys)
                )
                errors += config_errors
                for name, entries in topic_configs.items():
                    d = found[name]
                    found[name] = TopicDescription(
                        d.name, d.topic_id, d.internal, d.partitions, entries
                    )
            return [found[n] for n in batch if n in found], errors

        async for result in pipelined(batched(order), read):
            yield result

    async def _describe_batch(
        self, names: list[str]
    ) -> tuple[dict[str, TopicDescription], list[TopicResult]]:
        found, errors = await self._metadata_batch(names)
        return {name: self._description(t) for name, t in found.items()}, errors

    async def _metadata_batch(
        self, names: list[str]
    ) -> tuple[dict[str, protocol.MetadataTopic], list[TopicResult]]:
        """One Metadata read of `names`: the topics listed, and the others' errors (a
        `_read_batch` read: it asks again for those that may pass)."""
        metadata = await self._metadata(names)
        found: dict[str, protocol.MetadataTopic] = {}
        errors: list[TopicResult] = []
        for topic in metadata.topics:
            if topic.error_code:
                # A topic kafka-tui made that no broker showed within the request timeout
                # (brokers still applying a big change) is not reported as missing.
                errors.append(
                    from_code(topic.name, *self._lag_answer(topic.name, topic.error_code, None))
                )
            else:
                found[topic.name] = topic
        return found, errors

    async def _add_elr(self, found: dict[str, TopicDescription]) -> None:
        """Each partition's eligible leader replicas (KIP-966), from DescribeTopicPartitions
        page by page, read from the broker that just answered the Metadata request; left
        unknown (None) where the broker lacks the request (before Kafka 3.8), cannot be
        reached, or answers a topic with an error (it may have changed since: the Metadata
        answer stands)."""
        node = self._answered_by
        elr: dict[tuple[str, int], tuple[tuple[int, ...], tuple[int, ...]]] = {}
        cursor: tuple[str, int] | None = None
        try:
            while True:
                request = protocol.DescribeTopicPartitionsRequest(list(found), cursor)
                page = request.answer(await self._send(request, node))
                for p in page.partitions:
                    if not p.error_code:
                        elr[(p.topic, p.partition)] = (p.elr, p.last_known_elr)
                cursor = page.cursor
                if cursor is None:
                    break
        except (UnsupportedByBroker, ConnectionFailed):
            return  # what Metadata said stands; ELR is shown as not known
        for name, d in found.items():
            found[name] = replace(
                d,
                partitions=[
                    p._replace(elr=known[0], last_known_elr=known[1])
                    if (known := elr.get((name, p.partition))) is not None
                    else p
                    for p in d.partitions
                ],
            )

    async def _read_batch(
        self, batch: list[str], read: BatchRead[V]
    ) -> tuple[dict[str, V], list[TopicResult]]:
        """`read(batch)`, asking again for the topics whose error is retriable (a busy
        broker, a lost link) until the request timeout has passed since the first attempt;
        what still fails is reported by `batch_report`."""
        deadline = time.monotonic() + self.settings.request_timeout_ms / 1000
        found: dict[str, V] = {}
        final: list[TopicResult] = []
        pending, pause = batch, 0.1
        while True:
            try:
                got, errors = await read(pending)
            except ConnectionFailed as exc:
                got, errors = {}, [failed(exc, t) for t in pending]
            found |= got
            retry = [e for e in errors if e.error in RETRIABLE_READ_ERRORS]
            final += [e for e in errors if e.error not in RETRIABLE_READ_ERRORS]
            if not retry or time.monotonic() + pause >= deadline:
                return found, batch_report(batch, final + retry)
            pending = [e.topic for e in retry]
            await asyncio.sleep(pause)
            pause = min(pause * 2, 2.0)

    async def topic_config_value(self, key: str, topics: Sequence[str]) -> dict[str, str | None]:
        """One config's effective value for many topics, in batches of small DescribeConfigs
        requests (the TUI's min.insync.replicas filters on thousands of topics)."""
        values: dict[str, str | None] = {}

        async def read(batch: list[str]) -> dict[str, str | None]:
            configs, _ = await self._read_batch(batch, lambda b: self._topic_configs(b, [key]))
            return {t: entries[key].value for t, entries in configs.items() if key in entries}

        async for answer in pipelined(batched(list(dict.fromkeys(topics))), read):
            values |= answer
        return values

    async def broker_configs(
        self, broker_id: int | None, keys: Sequence[str]
    ) -> dict[str, str | None]:
        """Effective values of `keys` on one broker (e.g. num.partitions,
        default.replication.factor, min.insync.replicas: what a create leaves out); None:
        the broker reads go to, which needs no cluster description first — or, if the link
        to it breaks, another live broker.

        A broker describes only its own configs: asked about another id it answers
        INVALID_REQUEST ("Unexpected broker id"), so the request is rebuilt for the broker
        it goes to (`_send_to_itself`)."""
        if broker_id is not None:
            return await self._broker_configs(broker_id, keys)
        first = self._reader()
        try:
            return await self._broker_configs(first, keys, retry=False)
        except ConnectionFailed:
            return await self._broker_configs(self._reader(avoid=first), keys)

    async def _broker_configs(
        self, broker_id: int, keys: Sequence[str], retry: bool = True
    ) -> dict[str, str | None]:
        request = protocol.DescribeConfigsRequest(
            [(protocol.RESOURCE_BROKER, str(broker_id))], list(keys)
        )
        response = request.answer(await self._send_to_itself(request, broker_id, retry=retry))
        values: dict[str, str | None] = {}
        for result in response:
            if result.error_code:
                raise KafkaRequestError.about_broker(
                    result.error_code, broker_id, result.error_message
                )
            values |= {c.name: c.value for c in result.configs}
        return values

    async def _topic_configs(
        self, topics: list[str], keys: list[str] | None = None
    ) -> tuple[dict[str, dict[str, ConfigEntry]], list[TopicResult]]:
        request = protocol.DescribeConfigsRequest(
            [(protocol.RESOURCE_TOPIC, t) for t in topics], keys
        )
        response = request.answer(await self._send_about(request, topics))
        configs: dict[str, dict[str, ConfigEntry]] = {}
        errors: list[TopicResult] = []
        for result in response:
            name = result.resource_name
            if result.error_code:
                errors.append(
                    from_code(
                        name, *self._lag_answer(name, result.error_code, result.error_message)
                    )
                )
                continue
            configs[name] = {
                c.name: ConfigEntry(
                    name=c.name,
                    value=c.value,
                    source=ConfigSource(c.config_source)
                    if c.config_source in ConfigSource._value2member_map_
                    else ConfigSource.UNKNOWN,
                    read_only=c.read_only,
                    sensitive=c.is_sensitive,
                )
                for c in result.configs
            }
        return configs, errors
