"""The TUI's import loads what its first screen draws, not what other screens or their actions
use (issue 52.1: the first frame on the demo cluster within 0.5 s of the start; bench/
first_frame.py has the times). A screen's dialogs and services load when first opened."""

from __future__ import annotations

import subprocess
import sys

# Libraries of actions a first frame never takes: Spark, jq filters, the schema registry's
# codecs (Avro, Protobuf, JSON Schema), msgpack and Arrow files.
LIBRARIES = ("pyspark", "jq", "fastavro", "google.protobuf", "jsonschema", "msgpack", "pyarrow")
# kafka-tui's own modules that load when their screen or action is first used.
LATER = (
    "kafka_tui.registry.client",
    "kafka_tui.registry.codec",
    "kafka_tui.services.message_search",
    "kafka_tui.services.draining",
    "kafka_tui.services.group_reset",
    "kafka_tui.tui.screens.produce",
    "kafka_tui.tui.screens.drain",
    "kafka_tui.tui.screens.group_changes",
    "kafka_tui.tui.screens.reassign",
    "kafka_tui.tui.screens.error",
    "kafka_tui.tui.screens.profiles",
    "kafka_tui.tui.screens.brokers",
    "kafka_tui.tui.screens.create",
    "kafka_tui.tui.screens.detail",
    "kafka_tui.tui.screens.groups",
    "kafka_tui.tui.screens.partitions",
    "kafka_tui.tui.screens.plan",
    "kafka_tui.tui.screens.records",
    "kafka_tui.services.plan_workflow",
    "kafka_tui.services.spark_runner",
)


# The group and producer operations and the requests they send: loaded by the admin client
# when one is first used (admin/client.py), not by a one-topic create (issue 52: within 1.3x
# of a raw CreateTopics process, bench/startup.py) nor by the TUI's first frame.
GROUPS_AND_PRODUCERS = (
    "kafka_tui.admin.group_work",
    "kafka_tui.admin.consumer_groups",
    "kafka_tui.admin.group_detail",
    "kafka_tui.admin.producers",
    "kafka_tui.admin.sampling",
    "kafka_tui.admin.protocol_groups",
    "kafka_tui.admin.protocol_group_changes",
    "kafka_tui.admin.record_fetch",
)


def test_the_apps_import_leaves_other_screens_actions_unloaded() -> None:
    code = f"""
import sys
import kafka_tui.tui.app
names = {LIBRARIES + LATER + GROUPS_AND_PRODUCERS!r}
print(sorted(m for m in sys.modules if m in names or m.startswith(tuple(n + "." for n in names))))
print("kafka_tui.tui.screens.metadata" in sys.modules)
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # The second line shows the check sees what the import loaded (the first screen's module).
    assert proc.stdout.splitlines() == ["[]", "True"], proc.stdout + proc.stderr


def test_a_create_leaves_the_group_and_producer_modules_unloaded() -> None:
    code = f"""
import sys
from kafka_tui.cli import command_line
args = command_line.parse_args(["topics", "create", "t", "--partitions", "1"])
from kafka_tui.cli import topics
from kafka_tui.services import placing, snapshot
from kafka_tui.admin import ConnectionSettings, KafkaAdmin
admin = KafkaAdmin(ConnectionSettings("127.0.0.1:1"))
admin.create_topics, admin.describe_cluster, admin.topics_with_load
names = {GROUPS_AND_PRODUCERS!r}
print(sorted(m for m in sys.modules if m in names))
admin.all_groups, admin.producers_of  # their first use loads them
print(sorted(m for m in sys.modules if m in names) == sorted(names), type(admin).__name__)
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.splitlines() == ["[]", "True KafkaAdmin"], proc.stdout + proc.stderr
