"""The JSON plan readers: a JSON document (a list of rows, or an object with "topics") and JSON
lines, each read in one walk that finds the places (line, column) of a bad row's fields; and
the JSON helpers the saved plan's checks share."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator

from kafka_tui.planning.plan_model import Intent
from kafka_tui.planning.plan_rows import (
    COLUMNS,
    Cell,
    Places,
    PlanFileError,
    PlanFileErrors,
    Record,
    intent_from_cells,
)

DECODER = json.JSONDecoder()
_JSON_SPACE = re.compile(r"[ \t\n\r]*")


class _NotJson(Exception):
    """The walk met text json.loads refuses; json.loads then words the error."""


def skip(text: str, position: int) -> int:
    """Past JSON whitespace."""
    return _JSON_SPACE.match(text, position).end()  # type: ignore[union-attr]


def unreadable(exc: Exception) -> str:
    if isinstance(exc, RecursionError):
        return "not JSON that can be read: arrays or objects nested too deeply"
    return f"not JSON that can be read: {exc}"  # e.g. an integer of more than 4300 digits


def _json_error(name: str, text: str, line: int | None = None) -> PlanFileError:
    """json.loads' own words for text the walk refused (`line`: the JSON line's number)."""
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return PlanFileError(name, line or exc.lineno, exc.colno, f"not JSON: {exc.msg}")
    except (RecursionError, ValueError) as exc:
        return PlanFileError(name, line or 1, 1, unreadable(exc))
    raise AssertionError("json.loads read what the walk refused")


# A row of a JSON file: its place, and (key, place, value) of each member, None if no object.
_JsonRow = tuple[tuple[int, int], list[tuple[str, tuple[int, int], object]] | None]
_KNOWN = frozenset(COLUMNS)


def json_lines(name: str, text: str) -> list[Intent]:
    intents: list[Intent] = []
    errors: list[PlanFileError] = []
    # JSON lines end at \n only; JSON strings may hold U+2028 and friends
    for number, raw in enumerate(text.split("\n"), start=1):
        _json_line(name, number, raw, intents, errors)
    return _done(intents, errors)


def json_line(name: str, line: int, raw: str) -> Intent | list[PlanFileError] | None:
    """One line of a JSON lines plan read apart (the Spark job's reader): its intent, its
    problems as `json_lines` words them, or None for a blank line."""
    intents: list[Intent] = []
    errors: list[PlanFileError] = []
    _json_line(name, line, raw, intents, errors)
    if errors:
        return sorted(errors, key=lambda e: (e.line, e.column))
    return intents[0] if intents else None


def _json_line(
    name: str, number: int, raw: str, intents: list[Intent], errors: list[PlanFileError]
) -> None:
    start = skip(raw, 0)
    if start == len(raw):
        return
    try:
        value, end = DECODER.raw_decode(raw, start)
        if skip(raw, end) != len(raw):
            raise _NotJson
    except RecursionError as exc:
        errors.append(PlanFileError(name, number, 1, unreadable(exc)))
        return
    except (_NotJson, ValueError):  # json.JSONDecodeError is a ValueError
        errors.append(_json_error(name, raw, number))
        return
    if not _good_row(name, value, intents):
        _placed_row(name, raw, start, value, Places(raw, 0, number), errors)


def json_document(name: str, text: str) -> list[Intent]:
    try:
        found = _document_rows(name, text)
    except RecursionError as exc:
        raise PlanFileErrors([PlanFileError(name, 1, 1, unreadable(exc))]) from None
    except (_NotJson, ValueError):
        raise PlanFileErrors([_json_error(name, text)]) from None
    if found is None:
        message = "expected a list of rows, or an object with 'topics'"
        raise PlanFileErrors([PlanFileError(name, 1, 1, message)])
    return _done(*found)


def _done(intents: list[Intent], errors: list[PlanFileError]) -> list[Intent]:
    if errors:
        raise PlanFileErrors(sorted(errors, key=lambda e: (e.line, e.column)))
    return intents


_Checked = tuple[list[Intent], list[PlanFileError]]


def _document_rows(name: str, text: str) -> _Checked | None:
    """A plan document's rows, checked in one walk: a list, or the last "topics" of an object
    (as in json.loads); None when it is neither. Raises _NotJson or json's own errors where
    json.loads would fail."""
    places = Places(text)
    found: _Checked | None = None

    def member(key: str, position: int) -> tuple[object, int]:
        nonlocal found
        if key == "topics" and text.startswith("[", position):
            found, end = _json_array(name, text, position, places)
            return None, end
        if key == "topics":
            found = None
        return DECODER.raw_decode(text, position)

    position = skip(text, 0)
    if text.startswith("[", position):
        found, position = _json_array(name, text, position, places)
    elif text.startswith("{", position):
        _, position = _walk_object(text, position, member)
    else:
        _, position = DECODER.raw_decode(text, position)
    if skip(text, position) != len(text):
        raise _NotJson
    return found


def _json_array(name: str, text: str, position: int, places: Places) -> tuple[_Checked, int]:
    """The rows of the array at `position`, checked; and where the array ends."""
    intents: list[Intent] = []
    errors: list[PlanFileError] = []
    position = skip(text, position + 1)
    if text.startswith("]", position):
        return (intents, errors), position + 1
    while True:
        value, end = DECODER.raw_decode(text, position)
        if not _good_row(name, value, intents):
            _placed_row(name, text, position, value, places, errors)
        position = skip(text, end)
        if text.startswith(",", position):
            position = skip(text, position + 1)
        elif text.startswith("]", position):
            return (intents, errors), position + 1
        else:
            raise _NotJson


def _good_row(name: str, value: object, intents: list[Intent]) -> bool:
    """Add the row's intent if it has no problem; False if it has one (no places needed here:
    the caller then finds them with _placed_row)."""
    if not (isinstance(value, dict) and value.keys() <= _KNOWN):
        return False
    cells: dict[str, Cell] = {
        key: (item, 0, 0) for key, item in value.items() if item is not None and item != ""
    }
    errors: list[PlanFileError] = []
    intent = intent_from_cells(name, 0, 0, cells, errors)
    if errors:
        return False
    intents.append(intent)
    return True


def _placed_row(
    name: str, text: str, start: int, value: object, places: Places, errors: list[PlanFileError]
) -> None:
    """The problems of the row `value`, read from `start` of `text`, with their places."""
    place = places(start)
    members = None
    if isinstance(value, dict):
        found, _ = _walk_object(text, start)
        members = [(key, places(at), item) for key, at, item in found]
    for record in _json_record(name, (place, members)):
        if isinstance(record, PlanFileError):
            errors.append(record)
        else:
            intent_from_cells(name, *record, errors)


def _json_record(name: str, row: _JsonRow) -> Iterator[Record | PlanFileError]:
    (line, column), members = row
    if members is None:
        yield PlanFileError(name, line, column, "expected an object with a 'topic' field")
        return
    cells: dict[str, Cell] = {}
    for key, (key_line, key_column), item in members:
        if key not in COLUMNS:
            yield PlanFileError(
                name, key_line, key_column, f"unknown field '{key}' (expected {', '.join(COLUMNS)})"
            )
            continue
        if item is not None and item != "":
            cells[key] = (item, key_line, key_column)
        else:
            cells.pop(key, None)
    yield line, column, cells


def _walk_object(
    text: str, position: int, value: Callable[[str, int], tuple[object, int]] | None = None
) -> tuple[list[tuple[str, int, object]], int]:
    """The object at `position`: (key, where the key starts, value) of each member, and where
    the object ends. `value(key, start)`, if given, reads a member's value instead of
    json: (value, where it ends)."""
    members: list[tuple[str, int, object]] = []
    position = skip(text, position + 1)
    if text.startswith("}", position):
        return members, position + 1
    while True:
        if not text.startswith('"', position):
            raise _NotJson
        key, end = DECODER.raw_decode(text, position)
        end = skip(text, end)
        if not text.startswith(":", end):
            raise _NotJson
        start = skip(text, end + 1)
        item, end = DECODER.raw_decode(text, start) if value is None else value(key, start)
        members.append((key, position, item))
        position = skip(text, end)
        if text.startswith(",", position):
            position = skip(text, position + 1)
        elif text.startswith("}", position):
            return members, position + 1
        else:
            raise _NotJson
