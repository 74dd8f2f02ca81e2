"""Headless sub-commands (kafka-topics.sh habits)."""
