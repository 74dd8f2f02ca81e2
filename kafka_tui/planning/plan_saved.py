"""The saved plan: the document `plan preview --save` writes, recognised and checked field by
field (file:line:column and the field's path) before `plan apply` or the plan screen use it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kafka_tui.planning.plan_json import DECODER, skip, unreadable
from kafka_tui.planning.plan_rows import Places, PlanFileError, PlanFileErrors


def is_saved_plan(text: str) -> bool:
    """A document written by `plan preview --save` (an object with topics and brokers)."""
    stripped = text.lstrip()
    if not stripped.startswith("{"):
        return False
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return isinstance(document, dict) and "topics" in document and "brokers" in document


def saved_plan(name: str, text: str) -> dict[str, Any]:
    """A document written by `plan preview --save`, checked field by field before `plan apply`
    uses it: PlanFileErrors (file:line:column and the field's path) for a broken one."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        error = PlanFileError(name, exc.lineno, exc.colno, f"not JSON: {exc.msg}")
        raise PlanFileErrors([error]) from None
    except (RecursionError, ValueError) as exc:
        raise PlanFileErrors([PlanFileError(name, 1, 1, unreadable(exc))]) from None
    found: list[tuple[int, str]] = []  # (offset, message)
    _shape(text, skip(text, 0), document, _SAVED_PLAN, "plan", found)
    if not found:
        _saved_topics(text, document, found)
    if found:
        # in the order of the text, so that one pass finds every line and column
        places = Places(text)
        errors = [
            PlanFileError(name, *places(at), message) for at, message in sorted(found, key=_first)
        ]
        raise PlanFileErrors(errors)
    return dict(document)


# -- the saved plan: the fields `plan apply` and the plan screen read ---------------------------


@dataclass(frozen=True)
class _MapOf:
    values: object


_INT = int
_NUMBER = (int, float)
_STAT = {"min": _NUMBER, "max": _NUMBER, "avg": _NUMBER, "std": _NUMBER, "max_avg": _NUMBER}
_SAVED_TOPIC = {
    "topic": str,
    "action": frozenset({"create", "grow", "configs"}),
    "partitions": (int, type(None)),
    "replication_factor": (int, type(None)),
    "assignment": [[_INT]],
    "warnings": [str],
    "error": (str, type(None)),
    "message": str,
    "configs": _MapOf(str),
    "min_required_replication_factor?": (int, type(None)),
    "placeholder_racks?": [[(str, type(None))]],
    "remedies?": [{"settings": [[str]], "purpose": str}],
    "config_changes?": [{"key": str, "before": (str, type(None)), "after": (str, type(None))}],
}
_SAVED_PLAN = {
    "engine": str,
    "cluster?": {"id": (str, type(None)), "snapshot_time": (str, type(None))},
    "topics": [_SAVED_TOPIC],
    "brokers": [
        {
            "id": _INT,
            "rack": (str, type(None)),
            "live": bool,
            "replicas_before": _INT,
            "replicas_after": _INT,
            "leaders_before": _INT,
            "leaders_after": _INT,
            "degree": _INT,
        }
    ],
    "warnings": [str],
    "stats": {
        "partitions": _INT,
        "new_replicas": _INT,
        "replicas_after": _STAT,
        "leaders_after": _STAT,
        "same_rack_partitions": _INT,
        "placeholders": _INT,
        "replicas_on_offline_brokers": _INT,
        "racks": [
            {
                "rack": (str, type(None)),
                "brokers": _INT,
                "replicas_before": _INT,
                "replicas_after": _INT,
                "leaders_before": _INT,
                "leaders_after": _INT,
            }
        ],
        "sanity": {"ok": bool, "problems": [str]},
    },
}


def _shape(
    text: str,
    position: int,
    value: object,
    shape: object,
    path: str,
    found: list[tuple[int, str]],
) -> None:
    """Check `value` (at `position` of `text`) against `shape`: a type or tuple of types, a
    frozenset of allowed values, [element shape], {key: shape} ('key?': optional) or _MapOf.
    A problem is added to `found` as (offset, message)."""

    def fail(message: str) -> None:
        found.append((position, f"{path}: {message}"))

    if isinstance(shape, dict):
        if not isinstance(value, dict):
            return fail("expected an object")
        starts = {key: start for key, _, _, start, _ in _members(text, position)}
        for key, inner in shape.items():
            if key.rstrip("?") in value:
                key = key.rstrip("?")
                _shape(text, starts[key], value[key], inner, f"{path}.{key}", found)
            elif not key.endswith("?"):
                fail(f"'{key}' is missing")
    elif isinstance(shape, list):
        if not isinstance(value, list):
            return fail("expected a list")
        for index, (start, item, _) in enumerate(_elements(text, position)):
            _shape(text, start, item, shape[0], f"{path}[{index}]", found)
    elif isinstance(shape, _MapOf):
        if not isinstance(value, dict):
            return fail("expected an object")
        for key, _, item, start, _ in _members(text, position):
            _shape(text, start, item, shape.values, f"{path}.{key}", found)
    elif isinstance(shape, frozenset):
        if not isinstance(value, str) or value not in shape:
            fail(f"expected one of {', '.join(sorted(shape))}")
    else:
        types = shape if isinstance(shape, tuple) else (shape,)
        if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
            kinds = " or ".join(_KIND_NAMES.get(t, t.__name__) for t in types)
            fail(f"expected {kinds}, got {json.dumps(value)[:40]}")
    return None


def _first(pair: tuple[int, str]) -> int:
    return pair[0]


def _elements(text: str, position: int) -> Iterator[tuple[int, object, int]]:
    """(start, value, end) of each element of the array at `position` in valid JSON."""
    position = skip(text, position + 1)
    while text[position] != "]":
        value, end = DECODER.raw_decode(text, position)
        yield position, value, end
        position = skip(text, end)
        position = skip(text, position + (text[position] == ","))


def _members(text: str, position: int) -> Iterator[tuple[str, int, object, int, int]]:
    """(key, key start, value, value start, value end) of each member of the object at
    `position` in valid JSON: exact places, even for a key spelled with escapes."""
    position = skip(text, position + 1)
    while text[position] != "}":
        key, end = DECODER.raw_decode(text, position)
        start = skip(text, skip(text, end) + 1)
        value, end = DECODER.raw_decode(text, start)
        yield key, position, value, start, end
        position = skip(text, end)
        position = skip(text, position + (text[position] == ","))


_KIND_NAMES = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}
_KIND_NAMES[type(None)] = "null"


