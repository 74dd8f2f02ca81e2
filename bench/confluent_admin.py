"""One request through confluent-kafka's AdminClient (librdkafka), as a whole process: what a
Python user would write instead of kafka-tui (bench/startup.py's peer; optional package).

Usage: python bench/confluent_admin.py describe|create|delete BOOTSTRAP TOPIC
  describe: DescribeTopics for TOPIC (partitions, leaders, replicas, ISR), printed as JSON;
  create:   CreateTopics for TOPIC with 1 partition, replication factor 1;
  delete:   DeleteTopics for TOPIC.
Exit 0 on success, 1 on a Kafka error.
"""

from __future__ import annotations

import json
import sys

from confluent_kafka import KafkaException, TopicCollection
from confluent_kafka.admin import AdminClient, NewTopic


def main() -> int:
    action, bootstrap, topic = sys.argv[1:4]
    client = AdminClient({"bootstrap.servers": bootstrap})
    try:
        if action == "create":
            client.create_topics([NewTopic(topic, 1, 1)])[topic].result()
            print(json.dumps({"topic": topic, "ok": True}))
        elif action == "delete":
            client.delete_topics([topic])[topic].result()
            print(json.dumps({"topic": topic, "deleted": True}))
        else:
            found = client.describe_topics(TopicCollection([topic]))[topic].result()
            partitions = [
                {
                    "partition": p.id,
                    "leader": p.leader.id if p.leader else None,
                    "replicas": [r.id for r in p.replicas],
                    "isr": [r.id for r in p.isr],
                }
                for p in found.partitions
            ]
            print(json.dumps({"topic": found.name, "partitions": partitions}))
    except KafkaException as exc:
        print(f"{topic}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
