"""The connection under the admin client: deadlines, retries, routing.

The connections themselves are kafka-tui's own (transport.py: one aiokafka connection per
broker, a broker map of its own). Changes go to the controller (ZooKeeper mode needs it;
KRaft brokers forward). Reads go to one broker, the same one while it answers, and only
once its metadata meets what kafka-tui itself changed recently (journal.py): a read after a
change never shows the cluster from before it, without waiting for every broker after every
change. The rules that pick a broker are routing.py's.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, Self, TypeVar

from aiokafka.errors import (
    IncompatibleBrokerVersion,
    KafkaConnectionError,
    KafkaError,
    NodeNotReadyError,
    RequestTimedOutError,
)
from aiokafka.helpers import create_ssl_context

from . import diagnose, protocol, routing
from . import kerberos_login as kerberos
from .config_rules import Release, release_numbers
from .errors import AdminError, ConnectionFailed, error_name
from .journal import ChangeJournal, Expectation
from .model import ConnectionSettings
from .protocol import TopicAnswer
from .releases import kafka_release
from .transport import Transport
from .wire import UnsupportedByBroker

T = TypeVar("T")

NOT_CONTROLLER = 41
REQUEST_TIMED_OUT = 7
UNKNOWN_TOPIC = 3  # UNKNOWN_TOPIC_OR_PARTITION
UNREGISTER_BROKER = 64  # API key
_NOT_CONTROLLER_RETRIES = 3
# A broker may lag this far behind a change kafka-tui made before its expectation is taken
# for stale (all brokers agree on another state: the topic changed again elsewhere).
_STALE_AFTER_S = 60.0
# An expectation about a topic's existence that every broker contradicts this long is checked
# with the controller (see `_absent_at_controller`), then again at most this often.
_PROBE_AFTER_S = 2.0
# How long one round of `_caught_up`'s polls waits for the brokers' answers.
_POLL_WAIT_S = 1.0
# Metadata this recent names the controller a change goes to (see `_recent_controller`).
CONTROLLER_FRESH_S = 2.0


async def poll_until(
    check: Callable[[], Awaitable[T | None]], deadline: float, first_delay: float = 0.05
) -> T | None:
    """Call `check` until it returns a value or `deadline` (monotonic) passes; back off to 1s."""
    delay = first_delay
    while True:
        value = await check()
        if value is not None:
            return value
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return None
        await asyncio.sleep(min(delay, remaining))
        delay = min(delay * 1.5, 1.0)


def security_kwargs(s: ConnectionSettings) -> dict[str, Any]:
    """aiokafka's security arguments for a profile (kafka-tui's own connections,
    `aiokafka.conn.create_conn`, and aiokafka's producers and consumers alike)."""
    kwargs: dict[str, Any] = {"security_protocol": s.security_protocol}
    if s.security_protocol in ("SSL", "SASL_SSL"):
        kwargs["ssl_context"] = ssl_context(s)
    if s.security_protocol.startswith("SASL") and s.sasl_oauth is not None:
        from .oauth import provider_for

        kwargs |= {"sasl_mechanism": "OAUTHBEARER", "sasl_oauth_token_provider": provider_for(s)}
    elif s.security_protocol.startswith("SASL"):
        kwargs |= {
            "sasl_mechanism": s.sasl_mechanism or "PLAIN",
            "sasl_plain_username": s.sasl_username,
            "sasl_plain_password": s.sasl_password,
        }
    if s.sasl_mechanism == "GSSAPI":
        # aiokafka's own GSSAPI (its producers and consumers): the default credentials;
        # kafka-tui's connections log in with the profile's (kerberos.login_options).
        kwargs["sasl_kerberos_service_name"] = s.sasl_kerberos_service_name
    return kwargs


