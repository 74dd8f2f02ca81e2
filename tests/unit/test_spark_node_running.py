"""The dev Spark cluster's "is this process still ours" check while the process execs.

The launch scripts exec one another and then the JVM (start-connect-server.sh ->
spark-daemon.sh, bin/spark-class -> java). While a process execs, /proc/PID/environ reads
empty for a moment (measured: 6% of reads during an exec chain); read as "not ours", the
wait for the Connect server reported that it had exited, with an empty log, on a loaded
machine. No JVM here: a chain of shells carries the marker the same way.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from pathlib import Path

from kafka_tui.devcluster.spark import SparkDevCluster, SparkNode


def test_a_process_that_execs_is_running_until_it_ends(tmp_path: Path) -> None:
    cluster = SparkDevCluster(tmp_path)
    for _ in range(15):
        server = SparkNode("connect", 0)
        env = {**os.environ, "SPARK_DAEMON_JAVA_OPTS": cluster._marker(server)}
        chain = 'exec sh -c \'exec sh -c "exec sh -c \\"exec sleep 0.1\\""\''
        started = time.monotonic()
        server.pid = subprocess.Popen(["sh", "-c", chain], env=env).pid
        checks = 0
        while cluster.running(server):  # reaps the chain once it has ended
            checks += 1
        lasted = time.monotonic() - started
        # The chain sleeps 0.1 s at its end: "not running" sooner is an exec read as the end.
        assert lasted >= 0.1, f"read as ended after {lasted:.3f}s ({checks} checks)"
        with contextlib.suppress(ChildProcessError):  # reaped by `running` already
            os.waitpid(server.pid, 0)


def test_another_process_is_not_ours(tmp_path: Path) -> None:
    cluster = SparkDevCluster(tmp_path)
    process = subprocess.Popen(["sleep", "5"], env={"PATH": os.environ["PATH"], "X": "1"})
    try:
        # Once it has exec'd: until then its environ reads empty, which counts as running
        # (the case the test above pins); asked at once, this test failed one run in a few.
        environ = Path(f"/proc/{process.pid}/environ")
        deadline = time.monotonic() + 5
        while not environ.read_bytes() and time.monotonic() < deadline:
            time.sleep(0.001)
        assert environ.read_bytes()
        assert not cluster.running(SparkNode("master", 0, pid=process.pid))
    finally:
        process.kill()
        process.wait()
