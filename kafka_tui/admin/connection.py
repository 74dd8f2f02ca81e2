"""The connection under the admin client: aiokafka's connections, deadlines, routing.

Changes go to the controller (ZooKeeper mode needs it; KRaft brokers forward). Reads go to
one broker, the same one while it answers, and only once its metadata meets what kafka-tui
itself changed recently (journal.py): a read after a change never shows the cluster from
before it, without waiting for every broker after every change.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Self, TypeVar

from aiokafka.client import AIOKafkaClient
from aiokafka.errors import (
    IncompatibleBrokerVersion,
    KafkaConnectionError,
    KafkaError,
    NodeNotReadyError,
    RequestTimedOutError,
)
from aiokafka.helpers import create_ssl_context

from . import protocol
from .errors import AdminError, ConnectionFailed
from .journal import ChangeJournal, Expectation
from .model import ConnectionSettings

T = TypeVar("T")

NOT_CONTROLLER = 41
_NOT_CONTROLLER_RETRIES = 3
# A broker may lag this far behind a change kafka-tui made before its expectation is taken
# for stale (all brokers agree on another state: the topic changed again elsewhere).
_STALE_AFTER_S = 60.0


def _unmet(metadata: dict[str, Any], pending: list[Expectation]) -> set[str]:
    """The topics of `pending` whose expectation this Metadata answer does not meet."""
    listed = {t["name"]: t for t in metadata["topics"]}
    return {e.topic for e in pending if not e.met_by(listed.get(e.topic))}


def _age_origin(pending: list[Expectation], topic: str) -> float:
    return next(e.at for e in pending if e.topic == topic)


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
    """aiokafka's security arguments for a profile (clients, producers and consumers alike)."""
    kwargs: dict[str, Any] = {"security_protocol": s.security_protocol}
    if s.security_protocol in ("SSL", "SASL_SSL"):
        ssl_context = create_ssl_context(
            cafile=s.ssl_cafile,
            certfile=s.ssl_certfile,
            keyfile=s.ssl_keyfile,
            password=s.ssl_password,
        )
        ssl_context.check_hostname = s.ssl_check_hostname
        kwargs["ssl_context"] = ssl_context
    if s.security_protocol.startswith("SASL"):
        kwargs |= {
            "sasl_mechanism": s.sasl_mechanism or "PLAIN",
            "sasl_plain_username": s.sasl_username,
            "sasl_plain_password": s.sasl_password,
        }
    return kwargs