def _saved_topics(text: str, document: dict[str, Any], found: list[tuple[int, str]]) -> None:
    """What the shapes cannot say: a planned row's numbers agree with its assignment."""
    start = [at for key, _, _, at, _ in _members(text, skip(text, 0)) if key == "topics"][-1]
    places = (position for position, _, _ in _elements(text, start))
    for index, (position, entry) in enumerate(zip(places, document["topics"], strict=True)):
        if entry["error"]:
            continue
        partitions, factor = entry["partitions"], entry["replication_factor"]
        lists = entry["assignment"]
        problem = None
        if partitions is None or factor is None or partitions < 1 or factor < 1:
            problem = "a planned topic needs partitions and replication_factor >= 1"
        elif entry["action"] == "create" and len(lists) != partitions:
            problem = f"{len(lists)} replica lists for {partitions} partitions"
        elif entry["action"] == "configs" and lists:
            problem = "a config change places no replica"
        elif entry["action"] == "grow" and not 0 < len(lists) < partitions:
            problem = f"{len(lists)} new replica lists to grow to {partitions} partitions"
        elif any(len(replicas) != factor for replicas in lists):
            problem = f"a replica list is not {factor} long (the replication factor)"
        if problem:
            found.append((position, f"plan.topics[{index}]: {problem}"))
