"""Real local clusters, started once per test run and torn down at the end (also on failure).

Set KAFKA_TUI_TEST_KEEP_CLUSTERS=1 to leave them running after the run for inspection.
"""

from __future__ import annotations

import dataclasses
import os
import re
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiokafka.conn
import pytest

from kafka_tui.admin import ConnectionSettings, KafkaAdmin
from kafka_tui.devcluster import DevCluster, Mode

from . import lifetimes


@dataclass
class Cluster:
    mode: Mode
    dev: DevCluster
    bootstrap_servers: str
    zookeeper: str | None

    def restore(self) -> None:
        """Start every broker a test stopped, and wait until all serve metadata."""
        for broker in self.dev.status()["brokers"]:
            if not broker["running"]:
                self.dev.start_broker(broker["id"])


def _killed(dev: DevCluster) -> Callable[[], None]:
    """A session cluster's end: its data goes with its folder, so no controlled shutdown."""

    def stop() -> None:
        dev.down(kill=True)

    return stop


def _start(mode: Mode, root: Path, name: str) -> Iterator[Cluster]:
    dev = DevCluster(root)
    cluster = Cluster(mode, dev, "", None)

    def start() -> None:
        dev.up(mode, brokers=3)
        status = dev.status()
        cluster.bootstrap_servers = status["bootstrap_servers"]
        cluster.zookeeper = status["zookeeper"]

    try:
        start()
        lifetimes.started(name, start, _killed(dev))
        yield cluster
    finally:
        lifetimes.ended(name)
        if not os.environ.get("KAFKA_TUI_TEST_KEEP_CLUSTERS"):
            dev.down(kill=True)


def _worker_group(item: pytest.Item) -> str | None:
    """Which group of tests share one pytest-xdist worker (`--dist loadgroup`): the tests of
    one real cluster go to one worker, which starts only the clusters its tests use, so the
    waits on stopped and restarted brokers of one cluster overlap those of another. None:
    pure tests, spread over the workers one by one."""
    names = set(getattr(item, "fixturenames", ()))
    callspec = getattr(item, "callspec", None)
    param = callspec.params.get("cluster") if callspec is not None else None
    module = item.path.name
    if item.path.parent.name == "compat":
        return "compat"  # one worker starts the old clusters, one at a time
    if "spark_cluster" in names:
        # One worker: two standalone Spark clusters at once (10 JVMs) took the 2-core
        # machine to a load of 14 and every group with it. Its tests that need Kafka go to
        # a Kafka group below, so this worker starts no Kafka cluster of its own.
        return "spark"
    if module == "test_plan_parquet.py":
        return "kraft-2"  # with its module's Spark session, on a worker of a KRaft cluster
    if any(name.startswith("secured") for name in names):
        return "secured"
    if param == "zk" or (param is None and "zk_cluster" in names):
        return "zk-2" if module in _SECOND_CLUSTER else "zk"
    if param == "kraft" or "kraft_cluster" in names or "kadmin" in names:
        # The screens' tests on a KRaft cluster of their own: the largest group, split in two.
        if module.startswith("test_tui") and module not in _SECOND_CLUSTER:
            return "kraft-tui"
        return "kraft-2" if module in _SECOND_CLUSTER else "kraft"
    return None


# The longest modules on a cluster run on a second cluster of their mode, on another worker:
# one group per mode held the whole run's tail (a full run at load 20: the KRaft group summed
# 1,609 s of 1,700; with these apart the largest group is about half that).
_SECOND_CLUSTER = frozenset(
    {
        "test_faults.py",
        "test_big_reads.py",
        "test_plans.py",
        "test_plan_configs.py",
        "test_plan_interrupted.py",
        "test_plan_parquet.py",
        "test_tui_plan.py",  # the plan workflow's screen beside the plan modules
        "test_spark_parts.py",
        "test_throttles.py",
        "test_drain.py",
        "test_group_offsets.py",
    }
)


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        group = _worker_group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


# The order in which workers take the groups (`--no-loadscope-reorder`: xdist then hands them
# out in the collection's order). The Spark group first: it keeps the CPU busy while the
# Kafka groups beside it mostly wait on brokers (a run with it last: 47-88% busy for the first
# half, 100% for the second); then the longest groups, so that on 4 workers the Spark worker
# takes kraft-tui then zk and the zk-2 worker secured (group sums of a run: kraft 451 s,
# kraft-2 445 + 50, zk-2 329, secured 272, spark 246, kraft-tui 217 - 50, zk 188); the pure
# tests, one by one, last.
_GROUP_ORDER = ("spark", "kraft-2", "zk-2", "kraft", "kraft-tui", "secured", "zk", "compat")


