"""Big clusters (issue 30): the CLI on a real dev cluster, the TUI on 1,000,000 partitions.

Prints, for 3 cluster sizes each:
  (a) the CLI on a real KRaft 4.1 dev cluster (3 brokers, or `--brokers N`; topics of 10
      partitions, RF 1) that the bench seeds itself, in its own folder: `topics list`,
      `topics describe` (every topic), create one topic (and once more with a kept load,
      `--load-max-age`, after a create that keeps it), grow one, delete one, and `plan
      preview` of 1,000 new topics; each a whole process (wall and CPU time), beside one raw
      request through aiokafka's own admin client (a whole process as well, no kafka-tui
      code) and kafka-topics.sh (TopicCommand, one JVM) where they apply. The cluster grows
      from one size to the next.
  (b) the TUI (in-process, Textual's headless driver) on a replay (tests/tui/replay.py) of
      tests/data/kraft-big.json.gz (recorded from a real cluster: 1,008 topics, 10,033
      partitions) expanded by tests/data/record.py's `expand` to the size asked: NOT a
      recording but renamed copies of the recorded topics (a 1,000,000-partition cluster
      does not fit this machine's open-file limit). Each size runs in a process of its own:
      first frame (launch to the first painted frame of the populated table; and to idle,
      which adds the garbage collection that follows a refresh), a filter keystroke (our own
      work: filter, hand the rows to the table, draw its visible lines; the first key of a
      search, over every topic, apart; and the whole keystroke through Pilot), a refresh's
      CPU time and how long keys wait while it runs, one full garbage collection over
      everything (what a refresh ran on the UI thread before its read was frozen out of the
      collector's view), and resident memory (after the replay is loaded, and the peak while
      the TUI runs).

Usage: python bench/big_cluster.py [--sizes 30000,40000,50000]
           [--tui-sizes 10000,100000,1000000] [--skip-cli] [--skip-tui] [--keep]
           [--against DIR]
`--against DIR`: the TUI's figures of another tree first (`git archive HEAD | tar -x -C
DIR`; it needs its own bench/big_cluster.py), then this tree's, and the ratios.
`--sizes` are partition counts of the real cluster (10 per topic); a quick run:
`--sizes 300,600,900 --tui-sizes 10000,20000,30000`. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import gc
import gzip
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "data")]

from record import expand  # noqa: E402
from textual.geometry import Region  # noqa: E402
from textual.strip import Strip  # noqa: E402

from kafka_tui.admin import ConnectionSettings, KafkaAdmin, TopicSpec  # noqa: E402
from kafka_tui.devcluster import KRAFT_VERSION, DevCluster, ensure_kafka  # noqa: E402
from kafka_tui.devcluster.node import java_bin  # noqa: E402
from kafka_tui.tui.screens import metadata  # noqa: E402
from kafka_tui.tui.screens.detail import TopicDetailScreen  # noqa: E402
from kafka_tui.tui.screens.metadata import MetadataScreen, refresh_interval  # noqa: E402
from kafka_tui.tui.widgets.topic_table import TopicTable  # noqa: E402
from tests.tui.replay import Recording, decode_topic, load_recording, replay_app  # noqa: E402

FOLDER = Path(tempfile.gettempdir()) / "kafka-tui-bench-big"
PARTITIONS_PER_TOPIC = 10
SOURCE = "kraft-big"
TYPED = "big-00999"  # matches nearly every topic after one key, 1 in 1,000 at the end
WIDE = 50_000  # partitions of the one wide topic (issue 52: its detail)
WIDE_TOPIC = f"wide-{WIDE}"

# -- (b) the TUI on the replay ---------------------------------------------------------------


def expansion(partitions: int) -> Path:
    """The expansion of the recording to `partitions`, written once per size (gzip level 1),
    one topic a line (with its partition sizes) after a head line: read a line at a time, the
    replay's load leaves no parse of the whole file behind (a 2,000,000-partition file parsed
    at once took ~1 GB, which the process kept after freeing it, and which the TUI never
    holds). The cluster holds one topic of WIDE partitions besides the copies (`wide`)."""
    path = FOLDER / f"{SOURCE}-{partitions}.jsonl.gz"
    if not path.exists():
        FOLDER.mkdir(parents=True, exist_ok=True)
        data = expand(load_recording(SOURCE), max(partitions - WIDE, 0))
        widest = wide(data)
        topics = sorted([*data.pop("topics"), widest], key=lambda t: t[0])
        sizes: dict[str, list[list[int]]] = {}
        for t, p, size in data.pop("partition_sizes"):
            sizes.setdefault(t, []).append([p, size])
        lines = [json.dumps({**data, "topic_count": len(topics)}, separators=(",", ":"))]
        lines += [json.dumps([t, sizes.get(t[0], [])], separators=(",", ":")) for t in topics]
        text = "\n".join(lines) + "\n"
        path.with_suffix(".tmp").write_bytes(gzip.compress(text.encode(), 1, mtime=0))
        path.with_suffix(".tmp").rename(path)
    return path


def wide(data: dict[str, Any]) -> list[Any]:
    """A topic of WIDE partitions (`WIDE_TOPIC`): the recorded topics' partitions in turn,
    renumbered (their leaders, replicas, ISR and offline replicas as recorded), with the
    configs of the first recorded topic that has them. NOT recorded, as the copies are not."""
    own = data["placeholders"]["topic"]
    recorded = [p for t in data["topics"] if not t[2] and t[0] != own for p in t[3]]
    parts = [[i, *recorded[i % len(recorded)][1:]] for i in range(WIDE)]
    data["topic_configs"][WIDE_TOPIC] = next(iter(data["topic_configs"].values()))
    return [WIDE_TOPIC, "d2lkZS01MDAwMC10b3BpYw", False, parts]


def load_expansion(partitions: int) -> Recording:
    """The replay of `expansion(partitions)`, decoded a topic at a time."""
    with gzip.open(expansion(partitions), "rt", encoding="utf-8") as f:
        head = json.loads(f.readline())
        recording = Recording.of(SOURCE, {**head, "topics": [], "partition_sizes": []})
        shared: dict[tuple[int, ...], tuple[int, ...]] = {}
        for _ in range(head["topic_count"]):
            data, sizes = json.loads(f.readline())
            topic = decode_topic(data, shared)
            recording.topics[topic.name] = topic
            for p, size in sizes:
                recording.sizes[(topic.name, p)] = size
    return recording


def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def _reset_peak() -> bool:
    """Linux: VmHWM starts again from the current RSS ("5" > /proc/self/clear_refs)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