class AdminConnection:
    """Connects with the profile's settings; use as `async with ...:`."""

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
        self._client: AIOKafkaClient | None = None
        # The broker reads go to, and the one that answered the last request.
        self._read_node: int | None = None
        self._answered_by: int | None = None

    async def __aenter__(self) -> Self:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def connect(self) -> None:
        s = self.settings
        client = AIOKafkaClient(
            bootstrap_servers=s.bootstrap_servers,
            client_id=s.client_id,
            # Per-request deadlines are ours (_send); this only bounds a stuck connection.
            request_timeout_ms=max(s.request_timeout_ms, 600_000),
            **security_kwargs(s),
        )
        try:
            await asyncio.wait_for(client.bootstrap(), s.request_timeout_ms / 1000)
        except (KafkaError, OSError, TimeoutError) as exc:
            await client.close()
            reason = "no bootstrap server answered" if isinstance(exc, KafkaError) else exc
            raise ConnectionFailed(
                f"Cannot connect to Kafka at {s.bootstrap_servers} ({s.security_protocol}): "
                f"{reason or 'timed out'}. Check the address, that the brokers are up, and "
                "the security settings."
            ) from None
        self._client = client

    async def ensure_connected(self) -> None:
        """Connect if not connected (again, after a failed start); aiokafka itself reconnects
        to brokers of an established client."""
        if self._client is None:
            await self.connect()

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    @property
    def client(self) -> AIOKafkaClient:
        if self._client is None:
            raise ConnectionFailed("The admin client is not connected.")
        return self._client

    def _any_node(self) -> int:
        node = self.client.get_random_node()
        if node is None:
            raise ConnectionFailed(
                f"No broker of {self.settings.bootstrap_servers} is reachable right now."
            )
        return int(node)

    async def _send(self, request: Any, node_id: int | None = None, extra_ms: int = 0) -> Any:
        """Send to `node_id` (or any broker); one retry on another node if the link breaks."""
        timeout = (self.settings.request_timeout_ms + max(extra_ms, 0)) / 1000
        for attempt in range(2):
            node = node_id if node_id is not None and attempt == 0 else self._any_node()
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
                if attempt == 1:
                    raise ConnectionFailed(
                        f"Lost the connection to broker {node} of "
                        f"{self.settings.bootstrap_servers} (or it did not answer within "
                        f"{timeout:.0f}s)."
                    ) from None
                await self.client.force_metadata_update()
        raise AssertionError("unreachable")

    async def _metadata(
        self, topics: Sequence[str] | None, node_id: int | None = None
    ) -> dict[str, Any]:
        """Metadata for `topics` (None: all). Without `node_id`, from the read broker, once
        its metadata meets the expectations about these topics (see journal.py)."""
        if node_id is not None:
            return await self._metadata_from(topics, node_id)
        response = await self._metadata_from(topics, self._reader())
        self._read_node = self._answered_by
        pending = self.journal.expectations(self.cluster_id, topics)
        if pending and _unmet(response, pending):
            return await self._caught_up(topics, pending, response)
        return response

    async def _metadata_from(self, topics: Sequence[str] | None, node: int) -> dict[str, Any]:
        request = protocol.MetadataRequest(None if topics is None else list(topics))
        response: dict[str, Any] = (await self._send(request, node)).to_object()
        self.cluster_id = response["cluster_id"] or self.cluster_id
        return response

    async def _node_for(self, topics: Sequence[str]) -> int:
        """The broker to send a request about `topics` to (DescribeConfigs, AlterConfigs):
        one that knows of kafka-tui's recent changes to them. A broker answers about a topic
        only once its own metadata has it (ZooKeeper-mode brokers learn of topics one by one)."""
        if self.journal.expectations(self.cluster_id, topics):
            await self._metadata(topics)
        return self._reader()

    def _reader(self) -> int:
        live = {b.nodeId for b in self.client.cluster.brokers()}
        if self._read_node is not None and self._read_node in live:
            return self._read_node
        return self._any_node()

    async def _caught_up(
        self, topics: Sequence[str] | None, pending: list[Expectation], first: dict[str, Any]
    ) -> dict[str, Any]:
        """Poll every live broker until one meets `pending`; reads stick to it from then on.

        An expectation every broker still contradicts after `_STALE_AFTER_S` is stale (the
        topic changed again through another tool) and is forgotten; so is one still unmet
        when the request timeout ends, and the most advanced answer is returned."""
        deadline = time.monotonic() + self.settings.request_timeout_ms / 1000
        best, best_unmet = first, _unmet(first, pending)

        async def check() -> dict[str, Any] | None:
            nonlocal best, best_unmet, pending
            nodes = sorted(b.nodeId for b in self.client.cluster.brokers())
            answers = await asyncio.gather(
                *(self._metadata_from(topics, n) for n in nodes), return_exceptions=True
            )
            everywhere: set[str] | None = None
            for node, answer in zip(nodes, answers, strict=True):
                if isinstance(answer, BaseException):
                    continue
                unmet = _unmet(answer, pending)
                if not unmet:
                    self._read_node = node
                    return answer
                if len(unmet) < len(best_unmet):
                    best, best_unmet = answer, unmet
                everywhere = unmet if everywhere is None else everywhere & unmet
            now = time.time()
            stale = {e.topic for e in pending if e.topic in (everywhere or set())}
            stale = {t for t in stale if now - _age_origin(pending, t) > _STALE_AFTER_S}
            if stale:
                self.journal.forget(self.cluster_id, stale)
                pending = [e for e in pending if e.topic not in stale]
                best_unmet -= stale
                if not best_unmet:
                    return best
            return None

        found = await poll_until(check, deadline)
        if found is not None:
            return found
        self.journal.forget(self.cluster_id, best_unmet)
        return best

    async def _controller(self) -> int:
        metadata = await self._metadata([])
        controller = metadata["controller_id"]
        known = {b["node_id"] for b in metadata["brokers"]}
        return int(controller) if controller in known else self._any_node()

    async def _to_controller(
        self,
        make_request: Callable[[list[Any]], Any],
        items: list[Any],
        name_of: Callable[[Any], str],
        results_of: Callable[[dict[str, Any]], list[dict[str, Any]]],
        extra_ms: int,
    ) -> dict[str, dict[str, Any]]:
        """Send to the controller (ZooKeeper mode needs it; KRaft brokers forward), retrying the
        items the controller bounced with NOT_CONTROLLER after it moved."""
        answers: dict[str, dict[str, Any]] = {}
        pending = items
        for _ in range(_NOT_CONTROLLER_RETRIES):
            response = (
                await self._send(make_request(pending), await self._controller(), extra_ms)
            ).to_object()
            bounced = set()
            for r in results_of(response):
                if r["error_code"] == NOT_CONTROLLER:
                    bounced.add(r["name"])
                else:
                    answers[r["name"]] = r
            pending = [i for i in pending if name_of(i) in bounced]
            if not pending:
                break
            await self.client.force_metadata_update()
        for item in pending:
            answers[name_of(item)] = {
                "name": name_of(item),
                "error_code": NOT_CONTROLLER,
                "error_message": None,
            }
        return answers
