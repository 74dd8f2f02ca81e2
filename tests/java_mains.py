"""Several runs of a Kafka tool's `main` in one JVM, for tests that compare with Kafka's own
tools many times (kafka-consumer-groups.sh in every reset mode).

A JVM start is most of a short tool run's CPU (~2.5 CPU-s here; a fresh-clone CI run is
CPU-bound on 2 cores). The launcher below reads one call per line on stdin (the class and its
arguments, tab-separated), runs its `main` with System.out and System.err captured, and
prints one line per call: its exit code and the captured text in base64. Kafka's tools end
through `org.apache.kafka.common.utils.Exit`, whose procedure the launcher makes throw, so a
tool's usage error ends that call, not the JVM; a tool that returns from `main` (as
ConsumerGroupCommand does after its work) exits 0. Compiled once per Kafka classpath into the
dev cluster's cache with the JDK's javac (storage_format.compiled, as the format launcher); without
javac each call runs in a JVM of its own, as before.
"""

from __future__ import annotations

import base64
import subprocess
from collections.abc import Sequence

from kafka_tui.devcluster import storage_format

CLASS = "KafkaTuiManyMains"
MARK = "kafka-tui-call-ended "  # before each call's exit code and output, on the launcher's stdout
JVM_FLAGS = ("-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")

_SOURCE = f"""\
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import org.apache.kafka.common.utils.Exit;

public final class {CLASS} {{
    static final class Exited extends RuntimeException {{
        final int code;
        Exited(int code) {{ super("exit " + code, null, false, false); this.code = code; }}
    }}

    public static void main(String[] ignored) throws Exception {{
        Exit.setExitProcedure((code, message) -> {{ throw new Exited(code); }});
        Exit.setHaltProcedure((code, message) -> {{ throw new Exited(code); }});
        PrintStream out = System.out;
        PrintStream err = System.err;
        BufferedReader in = new BufferedReader(
            new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {{
            String[] call = line.split("\\t", -1);
            ByteArrayOutputStream captured = new ByteArrayOutputStream();
            PrintStream capture = new PrintStream(captured, true, "UTF-8");
            System.setOut(capture);
            System.setErr(capture);
            int code = 0;
            try {{
                Class.forName(call[0]).getMethod("main", String[].class)
                    .invoke(null, (Object) Arrays.copyOfRange(call, 1, call.length));
            }} catch (InvocationTargetException e) {{
                Throwable cause = e.getCause();
                if (cause instanceof Exited) {{
                    code = ((Exited) cause).code;
                }} else {{
                    cause.printStackTrace(capture);
                    code = 1;
                }}
            }} finally {{
                capture.flush();
                System.setOut(out);
                System.setErr(err);
            }}
            out.println("{MARK}" + code + " "
                + Base64.getEncoder().encodeToString(captured.toByteArray()));
            out.flush();
        }}
    }}
}}
"""


def run_mains(
    java: str, classpath: str, calls: Sequence[Sequence[str]], timeout: float = 300
) -> list[tuple[int, str]]:
    """Each call (a class with a `main`, then its arguments; none may hold a tab or a line
    break) as (exit code, what it printed on stdout and stderr), in order."""
    for call in calls:
        assert all("\t" not in a and "\n" not in a for a in call), call
    folder = storage_format.compiled(CLASS, _SOURCE, "many-mains", classpath)
    if folder is None:
        results = []
        for call in calls:
            done = subprocess.run(
                [java, *JVM_FLAGS, "-cp", classpath, *call],
                capture_output=True,
                text=True,
                timeout=timeout,
            )
            results.append((done.returncode, done.stdout + done.stderr))
        return results
    done = subprocess.run(
        [java, *JVM_FLAGS, "-cp", f"{classpath}:{folder}", CLASS],
        input="".join("\t".join(call) + "\n" for call in calls),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    lines = [line[len(MARK) :] for line in done.stdout.splitlines() if line.startswith(MARK)]
    assert done.returncode == 0 and len(lines) == len(calls), done.stdout[-2000:] + done.stderr
    results = []
    for line in lines:
        code, _, text = line.partition(" ")
        results.append((int(code), base64.b64decode(text).decode()))
    return results