@dataclass
class Launch:
    frame: float  # launch -> the populated table's first painted frame
    frame_cpu: float
    idle: float  # launch -> idle (the collection after the refresh included)
    idle_cpu: float


def gone() -> None:
    """The apps before are gone, as their processes would be: what they froze out of the
    collector's view (the topics screen's _CollectionPause.settle) is collected too."""
    metadata._COLLECTION_PAUSE.unfreeze()  # gc.unfreeze(), and the pause knows it
    gc.collect()


async def launch(recording: Recording) -> Launch:
    gone()
    painted: list[tuple[float, float]] = []
    draw = TopicTable.render_lines

    def timed(table: TopicTable, crop: Region) -> list[Strip]:
        lines = draw(table, crop)
        if table.rows and not painted:
            painted.append((time.perf_counter(), time.process_time()))
        return lines

    started, cpu = time.perf_counter(), time.process_time()
    TopicTable.render_lines = timed  # type: ignore[method-assign,assignment]
    try:
        app = replay_app(recording)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = app.screen
            assert isinstance(screen, MetadataScreen)
            await screen.loaded.wait()
            await app.workers.wait_for_complete()
            await pilot.pause()
            idle, idle_cpu = time.perf_counter() - started, time.process_time() - cpu
            assert painted, "the table was never painted"
    finally:
        TopicTable.render_lines = draw  # type: ignore[method-assign]
    return Launch(painted[0][0] - started, painted[0][1] - cpu, idle, idle_cpu)


def own_work(screen: MetadataScreen, table: TopicTable, text: str) -> tuple[float, float]:
    """A filter keystroke's own work: filtering, handing the rows to the table, drawing its
    visible lines, as the compositor asks for them (what tui_load.py measures)."""
    started, cpu = time.perf_counter(), time.process_time()
    screen.filters.text = text
    screen.apply_filters()
    table.render_lines(Region(0, 0, table.size.width, table.size.height))
    return time.perf_counter() - started, time.process_time() - cpu


