"""Values worked out before they are needed: a bulk create's JSON output and audit outcomes
are rendered while the controller works, and used once its answer comes."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

T = TypeVar("T")
V = TypeVar("V")


class Ahead(Generic[T, V]):
    """Values by object identity, each used only for the very object it was made from (an
    id can belong to a new object once the old one is gone) and only once."""

    def __init__(self) -> None:
        self._by_id: dict[int, tuple[T, V]] = {}

    def prepare(self, items: Iterable[T], make: Callable[[T], V]) -> None:
        """`make` each item's value now, replacing what was prepared before."""
        self._by_id = {id(item): (item, make(item)) for item in items}

    def take(self, item: T, make: Callable[[T], V]) -> V:
        """The value prepared for `item`, or `make(item)` if there is none."""
        entry = self._by_id.pop(id(item), None)
        return entry[1] if entry is not None and entry[0] is item else make(item)

    def clear(self) -> None:
        self._by_id.clear()

    def __bool__(self) -> bool:
        """Whether any value is prepared."""
        return bool(self._by_id)