class _Order:
    @pytest.hookimpl(trylast=True)  # after pytest's own reordering by fixture parameters
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        groups = [(_worker_group(item), item) for item in items]
        lifetimes.plan(groups)

        def rank(entry: tuple[str | None, pytest.Item]) -> int:
            group, item = entry
            if group is not None:
                return _GROUP_ORDER.index(group)
            return len(_GROUP_ORDER) + (0 if item.path.parent.name == "fuzz" else 1)

        items[:] = [item for _, item in sorted(groups, key=rank)]

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        lifetimes.start_needed(_worker_group(item))

    @pytest.hookimpl(trylast=True)  # after the test's own fixtures are torn down
    def pytest_runtest_teardown(self, item: pytest.Item, nextitem: pytest.Item | None) -> None:
        if nextitem is not None:
            lifetimes.stop_unneeded(_worker_group(nextitem))


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(_Order(), "kafka-tui-order")


@pytest.fixture(scope="session", autouse=True)
def _own_change_journal(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The journal of recent changes (admin/journal.py) in the run's own folder; command-line
    tests inherit it through the environment."""
    path = tmp_path_factory.mktemp("state") / "recent-changes.jsonl"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KAFKA_TUI_JOURNAL", str(path))
        patch.setenv("KAFKA_TUI_AUDIT_LOG", str(path.with_name("audit.jsonl")))
        patch.setenv("KAFKA_TUI_ROLLBACK_DIR", str(path.with_name("rollback")))
        patch.setenv("KAFKA_TUI_PLANS", str(path.with_name("plans")))
        patch.setenv("KAFKA_TUI_LOAD_CACHE", str(path.with_name("load")))
        patch.setenv("KAFKA_TUI_KEY_REPORTS", str(path.with_name("key-reports")))
        yield


# The JIT's first tier only and one GC thread for the Spark JVMs the tests start (drivers,
# executors, the dev Spark cluster's daemons and Connect server), as the Kafka dev cluster's
# brokers run: they live for seconds on small inputs, where C2 compiling is most of their CPU.
# Measured here: one `local[1]` plan job 30-33 -> 19-20 s of CPU. Spark JVMs were a quarter of
# a whole run's CPU.
_SMALL_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


@pytest.fixture(scope="session", autouse=True)
def _small_spark_jvms(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    conf = tmp_path_factory.mktemp("spark-conf")
    (conf / "spark-defaults.conf").write_text(
        f"spark.driver.extraJavaOptions {_SMALL_JVM}\n"
        f"spark.executor.extraJavaOptions {_SMALL_JVM}\n"
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SPARK_CONF_DIR", str(conf))
        patch.setenv("SPARK_DAEMON_JAVA_OPTS", "-XX:TieredStopAtLevel=1")
        yield


@pytest.fixture(scope="session")
def kraft_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from _start("kraft", tmp_path_factory.mktemp("kraft"), "kraft_cluster")


@pytest.fixture(scope="session")
def zk_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from _start("zk", tmp_path_factory.mktemp("zk"), "zk_cluster")


@pytest.fixture(scope="session", params=["kraft", "zk"])
def cluster(request: pytest.FixtureRequest) -> Cluster:
    """Each test that takes `cluster` runs against both real clusters."""
    return request.getfixturevalue(f"{request.param}_cluster")  # type: ignore[no-any-return]


@pytest.fixture
async def kadmin(kraft_cluster: Cluster) -> AsyncIterator[KafkaAdmin]:
    """An admin client on the KRaft cluster, for tests that prepare what a screen shows."""
    async with KafkaAdmin(ConnectionSettings(kraft_cluster.bootstrap_servers)) as client:
        yield client


@pytest.fixture
def topic_name(request: pytest.FixtureRequest) -> Callable[[str], str]:
    """Unique topic names per test, so tests never see each other's topics."""
    stem = re.sub(r"[^a-zA-Z0-9-]", "-", request.node.name)[:60]

    def make(suffix: str = "t") -> str:
        return f"{stem}-{suffix}-{uuid.uuid4().hex[:6]}"

    return make


@pytest.fixture
async def admin(cluster: Cluster) -> AsyncIterator[KafkaAdmin]:
    async with KafkaAdmin(ConnectionSettings(cluster.bootstrap_servers)) as client:
        yield client


@pytest.fixture
async def raw_admin(cluster: Cluster) -> AsyncIterator[KafkaAdmin]:
    """Sends requests unchecked, to see what the broker itself answers."""
    settings = ConnectionSettings(cluster.bootstrap_servers)
    async with KafkaAdmin(settings, client_side_validation=False) as client:
        yield client


# -- secured clusters (SASL_SSL + SCRAM-SHA-512, TLS from the cluster's own CA, ACLs) ----------


@dataclass
class SecuredCluster:
    """A `dev-cluster up --security sasl_ssl` cluster with 2 brokers. Users: `admin` (super
    user), `viewer` (Describe + DescribeConfigs on every topic and the cluster), `creator`
    (viewer's rights + Create/Alter/Delete on topics prefixed `team-`)."""

    mode: Mode
    dev: DevCluster
    bootstrap_servers: str
    ca_file: str
    # A CA that signed no broker certificate: connecting while trusting it must fail.
    other_ca_file: str
    users: dict[str, str]
    zookeeper: str | None = None

    @property
    def mismatched_bootstrap_servers(self) -> str:
        """The same brokers by an address their certificates do not name (127.0.0.2: secured
        listeners bind 0.0.0.0; certificates carry localhost and 127.0.0.1 only)."""
        return self.bootstrap_servers.replace("127.0.0.1", "127.0.0.2")

    def settings(self, user: str = "admin", **changes: Any) -> ConnectionSettings:
        """Connection settings logging in as `user`; `changes` override fields
        (e.g. sasl_password="wrong", ssl_cafile=self.other_ca_file)."""
        settings = ConnectionSettings(
            self.bootstrap_servers,
            security_protocol="SASL_SSL",
            sasl_mechanism="SCRAM-SHA-512",
            sasl_username=user,
            sasl_password=self.users[user],
            ssl_cafile=self.ca_file,
        )
        return dataclasses.replace(settings, **changes)


def _start_secured(mode: Mode, root: Path, name: str) -> Iterator[SecuredCluster]:
    dev = DevCluster(root)
    cluster = SecuredCluster(mode, dev, "", "", str(root.resolve() / "other-ca.pem"), {})

    def start() -> None:
        dev.up(mode, brokers=2, security="sasl_ssl")
        status = dev.status()
        cluster.bootstrap_servers = status["bootstrap_servers"]
        cluster.zookeeper = status["zookeeper"]
        cluster.ca_file = status["security"]["ca_file"]
        cluster.users = dict(status["security"]["users"])

    try:
        start()
        lifetimes.started(name, start, _killed(dev))
        yield cluster
    finally:
        lifetimes.ended(name)
        if not os.environ.get("KAFKA_TUI_TEST_KEEP_CLUSTERS"):
            dev.down(kill=True)


@pytest.fixture(scope="session")
def secured_kraft_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SecuredCluster]:
    yield from _start_secured(
        "kraft", tmp_path_factory.mktemp("secured-kraft"), "secured_kraft_cluster"
    )