async def session(recording: Recording, rounds: int) -> dict[str, Any]:
    kinds = ("own", "own_cpu", "own_back", "own_back_cpu", "pilot", "pilot_cpu")
    found: dict[str, list[float]] = {k: [] for k in kinds}
    found["refresh_cpu"], found["refresh"] = [], []
    gone()
    app = replay_app(recording)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, MetadataScreen)
        await screen.loaded.wait()
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = screen.query_one(TopicTable)
        for _ in range(rounds):
            if hasattr(screen, "_names"):  # each round types afresh, as after a refresh
                names = getattr(screen.rows, "names", None)  # TopicRows: without a row
                screen._names = type(screen._names)(screen.rows, *([names] if names else []))
                # and out of the young generations, as a refresh leaves it (collected, or
                # frozen where the screen freezes its read): a key pays for its own objects
                gc.collect()
                if gc.get_freeze_count():
                    gc.freeze()
            for n in range(1, len(TYPED) + 1):
                wall, cpu = own_work(screen, table, TYPED[:n])
                found["own"].append(wall)
                found["own_cpu"].append(cpu)
                if n == 1:  # the first key searches every topic
                    found.setdefault("own_first", []).append(wall)
                    found.setdefault("own_first_cpu", []).append(cpu)
            for n in range(len(TYPED) - 1, -1, -1):  # backspace, back to no filter
                wall, cpu = own_work(screen, table, TYPED[:n])
                found["own_back"].append(wall)
                found["own_back_cpu"].append(cpu)
        await pilot.press("slash")
        for _ in range(rounds):
            for char in TYPED:
                before, cpu = time.perf_counter(), time.process_time()
                await pilot.press(char)
                await pilot.pause()
                found["pilot"].append(time.perf_counter() - before)
                found["pilot_cpu"].append(time.process_time() - cpu)
            await pilot.press("escape")
            await pilot.pause()
            await pilot.press("slash")
        await pilot.press("escape")
        await pilot.pause()
        for _ in range(rounds):  # 20 pages down, and back up
            for direction in [1] * 20 + [-1] * 20:
                wall, cpu = scroll(table, direction)
                found.setdefault("scroll", []).append(wall)
                found.setdefault("scroll_cpu", []).append(cpu)
        for _ in range(rounds):
            before, cpu = time.perf_counter(), time.process_time()
            stalls = asyncio.create_task(longest_stall())
            screen.refresh_metadata()
            await app.workers.wait_for_complete()
            await pilot.pause()  # the collection after it included
            stalls.cancel()
            found["refresh"].append(time.perf_counter() - before)
            found["refresh_cpu"].append(time.process_time() - cpu)
            found.setdefault("refresh_stall", []).append(STALL[0])
        # A full collection over everything the process holds: what each refresh ran on the
        # UI thread before the read was frozen out of the collector's view (gc.freeze),
        # and what now runs at most every FULL_COLLECTION_EVERY seconds.
        frozen = gc.get_freeze_count()
        before, cpu = time.perf_counter(), time.process_time()
        gc.unfreeze()
        freed = gc.collect()
        found["full_collection"] = [time.perf_counter() - before]
        found["full_collection_cpu"] = [time.process_time() - cpu]
        found["collection_objects"] = [len(gc.get_objects()), frozen, freed]
        if frozen:
            gc.freeze()
        for _ in range(rounds):
            wall, cpu, pages = await detail(app, pilot, screen)
            found.setdefault("detail", []).append(wall)
            found.setdefault("detail_cpu", []).append(cpu)
            found.setdefault("detail_scroll", []).extend(w for w, _ in pages)
            found.setdefault("detail_scroll_cpu", []).extend(c for _, c in pages)
    return found


STALL = [0.0]


async def longest_stall() -> None:
    """The longest the event loop went without running this task (it asks every 1 ms), in
    STALL[0]: how long a refresh keeps keys and redraws waiting."""
    STALL[0] = 0.0
    last = time.perf_counter()
    while True:
        await asyncio.sleep(0.001)
        now = time.perf_counter()
        STALL[0] = max(STALL[0], now - last - 0.001)
        last = now


