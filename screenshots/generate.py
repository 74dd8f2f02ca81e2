"""Regenerate screenshots/*.svg from a real local KRaft cluster.

Starts its own cluster (not the demo's), seeds the demo topics, stops broker 3 so offline
replicas show, drives every screen with Pilot at 100x30 and saves an SVG of each.

Then starts broker 3 again for the drain shots (a drain needs somewhere to move to).

Usage: python screenshots/generate.py [--keep] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from aiokafka import AIOKafkaProducer
from textual.pilot import Pilot
from textual.widgets import Input, Select, Static, TextArea

from kafka_tui.admin import ConnectionSettings, KafkaAdmin, TopicSpec
from kafka_tui.admin.placeholders import PlaceholderStore
from kafka_tui.config import Profile, Settings
from kafka_tui.devcluster import DevCluster
from kafka_tui.devcluster.seed import DEMO_STOPPED_BROKER, seed_demo_groups, seed_demo_topics
from kafka_tui.services.placing import PlacementOptions, create_topics
from kafka_tui.services.snapshot import take_snapshot
from kafka_tui.tui.app import KafkaTuiApp, make_app
from kafka_tui.tui.screens.forms import FormScreen
from kafka_tui.tui.screens.metadata import MetadataScreen
from kafka_tui.tui.screens.produce import ProduceDialog
from kafka_tui.tui.screens.records import RecordsScreen
from kafka_tui.tui.widgets.broker_table import BrokerTable

HERE = Path(__file__).parent
SIZE = (100, 30)

Step = Callable[[KafkaTuiApp, Pilot[None]], Awaitable[None]]


async def settle(app: KafkaTuiApp, pilot: Pilot[None]) -> None:
    await app.workers.wait_for_complete()
    await pilot.pause()


async def home(app: KafkaTuiApp, pilot: Pilot[None]) -> None:
    pass


async def detail(app: KafkaTuiApp, pilot: Pilot[None]) -> None:
    await pilot.press("slash", *"inventory", "enter", "enter")
    await settle(app, pilot)


async def filtered(app: KafkaTuiApp, pilot: Pilot[None]) -> None:
    await pilot.press("u")
    await settle(app, pilot)


async def create(app: KafkaTuiApp, pilot: Pilot[None]) -> None:
    # With broker 3 stopped the disabled mode takes live brokers only, also when typed.
    await pilot.press("c", *"shipments", "tab", "tab", "tab", *"1:2,2:1,1:2,2:1")
    await pilot.press("tab", *"min.insync.replicas=2")
    await settle(app, pilot)


async def create_under_replicated(app: KafkaTuiApp, pilot: Pilot[None]) -> None:
    # RF 3 with broker 3 stopped; a minimum of 2 alone implies mode `enabled`.
    await pilot.press("c")
    screen = app.screen
    assert isinstance(screen, FormScreen)
    await asyncio.wait_for(screen.snapshot_ready.wait(), 60)
    await pilot.press(*"shipments", "tab", "6", "tab", "3", "tab", "tab", "tab", "tab", "2")
    await settle(app, pilot)
    screen.query_one("#form").scroll_end(animate=False)
    await pilot.pause()


async def brokers(app: KafkaTuiApp, pilot: Pilot[None]) -> None:
    # One topic with a replication factor above the brokers: placeholders (-1) to fill.
    assert app.admin is not None and app.profile is not None
    store = PlaceholderStore(app.profile.connection, app.profile.placeholders_topic)
    snapshot = await take_snapshot(app.admin, store=store)
    spec = TopicSpec("audit-log", 3, len(snapshot.brokers) + 1)
    await create_topics(app.admin, snapshot, [spec], PlacementOptions("enabled", 2), store)
    await pilot.press("b")
    await settle(app, pilot)


async def increase(app: KafkaTuiApp, pilot: Pilot[None]) -> None:
    # Typed replicas on the stopped broker 3, accepted in the enabled mode (under-replicated).
    await pilot.press("slash", *"orders", "enter", "p")
    screen = app.screen
    assert isinstance(screen, FormScreen)
    await asyncio.wait_for(screen.snapshot_ready.wait(), 60)
    await pilot.press(*"8", "tab", *"1:2:3,2:1:3", "tab", "enter", "down", "enter")
    await settle(app, pilot)


async def _customers(bootstrap: str) -> None:
    """A topic of keyed records (200 customers, uneven), placed by the default partitioner."""
    async with KafkaAdmin(ConnectionSettings(bootstrap)) as admin:
        await admin.create_topics([TopicSpec("customers", 3, 2)])
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks=1, linger_ms=20)
    await producer.start()
    try:
        sent = [
            await producer.send("customers", b"{}", key=f"customer-{i}".encode())
            for i in range(200)
            for _ in range(1 + i % 7)
        ]
        await asyncio.gather(*sent)
    finally:
        await producer.stop()


async def increase_keys(app: KafkaTuiApp, pilot: Pilot[None]) -> None:
    # F3 counts the topic's keys; the form then shows what 5 partitions move, exactly.
    assert app.admin is not None
    await _customers(app.admin.settings.bootstrap_servers)
    await pilot.press("r")
    await settle(app, pilot)
    await pilot.press("slash", *"customers", "enter", "p")
    screen = app.screen
    assert isinstance(screen, FormScreen)
    await asyncio.wait_for(screen.snapshot_ready.wait(), 60)
    await pilot.press("5", "f3")
    await settle(app, pilot)
    await settle(app, pilot)


async def plan(app: KafkaTuiApp, pilot: Pilot[None]) -> None:
    rows = [f"events-{n:02d},6,2,," for n in range(20)] + ["clickstream,16,,,"]
    path = Path(tempfile.gettempdir()) / "kafka-tui-screenshot-plan.csv"
    header = "topic,partitions,replication_factor,min_required_replication_factor,configs"
    path.write_text("\n".join([header, *rows]) + "\n")
    await pilot.press("P", *str(path), "ctrl+r")
    await settle(app, pilot)
    await settle(app, pilot)


async def reassign(app: KafkaTuiApp, pilot: Pilot[None]) -> None:
    # Every replica of clickstream moved off the stopped broker 3: the preview of the moves.
    await pilot.press("slash", *"clickstream", "enter", "enter")
    await settle(app, pilot)
    await pilot.press("m")
    await settle(app, pilot)
    await pilot.press(*"3")
    await settle(app, pilot)


async def delete(app: KafkaTuiApp, pilot: Pilot[None]) -> None:
    # The deletion worker waits on the confirmation, so wait for the screen, not the workers.
    await pilot.press("slash", *"clickstream", "enter", "d")
    await pilot.pause(0.3)
    # The dialog looks up the consumer groups meanwhile: shown once they are read.
    for _ in range(200):
        if getattr(app.screen, "readers", None) is not None:
            break
        await pilot.pause(0.05)
    await pilot.press(*"clicks")
    await pilot.pause()


async def groups(app: KafkaTuiApp, pilot: Pilot[None]) -> None:
    # The demo's groups (devcluster/seed.py), read three times: three looks for the status.
    await pilot.press("g")
    await settle(app, pilot)
    await pilot.press("r")
    await settle(app, pilot)
    await pilot.press("r")
    await settle(app, pilot)


async def group_detail(app: KafkaTuiApp, pilot: Pilot[None]) -> None:
    await groups(app, pilot)
    await pilot.press("slash", *"billing", "enter", "enter")
    await settle(app, pilot)


async def group_reset(app: KafkaTuiApp, pilot: Pilot[None]) -> None:
    # billing moved back one hour: the preview re-reads; the name typed, Execute enabled.
    from kafka_tui.services.group_reset import BY_DURATION
    from kafka_tui.tui.screens.group_changes import GroupResetDialog

    await group_detail(app, pilot)
    await pilot.press("R")
    for _ in range(600):  # the detail's worker waits on the dialog: wait for the dialog's own
        dialog = app.screen
        if isinstance(dialog, GroupResetDialog) and dialog.previews:
            break
        await pilot.pause(0.05)
    assert isinstance(dialog, GroupResetDialog)
    dialog.query_one("#reset-mode", Select).value = BY_DURATION
    await pilot.pause()
    dialog.query_one("#reset-value", Input).value = "PT1H"
    for _ in range(600):
        if dialog.previews > 1 and not any(w.is_running for w in app.workers if w.node is dialog):
            break
        await pilot.pause(0.05)
    dialog.query_one("#reset-confirm", Input).value = "billing"
    await pilot.pause()


REFUNDS = [  # (partition, key, value, headers, minutes ago)
    (0, "order-1041", {"order": 1041, "amount": 129.9, "reason": "damaged"}, "web", 52),
    (1, "order-1057", {"order": 1057, "amount": 18.5, "reason": "late"}, "app", 41),
    (0, "order-1063", {"order": 1063, "amount": 74.0, "reason": "wrong size"}, "web", 33),
    (1, "order-1072", {"order": 1072, "amount": 240.0, "reason": "damaged"}, "support", 21),
    (0, "order-1080", {"order": 1080, "amount": 9.99, "reason": "duplicate"}, "app", 12),
    (1, "order-1094", {"order": 1094, "amount": 56.2, "reason": "late"}, "web", 4),
]


async def _refunds(app: KafkaTuiApp) -> bool:
    """A topic of a few JSON records with headers, made once per cluster (True: just now)."""
    assert app.admin is not None and app.profile is not None
    snapshot = await take_snapshot(app.admin)
    if "refunds" in snapshot.topics:
        return False
    await app.admin.create_topics([TopicSpec("refunds", assignment={0: [1, 2], 1: [2, 1]})])
    now = int(time.time() * 1000)
    producer = AIOKafkaProducer(
        bootstrap_servers=app.profile.connection.bootstrap_servers, acks="all"
    )
    await producer.start()
    try:
        for partition, key, value, origin, minutes in REFUNDS:
            await producer.send_and_wait(
                "refunds",
                json.dumps(value).encode(),
                key=key.encode(),
                partition=partition,
                timestamp_ms=now - minutes * 60_000,
                headers=[("origin", origin.encode()), ("trace-id", f"t-{key[-4:]}".encode())],
            )
    finally:
        await producer.stop()
    return True


async def records(app: KafkaTuiApp, pilot: Pilot[None]) -> None:
    # refunds' records newest first, the second one's object in the pane.
    if await _refunds(app):
        await pilot.press("r")  # the topics screen read the cluster before refunds existed
        await settle(app, pilot)
    await pilot.press("slash", *"refunds", "enter", "v")
    for _ in range(600):
        screen = app.screen
        if isinstance(screen, RecordsScreen) and len(screen.shown) == len(REFUNDS):
            break
        await pilot.pause(0.05)
    await pilot.press("down")
    await settle(app, pilot)


async def records_produce(app: KafkaTuiApp, pilot: Pilot[None]) -> None:
    # The produce form filled in, a header list comma-separated, partition left to Kafka.
    await records(app, pilot)
    await pilot.press("P")
    for _ in range(600):
        if isinstance(app.screen, ProduceDialog):
            break
        await pilot.pause(0.05)
    dialog = app.screen
    dialog.query_one("#key", Input).value = "order-1101"
    dialog.query_one("#value-format", Select).value = "json"
    dialog.query_one("#value", TextArea).text = '{"order": 1101, "amount": 42.0, "reason": "late"}'
    dialog.query_one("#headers", TextArea).text = "origin=ops, trace-id=t-1101"
    await pilot.pause()
    dialog.query_one("#key", Input).focus()
    await pilot.pause()


async def palette(app: KafkaTuiApp, pilot: Pilot[None]) -> None:
    await pilot.press("ctrl+p", *"topic")
    await pilot.pause(0.3)


async def read_only(app: KafkaTuiApp, pilot: Pilot[None]) -> None:
    pass


SHOTS: list[tuple[str, Step, bool]] = [
    ("metadata", home, False),
    ("metadata-under-replicated", filtered, False),
    ("topic-detail-offline-replica", detail, False),
    ("create-topic", create, False),
    ("increase-partitions", increase, False),
    ("increase-partitions-keys", increase_keys, False),
    ("delete-confirmation", delete, False),
    ("command-palette", palette, False),
    ("read-only-profile", read_only, True),
    ("create-topic-under-replicated", create_under_replicated, False),
    ("brokers", brokers, False),
    ("plan", plan, False),
    ("reassign", reassign, False),
    ("groups", groups, False),
    ("group-detail", group_detail, False),
    ("group-reset", group_reset, False),
    ("records", records, False),
    ("records-produce", records_produce, False),
]


async def _settlements(bootstrap: str) -> None:
    """A topic with 6 MB on broker 2, so a throttled drain of it is still copying."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks=1, linger_ms=20)
    await producer.start()
    try:
        sent = [
            await producer.send("settlements", b"p" * 100_000, partition=i % 6) for i in range(60)
        ]
        await asyncio.gather(*sent)
    finally:
        await producer.stop()


