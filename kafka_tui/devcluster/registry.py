"""A real Schema Registry beside a dev cluster: Apicurio Registry 2.6.13.Final as Apicurio
published it on Maven Central (io.apicurio:apicurio-registry-app, classifier `all`, a zip),
in-memory (H2), serving Confluent's API at /apis/ccompat/v7. Fetched once into the cache,
started on a port of its own; its pid and port are kept in `<cluster>/schema-registry.json`
so `status` shows its URL and `down` stops it."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from . import node, probe
from .cluster import ClusterError
from .jars import JarFetchError, cache_root

APICURIO_VERSION = "2.6.13.Final"
APICURIO_ARTIFACT = f"io.apicurio:apicurio-registry-app:{APICURIO_VERSION}:zip:all"
RUNNER = f"apicurio-registry-app-{APICURIO_VERSION}-runner.jar"
CCOMPAT_PATH = "/apis/ccompat/v7"
NAME = "schema-registry"
STATE_FILE = f"{NAME}.json"
HEAP_MB = 256
_COMPLETE_MARKER = ".complete"
# Quarkus' runner jar; its manifest's Class-Path names lib/*.jar beside it.
_MAIN_CLASS = "io.quarkus.runner.GeneratedMain"


@dataclass(frozen=True)
class RegistryState:
    pid: int
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{CCOMPAT_PATH}"


def ensure_apicurio(cache: Path | None = None, mvn: str = "mvn") -> Path:
    """The runner jar of Apicurio Registry, unpacked from Maven Central the first time only
    (a 142 MB zip; ~10 s here)."""
    home = (cache or cache_root()) / f"apicurio-registry-{APICURIO_VERSION}"
    runner = home / "app" / RUNNER
    if (home / _COMPLETE_MARKER).exists() and runner.is_file():
        return runner
    if shutil.which(mvn) is None:
        raise JarFetchError(
            f"Maven ({mvn!r}) is not on PATH; it is needed once to fetch Apicurio Registry"
        )
    home.mkdir(parents=True, exist_ok=True)
    staging = home / "app.partial"
    shutil.rmtree(staging, ignore_errors=True)
    proc = subprocess.run(
        [
            mvn,
            "-B",
            "-q",
            "dependency:unpack",
            f"-Dartifact={APICURIO_ARTIFACT}",
            f"-DoutputDirectory={staging}",
        ],
        cwd=home,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0 or not (staging / RUNNER).is_file():
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-20:])
        raise JarFetchError(f"Maven failed to fetch Apicurio Registry {APICURIO_VERSION}:\n{tail}")
    shutil.rmtree(home / "app", ignore_errors=True)
    staging.rename(home / "app")
    (home / _COMPLETE_MARKER).write_text(APICURIO_VERSION + "\n")
    return runner


def load(root: Path) -> RegistryState | None:
    try:
        data = json.loads((root / STATE_FILE).read_text())
        return RegistryState(int(data["pid"]), int(data["port"]))
    except (FileNotFoundError, ValueError, KeyError, TypeError):
        return None


def running(root: Path, state: RegistryState | None) -> bool:
    return state is not None and node.is_running(state.pid, root, NAME)


def serving(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/subjects", timeout=2) as answer:
            return bool(answer.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def up(root: Path, timeout: float = 120.0, cache: Path | None = None) -> RegistryState:
    """Start the registry beside the cluster in `root` (or reuse the one running there) and
    wait until its Confluent API answers."""
    root = root.resolve()
    state = load(root)
    if running(root, state):
        assert state is not None
        _wait_serving(root, state, timeout)
        return state
    runner = ensure_apicurio(cache)
    port = probe.free_ports(1)[0]
    log = root / NAME / f"{NAME}.log"
    pid = node.spawn(
        cluster_dir=root,
        name=NAME,
        classpath=str(runner),
        main_class=_MAIN_CLASS,
        args=[],
        heap_mb=HEAP_MB,
        log=log,
        extra_jvm=[
            "-Dquarkus.http.host=127.0.0.1",
            f"-Dquarkus.http.port={port}",
            "-Dquarkus.datasource.jdbc.initial-size=2",
            "-Dquarkus.datasource.jdbc.min-size=2",
        ],
    )
    state = RegistryState(pid, port)
    root.mkdir(parents=True, exist_ok=True)
    (root / STATE_FILE).write_text(json.dumps(asdict(state)) + "\n")
    _wait_serving(root, state, timeout)
    return state


def _wait_serving(root: Path, state: RegistryState, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not serving(state.url):
        if not running(root, state):
            tail = node.log_tail(root / NAME / f"{NAME}.log")
            raise ClusterError(f"the schema registry stopped while starting:\n{tail}")
        if time.monotonic() > deadline:
            down(root)
            raise ClusterError(f"the schema registry did not answer within {timeout:g} s")
        time.sleep(0.1)


def down(root: Path, timeout: float = 30.0) -> bool:
    """Stop the registry beside the cluster in `root`; False when none was there."""
    root = root.resolve()
    state = load(root)
    if state is None:
        return False
    node.stop(state.pid, root, NAME, kill=False, timeout=timeout)
    (root / STATE_FILE).unlink(missing_ok=True)
    return True


def stop_replaced(root: Path, before: RegistryState | None) -> None:
    """Stop the registry `before` when `up` replaced the cluster (and its folder, with the
    registry's state) by a new one: it would run on unseen."""
    root = root.resolve()
    if before is not None and load(root) is None:
        node.stop(before.pid, root, NAME, kill=False, timeout=30.0)


def status(root: Path) -> dict[str, Any] | None:
    """The registry's entry of `dev-cluster status` (None when it was never started)."""
    root = root.resolve()
    state = load(root)
    if state is None:
        return None
    alive = running(root, state)
    return {
        "url": state.url,
        "port": state.port,
        "pid": state.pid,
        "running": alive,
        "rss_bytes": node.rss_bytes(state.pid) if alive else None,
        "version": f"Apicurio Registry {APICURIO_VERSION}",
    }


# A topic of Avro records to look at (`messages read customers-avro`), its schema registered
# under customers-avro-value.
SEED_TOPIC = "customers-avro"
_SEED_SCHEMA = {
    "type": "record",
    "name": "Customer",
    "namespace": "demo",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "name", "type": "string"},
        {"name": "country", "type": "string"},
        {"name": "vip", "type": "boolean", "default": False},
    ],
}
_SEED_NAMES = ("Ada", "Grace", "Linus", "Margaret", "Ken", "Barbara", "Dennis", "Frances")
_SEED_COUNTRIES = ("NO", "US", "FI", "US", "CA", "US", "US", "UK")


