"""kafka-tui: a terminal admin tool for Apache Kafka topics."""

__version__ = "0.1.0"