def ssl_context(s: ConnectionSettings) -> ssl.SSLContext:
    context: ssl.SSLContext = create_ssl_context(
        cafile=s.ssl_cafile,
        cadata=s.ssl_cadata,
        certfile=s.ssl_certfile,
        keyfile=s.ssl_keyfile,
        password=s.ssl_password,
    )
    if s.ssl_cert_pem and s.ssl_key_pem:
        # Python's ssl loads a client key only from a file: a private folder, gone at once.
        import tempfile  # (with shutil, ~2 ms at every start otherwise)

        with tempfile.TemporaryDirectory(prefix="kafka-tui-") as folder:
            chain = Path(folder) / "client.pem"
            chain.touch(mode=0o600)
            chain.write_text(s.ssl_key_pem + "\n" + s.ssl_cert_pem)
            context.load_cert_chain(str(chain), password=s.ssl_password)
    context.check_hostname = s.ssl_check_hostname
    return context


async def _first_token(s: ConnectionSettings, provider: Any) -> None:
    """A token before any broker is asked: the token endpoint's refusal is the reason."""
    from .oauth_settings import TokenError

    try:
        await provider.token()
    except TokenError as exc:
        raise ConnectionFailed(
            f"Cannot connect to Kafka at {s.bootstrap_servers} (OAUTHBEARER): {exc}"
        ) from None


