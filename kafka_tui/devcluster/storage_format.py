"""Formatting a KRaft cluster's storage with Kafka's own StorageTool, every node in one JVM.

`kafka-storage format` is one JVM per node, and most of its CPU is that JVM starting: a
3-broker cluster's start formatted four nodes in four JVMs side by side (bench/README.md has
the figures). From Kafka 3.9 the tool has `StorageTool.execute(String[], PrintStream)`; the
small launcher below calls it once per node in one JVM, with the same arguments
`kafka-storage format` takes. The launcher is compiled once per machine into the cache (it
needs javac, which a JDK has); without javac, or for an older Kafka, each node is formatted in
a JVM of its own as before. `KAFKA_TUI_FORMAT_ONE_JVM=off` formats in a JVM per node
(bench/jvm_starts.py --compare format).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from . import node
from .jars import cache_root
from .versions import Release

CLASS = "KafkaTuiFormatNodes"
# Between two nodes' arguments.
NEXT = "--kafka-tui-next-node"
# What the launcher prints (stderr) before it stops at a node's failure: the node's index.
FAILED = "kafka-tui: formatting failed at node "
FIRST_RELEASE = (3, 9, 0)

_SOURCE = f"""\
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

public final class {CLASS} {{
    public static void main(String[] args) throws Exception {{
        Method execute = Class.forName("kafka.tools.StorageTool")
            .getMethod("execute", String[].class, PrintStream.class);
        List<String> one = new ArrayList<>();
        int index = 0;
        for (int i = 0; i <= args.length; i++) {{
            if (i < args.length && !args[i].equals("{NEXT}")) {{
                one.add(args[i]);
                continue;
            }}
            int code;
            try {{
                code = (Integer) execute.invoke(null, one.toArray(new String[0]), System.out);
            }} catch (InvocationTargetException e) {{
                System.err.println(e.getCause());
                code = 1;
            }}
            if (code != 0) {{
                System.err.println("{FAILED}" + index);
                System.exit(code);
            }}
            one.clear();
            index++;
        }}
        System.exit(0);
    }}
}}
"""


def usable(found: Release) -> bool:
    if os.environ.get("KAFKA_TUI_FORMAT_ONE_JVM", "").lower() == "off":
        return False
    return found.at_least(FIRST_RELEASE)


def _javac() -> str | None:
    beside = Path(node.java_bin()).with_name("javac")
    if beside.is_absolute() and beside.exists():
        return str(beside)
    java = shutil.which(node.java_bin())
    if java:
        real = Path(os.path.realpath(java)).with_name("javac")
        if real.exists():
            return str(real)
    return shutil.which("javac")


def launcher() -> Path | None:
    """The folder holding the compiled launcher (compiled on first use), or None without
    javac or when it does not compile."""
    return compiled(CLASS, _SOURCE, "format-launcher")


def compiled(class_name: str, source: str, kind: str, classpath: str | None = None) -> Path | None:
    """The folder holding `class_name` compiled from `source` (against `classpath`), kept in
    the cache under `kind` and a hash of both; compiled on first use. None without javac or
    when it does not compile."""
    key = hashlib.sha256((source + (classpath or "")).encode()).hexdigest()[:16]
    folder = cache_root() / kind / key
    if (folder / f"{class_name}.class").exists():
        return folder
    javac = _javac()
    if javac is None:
        return None
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder.parent) as work:
        path = Path(work) / f"{class_name}.java"
        path.write_text(source)
        out = Path(work) / "classes"
        against = ["-cp", classpath] if classpath else []
        done = subprocess.run(
            [javac, "--release", "11", *against, "-d", str(out), str(path)],
            capture_output=True,
            timeout=120,
        )
        if done.returncode != 0 or not (out / f"{class_name}.class").exists():
            return None
        try:
            out.rename(folder)
        except OSError:  # another process put it there first
            if not (folder / f"{class_name}.class").exists():
                return None
    return folder


def arguments(per_node: Sequence[Sequence[str]]) -> list[str]:
    """The launcher's arguments: each node's `kafka-storage format` arguments, in order."""
    joined: list[str] = []
    for n, args in enumerate(per_node):
        if n:
            joined.append(NEXT)
        joined += args
    return joined


def failed_node(output: str) -> int | None:
    """The index of the node whose formatting failed, from the launcher's output."""
    for line in output.splitlines():
        if line.startswith(FAILED):
            return int(line.removeprefix(FAILED).strip())
    return None
