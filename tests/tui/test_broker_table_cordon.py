"""The brokers table shows each broker's release and cordoned log directories (KIP-1066):
"all: ..." where no directory takes a new replica, "?" where a live broker did not say."""

from __future__ import annotations

from kafka_tui.admin.model import BrokerLogDirs
from kafka_tui.planning.placement import Broker, Load
from kafka_tui.services.snapshot import Snapshot
from kafka_tui.tui.widgets.broker_table import BrokerTable

from .test_tui_snapshots import Harness


async def test_cordoned_directories_and_releases_per_broker() -> None:
    snapshot = Snapshot(
        brokers=[
            Broker(1, "rack-a", True),
            Broker(2, "rack-b", True, cordoned=True),
            Broker(3, "rack-c", True),
            Broker(4, "rack-a", True),
            Broker(5, "rack-b", False),
        ],
        load=Load(),
        topics={},
        defaults={},
        releases={1: "4.4+", 2: "4.4+", 3: "4.3"},
        log_dirs={
            1: BrokerLogDirs(("/d1",)),
            2: BrokerLogDirs(("/d2a", "/d2b"), ("/d2a", "/d2b")),
            3: BrokerLogDirs(("/d3a", "/d3b"), ("/d3b",)),
        },
    )
    table = BrokerTable()
    async with Harness(table).run_test(size=(160, 10)) as pilot:
        table.show(snapshot)
        await pilot.pause()
        rows = {key: [str(c) for c in table.get_row(key)] for key in "12345"}
    assert [(r[-2], r[-1]) for r in rows.values()] == [
        ("4.4+", "-"),
        ("4.4+", "all: /d2a, /d2b"),
        ("4.3", "/d3b"),
        ("?", "?"),  # live, but it did not answer
        ("-", "-"),  # offline: it cannot be asked
    ]
