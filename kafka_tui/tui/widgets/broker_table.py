"""One row per broker: id, rack, live or offline, how it is known, its replicas and leaders,
the Kafka release it runs and its cordoned log directories (KIP-1066)."""

from __future__ import annotations

from collections import Counter
from typing import ClassVar

from rich.text import Text
from textual.widgets import DataTable

from ...services.snapshot import Snapshot
from .replicas import ReplicaState
from .styled import REPLICA_CLASSES, ReplicaStyled
from .tables import fit_height


def observed_source(snapshot: Snapshot, zookeeper: str | None) -> str:
    """How kafka-tui knows the brokers that are offline (KIP-409's observed brokers)."""
    if snapshot.kraft:
        return "registered with the controller"
    if zookeeper:
        return "/brokers/observed_ids in ZooKeeper"
    return "live only (no zookeeper_connect in the profile)"


def _cordoned(snapshot: Snapshot, broker: int, live: bool) -> Text:
    """The cordoned directories ("all: ..." when no directory takes a new replica), "-" for
    none, "?" where the broker did not say."""
    dirs = snapshot.log_dirs.get(broker)
    if dirs is None:
        return Text("?" if live else "-")
    if not dirs.cordoned:
        return Text("-")
    listed = ", ".join(dirs.cordoned)
    return Text(f"all: {listed}", style="bold") if dirs.all_cordoned else Text(listed)


class BrokerTable(ReplicaStyled, DataTable[object]):
    COMPONENT_CLASSES: ClassVar[set[str]] = DataTable.COMPONENT_CLASSES | REPLICA_CLASSES

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.add_columns(
            "Broker",
            "Rack",
            "State",
            "Observed",
            "Replicas",
            "Leaders",
            "Preferred leaders",
            "Version",
            "Cordoned log dirs",
        )

    def show(self, snapshot: Snapshot) -> None:
        leaders = Counter(
            p.leader for t in snapshot.topics.values() for p in t.partitions if p.leader >= 0
        )
        self.clear()
        for b in sorted(snapshot.brokers, key=lambda b: b.id):
            state = (
                Text("live")
                if b.live
                else Text("offline", style=self.replica_style(ReplicaState.OFFLINE))
            )
            self.add_row(
                f"{b.id}{'' if b.live else '!'}",
                b.rack or "-",
                state,
                "yes",
                str(snapshot.load.replicas.get(b.id, 0)),
                str(leaders[b.id]),
                str(snapshot.load.leaders.get(b.id, 0)),
                snapshot.releases.get(b.id, "?" if b.live else "-"),
                _cordoned(snapshot, b.id, b.live),
                key=str(b.id),
            )
        fit_height(self)
