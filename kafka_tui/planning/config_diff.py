"""Topics as desired state (issue 32): a plan row's configs are the topic's desired overrides,
and the difference to the topic's current overrides is what `plan apply --configs` sends.

A key is a difference only when its effective value would change: a plan value equal to the
value the topic has now (its override, or the broker's default when it has none) is not one,
nor is an override the plan leaves out whose value is the default underneath it; read-only
keys never are. A sensitive key's values are never shown: both sides read "(sensitive)".

Pure: the current state comes in as `ConfigState`s (read by the services from DescribeConfigs
with synonyms), the difference goes out as (key, before, after) with before None = added,
after None = removed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

SENSITIVE = "(sensitive)"

# (key, before, after): before None = an override added, after None = an override removed.
ConfigChange = tuple[str, str | None, str | None]


@dataclass(frozen=True)
class ConfigState:
    """One config of an existing topic, as DescribeConfigs answers it."""

    value: str | None  # None: a sensitive value (or a config without a value)
    override: bool  # a topic-level override (source DYNAMIC_TOPIC_CONFIG)
    default: str | None = None  # the value without the override (the next synonym); None: none
    read_only: bool = False
    sensitive: bool = False


def config_diff(
    desired: Sequence[tuple[str, str]], current: Mapping[str, ConfigState]
) -> tuple[ConfigChange, ...]:
    """The changes that make the topic's overrides `desired`, sorted by key."""
    changes: list[ConfigChange] = []
    wanted = dict(desired)
    for key, value in sorted(wanted.items()):
        state = current.get(key)
        if state is None:  # a key the broker does not know: its answer will say so
            changes.append((key, None, value))
            continue
        if state.read_only:
            continue
        if state.sensitive:
            changes.append((key, SENSITIVE if state.override else None, SENSITIVE))
        elif state.value != value:
            changes.append((key, state.value if state.override else None, value))
    for key, state in sorted(current.items()):
        if key in wanted or not state.override or state.read_only:
            continue
        if state.sensitive:
            changes.append((key, SENSITIVE, None))
        elif state.default is None or state.value != state.default:
            changes.append((key, state.value, None))
    return tuple(sorted(changes))


def change_words(change: ConfigChange) -> str:
    """`+key=after`, `key: before -> after`, `-key (was before)`."""
    key, before, after = change
    if before is None:
        return f"+{key}={after}"
    if after is None:
        return f"-{key} (was {before})"
    return f"{key}: {before} -> {after}"
