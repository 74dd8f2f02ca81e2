"""`topics keys` on the real KRaft 4.4 cluster: records that Kafka's own Java producer placed
(ConsoleProducer, one JVM, parse.key=true) sit where our murmur2 says for the current count;
the report matches a hand count (keys, null keys, hot keys, a grow); a transaction's aborted
records are not counted while a committed one's are; `topics alter --partitions N
--validate-only` then shows the count's numbers for N; made compacted (a tombstone, a key
overwritten with another size, the cleaner not run), each key's latest record counts once on
both engines; and the Spark engine (local[1], several ranges per partition) gives the
in-process engine's numbers exactly, the latest records per key and every record alike.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pytest
from aiokafka import AIOKafkaProducer
from aiokafka.errors import KafkaError, UnknownError
from aiokafka.partitioner import murmur2
from textual.pilot import Pilot
from textual.widgets import Input, Static

from kafka_tui.admin import ConfigChange, ConfigOp, KafkaAdmin, TopicSpec
from kafka_tui.admin.model import ConnectionSettings
from kafka_tui.devcluster.jars import ensure_kafka
from kafka_tui.planning import key_stats
from kafka_tui.services import key_report, key_reports_saved
from kafka_tui.tui.app import KafkaTuiApp
from kafka_tui.tui.screens.partitions import IncreasePartitionsScreen
from kafka_tui.tui.screens.plan import PlanScreen
from kafka_tui.tui.widgets.plan_topics import PlanTopics

from ..conftest import Cluster
from ..tui.conftest import filter_to, loaded
from .test_cli import run, run_json
from .test_consumer_groups import create
from .test_tui import app_for

Names = Callable[[str], str]
PARTITIONS = 3


def _home(key: bytes, n: int) -> int:
    return (murmur2(key) & 0x7FFFFFFF) % n


def _java_produce(cluster: Cluster, topic: str, lines: list[str]) -> None:
    """Kafka's console producer: `key:value` lines, NULL for a record without a key."""
    state = cluster.dev.load()
    assert state is not None
    command = [
        "java",
        "-Xmx128m",
        "-XX:TieredStopAtLevel=1",
        "-XX:+UseSerialGC",
        "-cp",
        ensure_kafka(state.version, cluster.dev.cache).classpath,
        "org.apache.kafka.tools.ConsoleProducer",
        "--bootstrap-server",
        cluster.bootstrap_servers,
        "--topic",
        topic,
        "--producer-property",
        "acks=all",  # acknowledged = below the high watermark, which the report reads to
        "--reader-property",
        "parse.key=true",
        "--reader-property",
        "key.separator=:",
        "--reader-property",
        "null.marker=NULL",
    ]
    done = subprocess.run(
        command, input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]


async def _transactions(bootstrap: str, topic: str) -> None:
    """One aborted transaction (5 records of key `aborted`), one committed (3 of `committed`)."""
    producer = AIOKafkaProducer(
        bootstrap_servers=bootstrap, transactional_id=f"{topic}-tx", acks="all"
    )
    await producer.start()
    try:
        async with producer.transaction():
            for _ in range(3):
                await producer.send_and_wait(topic, b"yes", key=b"committed")
        await producer.begin_transaction()
        for _ in range(5):
            await producer.send_and_wait(topic, b"no", key=b"aborted")
        await producer.abort_transaction()
    finally:
        await producer.stop()