class AdminConnection:
    """Connects with the profile's settings; use as `async with ...:`. A request made before
    the connection (a screen's first read while the app still connects) waits for it, or
    connects: every caller shares one attempt. After `close()` nothing connects again."""

    def __init__(
        self,
        settings: ConnectionSettings,
        *,
        client_side_validation: bool = True,
        journal: ChangeJournal | None = None,
    ):
        self.settings = settings
        self.client_side_validation = client_side_validation
        self.journal = journal or ChangeJournal()
        self.cluster_id: str | None = None
        self._client: Transport | None = None
        self._connecting: asyncio.Future[None] | None = None
        self._closed = False
        # The broker reads go to, and the one that answered the last request.
        self._read_node: int | None = None
        self._answered_by: int | None = None
        self._lost_node: int | None = None
        # Topics kafka-tui made that no reachable broker had shown when a read's request
        # timeout ended (`_caught_up` gave up), and when (time.monotonic()): see
        # `_lag_answer`. Only added to, and read within a window: reads run concurrently.
        self._unshown: dict[str, float] = {}
        # The controller `_controller` last read itself, and when (time.monotonic()).
        self._controller_read: tuple[float, int] | None = None

    async def __aenter__(self) -> Self:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def connect(self) -> None:
        self._closed = False  # an explicit connect opens a closed client again
        s = self.settings
        try:
            security = security_kwargs(s) | kerberos.login_options(s)
        except (ssl.SSLError, OSError, ValueError) as exc:
            raise ConnectionFailed(diagnose.unusable_tls_settings(s, exc)) from None
        if (provider := security.get("sasl_oauth_token_provider")) is not None:
            await _first_token(s, provider)
        client = Transport(
            s.bootstrap_servers,
            client_id=s.client_id,
            # Per-request deadlines are ours (_send); this only bounds a stuck connection.
            request_timeout_ms=max(s.request_timeout_ms, 600_000),
            # A broker that stopped answering must not hold a refresh for longer.
            refresh_timeout_s=s.request_timeout_ms / 1000,
            security=security,
        )
        try:
            await asyncio.wait_for(client.bootstrap(), s.request_timeout_ms / 1000)
        except (KafkaError, OSError, TimeoutError) as exc:
            await client.close()
            # aiokafka's connection raises a bare error (a closed connection, an SSL
            # failure): one more attempt, ours, tells a wrong password from an untrusted
            # certificate.
            reason = await diagnose.why_not(s, security, exc)
            raise ConnectionFailed(
                f"Cannot connect to Kafka at {s.bootstrap_servers} ({s.security_protocol}): "
                f"{reason}"
            ) from None
        self._client = client
        self.cluster_id = self.cluster_id or client.cluster.cluster_id

    async def _refresh_brokers(self) -> None:
        """The transport's refresh of which brokers exist, bounded: shared by every caller,
        so it is shielded from our own time-out."""
        with contextlib.suppress(TimeoutError, KafkaError):
            await asyncio.wait_for(
                asyncio.shield(self.client.refresh()), self.settings.request_timeout_ms / 1000
            )

    async def ensure_connected(self) -> None:
        """Connect if not connected (again, after a failed start); an established transport
        itself opens a broken broker connection again at the next request. Callers at the
        same moment share one attempt (and its failure); one that gives up waiting leaves it
        running for the others."""
        if self._client is not None:
            return
        if self._closed:
            raise ConnectionFailed("The admin client is closed.")
        if self._connecting is None or self._connecting.done():
            self._connecting = asyncio.ensure_future(self.connect())
        await asyncio.shield(self._connecting)

    async def close(self) -> None:
        self._closed = True
        if self._client is not None:
            await self._client.close()
            self._client = None

    @property
    def client(self) -> Transport:
        if self._client is None:
            raise ConnectionFailed("The admin client is not connected.")
        return self._client

    def _any_node(self, avoid: int | None = None) -> int:
        """A broker to send to; after a failure, one other than the broker that failed."""
        node = routing.any_broker(self.client.cluster.node_ids(), avoid)
        if node is None:
            raise ConnectionFailed(
                f"No broker of {self.settings.bootstrap_servers} is reachable right now."
            )
        return node

    async def _send(
        self,
        request: Any,
        node_id: int | None = None,
        extra_ms: int = 0,
        *,
        retry: bool = True,
        retry_to: Callable[[int], Awaitable[int]] | None = None,
    ) -> Any:
        """Send to `node_id` (or any broker); one retry if the link breaks, on the broker
        `retry_to` picks given the one that failed (default: any other) — unless `retry` is
        False (a change: resending it blindly could report a change the lost request made
        as a failure; `_to_controller` finds out what happened instead)."""
        if self._client is None:
            await self.ensure_connected()
        timeout = (self.settings.request_timeout_ms + max(extra_ms, 0)) / 1000
        node: int | None = None
        for attempt in range(2 if retry else 1):
            if attempt == 0 and node_id is not None:
                node = node_id
            elif attempt == 1 and retry_to is not None and node is not None:
                node = await retry_to(node)
            else:
                node = self._any_node(node)
            try:
                response = await asyncio.wait_for(self.client.send(node, request), timeout)
                self._answered_by = node
                return response
            except (IncompatibleBrokerVersion, NotImplementedError) as exc:
                raise AdminError(
                    "UNSUPPORTED_VERSION",
                    f"The broker does not support {type(request).__name__} at the version "
                    f"kafka-tui speaks (Kafka 3.1 or newer is needed): {exc}",
                ) from None
            except (KafkaConnectionError, NodeNotReadyError, RequestTimedOutError, TimeoutError):
                if attempt == 1 or not retry:
                    self._lost_node = node
                    raise ConnectionFailed(
                        f"Lost the connection to broker {node} of "
                        f"{self.settings.bootstrap_servers} (or it did not answer within "
                        f"{timeout:.0f}s)."
                    ) from None
                await self._refresh_brokers()
        raise AssertionError("unreachable")

    async def _send_to_itself(self, request: Any, broker: int, *, retry: bool = True) -> Any:
        """Send a request about `broker`'s own configs to that broker; a lost link is retried
        there, never elsewhere: a broker describes (and in ZooKeeper mode alters) only its
        own configs, and asked about another id answers INVALID_REQUEST ("Unexpected broker
        id")."""

        async def itself(failed: int) -> int:
            return routing.config_owner(broker, failed)

        return await self._send(request, broker, retry=retry, retry_to=itself)

    async def _metadata(
        self,
        topics: Sequence[str] | None,
        node_id: int | None = None,
        *,
        consistent_for: Sequence[str] | None = None,
        partitions: bool = True,
        avoid: int | None = None,
    ) -> protocol.Metadata:
        """Metadata for `topics` (None: all). Without `node_id`, from the read broker, once
        its metadata meets the expectations about these topics (see journal.py) — or only
        about `consistent_for`: a listing of every topic that needs only some to be current
        (a placement's view of the load) need not wait for brokers still applying others.
        `avoid`: a broker whose link just broke (it may still be listed)."""
        await self.ensure_connected()
        if node_id is not None:
            return await self._metadata_from(topics, node_id, partitions)
        response = await self._metadata_from(topics, self._reader(avoid), partitions)
        self._read_node = self._answered_by
        checked = topics if consistent_for is None else consistent_for
        pending = self.journal.expectations(self.cluster_id, checked)
        if pending and routing.unmet(response, pending):
            return await self._caught_up(topics, pending, response, partitions, avoid)
        return response

    async def _metadata_from(
        self, topics: Sequence[str] | None, node: int, partitions: bool = True, retry: bool = True
    ) -> protocol.Metadata:
        """`partitions=False`: partitions counted, not decoded (see protocol.MetadataRequest).
        `retry=False`: the answer must come from `node` itself."""
        names = None if topics is None else list(topics)
        request = protocol.MetadataRequest(names, partitions=partitions)
        answer = await self._send(request, node, retry=retry)
        if isinstance(answer, protocol.UndecodedMetadata):  # every topic: off the loop
            answer = await asyncio.to_thread(answer.decode)
        response = request.answer(answer)
        self.cluster_id = response.cluster_id or self.cluster_id
        return response

    async def broker_releases(self) -> list[Release]:
        """The Kafka releases of the brokers this client has spoken to (their ApiVersions,
        read once per connection; one broker is asked if none was yet): what
        config_rules.py checks a change against."""
        await self.ensure_connected()
        known = list(self.client.known_api_versions())
        if not known and self.client_side_validation:
            # Only a check before sending: a broker that cannot be asked leaves the verdict to
            # the request itself, whose failure is reported as every send's is.
            timeout = self.settings.request_timeout_ms / 1000
            try:
                node = self._any_node()
                known = [await asyncio.wait_for(self.client.api_versions(node), timeout)]
            except (AdminError, KafkaError, OSError, TimeoutError):
                known = []
        found = (release_numbers(kafka_release(v)) for v in known)
        return sorted({r for r in found if r is not None})

    async def _ask_each(self, request: Any, brokers: Sequence[int]) -> dict[int, Any]:
        """`request` about each of `brokers` itself, sent to it, all at once: the answers
        that came. Not retried elsewhere: another broker's answer would be taken for this
        one's; a broker that does not answer is left out."""
        return await self._ask_each_its_own(lambda _: request, brokers)

    async def _ask_each_its_own(
        self, request_for: Callable[[int], Any], brokers: Sequence[int]
    ) -> dict[int, Any]:
        """`_ask_each`, with a request of its own for each broker (`request_for(broker)`)."""
        answers = await asyncio.gather(
            *(self._send(request_for(b), b, retry=False) for b in brokers),
            return_exceptions=True,
        )
        found = {}
        for broker, answer in zip(brokers, answers, strict=True):
            if isinstance(answer, BaseException):
                if not isinstance(answer, Exception):
                    raise answer
                continue
            found[broker] = answer
        return found

    async def _cluster(self) -> protocol.ClusterAnswer:
        """DescribeCluster's answer; from a broker older than Kafka 2.8, which has no
        DescribeCluster, the same facts from a Metadata answer about no topic (its brokers,
        controller and cluster id: what kafka-topics.sh reads there)."""
        try:
            request = protocol.DescribeClusterRequest()
            return request.answer(await self._send(request))
        except UnsupportedByBroker:
            metadata = await self._metadata_from([], self._reader())
            brokers = [
                protocol.ClusterBroker(b.node_id, b.host, b.port, b.rack, False)
                for b in metadata.brokers
            ]
            return protocol.ClusterAnswer(
                0, None, metadata.cluster_id, metadata.controller_id, brokers, False
            )

    async def _node_for(self, topics: Sequence[str], avoid: int | None = None) -> int:
        """The broker to send a request about `topics` to (DescribeConfigs, AlterConfigs):
        one that knows of kafka-tui's recent changes to them. A broker answers about a topic
        only once its own metadata has it (ZooKeeper-mode brokers learn of topics one by one).
        `avoid`: a broker whose link just broke. A fresh connection does not know its
        cluster's id yet, so it reads the topics once to find out which expectations apply
        (a script's `configs alter` right after its `create`)."""
        if avoid is not None and self._read_node == avoid:
            self._read_node = None
        if self.cluster_id is None or self.journal.expectations(self.cluster_id, topics):
            await self._metadata(topics, avoid=avoid, partitions=False)
        return self._reader(avoid)

    def _lag_answer(self, name: str, code: int, message: str | None) -> tuple[int, str | None]:
        """A broker's answer about topic `name` to a request `_send_about` sent, read
        honestly. UNKNOWN_TOPIC_OR_PARTITION about a topic kafka-tui made that no reachable
        broker had shown within the request timeout (a ZooKeeper-mode broker learns of
        topics from the controller: with the controller frozen or lost, a broker can lack a
        topic made a moment before for as long as a new controller takes to be elected) says
        "this broker does not know it yet", not "it does not exist": reported as
        REQUEST_TIMED_OUT (nothing was done for it; check again)."""
        window = 2 * self.settings.request_timeout_ms / 1000
        unshown_at = self._unshown.get(name)
        if (
            code == UNKNOWN_TOPIC
            and unshown_at is not None
            and time.monotonic() - unshown_at < window
        ):
            return REQUEST_TIMED_OUT, (
                "the broker asked does not know this topic yet "
                f"({message or 'unknown topic'}): no reachable broker showed it within the "
                "request timeout (is the controller down?); nothing was done for it"
            )
        return code, message

    async def _send_about(self, request: Any, topics: Sequence[str]) -> Any:
        """Send a request about `topics` (a config read, a config SET or DELETE: safe to
        send twice) to `_node_for(topics)`; if the link breaks, again to another broker
        that knows them — not to any broker: a ZooKeeper-mode broker whose metadata lacks a
        topic answers UNKNOWN_TOPIC_OR_PARTITION for it (ZkAdminManager checks its own
        metadata cache, not ZooKeeper), and the topic would be reported missing."""

        async def elsewhere(failed: int) -> int:
            return await self._node_for(topics, avoid=failed)

        return await self._send(request, await self._node_for(topics), retry_to=elsewhere)

    def _reader(self, avoid: int | None = None) -> int:
        nodes = self.client.cluster.node_ids()
        node = routing.read_broker(nodes, self._read_node, avoid)
        return self._any_node(avoid) if node is None else node

    async def _caught_up(
        self,
        topics: Sequence[str] | None,
        pending: list[Expectation],
        first: protocol.Metadata,
        partitions: bool = True,
        avoid: int | None = None,
    ) -> protocol.Metadata:
        """Poll every live broker until one meets `pending`; reads stick to it from then on.

        A broker's metadata only moves forward, so each poll asks a broker only about the
        topics it has not shown as expected yet (after a 2,000-topic change, a few names, not
        2,000 topics' partitions from every broker every second). An expectation every broker
        still contradicts after `_STALE_AFTER_S` is stale (the topic changed again through
        another tool) and is forgotten; so is one still unmet when the request timeout ends,
        and the most advanced broker's answer is returned. Sooner than that, a topic expected
        to exist that no broker lists is asked about at the controller: if the controller
        lacks it too, it was deleted since (e.g. with kafka-topics.sh), and the expectation
        is forgotten at once instead of holding every read for the request timeout. And one
        the chosen broker met, then contradicts in its answer to the read itself, changed
        again elsewhere in between: it is forgotten too, and the newer state returned."""
        deadline = time.monotonic() + self.settings.request_timeout_ms / 1000
        origin = {e.topic: e.at for e in pending}
        wanted = {e.topic: e for e in pending}
        unmet_at: dict[int, set[str]] = {}
        next_probe = 0.0
        if self._answered_by is not None:
            unmet_at[self._answered_by] = routing.unmet(first, pending)

        async def unmet_on(node: int) -> set[str]:
            left = unmet_at.get(node, set(wanted))
            # Expectations need partition counts only.
            answer = await self._metadata_from(sorted(left), node, partitions=False, retry=False)
            return routing.unmet(answer, [wanted[t] for t in left if t in wanted])

        # Each broker's poll in flight. A round waits at most _POLL_WAIT_S for them: a broker
        # that does not answer (frozen, overloaded) must not hold the others' answers until
        # the deadline (a frozen broker's poll took the whole request timeout, and a plan's
        # last batches read as missing from brokers that had them a moment later); its poll
        # stays in flight and counts in the round it answers.
        polls: dict[int, asyncio.Future[set[str]]] = {}

        async def check() -> int | None:
            nonlocal next_probe
            nodes = [n for n in self.client.cluster.node_ids() if n != avoid]
            for n in nodes:
                if n not in polls:
                    polls[n] = asyncio.ensure_future(unmet_on(n))
            await asyncio.wait([polls[n] for n in nodes], timeout=_POLL_WAIT_S)
            everywhere: set[str] | None = None
            for node in nodes:
                poll = polls[node]
                if not poll.done():
                    continue
                del polls[node]
                if poll.exception() is not None:
                    continue
                unmet = poll.result()
                unmet_at[node] = unmet
                if not unmet:
                    return node
                everywhere = unmet if everywhere is None else everywhere & unmet
            now = time.time()
            stale = {t for t in everywhere or () if now - origin[t] > _STALE_AFTER_S}
            missing = sorted(
                t
                for t in everywhere or ()
                if t not in stale and wanted[t].exists and now - origin[t] > _PROBE_AFTER_S
            )
            if missing and time.monotonic() >= next_probe:
                next_probe = time.monotonic() + _PROBE_AFTER_S
                stale |= await self._absent_at_controller(missing)
            if stale:
                self.journal.forget(self.cluster_id, stale)
                for topic in stale:
                    del wanted[topic]
                for left in unmet_at.values():
                    left -= stale
                if any(not left for left in unmet_at.values()):
                    return routing.nearest(unmet_at)
            return None

        try:
            node = await poll_until(check, deadline)
        finally:
            for poll in polls.values():
                poll.cancel()
        if node is None:
            if not unmet_at:
                return first
            node = routing.nearest(unmet_at)
            now = time.monotonic()
            self._unshown |= {t: now for t in unmet_at[node] if t in wanted and wanted[t].exists}
            self.journal.forget(self.cluster_id, unmet_at[node])
        self._read_node = node
        answer = await self._metadata_from(topics, node, partitions)
        if self._answered_by == node:
            # `node` showed these expectations met a moment ago; one its answer contradicts
            # now was changed again since, elsewhere (a ZooKeeper-mode broker behind a
            # creation lists the topic for a few ms after the others dropped it, then applies
            # the deletion). Kept, it would hold every later read of the topic.
            shown = wanted if topics is None else {t: wanted[t] for t in topics if t in wanted}
            self.journal.forget(self.cluster_id, routing.unmet(answer, list(shown.values())))
        return answer

    async def _absent_at_controller(self, topics: list[str]) -> set[str]:
        """Which of `topics` the controller itself does not have. A validate-only CreateTopics
        changes nothing and answers TOPIC_ALREADY_EXISTS for every topic the controller has
        (KRaft: its own state; ZooKeeper mode: the topic's znode, also while it is marked for
        deletion) and no error for one it lacks. Any other answer (no CREATE right, a policy,
        a lost link) tells nothing: such topics are not reported absent."""
        request = protocol.CreateTopicsRequest(
            [protocol.CreatableTopic(t, 1, 1, {}, {}) for t in topics],
            self.settings.request_timeout_ms,
            True,
            details=False,
        )
        try:
            response = await self._send(request, await self._controller(), retry=False)
        except AdminError:
            return set()
        asked = set(topics)
        return {
            a.name for a in request.topic_answers(response) if a.error_code == 0 and a.name in asked
        }

    async def _controller(self, avoid: int | None = None) -> int:
        """The broker to send a change to: the controller ZooKeeper mode names (KRaft names a
        random live broker; any broker forwards there). `avoid`: a broker whose connection was
        just lost — while brokers still name it, another one is tried (KRaft forwards; in
        ZooKeeper mode it answers NOT_CONTROLLER until a new controller is elected)."""
        # Only with the cluster's id known: the journal of changes made needs it.
        fresh = avoid is None and self.cluster_id is not None
        recent = self._recent_controller() if fresh else None
        if recent is not None:
            return recent
        metadata = await self._metadata([])
        known = [b.node_id for b in metadata.brokers]
        target = routing.controller(metadata.controller_id, known, avoid)
        if target is None:
            return self._any_node()
        if target == metadata.controller_id:
            self._controller_read = (time.monotonic(), target)
        return target

    async def _answers_deletions_with_ids(self) -> bool:
        """Whether this is a KRaft cluster, whose DeleteTopics answers carry each topic's id
        (ZooKeeper-mode 3.9's do not): only KRaft brokers list UnregisterBroker (64) in their
        ApiVersions answer. Asked once per connection: of a broker already asked, else of
        the broker a change goes to (opening the connection the change then uses);
        unreachable, the answer is False: ZooKeeper mode's way is the safe one."""
        await self.ensure_connected()
        known = list(self.client.known_api_versions())
        if known:
            return any(UNREGISTER_BROKER in versions for versions in known)
        with contextlib.suppress(AdminError, KafkaError, OSError, TimeoutError):
            versions = await asyncio.wait_for(
                self.client.api_versions(await self._controller()),
                self.settings.request_timeout_ms / 1000,
            )
            return UNREGISTER_BROKER in versions
        return False

    def _recent_controller(self) -> int | None:
        """The controller the transport's last refresh of the brokers named within the last
        CONTROLLER_FRESH_S seconds (connecting reads it; so does every refresh after
        NOT_CONTROLLER), else None. A headless command changes topics milliseconds after
        connecting, and reading the controller again cost it a round trip; a controller
        that moved meanwhile answers NOT_CONTROLLER, and `_to_controller` sends again after
        a refresh, as after a read. Else the one `_controller` read itself just before (a
        TUI deletion's first one reads it to open the connection the deletion then uses)."""
        cluster = self.client.cluster
        return routing.recent_controller(
            cluster.controller,
            cluster.refreshed_at,
            self._controller_read,
            time.monotonic(),
            CONTROLLER_FRESH_S,
        )

    async def _to_controller(
        self,
        make_request: Callable[[list[Any]], ChangeRequest],
        items: list[Any],
        name_of: Callable[[Any], str],
        extra_ms: int,
        settle: Settle | None = None,
    ) -> dict[str, TopicAnswer]:
        """Send to the controller (ZooKeeper mode needs it; KRaft brokers forward), retrying the
        items the controller bounced with NOT_CONTROLLER after it moved.

        With `settle` (a change whose outcome can be read back), a connection lost before
        the answer does not lose the batch's results: `settle.done` reads which items are
        already in the state asked for (by metadata, from the brokers still up) — those are
        done; the others are sent again to another broker, and an answer meaning "already
        so" (`settle.codes`: e.g. TOPIC_ALREADY_EXISTS) for an item the lost request may
        have changed is checked the same way. What is still unknown when the time is up is
        REQUEST_TIMED_OUT: it may still complete; check again."""
        answers: dict[str, TopicAnswer] = {}
        pending = items
        lost: str | None = None
        # Room for one attempt that hangs (a broker that stopped answering looks like a slow
        # one until the attempt's own timeout), then for sending the rest elsewhere.
        deadline = (
            time.monotonic() + 2 * (self.settings.request_timeout_ms + max(extra_ms, 0)) / 1000
        )
        bounces = 0
        while pending and bounces < _NOT_CONTROLLER_RETRIES and time.monotonic() < deadline:
            try:
                target = await self._controller(avoid=self._lost_node if lost else None)
                request = make_request(pending)
                response = request.topic_answers(
                    await self._send(request, target, extra_ms, retry=settle is None)
                )
            except ConnectionFailed as exc:
                if settle is None:
                    raise
                lost = f"{exc.message} It was checked by metadata from the brokers still up"
                await self._refresh_brokers()
                found = await settle.done(pending, False)
                answers.update(_recovered(found, lost))
                pending = [i for i in pending if name_of(i) not in found]
                if pending:
                    await asyncio.sleep(0.5)
                continue
            bounced = set()
            for r in response:
                if r.error_code == NOT_CONTROLLER:
                    bounced.add(r.name)
                else:
                    answers[r.name] = r
            if lost is not None and settle is not None:
                # After a lost answer the controller has often just moved (ZooKeeper mode: a
                # new one, still loading): its own REQUEST_TIMED_OUT is checked by metadata
                # too, so a change that did complete is not left as "check again".
                maybe = [
                    i
                    for i in pending
                    if name_of(i) in answers
                    and answers[name_of(i)].error_code in settle.codes | {REQUEST_TIMED_OUT}
                ]
                if maybe:
                    confirmed = await settle.done(maybe, True)
                    answers.update(_recovered(confirmed, lost))
                    # "Already so" that metadata did not show in time: the lost request may
                    # have made it so (ZooKeeper mode: a new controller read it from ZooKeeper
                    # before the brokers had it), so it is "check again", not a failure.
                    for name in {name_of(i) for i in maybe} - set(confirmed):
                        said = answers[name]
                        if said.error_code in settle.codes:
                            answers[name] = _unconfirmed(said, lost)
            pending = [i for i in pending if name_of(i) in bounced]
            if not pending:
                break
            # After a lost connection, wait out the election of a new controller.
            bounces += 0 if lost else 1
            self._controller_read = None  # it named a broker that is no longer the controller
            await self._refresh_brokers()
            if lost:
                await asyncio.sleep(0.5)
        for item in pending:
            answers[name_of(item)] = TopicAnswer(
                name_of(item),
                REQUEST_TIMED_OUT if lost else NOT_CONTROLLER,
                f"{lost}, and the change could not be confirmed" if lost else None,
            )
        return answers


@dataclass(frozen=True)
class Settle:
    """How to find out a change's outcome when its answer was lost (see `_to_controller`).
    `done(items, wait)`: answers for the items already in the state asked for (`wait`: the
    controller said so; poll until a broker shows it)."""

    done: Callable[[list[Any], bool], Awaitable[dict[str, TopicAnswer]]]
    codes: frozenset[int]


class ChangeRequest(Protocol):
    """A request whose answer is one TopicAnswer per topic (protocol.py)."""

    def topic_answers(self, response: Any) -> list[TopicAnswer]: ...


def _unconfirmed(said: TopicAnswer, lost: str) -> TopicAnswer:
    return TopicAnswer(
        said.name,
        REQUEST_TIMED_OUT,
        f"{lost}; sent again, a broker answered {error_name(said.error_code)}"
        f"{f' ({said.error_message})' if said.error_message else ''}, which the lost request "
        "may have caused, and metadata did not show the change in time",
    )


def _recovered(found: dict[str, TopicAnswer], lost: str) -> dict[str, TopicAnswer]:
    return {name: a._replace(recovered=lost) for name, a in found.items()}
