"""A real local Kafka cluster: KRaft (one controller + brokers) or ZooKeeper mode, of any
Kafka version from 2.1 to 4.4 (versions.py says what differs; KRaft 4.4 and ZooKeeper-mode 3.9
by default).

State lives in `<root>/cluster.json` (mode 0600: a secured cluster's passwords are in it), so
one command can start the cluster and later ones (status, stop-broker, down) find it again.
"Up" is decided by polling, never by sleeping a fixed time: every broker must answer a
Metadata request listing every running broker, and on a secured cluster (security.py) every
broker must enforce the roles' ACLs.
"""

from __future__ import annotations

import base64
import concurrent.futures
import json
import os
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..admin.model import ConnectionSettings
from ..paths import user_path
from . import class_archive, kerberos, node, oauthbearer, probe, props, storage_format
from . import security as security_module
from .jars import KafkaJars, ensure_kafka
from .kerberos import KerberosSetupError, KerberosState
from .security import Security, SecurityState
from .versions import Mode, Release, VersionError, choose, release

__all__ = [
    "ClusterError",
    "ClusterState",
    "DevCluster",
    "Mode",
    "NodeState",
    "default_root",
    "write_class_archives",
]


def _heap_mb(variable: str, default: int) -> int:
    """Heap sizes may be raised (many topics) or lowered through the environment."""
    return int(os.environ.get(variable, default))


class ClusterError(RuntimeError):
    """The dev cluster could not do what was asked; the message says why."""


@dataclass
class NodeState:
    name: str
    port: int
    id: int | None = None
    rack: str | None = None
    pid: int | None = None


@dataclass
class ClusterState:
    mode: Mode
    version: str
    cluster_id: str
    brokers: list[NodeState]
    controller: NodeState | None = None
    zookeeper: NodeState | None = None
    jars_downloaded: bool = False
    timings: dict[str, float] = field(default_factory=dict)
    security: SecurityState | None = None
    kerberos: KerberosState | None = None

    @property
    def security_name(self) -> Security:
        if self.kerberos:
            return "sasl_gssapi"
        if self.security is None:
            return "plaintext"
        return "sasl_oauthbearer" if self.security.oidc is not None else "sasl_ssl"

    @property
    def release(self) -> Release:
        return release(self.version)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ClusterState:
        def opt(value: dict[str, Any] | None) -> NodeState | None:
            return NodeState(**value) if value else None

        return cls(
            mode=data["mode"],
            version=data["version"],
            cluster_id=data["cluster_id"],
            brokers=[NodeState(**b) for b in data["brokers"]],
            controller=opt(data.get("controller")),
            zookeeper=opt(data.get("zookeeper")),
            jars_downloaded=data.get("jars_downloaded", False),
            timings=data.get("timings", {}),
            security=SecurityState(**data["security"]) if data.get("security") else None,
            kerberos=KerberosState(**data["kerberos"]) if data.get("kerberos") else None,
        )


def default_root() -> Path:
    return user_path("KAFKA_TUI_DEVCLUSTER_DIR", "XDG_STATE_HOME", ".local/state", "devcluster")


def _kafka_cluster_id() -> str:
    # Kafka's Uuid.toString(): URL-safe base64 without padding; never starting with '-',
    # which the storage tool would read as a flag.
    while True:
        text = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not text.startswith("-"):
            return text


def _wait_for(
    what: str, check: Callable[[], bool], timeout: float, on_fail: Callable[[], str]
) -> None:
    deadline = time.monotonic() + timeout
    delay = 0.1
    while not check():
        if time.monotonic() > deadline:
            raise ClusterError(f"{what} within {timeout:.0f}s.\n{on_fail()}")
        time.sleep(delay)
        delay = min(delay * 1.5, 1.0)