def test_keys_where_kafka_put_them_a_hand_count_and_both_engines(
    kraft_cluster: Cluster,
    capsys: pytest.CaptureFixture[str],
    topic_name: Names,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("KAFKA_TUI_KEY_REPORTS", str(tmp_path / "key-reports"))
    topic, other = topic_name(), topic_name("other")  # other: grown in plans, never counted
    servers = kraft_cluster.bootstrap_servers
    asyncio.run(create(servers, TopicSpec(topic, PARTITIONS, 2), TopicSpec(other, 1, 1)))
    # user-i: i + 1 records, values of i + 1 bytes; 7 records without a key.
    lines = [f"user-{i}:{'v' * (i + 1)}" for i in range(20) for _ in range(i + 1)]
    lines += ["NULL:nokey"] * 7
    _java_produce(kraft_cluster, topic, lines)
    asyncio.run(_transactions(servers, topic))

    code, document = run_json(
        capsys, kraft_cluster, "topics", "keys", topic, "--partitions", "3",
        "--partitions", "5", "--top", "3",
    )  # fmt: skip
    assert code == 0, document
    assert isinstance(document, dict)

    keyed = Counter(line.split(":")[0].encode() for line in lines if not line.startswith("NULL"))
    keyed[b"committed"] = 3  # the aborted transaction's 5 records are not counted
    records = sum(keyed.values()) + 7
    assert document["records"] == records
    assert document["null_key_records"] == 7
    assert document["distinct_keys"] == len(keyed) == 21
    value_bytes = sum(i + 1 for i in range(20) for _ in range(i + 1))
    key_bytes = sum(len(k) * n for k, n in keyed.items())
    assert document["bytes"] == value_bytes + key_bytes + 7 * len("nokey") + 3 * len("yes")

    # Kafka's producer put every keyed record where our murmur2 says for 3 partitions.
    by_partition: Counter[int] = Counter()
    keys_in: dict[int, set[bytes]] = {p: set() for p in range(PARTITIONS)}
    for key, n in keyed.items():
        by_partition[_home(key, PARTITIONS)] += n
        keys_in[_home(key, PARTITIONS)].add(key)
    same, grown = document["grow"]
    assert (same["partitions"], same["keys_moving"], same["records_moving"]) == (3, 0.0, 0.0)
    nulls = {p["partition"]: p["null_key_records"] for p in document["partitions"]}
    assert sum(nulls.values()) == 7
    for p in document["partitions"]:
        assert p["records"] == by_partition[p["partition"]] + nulls[p["partition"]]
        assert p["distinct_keys"] == len(keys_in[p["partition"]])
    assert same["records_per_partition"] == [p["records"] for p in document["partitions"]]

    assert [(k["key"], k["records"]) for k in document["hot_keys"]] == [
        ("user-19", 20),
        ("user-18", 19),
        ("user-17", 18),
    ]
    assert document["hot_keys"][0]["partition"] == _home(b"user-19", PARTITIONS)
    assert document["hot_keys"][0]["bytes"] == 20 * (len("user-19") + 20)

    moving = {k for k in keyed if _home(k, 5) != _home(k, PARTITIONS)}
    assert grown["partitions"] == 5
    assert grown["keys_moving"] == round(len(moving) / len(keyed), 6)
    moved_records = sum(keyed[k] for k in moving)
    assert grown["records_moving"] == round(moved_records / sum(keyed.values()), 6)
    after = [nulls.get(p, 0) for p in range(5)]
    for key, n in keyed.items():
        after[_home(key, 5)] += n
    assert grown["records_per_partition"] == after
    assert grown["max_over_avg"] == round(max(after) * 5 / records, 4)

    # A grow's preview shows the count's numbers for the new count (issue 51 point 3).
    code, out, err = run(
        capsys, kraft_cluster, "--output", "json", "topics", "alter", topic,
        "--partitions", "5", "--validate-only",
    )  # fmt: skip
    assert code == 0, err
    # --output json: the same numbers in the result, as a plan's key_moves entry.
    [validated] = json.loads(out)
    moves = validated["key_moves"]
    assert (moves["topic"], moves["partitions_before"], moves["partitions"]) == (topic, 3, 5)
    kept = ("keys_moving", "records_moving", "records_per_partition", "max_over_avg")
    assert {k: moves["key_report"][k] for k in kept} == {k: grown[k] for k in kept}
    assert moves["key_report"]["compacted"] is False
    assert f"Keys of '{topic}' as counted " in err, err
    assert (
        f" ago: growing to 5 partitions sends {grown['keys_moving']:.1%} of its keys and "
        f"{grown['records_moving']:.1%} of its keyed records to another partition."
    ) in err, err
    per_partition = ", ".join(f"{n:,}" for n in grown["records_per_partition"])
    assert f"Records per partition after: {per_partition} (max " in err, err
    assert f", max/avg {grown['max_over_avg']:.2f})." in err, err

    # The partitions form shows the same numbers, weighs another count as it is typed, and
    # without a kept count offers f3, which counts (issue 51 point 3).
    asyncio.run(_the_form(kraft_cluster, topic, other, keyed, nulls, err))

    # A plan that grows topics carries each grow's numbers (key_moves), or why there are none.
    plan = tmp_path / "grow.csv"
    plan.write_text(f"topic,partitions\n{topic},5\n{other},2\n")
    code, planned = run_json(capsys, kraft_cluster, "plan", "preview", str(plan))
    assert code == 0 and isinstance(planned, dict), planned
    counted, never = planned["key_moves"]
    assert (counted["topic"], counted["partitions_before"], counted["partitions"]) == (topic, 3, 5)
    numbers = {k: grown[k] for k in ("keys_moving", "records_moving", "records_per_partition")}
    assert {k: counted["key_report"][k] for k in numbers} == numbers
    assert counted["key_report"]["max_over_avg"] == grown["max_over_avg"]
    assert never == {
        "topic": other,
        "partitions_before": 1,
        "partitions": 2,
        "key_report": None,
        "missing": "no key report of it has been kept",
    }
    # A streamed plan's parts (as the Spark job writes them; its summary cut to what a
    # preview reads) carry the same numbers for the grows with a kept count.
    streamed = tmp_path / "parts"
    (streamed / "topics").mkdir(parents=True)
    (streamed / "summary.json").write_text('{"parts": "topics", "stats": {"sanity": {"ok": true}}}')
    (streamed / "topics" / "part-00000.txt").write_text(
        "\n".join(json.dumps(e) for e in planned["topics"]) + "\n"
    )
    code, from_parts = run_json(capsys, kraft_cluster, "plan", "preview", str(streamed))
    assert code == 0 and isinstance(from_parts, dict), from_parts
    [streamed_moves] = from_parts["key_moves"]  # `other` has no kept count: not listed
    assert {k: streamed_moves["key_report"][k] for k in numbers} == numbers

    # The table for people; --since after every record: nothing read; a count below the
    # topic's: refused, naming the flag.
    code, out, _ = run(capsys, kraft_cluster, "topics", "keys", topic, "--top", "1")
    assert code == 0
    assert f"Topic {topic}: {records:,} records" in out
    assert "user-19" in out and "user-18" not in out
    code, later = run_json(capsys, kraft_cluster, "topics", "keys", topic, "--since", "2100-01-01")
    assert code == 0 and isinstance(later, dict)
    assert (later["records"], later["distinct_keys"]) == (0, 0)
    code, _, err = run(capsys, kraft_cluster, "topics", "keys", topic, "--partitions", "2")
    assert code == 2 and "--partitions" in err and "current count (3)" in err, err

    # Compacted: user-3 deleted (a tombstone), user-5 written again with another size, then
    # cleanup.policy=compact (the change waits until every broker shows it). Each key's
    # latest record counts once, whether or not the cleaner has run (it has not: the records
    # sit in the active segment, which it never cleans).
    asyncio.run(_delete_and_overwrite(servers, topic))
    code, compacted = run_json(
        capsys, kraft_cluster, "topics", "keys", topic, "--partitions", "3",
        "--partitions", "5", "--top", "3",
    )  # fmt: skip
    assert code == 0, compacted
    assert isinstance(compacted, dict)
    live = {k: len(k) + (i + 1) for i in range(20) if (k := f"user-{i}".encode()) != b"user-3"}
    live[b"user-5"] = len(b"user-5") + 50
    live[b"committed"] = len(b"committed") + len(b"yes")
    assert {k: compacted[k] for k in _COMPACTED_NUMBERS} == {
        "records": len(live),
        "bytes": sum(live.values()),
        "distinct_keys": len(live),
        "null_key_records": 0,
        "compacted": True,
        "counted": "latest record per key",
        "tombstoned_keys": 1,
        "null_key_records_left_out": 7,  # written before the topic became compacted
    }
    homes = Counter(_home(k, PARTITIONS) for k in live)
    assert [
        (p["records"], p["distinct_keys"], p["tombstoned_keys"]) for p in compacted["partitions"]
    ] == [(homes[p], homes[p], int(p == _home(b"user-3", PARTITIONS))) for p in range(PARTITIONS)]
    assert [(k["key"], k["records"], k["bytes"]) for k in compacted["hot_keys"]] == [
        ("user-5", 1, live[b"user-5"]),
        ("user-19", 1, live[b"user-19"]),
        ("user-18", 1, live[b"user-18"]),
    ]
    moving = {k for k in live if _home(k, 5) != _home(k, PARTITIONS)}
    after = Counter(_home(k, 5) for k in live)
    grown = compacted["grow"][1]
    assert grown["keys_moving"] == grown["records_moving"] == round(len(moving) / len(live), 6)
    assert grown["records_per_partition"] == [after[p] for p in range(5)]
    in_process = _kept_tally(tmp_path, topic)

    # Spark (local[1]), each partition read as several ranges (a key's latest record in a
    # later range than its earlier ones), gives the same numbers.
    monkeypatch.setattr(key_report, "RANGE_RECORDS", 40)
    code, on_spark = run_json(
        capsys, kraft_cluster, "topics", "keys", topic, "--partitions", "3",
        "--partitions", "5", "--top", "3", "--engine", "spark", "--spark-master", "local[1]",
    )  # fmt: skip
    assert code == 0, on_spark
    assert on_spark == compacted
    # Every record counted (as for a topic not compacted), both engines' tallies agree too:
    # the first count's numbers and the three records added since (aborted ones still out).
    on_spark_tally = _kept_tally(tmp_path, topic)
    every = [
        key_stats.report_to_json(key_stats.report(topic, t, PARTITIONS, [3, 5], 3))
        for t in (in_process, on_spark_tally)
    ]
    assert every[0] == every[1]
    added = len(b"user-3") + len(b"user-5") + 50
    assert (every[0]["records"], every[0]["bytes"]) == (records + 2, document["bytes"] + added)
    assert (every[0]["null_key_records"], every[0]["distinct_keys"]) == (7, 21)
    assert every[0]["counted"] == "every record"

    # Kafka refuses a record without a key on a compacted topic (LogValidator: INVALID_RECORD,
    # 87, a code aiokafka 0.14 does not name: UnknownError, not retried), tried until the
    # partition's leader applies the new policy, a moment after every broker describes it.
    refusal = asyncio.run(_unkeyed_refused(servers, topic))
    assert isinstance(refusal, UnknownError) and not refusal.retriable, refusal


_COMPACTED_NUMBERS = (
    "records",
    "bytes",
    "distinct_keys",
    "null_key_records",
    "compacted",
    "counted",
    "tombstoned_keys",
    "null_key_records_left_out",
)


async def _delete_and_overwrite(bootstrap: str, topic: str) -> None:
    """user-3's tombstone, user-5 again with a 50-byte value; then cleanup.policy=compact."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
    await producer.start()
    try:
        await producer.send_and_wait(topic, None, key=b"user-3")
        await producer.send_and_wait(topic, b"w" * 50, key=b"user-5")
    finally:
        await producer.stop()
    async with KafkaAdmin(ConnectionSettings(bootstrap)) as admin:
        change = ConfigChange("cleanup.policy", ConfigOp.SET, "compact")
        [result] = await admin.alter_topic_configs({topic: [change]})
    assert result.ok, result.message


def _kept_tally(folder: Path, topic: str) -> pa.Table:
    """The tally the last `topics keys` of `topic` kept (services/key_reports_saved.py)."""
    [path] = (folder / "key-reports").glob(f"*/{topic}.arrow")
    with pa.memory_map(str(path)) as source:
        table = pa.ipc.open_file(source).read_all()
    assert json.loads(table.schema.metadata[b"kafka_tui_key_report"])["compacted"] is True
    return table.replace_schema_metadata(None)


async def _unkeyed_refused(bootstrap: str, topic: str) -> KafkaError:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
    await producer.start()
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                await producer.send_and_wait(topic, b"no key", partition=0)
            except KafkaError as exc:
                return exc
            assert time.monotonic() < deadline, "a record without a key was still taken"
            await asyncio.sleep(0.1)
    finally:
        await producer.stop()


async def _the_form(
    cluster: Cluster,
    topic: str,
    other: str,
    keyed: Counter[bytes],
    nulls: dict[int, int],
    said: str,
) -> None:
    """At 80x24: the kept count's numbers for 5 as `topics alter` said them (`said`), for 6
    by a hand count as 6 is typed; the count gone, the offer, and F3's count. Then the plan
    screen growing `topic` and `other` (never counted) to 6: the records each grow moves."""

    def by_hand(n: int) -> tuple[float, float, list[int]]:
        moving = [k for k in keyed if _home(k, n) != _home(k, PARTITIONS)]
        after = [nulls.get(p, 0) for p in range(n)]
        for key, records in keyed.items():
            after[_home(key, n)] += records
        moved = sum(keyed[k] for k in moving) / sum(keyed.values())
        return round(len(moving) / len(keyed), 6), round(moved, 6), after

    async def form_for(app: KafkaTuiApp, pilot: Pilot[None]) -> IncreasePartitionsScreen:
        await pilot.press("p")
        form = app.screen
        assert isinstance(form, IncreasePartitionsScreen) and form.topic.name == topic
        reads = [w for w in app.workers if w.group in ("keys", "snapshot", "key-count-load")]
        if reads:  # none left: done already (an empty list means every worker)
            await app.workers.wait_for_complete(reads)
        return form

    def shown(form: IncreasePartitionsScreen) -> str:
        return str(form.query_one("#key-report", Static).render()).replace("\n", " ")

    app = app_for(cluster)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(app, pilot)
        await filter_to(pilot, topic)
        form = await form_for(app, pilot)
        await pilot.press("5")
        await pilot.pause()
        # The same words as `topics alter` (the count's age aside: minutes may have passed).
        sentence = next(line for line in said.splitlines() if line.startswith("Keys of"))
        records_line = next(line for line in said.splitlines() if line.startswith("Records per"))
        text = shown(form)
        assert sentence.split(" ago: ")[1] in text and records_line in text, text
        await pilot.press("backspace", "6")
        await pilot.pause()
        keys_moving, records_moving, after = by_hand(6)
        assert form.grow_keys is not None and form.grow_keys.recent is not None
        grow = form.grow_keys.recent.grow
        assert (grow.keys_moving, grow.records_moving) == (keys_moving, records_moving)
        assert grow.records_per_partition == after
        assert f"growing to 6 partitions sends {keys_moving:.1%} of its keys" in shown(form)

        # No kept count: the form offers f3, which counts and then shows the numbers.
        kept = key_reports_saved.folder() / str(form.admin.cluster_id) / f"{topic}.arrow"
        kept.unlink()
        await pilot.press("escape")
        form = await form_for(app, pilot)
        assert shown(form).startswith("No key report of this topic kept: F3 counts")
        await pilot.press("6", "f3")
        counting = [w for w in app.workers if w.group == "key-count"]
        await app.workers.wait_for_complete(counting)
        await pilot.pause()
        assert form.counting is None and kept.exists(), shown(form)
        assert form.query_one("#partitions", Input).value == "6"
        assert form.grow_keys is not None and form.grow_keys.recent is not None
        assert form.grow_keys.recent.grow.records_per_partition == after
        assert "ago: growing to 6 partitions" in shown(form)
        await pilot.press("escape")

        assert app.profile and app.admin
        plan = PlanScreen(app.profile, app.admin, [topic, other])
        await app.push_screen(plan)
        await pilot.pause()
        await pilot.press("6", "ctrl+r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        rows = plan.query_one(PlanTopics)
        assert rows.header_text().split()[5] == "Moving"
        moving = {rows.topic_at(i): rows.row_text(i).split()[5] for i in range(rows.row_count)}
        assert moving == {topic: f"{records_moving:.1%}", other: "unknown"}
        plan.show_topic(other)
        detail = str(plan.query_one("#plan-topic-detail", Static).render())
        assert f"No fresh key report of '{other}': no key report of it has been kept." in detail
