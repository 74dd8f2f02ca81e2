"""One JVM process of a dev cluster (ZooKeeper, KRaft controller or broker).

Processes are started in their own session so they outlive the `kafka-tui dev-cluster up`
command that started them; they are found again through the pid kept in the cluster state
and a marker system property that guards against pid reuse.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

# C1 only and a serial GC: brokers start faster and stay small on a 2-core machine.
_JVM_FLAGS = [
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-XX:+ExitOnOutOfMemoryError",
    "-Djava.awt.headless=true",
    "-Djava.net.preferIPv4Stack=true",
]


def java_bin() -> str:
    java_home = os.environ.get("JAVA_HOME")
    return str(Path(java_home) / "bin" / "java") if java_home else "java"


def marker(cluster_dir: Path, name: str) -> str:
    return f"-Dkafka.tui.node={cluster_dir.resolve()}:{name}"


def log_tail(log: Path, lines: int = 40) -> str:
    try:
        text = log.read_text(errors="replace")
    except FileNotFoundError:
        return "(no log written)"
    return "\n".join(text.splitlines()[-lines:])


def spawn(
    *,
    cluster_dir: Path,
    name: str,
    classpath: str,
    main_class: str,
    args: Sequence[str],
    heap_mb: int,
    log: Path,
    extra_jvm: Sequence[str] = (),
) -> int:
    """Start a detached JVM writing stdout and stderr to `log`; return its pid."""
    cmd = [
        java_bin(),
        f"-Xmx{heap_mb}m",
        f"-Xms{min(heap_mb, 64)}m",
        *_JVM_FLAGS,
        *extra_jvm,
        marker(cluster_dir, name),
        "-cp",
        classpath,
        main_class,
        *args,
    ]
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=log.parent,
            preexec_fn=_raise_open_files_limit,
        )
    return proc.pid


# Kafka keeps a file open per log segment, and a deleted partition's until it removes it
# (see props.py): a dev-cluster broker that created and deleted 2,000-topic batches
# (bench/bulk_create.py) held over 20,000 and stopped with "Too many open files" (all its
# log dirs offline). Kafka's own guidance is 100,000 or more.
_OPEN_FILES = 1_048_576


def _raise_open_files_limit() -> None:
    """In the JVM's process before exec: as many open files as allowed (root may raise the
    hard limit too; otherwise the soft limit goes up to the hard one)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        nr_open = int(Path("/proc/sys/fs/nr_open").read_text())
    except (OSError, ValueError):
        nr_open = _OPEN_FILES
    wanted = min(_OPEN_FILES, nr_open)
    for limit in ((wanted, wanted), (hard, hard)):
        if limit[0] != resource.RLIM_INFINITY and limit[0] <= soft:
            return
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, limit)
            return
        except (ValueError, OSError):
            continue


def _reap(pid: int) -> bool:
    """Collect `pid` if it is our own exited child; True when it was collected."""
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return False
    return done == pid


def is_running(pid: int | None, cluster_dir: Path, name: str) -> bool:
    if not pid or _reap(pid):
        return False
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    if state == "Z":
        return False
    # While the java launcher re-executes itself, cmdline reads empty for a moment.
    return cmdline == [b""] or marker(cluster_dir, name).encode() in cmdline


def rss_bytes(pid: int | None) -> int | None:
    if not pid:
        return None
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except FileNotFoundError:
        return None
    return None


def stop(pid: int | None, cluster_dir: Path, name: str, *, kill: bool, timeout: float) -> None:
    """SIGTERM (Kafka's clean, controlled shutdown) or SIGKILL; wait until the process is gone.

    A clean stop that outlasts `timeout` is finished with SIGKILL so `down` always completes.
    """
    if not is_running(pid, cluster_dir, name):
        return
    assert pid is not None
    sig = signal.SIGKILL if kill else signal.SIGTERM
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout
    while is_running(pid, cluster_dir, name):
        if time.monotonic() > deadline:
            if sig == signal.SIGKILL:
                raise TimeoutError(f"{name} (pid {pid}) survived SIGKILL")
            os.kill(pid, signal.SIGKILL)
            sig = signal.SIGKILL
            deadline = time.monotonic() + 10
        time.sleep(0.05)