class DevCluster:
    def __init__(self, root: Path | None = None, cache: Path | None = None) -> None:
        self.root = (root or default_root()).resolve()
        self.cache = cache
        self._state_file = self.root / "cluster.json"

    # -- state -----------------------------------------------------------------------------

    def load(self) -> ClusterState | None:
        if not self._state_file.exists():
            return None
        return ClusterState.from_json(json.loads(self._state_file.read_text()))

    def _save(self, state: ClusterState) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = self._state_file.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(json.dumps(asdict(state), indent=2))
        tmp.replace(self._state_file)

    def _require(self) -> ClusterState:
        state = self.load()
        if state is None:
            raise ClusterError(f"no dev cluster in {self.root}; run `kafka-tui dev-cluster up`")
        return state

    def _jars(self, state: ClusterState) -> KafkaJars:
        return ensure_kafka(state.version, self.cache)

    def _dir(self, n: NodeState) -> Path:
        return self.root / n.name

    def _log(self, n: NodeState) -> Path:
        return self._dir(n) / "node.log"

    def running(self, n: NodeState) -> bool:
        return node.is_running(n.pid, self.root, n.name)

    # -- up / down -------------------------------------------------------------------------

    def up(
        self,
        mode: Mode | None = None,
        brokers: int = 3,
        timeout: float = 180.0,
        security: Security = "plaintext",
        kafka_version: str | None = None,
        token_lifetime_s: int = oauthbearer.DEFAULT_TOKEN_LIFETIME_S,
    ) -> ClusterState:
        """Start the cluster, or reuse the one in `root` when it is what was asked. Without
        `mode`, KRaft where `kafka_version` has it; without `kafka_version`, the mode's
        default (versions.KRAFT_VERSION / ZK_VERSION, or the running cluster's)."""
        started = time.monotonic()
        try:
            mode, found = choose(mode, kafka_version)
            problem = found.security_problem(mode, security)
            if problem is None and security == "sasl_oauthbearer" and not found.at_least((3, 9, 0)):
                problem = "--security sasl_oauthbearer needs Kafka 3.9 or newer"
        except VersionError as exc:
            raise ClusterError(str(exc)) from None
        if problem is not None:
            raise ClusterError(problem)
        state = self.load()
        if state is not None and (
            state.mode != mode
            or len(state.brokers) != brokers
            or state.security_name != security
            or (kafka_version is not None and state.version != kafka_version)
        ):
            raise ClusterError(
                f"a {state.security_name} {state.mode} cluster of Kafka {state.version} with "
                f"{len(state.brokers)} broker(s) is already in {self.root}; run "
                "`kafka-tui dev-cluster down` first"
            )
        if state is None:
            state = self._fresh_state(mode, brokers, security, found.version)
            if security == "sasl_oauthbearer":
                assert state.security is not None
                port = probe.free_ports(1)[0]
                oauthbearer.prepare(self.root, state.security, port, token_lifetime_s)
        jars = self._jars(state)
        state.jars_downloaded = jars.downloaded
        if jars.fetch_seconds is not None:
            state.timings["fetch_seconds"] = jars.fetch_seconds
        self._save(state)
        if state.kerberos is not None:
            self._start_kdc(state, timeout)
        self._start_quorum(state, jars, timeout)
        if state.security is not None and state.security.oidc is not None:
            self._start_issuer(state.security, timeout)
        if state.mode == "zk" and state.security is not None:
            assert state.zookeeper is not None
            probe.write_zk_scram_users(state.zookeeper.port, state.security.users)
        for b in state.brokers:
            if not self.running(b):
                b.pid = self._spawn_broker(state, b, jars)
        self._save(state)
        for b in state.brokers:
            self._wait_broker_serving(state, b, timeout)
        if state.security is not None or state.kerberos is not None:
            self._grant_roles(state, timeout)
        state.timings["up_seconds"] = round(time.monotonic() - started, 2)
        self._save(state)
        return state

    def _fresh_state(
        self, mode: Mode, count: int, security: Security, version: str
    ) -> ClusterState:
        if count < 1:
            raise ClusterError("a cluster needs at least one broker")
        shutil.rmtree(self.root, ignore_errors=True)
        # SCRAM users and TLS: sasl_ssl, and sasl_oauthbearer (OAUTHBEARER beside SCRAM).
        secured = SecurityState.generate() if security in ("sasl_ssl", "sasl_oauthbearer") else None
        if secured is not None:
            security_module.write_tls_material(self.root)
        ports = probe.free_ports(count + 2)
        kerberized = KerberosState(ports[-1]) if security == "sasl_gssapi" else None
        if kerberized is not None:
            try:
                kerberos.create_kdc(self.root, kerberized)
            except KerberosSetupError as exc:
                raise ClusterError(str(exc)) from None
        brokers = [
            NodeState(name=f"broker-{i}", id=i, rack=props.rack_for(i), port=ports[i])
            for i in range(1, count + 1)
        ]
        if mode == "kraft":
            quorum = NodeState(name="controller", id=props.CONTROLLER_ID, port=ports[0])
            return ClusterState(
                mode,
                version,
                _kafka_cluster_id(),
                brokers,
                controller=quorum,
                security=secured,
                kerberos=kerberized,
            )
        return ClusterState(
            mode,
            version,
            "",
            brokers,
            zookeeper=NodeState("zookeeper", ports[0]),
            security=secured,
            kerberos=kerberized,
        )

    def _start_kdc(self, state: ClusterState, timeout: float) -> None:
        assert state.kerberos is not None
        try:
            kerberos.start_kdc(self.root, state.kerberos, timeout)
        except KerberosSetupError as exc:
            raise ClusterError(str(exc)) from None
        self._save(state)

    def _secured_props(self, state: ClusterState, n: NodeState) -> dict[str, str | int] | None:
        kraft = state.mode == "kraft"
        if state.kerberos is not None:
            if n is state.controller:
                return kerberos.authorizer_properties(kraft=kraft)
            return kerberos.broker_properties(
                state.kerberos, self.root, broker=n.name, port=n.port, kraft=kraft
            )
        if state.security is None:
            return None
        if n is state.controller:
            return security_module.authorizer_properties(kraft=kraft)
        secured = security_module.broker_properties(
            state.security, self.root, port=n.port, kraft=kraft
        )
        if state.security.oidc is not None:
            secured |= oauthbearer.broker_properties(state.security, self.root)
        return secured

    def _config(self, state: ClusterState, n: NodeState) -> Path:
        d = self._dir(n)
        path = d / "server.properties"
        extra = self._secured_props(state, n)
        if state.mode == "kraft":
            assert state.controller is not None
            if n is state.controller:
                return props.kraft_controller(path, port=n.port, data_dir=d / "data", extra=extra)
            assert n.id is not None
            return props.kraft_broker(
                path,
                broker_id=n.id,
                port=n.port,
                controller_port=state.controller.port,
                data_dir=d / "data",
                brokers=len(state.brokers),
                found=state.release,
                rack=n.rack,
                extra=extra,
            )
        assert state.zookeeper is not None and n.id is not None
        return props.zk_broker(
            path,
            broker_id=n.id,
            port=n.port,
            zk_port=state.zookeeper.port,
            data_dir=d / "data",
            brokers=len(state.brokers),
            found=state.release,
            rack=n.rack,
            extra=extra,
        )

    def _logging_flags(self, state: ClusterState, n: NodeState) -> list[str]:
        if state.release.logging == "log4j2":
            return [
                f"-Dlog4j2.configurationFile={props.log4j2(self._dir(n) / 'log4j2.properties')}"
            ]
        return [f"-Dlog4j.configuration=file:{props.log4j1(self._dir(n) / 'log4j.properties')}"]

    def _format_kraft_storage(self, state: ClusterState, jars: KafkaJars) -> None:
        assert state.controller is not None
        nodes: list[NodeState] = []
        per_node: list[list[str]] = []
        for n in [state.controller, *state.brokers]:
            if (self._dir(n) / "data" / "meta.properties").exists():
                continue
            args = ["format", "-t", state.cluster_id, "-c", str(self._config(state, n))]
            if n is state.controller and state.security is not None:
                # Only the controller's bootstrap metadata counts; it carries the users.
                args += security_module.storage_scram_args(state.security)
            nodes.append(n)
            per_node.append(args)
        if not nodes:
            return
        jvm = [
            node.java_bin(),
            "-Xmx128m",
            "-XX:TieredStopAtLevel=1",
            *class_archive.jvm_flags(jars.classpath, "storage"),
        ]
        # While archives are written, one JVM per node: the archive's classpath must be
        # Kafka's alone (storage_format.py).
        launcher = None
        if storage_format.usable(state.release) and not class_archive.is_dumping():
            launcher = storage_format.launcher()
        if launcher is not None:
            cmd = [*jvm, "-cp", f"{jars.classpath}{os.pathsep}{launcher}",
                   *self._logging_flags(state, nodes[0]), storage_format.CLASS,
                   *storage_format.arguments(per_node)]  # fmt: skip
            done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  timeout=120)  # fmt: skip
            if done.returncode != 0:
                out = done.stdout.decode(errors="replace")
                index = storage_format.failed_node(out)
                name = nodes[index].name if index is not None else "the nodes"
                raise ClusterError(f"formatting {name}'s storage failed:\n{out[-2000:]}")
            return
        pending = []
        for n, args in zip(nodes, per_node, strict=True):
            cmd = [*jvm, "-cp", jars.classpath, *self._logging_flags(state, n),
                   "kafka.tools.StorageTool", *args]  # fmt: skip
            pending.append(
                (n, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT))
            )
        for n, proc in pending:
            written, _ = proc.communicate(timeout=120)
            if proc.returncode != 0:
                text = written.decode(errors="replace")
                raise ClusterError(f"formatting {n.name}'s storage failed:\n{text[-2000:]}")

    def _start_quorum(self, state: ClusterState, jars: KafkaJars, timeout: float) -> None:
        if state.mode == "kraft":
            assert state.controller is not None
            self._format_kraft_storage(state, jars)
            quorum = state.controller
            args = [str(self._config(state, quorum))]
            main, role = "kafka.Kafka", "controller"
        else:
            assert state.zookeeper is not None
            quorum = state.zookeeper
            zk_cfg = props.zookeeper(
                self._dir(quorum) / "zookeeper.properties",
                port=quorum.port,
                data_dir=self._dir(quorum) / "data",
            )
            args = [str(zk_cfg)]
            main, role = "org.apache.zookeeper.server.quorum.QuorumPeerMain", "zookeeper"
        if not self.running(quorum):
            quorum.pid = node.spawn(
                cluster_dir=self.root,
                name=quorum.name,
                classpath=jars.classpath,
                main_class=main,
                args=args,
                heap_mb=_heap_mb("KAFKA_TUI_CONTROLLER_HEAP_MB", 160),
                log=self._log(quorum),
                extra_jvm=[
                    *self._logging_flags(state, quorum),
                    *class_archive.jvm_flags(jars.classpath, role),
                ],
            )
            self._save(state)
        ready = (
            (lambda: probe.port_open(quorum.port))
            if state.mode == "kraft"
            else (lambda: probe.zookeeper_ok(quorum.port))
        )
        self._wait_alive_and(quorum, f"{quorum.name} did not start listening", ready, timeout)

    def _spawn_broker(self, state: ClusterState, b: NodeState, jars: KafkaJars) -> int:
        return node.spawn(
            cluster_dir=self.root,
            name=b.name,
            classpath=jars.classpath,
            main_class="kafka.Kafka",
            args=[str(self._config(state, b))],
            heap_mb=_heap_mb("KAFKA_TUI_BROKER_HEAP_MB", 384),
            log=self._log(b),
            extra_jvm=[
                *self._logging_flags(state, b),
                *class_archive.jvm_flags(jars.classpath, "broker"),
                *(kerberos.jvm_flags(self.root) if state.kerberos else []),
                *oauthbearer.jvm_flags(state.security),
            ],
        )

    def _start_issuer(self, security: SecurityState, timeout: float) -> None:
        """The OIDC issuer of a sasl_oauthbearer cluster, before the brokers need its JWKS."""
        log = self.root / "oidc" / "issuer.log"
        oauthbearer.start_issuer(self.root, security, log)
        assert security.oidc is not None
        port = int(security.oidc["port"])

        def serving() -> bool:
            if not oauthbearer.running(self.root, security):
                tail = node.log_tail(log)
                raise ClusterError(f"the OIDC issuer exited; last lines of {log}:\n{tail}")
            return probe.port_open(port)

        _wait_for("the OIDC issuer did not start", serving, timeout, lambda: node.log_tail(log))

    def _wait_alive_and(
        self, n: NodeState, what: str, check: Callable[[], bool], timeout: float
    ) -> None:
        def alive_and_ready() -> bool:
            if not self.running(n):
                raise ClusterError(
                    f"{n.name} exited during start-up; last lines of {self._log(n)}:\n"
                    f"{node.log_tail(self._log(n))}"
                )
            return check()

        _wait_for(
            what,
            alive_and_ready,
            timeout,
            lambda: f"last lines of {self._log(n)}:\n{node.log_tail(self._log(n))}",
        )

    def _live_ids(self, state: ClusterState) -> set[int]:
        return {b.id for b in state.brokers if b.id is not None and self.running(b)}

    def _auth(
        self, state: ClusterState, user: str = security_module.ADMIN
    ) -> probe.ClientAuth | None:
        if state.security is None:
            return None
        return probe.ClientAuth(
            str(security_module.tls_files(self.root).ca), user, state.security.users[user]
        )

    def _grant_roles(self, state: ClusterState, timeout: float) -> None:
        """Create the roles' ACLs, then wait until every running broker enforces them: each
        learns of them on its own (KRaft: from the metadata log; ZooKeeper: a change znode).
        A Kerberized cluster is asked on its PLAINTEXT listener (no `auth`)."""
        auth = self._auth(state)
        running = [b for b in state.brokers if self.running(b)]
        wanted = probe.wanted_acls(security_module.ROLE_ACLS)
        try:
            probe.create_acls(running[0].port, auth, security_module.ROLE_ACLS)
        except probe.ProbeError as exc:
            raise ClusterError(f"the dev users' ACLs could not be created: {exc}") from None
        for b in running:
            port = b.port
            self._wait_alive_and(
                b,
                f"{b.name} did not enforce the dev users' ACLs",
                lambda: wanted <= probe.acls_seen_by(port, auth),  # noqa: B023 (used at once)
                timeout,
            )

    def _wait_broker_serving(self, state: ClusterState, b: NodeState, timeout: float) -> None:
        auth = self._auth(state)

        def serving() -> bool:
            seen = probe.brokers_seen_by(b.port, auth)
            return seen is not None and self._live_ids(state) <= seen

        self._wait_alive_and(
            b, f"{b.name} was not registered and serving metadata", serving, timeout
        )

    def down(self, timeout: float = 60.0, *, kill: bool = False) -> bool:
        """Stop every node and delete the cluster's folder; False when there was none.
        `kill`: SIGKILL instead of Kafka's controlled shutdown, for a cluster whose data goes
        with its folder (the tests' session clusters: a controlled shutdown of 3 brokers took
        up to 30 s of a CI worker's end)."""
        state = self.load()
        if state is None:
            return False
        # Brokers shut down in parallel: a controlled shutdown of each takes seconds.
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(len(state.brokers), 1)) as pool:
            stops = [
                pool.submit(node.stop, b.pid, self.root, b.name, kill=kill, timeout=timeout)
                for b in state.brokers
            ]
            for stop in stops:
                stop.result()
        for quorum in (state.controller, state.zookeeper):
            if quorum is not None:
                node.stop(quorum.pid, self.root, quorum.name, kill=kill, timeout=timeout)
        if state.kerberos is not None:
            kerberos.stop_kdc(self.root, state.kerberos)
        oauthbearer.stop_issuer(self.root, state.security)
        shutil.rmtree(self.root, ignore_errors=True)
        return True

    # -- one broker at a time ----------------------------------------------------------------

    def _broker(self, state: ClusterState, broker_id: int) -> NodeState:
        for b in state.brokers:
            if b.id == broker_id:
                return b
        ids = ", ".join(str(b.id) for b in state.brokers)
        raise ClusterError(f"no broker {broker_id} in this cluster (brokers: {ids})")

    def stop_broker(self, broker_id: int, *, kill: bool = False, timeout: float = 120.0) -> None:
        """Stop one broker, then wait until the others no longer list it in their metadata."""
        state = self._require()
        b = self._broker(state, broker_id)
        node.stop(b.pid, self.root, b.name, kill=kill, timeout=timeout)
        others = [o for o in state.brokers if o is not b and self.running(o)]
        auth = self._auth(state)

        def gone() -> bool:
            return all(
                broker_id not in (probe.brokers_seen_by(o.port, auth) or {broker_id})
                for o in others
            )

        _wait_for(f"broker {broker_id} still listed in metadata", gone, timeout, lambda: "")

    def start_broker(self, broker_id: int, timeout: float = 180.0) -> None:
        state = self._require()
        b = self._broker(state, broker_id)
        if not self.running(b):
            b.pid = self._spawn_broker(state, b, self._jars(state))
            self._save(state)
        for other in state.brokers:
            if self.running(other):
                self._wait_broker_serving(state, other, timeout)

    # -- growing and shrinking -------------------------------------------------------------

    def add_broker(self, rack: str | None = None, timeout: float = 180.0) -> NodeState:
        """Start one more broker (id = highest id + 1, rack continuing rack-a/b/c unless
        given) and wait until it and every running broker list it in their metadata."""
        state = self._require()
        quorum = state.controller or state.zookeeper
        if quorum is None or not self.running(quorum):
            raise ClusterError(f"the cluster in {self.root} is not up; run `dev-cluster up` first")
        new_id = max((b.id for b in state.brokers if b.id is not None), default=0) + 1
        b = NodeState(
            name=f"broker-{new_id}",
            id=new_id,
            rack=rack or props.rack_for(new_id),
            port=self._unused_port(state),
        )
        # A folder left by an earlier broker with this id would carry its old identity.
        shutil.rmtree(self._dir(b), ignore_errors=True)
        state.brokers.append(b)
        self._save(state)
        jars = self._jars(state)
        if state.mode == "kraft":
            self._format_kraft_storage(state, jars)
        b.pid = self._spawn_broker(state, b, jars)
        self._save(state)
        for other in state.brokers:
            if self.running(other):
                self._wait_broker_serving(state, other, timeout)
        return b

    def _unused_port(self, state: ClusterState) -> int:
        """A free port no node of the cluster uses (a stopped broker's port is free to the OS
        but still that broker's)."""
        taken = {n.port for n in [*state.brokers, state.controller, state.zookeeper] if n}
        while True:
            port = probe.free_ports(1)[0]
            if port not in taken:
                return port

    def remove_broker(self, broker_id: int, timeout: float = 120.0) -> None:
        """Stop one broker cleanly and delete its folder and state entry. Does not talk to
        Kafka: a KRaft broker stays registered until unregistered (UnregisterBroker)."""
        state = self._require()
        b = self._broker(state, broker_id)
        if len(state.brokers) == 1:
            raise ClusterError(f"broker {broker_id} is the last broker; use `down` instead")
        self.stop_broker(broker_id, timeout=timeout)
        shutil.rmtree(self._dir(b), ignore_errors=True)
        state.brokers = [o for o in state.brokers if o.id != broker_id]
        self._save(state)

    # -- reporting -----------------------------------------------------------------------------

    def bootstrap_servers(self, state: ClusterState | None = None) -> str:
        state = state or self._require()
        if state.kerberos is not None:
            return kerberos.bootstrap_servers(state.kerberos, [b.name for b in state.brokers])
        return ",".join(f"127.0.0.1:{b.port}" for b in state.brokers)

    def status(self) -> dict[str, Any]:
        state = self._require()

        def describe(n: NodeState) -> dict[str, Any]:
            running = self.running(n)
            return {
                "id": n.id,
                "rack": n.rack,
                "port": n.port,
                "running": running,
                "pid": n.pid if running else None,
                "rss_bytes": node.rss_bytes(n.pid) if running else None,
                "log": str(self._log(n)),
            }

        quorum = state.controller or state.zookeeper
        assert quorum is not None
        secured = security_module.status_entry(state.security, self.root)
        if state.security is not None and state.security.oidc is not None:
            secured["security"] |= oauthbearer.status_entry(state.security)
        secured |= kerberos.status_entry(state.kerberos, self.root)
        return {
            "mode": state.mode,
            "kafka_version": state.version,
            "dir": str(self.root),
            "cluster_id": state.cluster_id or None,
            "bootstrap_servers": self.bootstrap_servers(state),
            "zookeeper": f"127.0.0.1:{state.zookeeper.port}" if state.zookeeper else None,
            "controller": describe(quorum) | {"role": quorum.name},
            "brokers": [describe(b) for b in state.brokers],
            "jars_downloaded": state.jars_downloaded,
            "timings": state.timings,
        } | secured

    def connection_settings(self, user: str = security_module.ADMIN) -> ConnectionSettings:
        """How kafka-tui's admin client reaches this cluster (as `user` when it is secured)."""
        state = self._require()
        servers = self.bootstrap_servers(state)
        if state.kerberos is not None:
            if user not in security_module.USERS:
                raise ClusterError(f"no user {user!r} on this cluster")
            return kerberos.connection_settings(state.kerberos, self.root, servers, user)
        if state.security is None:
            return ConnectionSettings(servers)
        if user not in state.security.users:
            raise ClusterError(
                f"no user {user!r} on this cluster (users: {', '.join(state.security.users)})"
            )
        if state.security.oidc is not None:
            return oauthbearer.connection_settings(state.security, self.root, servers, user)
        return security_module.connection_settings(state.security, self.root, servers, user)


def write_class_archives(version: str, mode: Mode, workdir: Path) -> bool:
    """Write the class-data-sharing archives of `version`'s JVMs in `mode` (class_archive.py)
    by starting a one-broker cluster in `workdir` once; False when they already exist."""
    jars = ensure_kafka(version)
    roles = ("controller", "broker", "storage") if mode == "kraft" else ("zookeeper", "broker")
    if not class_archive.missing(jars.classpath, roles):
        return False
    with class_archive.dumping():
        dev = DevCluster(workdir)
        try:
            dev.up(mode, brokers=1, kafka_version=version)
        finally:
            dev.down()
    return True