@pytest.fixture(scope="session")
def secured_zk_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SecuredCluster]:
    yield from _start_secured("zk", tmp_path_factory.mktemp("secured-zk"), "secured_zk_cluster")


@pytest.fixture(scope="session", params=["kraft", "zk"])
def secured_cluster(request: pytest.FixtureRequest) -> SecuredCluster:
    """Each test that takes `secured_cluster` runs against both secured clusters."""
    return request.getfixturevalue(f"secured_{request.param}_cluster")  # type: ignore[no-any-return]


def record_sends(admin: KafkaAdmin) -> list[tuple[int, Any]]:
    """Every (broker, request) the admin sends, in order (returned, filled as it goes)."""
    sent: list[tuple[int, Any]] = []
    original: Callable[..., Awaitable[Any]] = admin.client.send

    async def send(node_id: int, request: Any, *args: Any, **kwargs: Any) -> Any:
        sent.append((node_id, request))
        return await original(node_id, request, *args, **kwargs)

    admin.client.send = send  # type: ignore[method-assign]
    return sent


def record_written(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The type of every request any connection writes, in order (returned, filled as it
    goes): what a whole command sends, connections it opens itself included."""
    written: list[str] = []
    original = aiokafka.conn.AIOKafkaConnection.send

    def send(conn: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
        written.append(type(request).__name__)
        return original(conn, request, *args, **kwargs)

    monkeypatch.setattr(aiokafka.conn.AIOKafkaConnection, "send", send)
    return written