async def brokers_drain(app: KafkaTuiApp, pilot: Pilot[None]) -> None:
    # Broker 2 drained at 200 KB/s: the confirmation first (saved too), then the progress.
    assert app.admin is not None and app.profile is not None
    snapshot = await take_snapshot(app.admin)
    if "settlements" not in snapshot.topics:
        spec = TopicSpec("settlements", assignment={p: [2, 1 + 2 * (p % 2)] for p in range(6)})
        await app.admin.create_topics([spec])
        await _settlements(app.profile.connection.bootstrap_servers)
    await pilot.press("b")
    await settle(app, pilot)
    table = app.screen.query_one(BrokerTable)
    for _ in range(600):
        if table.row_count:
            break
        await pilot.pause(0.05)
    table.move_cursor(row=1)  # broker 2
    await pilot.press("d")
    for _ in range(600):
        if app.screen.query("#drain-throttle"):
            break
        await pilot.pause(0.05)
    app.screen.query_one("#drain-throttle", Input).value = "200000"
    await pilot.pause()
    app.save_screenshot(filename="brokers-drain-confirm.svg", path=str(HERE))
    print("screenshots/brokers-drain-confirm.svg")
    await pilot.click("#drain-yes")
    for _ in range(1200):
        status = app.screen.query("#drain-status")
        text = str(status.first(Static).render()) if status else ""
        if "partitions moved" in text and " 0 B of" not in text:
            break
        await pilot.pause(0.05)


