"""Values worked out before they are needed: a bulk create's JSON output and audit outcomes
are rendered while the controller works, and used once its answer comes."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from operator import is_
from typing import Generic, TypeVar

T = TypeVar("T")
V = TypeVar("V")


class Ahead(Generic[T, V]):
    """Values by object identity, each used only for the very object it was made from (an
    id can belong to a new object once the old one is gone) and only once."""

    def __init__(self) -> None:
        self._by_id: dict[int, tuple[T, V]] = {}

    def prepare(self, items: Iterable[T], make: Callable[[T], V]) -> list[V]:
        """`make` each item's value now, replacing what was prepared before; the values, in
        the items' order."""
        made = [(item, make(item)) for item in items]
        self._by_id = {id(item): (item, value) for item, value in made}
        return [value for _, value in made]

    def take(self, item: T, make: Callable[[T], V]) -> V:
        """The value prepared for `item`, or `make(item)` if there is none."""
        entry = self._by_id.pop(id(item), None)
        return entry[1] if entry is not None and entry[0] is item else make(item)

    def clear(self) -> None:
        self._by_id.clear()

    def __bool__(self) -> bool:
        """Whether any value is prepared."""
        return bool(self._by_id)


class AheadOfList(Generic[T, V]):
    """One value for a whole list of objects (e.g. the JSON of 2,000 results), used only for
    those very objects, in the same order, and only once."""

    def __init__(self) -> None:
        self._ahead: tuple[list[T], V] | None = None

    def prepare(self, items: list[T], value: V) -> None:
        self._ahead = (items, value)

    def clear(self) -> None:
        self._ahead = None

    def take(self, items: Sequence[T]) -> V | None:
        """The value prepared for exactly `items`, else None; nothing is prepared after."""
        ahead, self._ahead = self._ahead, None
        if ahead is None or len(ahead[0]) != len(items):
            return None
        return ahead[1] if all(map(is_, ahead[0], items)) else None