def scroll(table: Any, direction: int) -> tuple[float, float]:
    """A page down (or up) and its visible lines drawn: a VirtualTable's own page action, or a
    DataTable's (the detail's partitions before issue 52)."""
    started, cpu = time.perf_counter(), time.process_time()
    if hasattr(table, "action_page"):
        table.action_page(direction)
    else:
        (table.action_page_down if direction > 0 else table.action_page_up)()
    table.render_lines(Region(0, 0, table.size.width, table.size.height))
    return time.perf_counter() - started, time.process_time() - cpu


async def detail(
    app: Any, pilot: Any, screen: MetadataScreen
) -> tuple[float, float, list[tuple[float, float]]]:
    """The wide topic's detail: opened (its worker done and a frame drawn), then 10 pages
    down and back; the screen closed again."""
    started, cpu = time.perf_counter(), time.process_time()
    app.push_screen(TopicDetailScreen(screen.profile, screen.admin, WIDE_TOPIC, screen.cluster))
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()
    opened = (time.perf_counter() - started, time.process_time() - cpu)
    table = app.screen.query_one("#partitions")
    assert table.row_count >= WIDE, f"{table.row_count} partitions shown"
    table.focus()
    await pilot.pause()
    pages = [scroll(table, d) for d in [1] * 10 + [-1] * 10]
    app.pop_screen()
    await pilot.pause()
    return opened[0], opened[1], pages