def seed_avro_topic(bootstrap_servers: str, url: str) -> int:
    """Create SEED_TOPIC with a few Avro records in Confluent's wire format (the schema
    registered first); a topic already there is left as it is. How many were written."""
    import asyncio

    from aiokafka import AIOKafkaProducer

    from ..admin import ConnectionSettings, KafkaAdmin, TopicSpec
    from ..registry import RegistrySettings, SchemaError
    from ..registry.client import RegisteredSchema, RegistryClient
    from ..registry.codec import RecordSchemas

    client = RegistryClient(RegistrySettings(url))
    subject = f"{SEED_TOPIC}-value"
    try:
        client.register(subject, RegisteredSchema(None, "AVRO", json.dumps(_SEED_SCHEMA)))
        schemas = RecordSchemas(client)
        values = [
            schemas.encode(
                {"id": i, "name": name, "country": country, "vip": i % 3 == 0},
                "avro",
                subject=subject,
            )
            for i, (name, country) in enumerate(zip(_SEED_NAMES, _SEED_COUNTRIES, strict=True))
        ]
    except SchemaError as exc:
        raise ClusterError(f"{SEED_TOPIC}: {exc}") from None
    finally:
        client.close()

    async def seed() -> int:
        async with KafkaAdmin(ConnectionSettings(bootstrap_servers)) as admin:
            (created,) = await admin.create_topics([TopicSpec(SEED_TOPIC, 3, 1)])
        if not created.ok:
            if created.error == "TOPIC_ALREADY_EXISTS":
                return 0
            raise ClusterError(f"{SEED_TOPIC}: {created.message}")
        producer = AIOKafkaProducer(bootstrap_servers=bootstrap_servers, acks="all")
        await producer.start()
        try:
            for i, value in enumerate(values):
                await producer.send_and_wait(SEED_TOPIC, value, key=str(i).encode())
        finally:
            await producer.stop()
        return len(values)

    return asyncio.run(seed())
