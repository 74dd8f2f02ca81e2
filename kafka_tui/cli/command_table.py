"""The commands of `kafka-tui` and the module of each, apart from main.py and the parser
(command_line.py), which both read it: neither imports the other for it."""

from __future__ import annotations

# Each command's module, imported only when that command runs: a script's
# `topics create` does not pay for Spark plans, reassignments or the dev cluster at start-up.
COMMANDS = {
    "cluster": ("kafka_tui.cli.topics", "the cluster: id, controller, brokers"),
    "topics": ("kafka_tui.cli.topics", "list, describe, create, alter, delete topics"),
    "brokers": ("kafka_tui.cli.brokers", "live, offline and observed brokers (KIP-409)"),
    "placeholders": ("kafka_tui.cli.brokers", "KIP-409 placeholder replicas: list them, fill them"),
    "plan": ("kafka_tui.cli.plans", "bulk assignment plans: preview, apply, export"),
    "reassignments": ("kafka_tui.cli.reassign", "partition reassignments: list, cancel"),
    "throttles": ("kafka_tui.cli.throttles", "replication throttles left on brokers and topics"),
    "groups": ("kafka_tui.cli.groups", "consumer, share and streams groups: lag, reset, delete"),
    "messages": ("kafka_tui.cli.messages", "read, follow, filter, search and produce records"),
    "leaders": ("kafka_tui.cli.leaders", "preferred / unclean leader election"),
    "dev-cluster": (
        "kafka_tui.devcluster.commands",
        "run a real local Kafka cluster (2.1-4.4, KRaft or ZooKeeper mode)",
    ),
    "audit": ("kafka_tui.cli.audit", "the audit log of the changes kafka-tui made"),
}
