"""Topic configs a broker's release refuses, in the broker's own words, so a refusal comes
before anything is sent (and next to the configs field in the TUI).

Each rule was seen on a real broker (tests/integration/test_config_rules.py pins them on Kafka
4.4 KRaft and 3.9 ZooKeeper mode): Kafka 4.0 removed the message-format configs (KIP-724:
"Unknown topic config name: message.format.version") and raised segment.bytes' minimum from
14 bytes to 1 MiB (KIP-1030). A release is compared by major.minor; "3.3+" reads as 3.3.
Seen and not a rule: 4.4 accepts an empty cleanup.policy and an empty
leader.replication.throttled.replicas (the empty-list refusals of KIP-1161 do not reach them).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

Release = tuple[int, int]

REMOVED_IN: dict[str, Release] = {
    "message.format.version": (4, 0),
    "message.downconversion.enable": (4, 0),
}
# key -> (the release from which, the smallest value it takes)
MINIMUM_FROM: dict[str, tuple[Release, int]] = {
    "segment.bytes": ((4, 0), 1024 * 1024),
}


def release_numbers(release: str) -> Release | None:
    """ "4.4" or "3.3+" -> (4, 4) / (3, 3); None where it does not say ("<2.1", "")."""
    found = re.match(r"(\d+)\.(\d+)", release)
    return (int(found[1]), int(found[2])) if found else None


def refusal(key: str, value: str | None, releases: Iterable[Release]) -> str | None:
    """What the first of `releases` that refuses `key` = `value` says, or None."""
    for release in releases:
        removed = REMOVED_IN.get(key)
        if removed is not None and release >= removed:
            return f"Unknown topic config name: {key}"
        minimum = MINIMUM_FROM.get(key)
        if minimum is not None and value is not None:
            since, smallest = minimum
            number = value.strip()
            if release >= since and number.lstrip("-").isdigit() and int(number) < smallest:
                return (
                    f"Invalid value {value} for configuration {key}: "
                    f"Value must be at least {smallest}"
                )
    return None
