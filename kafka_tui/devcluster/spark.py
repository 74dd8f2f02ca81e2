"""A real local Spark standalone cluster from the jars the pyspark wheel ships (no download):
one master, N workers and optionally a Spark Connect server, all on loopback with free ports.

State lives in `<root>/spark.json` (the pids, ports and the Python the Connect server gives its
workers), so `status` and `down` find the processes again; each process carries a marker
system property (`-Dkafka.tui.node=<root>:<name>`) that guards against pid reuse. "Up" is
decided by polling: the master's `/json/` must list every worker ALIVE, and the Connect
server must accept connections on its port.

Every process runs in its own session (process group), so `down` ends the JVM and the shell
scripts in front of it together. Heaps are small: the daemons get 256 MB, the Connect server's
driver 768 MB; executors get what the application asks (`spark.executor.memory`, 1 GB by
default) out of each worker's offer (`--worker-memory`).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..paths import user_path
from . import node, probe

DAEMON_MEMORY = "256m"
CONNECT_DRIVER_MEMORY = "768m"
MASTER_CLASS = "org.apache.spark.deploy.master.Master"
WORKER_CLASS = "org.apache.spark.deploy.worker.Worker"


class SparkClusterError(RuntimeError):
    """The dev Spark cluster could not do what was asked; the message says why."""


@dataclass
class SparkNode:
    name: str
    port: int
    ui_port: int | None = None
    pid: int | None = None


@dataclass
class SparkClusterState:
    spark_home: str
    master: SparkNode
    workers: list[SparkNode]
    connect: SparkNode | None = None
    cores_per_worker: int = 1
    worker_memory: str = "1g"
    python: str = ""
    timings: dict[str, float] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SparkClusterState:
        return cls(
            spark_home=data["spark_home"],
            master=SparkNode(**data["master"]),
            workers=[SparkNode(**w) for w in data["workers"]],
            connect=SparkNode(**data["connect"]) if data.get("connect") else None,
            cores_per_worker=data.get("cores_per_worker", 1),
            worker_memory=data.get("worker_memory", "1g"),
            python=data.get("python", ""),
            timings=data.get("timings", {}),
        )


def default_root() -> Path:
    return user_path(
        "KAFKA_TUI_SPARK_CLUSTER_DIR", "XDG_STATE_HOME", ".local/state", "spark-cluster"
    )


def spark_home() -> Path:
    """The pyspark package's own folder: it holds bin/, sbin/ and jars/ (found without
    importing pyspark, which is heavy)."""
    spec = importlib.util.find_spec("pyspark")
    if spec is None or not spec.submodule_search_locations:
        raise SparkClusterError("pyspark is not installed: pip install 'kafka-tui[spark]'")
    home = Path(next(iter(spec.submodule_search_locations)))
    if not (home / "bin" / "spark-class").exists():
        raise SparkClusterError(f"{home} has no bin/spark-class: not a full pyspark wheel")
    return home


def master_json(ui_port: int, timeout: float = 2.0) -> dict[str, Any] | None:
    """The master's (or a worker's) `/json/` document; None while it does not answer."""
    try:
        url = f"http://127.0.0.1:{ui_port}/json/"
        with urllib.request.urlopen(url, timeout=timeout) as answer:
            data: dict[str, Any] = json.loads(answer.read())
            return data
    except (OSError, urllib.error.URLError, ValueError):
        return None


def _wait_for(
    what: str, check: Callable[[], bool], alive: Callable[[], bool], timeout: float, log: Path
) -> None:
    deadline = time.monotonic() + timeout
    delay = 0.1
    while not check():
        if not alive():
            raise SparkClusterError(f"{what}: it exited; the tail of {log}:\n{node.log_tail(log)}")
        if time.monotonic() > deadline:
            raise SparkClusterError(
                f"{what} within {timeout:.0f}s; the tail of {log}:\n{node.log_tail(log)}"
            )
        time.sleep(delay)
        delay = min(delay * 1.5, 1.0)


class SparkDevCluster:
    def __init__(self, root: Path | None = None) -> None:
        self.root = (root or default_root()).resolve()
        self._state_file = self.root / "spark.json"

    # -- state -----------------------------------------------------------------------------

    def load(self) -> SparkClusterState | None:
        if not self._state_file.exists():
            return None
        return SparkClusterState.from_json(json.loads(self._state_file.read_text()))

    def _save(self, state: SparkClusterState) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = self._state_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(state), indent=2))
        tmp.replace(self._state_file)

    def _log(self, n: SparkNode) -> Path:
        return self.root / n.name / "node.log"

    def _marker(self, n: SparkNode) -> str:
        return node.marker(self.root, n.name)

    def running(self, n: SparkNode) -> bool:
        """The process is alive and still ours: its environment carries our marker (in
        SPARK_DAEMON_JAVA_OPTS, so also while bin/spark-class, a shell, has not yet exec'd
        the JVM, and in the Connect server's spark-daemon.sh shell)."""
        if not n.pid or _reaped(n.pid):
            return False
        try:
            environ = Path(f"/proc/{n.pid}/environ").read_bytes()
            state = Path(f"/proc/{n.pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return False
        # While a process execs (the launch scripts exec one another, then the JVM), its
        # environ reads empty for a moment: measured here, 6% of reads during an exec chain.
        # Read as "not ours", the wait for the Connect server reported it exited, with an
        # empty log, on a loaded machine.
        return state != "Z" and (not environ or self._marker(n).encode() in environ)

    # -- up / down -------------------------------------------------------------------------

    def up(
        self,
        workers: int = 2,
        *,
        connect: bool = False,
        cores: int | None = None,
        worker_memory: str = "1g",
        timeout: float = 120.0,
    ) -> SparkClusterState:
        """Start (or reuse) the master and `workers` workers, and the Connect server when
        `connect`. Workers offer `cores` each (default: this machine's cores, so two
        applications, e.g. the Connect server and a `spark://` job, can run side by side)."""
        started = time.monotonic()
        if workers < 1:
            raise SparkClusterError("a Spark cluster needs at least one worker")
        state = self.load()
        if state is not None and len(state.workers) != workers:
            raise SparkClusterError(
                f"a Spark cluster with {len(state.workers)} worker(s) is already in {self.root}; "
                "run `kafka-tui dev-cluster spark down` first"
            )
        if state is None:
            state = self._fresh_state(workers, cores or os.cpu_count() or 1, worker_memory)
        self._save(state)
        home = Path(state.spark_home)
        if not self.running(state.master):
            state.master.pid = self._spawn(
                state,
                state.master,
                [
                    str(home / "bin" / "spark-class"),
                    MASTER_CLASS,
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(state.master.port),
                    "--webui-port",
                    str(state.master.ui_port),
                ],
            )
            self._save(state)
        master = self.master_url(state)
        for w in state.workers:
            if not self.running(w):
                w.pid = self._spawn(
                    state,
                    w,
                    [
                        str(home / "bin" / "spark-class"),
                        WORKER_CLASS,
                        "--host",
                        "127.0.0.1",
                        "--port",
                        str(w.port),
                        "--webui-port",
                        str(w.ui_port),
                        "--cores",
                        str(state.cores_per_worker),
                        "--memory",
                        state.worker_memory,
                        "--work-dir",
                        str(self.root / w.name / "work"),
                        master,
                    ],
                )
        self._save(state)
        _wait_for(
            f"the master did not list {workers} ALIVE worker(s)",
            lambda: len(self.alive_workers(state)) >= workers,
            lambda: all(self.running(n) for n in (state.master, *state.workers)),
            timeout,
            self._log(state.master),
        )
        if connect:
            self._start_connect(state, timeout)
        state.timings["up_seconds"] = round(time.monotonic() - started, 2)
        self._save(state)
        return state

    def _fresh_state(self, workers: int, cores: int, memory: str) -> SparkClusterState:
        shutil.rmtree(self.root, ignore_errors=True)
        ports = probe.free_ports(2 + 2 * workers)
        return SparkClusterState(
            spark_home=str(spark_home()),
            master=SparkNode("master", ports[0], ports[1]),
            workers=[
                SparkNode(f"worker-{i}", ports[2 + 2 * (i - 1)], ports[3 + 2 * (i - 1)])
                for i in range(1, workers + 1)
            ],
            cores_per_worker=cores,
            worker_memory=memory,
            python=sys.executable,
        )

    def _start_connect(self, state: SparkClusterState, timeout: float) -> None:
        if state.connect is None:
            (port,) = probe.free_ports(1)
            state.connect = SparkNode("connect", port)
        server = state.connect
        if not self.running(server):
            home = Path(state.spark_home)
            server.pid = self._spawn(
                state,
                server,
                [
                    str(home / "sbin" / "start-connect-server.sh"),
                    "--master",
                    self.master_url(state),
                    "--conf",
                    f"spark.connect.grpc.binding.port={server.port}",
                    "--conf",
                    "spark.connect.grpc.binding.address=127.0.0.1",
                    "--conf",
                    "spark.driver.host=127.0.0.1",
                    "--conf",
                    "spark.ui.enabled=false",
                    # One core on each worker, so a `spark://` application started beside
                    # the server finds cores left on every worker.
                    "--conf",
                    "spark.executor.cores=1",
                    "--conf",
                    f"spark.cores.max={len(state.workers)}",
                    "--conf",
                    "spark.executor.memory=512m",
                ],
                # The server's Python workers run PYSPARK_PYTHON (its own environment's, not
                # a client's: SparkConnectPlanner.pythonExec), so this venv's Python.
                {
                    "SPARK_NO_DAEMONIZE": "1",
                    "PYSPARK_PYTHON": state.python or sys.executable,
                    # spark-submit sizes the Connect server's heap like a daemon's (as the
                    # Thrift server's), from SPARK_DAEMON_MEMORY, not spark.driver.memory.
                    "SPARK_DAEMON_MEMORY": CONNECT_DRIVER_MEMORY,
                },
            )
            self._save(state)
        _wait_for(
            "the Spark Connect server did not accept connections",
            lambda: probe.port_open(server.port),
            lambda: self.running(server),
            timeout,
            self._log(server),
        )

    def _spawn(
        self,
        state: SparkClusterState,
        n: SparkNode,
        command: list[str],
        extra_env: Mapping[str, str] | None = None,
    ) -> int:
        folder = self.root / n.name
        folder.mkdir(parents=True, exist_ok=True)
        # The caller's Spark settings still apply: its spark-defaults.conf (the node's own
        # folder is its SPARK_CONF_DIR) and its daemons' Java options.
        caller_conf = os.environ.get("SPARK_CONF_DIR")
        if caller_conf and (Path(caller_conf) / "spark-defaults.conf").is_file():
            shutil.copyfile(
                Path(caller_conf) / "spark-defaults.conf", folder / "spark-defaults.conf"
            )
        daemon_opts = [
            self._marker(n),
            "-XX:+UseSerialGC",
            os.environ.get("SPARK_DAEMON_JAVA_OPTS", ""),
        ]
        env = {
            **os.environ,
            # Set, so bin/find-spark-home never runs a `python3` from PATH to find it.
            "SPARK_HOME": state.spark_home,
            "SPARK_CONF_DIR": str(folder),
            "SPARK_LOG_DIR": str(folder),
            "SPARK_PID_DIR": str(folder),
            "SPARK_LOCAL_DIRS": str(folder / "tmp"),
            "SPARK_DAEMON_MEMORY": DAEMON_MEMORY,
            "SPARK_DAEMON_JAVA_OPTS": " ".join(o for o in daemon_opts if o),
            "SPARK_LOCAL_IP": "127.0.0.1",
            **(extra_env or {}),
        }
        log = self._log(n)
        with log.open("ab") as out:
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                cwd=folder,
                env=env,
            )
        return process.pid

    def down(self, timeout: float = 30.0) -> bool:
        """Stop every process and delete the cluster's folder; False when there was none."""
        state = self.load()
        if state is None:
            return False
        nodes = [state.connect] if state.connect else []
        for n in [*nodes, *state.workers, state.master]:
            self._stop(n, timeout)
        shutil.rmtree(self.root, ignore_errors=True)
        return True

    def _stop(self, n: SparkNode, timeout: float) -> None:
        """SIGTERM to the node's process group, SIGKILL if it outlasts `timeout`."""
        if not self.running(n):
            return
        assert n.pid is not None
        sig = signal.SIGTERM
        deadline = time.monotonic() + timeout
        with contextlib.suppress(ProcessLookupError):
            os.killpg(n.pid, sig)
        while self.running(n) or _group_alive(n.pid):
            if time.monotonic() > deadline:
                if sig == signal.SIGKILL:
                    raise SparkClusterError(f"{n.name} (pid {n.pid}) survived SIGKILL")
                sig = signal.SIGKILL
                deadline = time.monotonic() + 10
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(n.pid, sig)
            time.sleep(0.05)

    # -- reading ---------------------------------------------------------------------------

    @staticmethod
    def master_url(state: SparkClusterState) -> str:
        return f"spark://127.0.0.1:{state.master.port}"

    def alive_workers(self, state: SparkClusterState) -> list[dict[str, Any]]:
        found = master_json(state.master.ui_port or 0) or {}
        return [w for w in found.get("workers", []) if w.get("state") == "ALIVE"]

    def status(self) -> dict[str, Any]:
        state = self.load()
        if state is None:
            raise SparkClusterError(
                f"no Spark dev cluster in {self.root}; run `kafka-tui dev-cluster spark up`"
            )
        alive = {w.get("port"): w for w in self.alive_workers(state)}
        connect = state.connect if state.connect and self.running(state.connect) else None
        return {
            "master": self.master_url(state),
            "ui": f"http://127.0.0.1:{state.master.ui_port}",
            "connect": f"sc://127.0.0.1:{connect.port}" if connect else None,
            "workers": [
                {
                    "name": w.name,
                    "url": f"127.0.0.1:{w.port}",
                    "ui": f"http://127.0.0.1:{w.ui_port}",
                    "cores": state.cores_per_worker,
                    "memory": state.worker_memory,
                    "running": self.running(w),
                    "state": alive[w.port]["state"] if w.port in alive else "NOT REGISTERED",
                    "pid": w.pid,
                }
                for w in state.workers
            ],
            "master_running": self.running(state.master),
            "python": state.python,
            "spark_home": state.spark_home,
            "dir": str(self.root),
            "timings": state.timings,
        }


def _reaped(pid: int) -> bool:
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return False
    return done == pid


def _group_alive(pgid: int) -> bool:
    """Any live (non-zombie) process left in the process group `pgid`."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[2] == str(pgid) and fields[0] != "Z":
            return True
    return False