def tui_child(partitions: int, rounds: int) -> None:
    """One size, in a process of its own (its own peak RSS); prints one JSON line."""
    started = time.perf_counter()
    recording = load_expansion(partitions)
    gc.collect()
    loaded = time.perf_counter() - started
    topics = len(recording.topics)
    total = sum(len(t.partitions) for t in recording.topics.values())
    rss_replay = _status_kb("VmRSS")
    peak_known = _reset_peak()
    launches = [asyncio.run(launch(recording)) for _ in range(rounds)]
    found = asyncio.run(session(recording, rounds))
    print(
        json.dumps(
            {
                "partitions": total,
                "topics": topics,
                "load_s": loaded,
                "frame": [x.frame for x in launches],
                "frame_cpu": [x.frame_cpu for x in launches],
                "idle": [x.idle for x in launches],
                "idle_cpu": [x.idle_cpu for x in launches],
                **found,
                "rss_replay_mb": rss_replay / 1024,
                "rss_peak_mb": (_status_kb("VmHWM") if peak_known else 0) / 1024,
                "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            }
        )
    )


def tui_child_run(script: Path, size: int, rounds: int) -> dict[str, Any]:
    """One size's figures from `script`'s tree (this one, or --against's), in a process of its
    own."""
    proc = subprocess.run(
        [sys.executable, str(script), "--tui-child", str(size), "--rounds", str(rounds)],
        capture_output=True,
        text=True,
        check=False,
        cwd=script.parent.parent,
    )
    if proc.returncode:
        raise SystemExit(f"TUI at {size} partitions ({script}) failed:\n{proc.stderr[-3000:]}")
    figures: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return figures


def tui_figures(sizes: list[int], rounds: int, against: Path | None = None) -> None:
    """`against`: a folder holding another kafka_tui tree (`git archive REV | tar -x -C DIR`):
    its figures first, then this tree's, size by size, and their ratios."""
    print(
        f"(b) TUI on the replay of {SOURCE} expanded (NOT a recording; see "
        "tests/data/record.py `expand`), in-process, 120x40:"
    )
    for size in sizes:
        expansion(size)
        trees = [("this tree", Path(__file__).resolve())]
        if against is not None:
            trees.insert(0, (f"--against {against}", against / "bench" / "big_cluster.py"))
        found = []
        for label, script in trees:
            load_before = os.getloadavg()[0]
            r = tui_child_run(script, size, rounds)
            print(
                f"  {label} (load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after)"
            )
            print_tui_figures(r)
            found.append(r)
        if len(found) == 2:
            print_ratios(*found)


def _median(r: dict[str, Any], key: str) -> float:
    return statistics.median(r[key])


def print_ratios(before: dict[str, Any], after: dict[str, Any]) -> None:
    """This tree's medians over --against's (under 1: this tree is faster or smaller)."""
    cells = [
        (label, _median(after, key) / _median(before, key))
        for label, key in [
            ("first frame", "frame"),
            ("keystroke through Pilot, CPU", "pilot_cpu"),
            ("typing, own CPU", "own_cpu"),
            ("scroll, CPU", "scroll_cpu"),
            ("keys' longest wait in a refresh", "refresh_stall"),
            ("refresh CPU", "refresh_cpu"),
            ("detail opens", "detail"),
            ("detail scroll, CPU", "detail_scroll_cpu"),
        ]
        if before.get(key) and _median(before, key)
    ]
    cells.append(("peak RSS", after["rss_peak_mb"] / max(before["rss_peak_mb"], 1)))
    print("      this tree / --against: " + "; ".join(f"{k} {v:.2f}x" for k, v in cells))


def print_tui_figures(r: dict[str, Any]) -> None:
    def ms(values: list[float]) -> str:
        return f"{statistics.median(values) * 1000:.1f} ms (max {max(values) * 1000:.1f})"

    print(
        f"  {r['partitions']:>9,} partitions / {r['topics']:>7,} topics: "
        f"first frame {r['frame'][0]:.2f} s (median {statistics.median(r['frame']):.2f} s, "
        f"CPU {statistics.median(r['frame_cpu']):.2f} s); to idle "
        f"{statistics.median(r['idle']):.2f} s (CPU {statistics.median(r['idle_cpu']):.2f} s)"
    )
    print(
        f"      filter keystroke, own work: the first key {ms(r['own_first'])}, CPU "
        f"{ms(r['own_first_cpu'])}; typing {ms(r['own'])}, CPU {ms(r['own_cpu'])}; "
        f"backspace {ms(r['own_back'])}, CPU {ms(r['own_back_cpu'])}; through Pilot "
        f"{ms(r['pilot'])}, CPU {ms(r['pilot_cpu'])}"
    )
    print(
        f"      scroll a page, own work: {ms(r['scroll'])}, CPU {ms(r['scroll_cpu'])}; "
        f"{WIDE:,}-partition topic's detail: opens in {statistics.median(r['detail']):.2f} s "
        f"(CPU {statistics.median(r['detail_cpu']):.2f} s), scrolls a page in "
        f"{ms(r['detail_scroll'])}, CPU {ms(r['detail_scroll_cpu'])}"
    )
    print(
        f"      refresh: keys wait at most {ms(r['refresh_stall'])} while it runs; "
        f"CPU {statistics.median(r['refresh_cpu']):.2f} s (wall "
        f"{statistics.median(r['refresh']):.2f} s); RSS with the replay loaded "
        f"{r['rss_replay_mb']:.0f} MB, peak while the TUI ran {r['rss_peak_mb']:.0f} MB; "
        "automatic refresh every "
        f"{refresh_interval(10.0, statistics.median(r['refresh_cpu'])):.0f} s"
    )
    tracked, frozen, freed = r["collection_objects"]
    print(
        f"      a full garbage collection: {r['full_collection'][0] * 1000:.0f} ms (CPU "
        f"{r['full_collection_cpu'][0] * 1000:.0f} ms) over {tracked:,} objects, of which "
        f"{frozen:,} frozen out of the collector's view after the refreshes; {freed:,} "
        "found unreachable"
    )


# -- (a) the CLI on a real cluster -----------------------------------------------------------


@dataclass(frozen=True)
class Timed:
    wall: float
    cpu: float


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(cmd: list[str], env: dict[str, str] | None = None) -> Timed:
    cpu, started = _children_cpu(), time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
    result = Timed(time.perf_counter() - started, _children_cpu() - cpu)
    if proc.returncode:
        output = (proc.stderr + proc.stdout).strip()
        shown = " ".join(c for c in cmd if len(c) < 200)
        raise SystemExit(f"{shown} failed ({proc.returncode}):\n{output[-2000:]}")
    return result


def ours(bootstrap: str, *args: str) -> Timed:
    env = dict(
        os.environ,
        KAFKA_TUI_JOURNAL=str(FOLDER / "journal.jsonl"),
        KAFKA_TUI_AUDIT_LOG=str(FOLDER / "audit.jsonl"),
        KAFKA_TUI_LOAD_CACHE=str(FOLDER / "load"),
    )
    cmd = [sys.executable, "-m", "kafka_tui.cli", "--bootstrap-server", bootstrap]
    return run([*cmd, "--output", "json", *args], env)


def topic_command(bootstrap: str, *args: str) -> Timed:
    jars = ensure_kafka(KRAFT_VERSION)
    cmd = [java_bin(), "-Xmx512m", "-cp", jars.classpath, "-Dlog4j2.level=WARN"]
    return run(
        [*cmd, "org.apache.kafka.tools.TopicCommand", "--bootstrap-server", bootstrap, *args]
    )


# One request through aiokafka's own admin client, as a whole process with no kafka-tui code
# (bench/raw_admin.py's yardstick, for the reads and the grow too).
RAW = """
import asyncio, sys
from aiokafka.admin import AIOKafkaAdminClient, NewPartitions, NewTopic

async def main(bootstrap, action, topic, partitions):
    client = AIOKafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=300000)
    await client.start()
    try:
        if action == "list":
            await client.list_topics()
        elif action == "describe":
            await client.describe_topics()  # Metadata for every topic
        elif action == "create":
            await client.create_topics([NewTopic(topic, partitions, 1)], 300000)
        elif action == "grow":
            await client.create_partitions({topic: NewPartitions(2 * partitions)})
        elif action == "delete":
            await client.delete_topics([topic], 300000)
    finally:
        await client.close()

asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])))
"""


def raw(bootstrap: str, action: str, topic: str = "-") -> Timed:
    return run([sys.executable, "-c", RAW, bootstrap, action, topic, str(PARTITIONS_PER_TOPIC)])


async def seed(bootstrap: str, partitions: int) -> tuple[int, float, float]:
    """Topics `big-NNNNN` of 10 partitions (RF 1) up to `partitions` in all; batches of 500."""
    wanted = partitions // PARTITIONS_PER_TOPIC
    async with KafkaAdmin(ConnectionSettings(bootstrap, request_timeout_ms=600_000)) as admin:
        existing = set(await admin.topic_names())
        specs = [
            TopicSpec(f"big-{i:06d}", PARTITIONS_PER_TOPIC, 1)
            for i in range(wanted)
            if f"big-{i:06d}" not in existing
        ]
        started = time.perf_counter()
        for start in range(0, len(specs), 500):
            results = await admin.create_topics(specs[start : start + 500], timeout_ms=600_000)
            failed = [r for r in results if not r.ok]
            if failed:
                raise SystemExit(f"seeding failed for {len(failed)}: {failed[0].message}")
        seeded = time.perf_counter() - started
        await every_broker_lists(admin, wanted)
        return len(await admin.topic_names()), seeded, time.perf_counter() - started - seeded


async def every_broker_lists(admin: KafkaAdmin, wanted: int, seconds: float = 900) -> None:
    """Until every broker's own Metadata lists the `wanted` seeded topics: a broker applies a
    big change long after the controller accepted it (at 60,000 partitions, over the request
    timeout), and a figure taken meanwhile measures a cluster still at work. (A `topics
    alter` of a topic created a moment before then finds no broker that lists it: kafka-tui
    says REQUEST_TIMED_OUT, "does not know this topic yet", not that it does not exist.)"""
    deadline = time.monotonic() + seconds
    nodes = sorted(b.nodeId for b in admin.client.cluster.brokers())
    while time.monotonic() < deadline:
        counts = []
        for node in nodes:
            metadata = await admin._metadata_from(None, node, partitions=False, retry=False)
            counts.append(sum(1 for t in metadata.topics if t.name.startswith("big-")))
        if min(counts) >= wanted:
            return
        await asyncio.sleep(2)
    raise SystemExit(f"the brokers did not list the {wanted} seeded topics in {seconds:.0f} s")


def plan_file(count: int) -> Path:
    path = FOLDER / f"plan-{count}.csv"
    rows = [f"plan-{i:05d},{PARTITIONS_PER_TOPIC},1,," for i in range(count)]
    path.write_text(
        "topic,partitions,replication_factor,min_required_replication_factor,configs\n"
        + "\n".join(rows)
        + "\n"
    )
    return path


Row = tuple[Timed, Timed | None, Timed | None]  # kafka-tui, one raw request, kafka-topics.sh


def one_round(bootstrap: str, size: int, round_: int, plan: Path) -> dict[str, Row]:
    """Every figure once. Creates, grows and deletes: each tool acts on a topic of its own,
    in the same state (created with 10 partitions, grown to 20, deleted)."""
    found: dict[str, Row] = {
        "list": (
            ours(bootstrap, "topics", "list"),
            raw(bootstrap, "list"),
            topic_command(bootstrap, "--list"),
        ),
        "describe (every topic)": (
            ours(bootstrap, "topics", "describe"),
            raw(bootstrap, "describe"),
            topic_command(bootstrap, "--describe"),
        ),
    }
    name = f"one-{size}-{round_}"
    mine, theirs, kafka = name, f"{name}-raw", f"{name}-sh"
    partitions = str(PARTITIONS_PER_TOPIC)
    grown = str(2 * PARTITIONS_PER_TOPIC)
    found["create one"] = (
        ours(
            bootstrap,
            "topics",
            "create",
            mine,
            "--partitions",
            partitions,
            "--replication-factor",
            "1",
        ),
        raw(bootstrap, "create", theirs),
        topic_command(
            bootstrap,
            "--create",
            "--topic",
            kafka,
            "--partitions",
            partitions,
            "--replication-factor",
            "1",
        ),
    )
    # The same create with a kept load (`--load-max-age`, a script's loop of creates): one
    # create keeps the count (the rows above changed the cluster), the next is timed.
    kept = ["--partitions", partitions, "--replication-factor", "1", "--load-max-age", "3600"]
    ours(bootstrap, "topics", "create", f"{name}-keeps", *kept)
    found["create one, load kept"] = (
        ours(bootstrap, "topics", "create", f"{name}-kept", *kept),
        raw(bootstrap, "create", f"{theirs}-2"),
        None,
    )
    ours(bootstrap, "topics", "delete", f"{name}-keeps", f"{name}-kept", "--yes")
    raw(bootstrap, "delete", f"{theirs}-2")
    found["grow one"] = (
        ours(bootstrap, "topics", "alter", mine, "--partitions", grown),
        raw(bootstrap, "grow", theirs),
        topic_command(bootstrap, "--alter", "--topic", kafka, "--partitions", grown),
    )
    found["delete one"] = (
        ours(bootstrap, "topics", "delete", mine, "--yes"),
        raw(bootstrap, "delete", theirs),
        topic_command(bootstrap, "--delete", "--topic", kafka),
    )
    found["plan preview, 1,000 new topics"] = (
        ours(bootstrap, "plan", "preview", str(plan)),
        None,
        None,
    )
    return found


def cli_figures(sizes: list[int], rounds: int, keep: bool, brokers: int = 3) -> None:
    os.environ.setdefault("KAFKA_TUI_BROKER_HEAP_MB", "2048")
    # Bytecode for every module, as an installed package has: where PYTHONDONTWRITEBYTECODE
    # is set and a source changed since its .pyc, each process would compile it again
    # (~10 ms for a large module), a cost no user pays.
    compileall.compile_dir(ROOT / "kafka_tui", quiet=1)
    cluster = DevCluster(FOLDER / ("cluster" if brokers == 3 else f"cluster-{brokers}"))
    cluster.up("kraft", brokers=brokers)
    bootstrap = cluster.bootstrap_servers()
    plan = plan_file(1000)
    files: list[tuple[int, list[tuple[int, int, int]]]] = []
    print(
        f"(a) CLI on a real KRaft 4.1 cluster, {brokers} brokers, 10 partitions a topic, RF 1; "
        f"whole processes, median of {rounds}: wall s / CPU s (kafka-tui's wall / the "
        "reference's)"
    )
    try:
        for size in sizes:
            topics, seconds, applied = asyncio.run(seed(bootstrap, size))
            print(
                f"  {size:,} partitions ({topics:,} topics; seeded in {seconds:.0f} s, listed by "
                f"every broker {applied:.0f} s later)"
            )
            files.append((size, broker_files(cluster)))
            runs = [one_round(bootstrap, size, r, plan) for r in range(rounds)]
            for label in runs[0]:
                line = f"    {label:<32}"
                for who, column in (("kafka-tui", 0), ("raw", 1), ("kafka-topics.sh", 2)):
                    timed = [run[label][column] for run in runs]
                    if timed[0] is None:
                        continue
                    wall = statistics.median(t.wall for t in timed if t)
                    cpu = statistics.median(t.cpu for t in timed if t)
                    line += f" {who} {wall:5.2f} / {cpu:4.2f}"
                    if column:
                        mine = statistics.median(run[label][0].wall for run in runs)
                        line += f" ({mine / wall:4.2f}x) "
                print(line, flush=True)
        file_limit(files)
    finally:
        if not keep:
            cluster.down()


def broker_files(cluster: DevCluster, timeout: float = 120.0) -> list[tuple[int, int, int]]:
    """Per running broker: (open files, memory maps, its open-file limit), from /proc, once
    they stop changing (brokers apply new partitions seconds after the controller)."""
    found, deadline = _broker_files(cluster), time.monotonic() + timeout
    while time.monotonic() < deadline:
        time.sleep(3)
        again = _broker_files(cluster)
        settled = all(
            abs(sum(x[i] for x in again) - sum(x[i] for x in found))
            <= 0.01 * sum(x[i] for x in found)
            for i in (0, 1)
        )
        found = again
        if settled:
            break
    return found


def _broker_files(cluster: DevCluster) -> list[tuple[int, int, int]]:
    state = cluster.load()
    found = []
    for b in state.brokers if state else []:
        if b.pid and Path(f"/proc/{b.pid}").exists():
            fds = len(os.listdir(f"/proc/{b.pid}/fd"))
            maps = len(Path(f"/proc/{b.pid}/maps").read_text().splitlines())
            limits = Path(f"/proc/{b.pid}/limits").read_text().splitlines()
            nofile = next(int(x.split()[3]) for x in limits if x.startswith("Max open files"))
            found.append((fds, maps, nofile))
    return found


def file_limit(files: list[tuple[int, list[tuple[int, int, int]]]]) -> None:
    """What one partition replica costs a broker in open files and memory maps (measured
    between the smallest and the largest size), and the partition replicas per broker the
    limits allow (computed: the brokers' own open-file limit, which the dev cluster raises as
    far as it may, and the kernel's vm.max_map_count)."""
    (small, at_small), (large, at_large) = files[0], files[-1]
    brokers = len(at_large)
    if large == small or not brokers or len(at_small) != brokers:
        return
    per_broker = (large - small) / brokers  # RF 1: the partitions spread evenly
    fds = (sum(x[0] for x in at_large) - sum(x[0] for x in at_small)) / brokers / per_broker
    maps = (sum(x[1] for x in at_large) - sum(x[1] for x in at_small)) / brokers / per_broker
    nofile = min(x[2] for x in at_large)
    max_maps = int(Path("/proc/sys/vm/max_map_count").read_text())
    base_fds = max(x[0] for x in at_small) - fds * small / brokers
    base_maps = max(x[1] for x in at_small) - maps * small / brokers
    by_files = (nofile - base_fds) / fds if fds > 0 else float("inf")
    by_maps = (max_maps - base_maps) / maps if maps > 0 else float("inf")
    fits = min(by_files, by_maps)
    print(
        f"  a partition replica costs its broker {fds:.2f} open files and {maps:.2f} memory "
        f"maps (measured from {small:,} to {large:,} partitions); with the brokers' open-file "
        f"limit {nofile:,} and vm.max_map_count {max_maps:,}, a broker holds about "
        f"{fits:,.0f} partition replicas (computed): {brokers} brokers at RF 1, about "
        f"{fits * brokers:,.0f} partitions"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="30000,40000,50000", help="real cluster partitions")
    parser.add_argument("--tui-sizes", default="10000,100000,1000000", help="replay partitions")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--skip-cli", action="store_true")
    parser.add_argument("--skip-tui", action="store_true")
    parser.add_argument("--keep", action="store_true", help="leave the cluster running")
    parser.add_argument(
        "--brokers",
        type=int,
        default=3,
        help="brokers of the real cluster: each holds ~19,800 partition replicas under this "
        "machine's open-file limit (5 brokers: 90,000 partitions, 3x 30,000)",
    )
    parser.add_argument(
        "--against",
        type=Path,
        help="a folder holding another kafka_tui tree (git archive REV | tar -x -C DIR): "
        "the TUI's figures of both, size by size, and their ratios",
    )
    parser.add_argument("--tui-child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.tui_child:
        tui_child(args.tui_child, args.rounds)
        return
    if not args.skip_tui:
        tui_figures([int(s) for s in args.tui_sizes.split(",")], args.rounds, args.against)
    if not args.skip_cli:
        cli_figures([int(s) for s in args.sizes.split(",")], args.rounds, args.keep, args.brokers)


if __name__ == "__main__":
    main()