async def stop_drain(app: KafkaTuiApp, pilot: Pilot[None]) -> None:
    """After the shot: stop the drain cleanly and give broker 2 back its cordon-free state."""
    await pilot.press("escape")
    await app.workers.wait_for_complete()
    if app.admin is not None:
        from kafka_tui.services.draining import undrain

        await undrain(app.admin, [2])


DRAIN_SHOTS: list[tuple[str, Step, bool]] = [("brokers-drain", brokers_drain, False)]
AFTER: dict[str, Step] = {"brokers-drain": stop_drain}


async def shoot(bootstrap: str, shots: list[tuple[str, Step, bool]]) -> None:
    for name, step, read_only_profile in shots:
        profile = Profile(
            "production" if read_only_profile else "local demo",
            ConnectionSettings(bootstrap),
            read_only=read_only_profile,
        )
        app = make_app(Settings(profiles={profile.name: profile}), profile, refresh_seconds=0)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            assert isinstance(screen, MetadataScreen)
            await asyncio.wait_for(screen.loaded.wait(), 60)
            await settle(app, pilot)
            await step(app, pilot)
            app.save_screenshot(filename=f"{name}.svg", path=str(HERE))
            print(f"screenshots/{name}.svg")
            if name in AFTER:
                await AFTER[name](app, pilot)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="leave the cluster running")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="only these shots")
    args = parser.parse_args()

    def chosen(shots: list[tuple[str, Step, bool]]) -> list[tuple[str, Step, bool]]:
        return [s for s in shots if not args.only or s[0] in args.only]

    logging.basicConfig(level=logging.CRITICAL)  # aiokafka reports the stopped broker
    # A folder of its own per run: two runs side by side (or one after a run that left its
    # cluster formatted there) collided in a fixed /tmp/kafka-tui-screenshots.
    cluster = DevCluster(Path(tempfile.mkdtemp(prefix="kafka-tui-screenshots-")))
    cluster.up("kraft", brokers=3)
    # The key counts the shots make, kept with the cluster (not in the user's cache).
    os.environ["KAFKA_TUI_KEY_REPORTS"] = str(cluster.root / "key-reports")
    if args.keep:
        print(f"cluster kept in {cluster.root}", flush=True)
    try:
        bootstrap = cluster.bootstrap_servers()
        seed_demo_topics(bootstrap)
        seed_demo_groups(bootstrap)
        cluster.stop_broker(DEMO_STOPPED_BROKER)
        asyncio.run(shoot(bootstrap, chosen(SHOTS)))
        if chosen(DRAIN_SHOTS):
            cluster.start_broker(DEMO_STOPPED_BROKER)
            asyncio.run(shoot(bootstrap, chosen(DRAIN_SHOTS)))
    finally:
        if not args.keep:
            cluster.down()


if __name__ == "__main__":
    main()
