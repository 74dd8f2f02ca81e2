"""A table that draws only its visible lines: a header line, then one text line per row, and
a cursor row. The topics table and the plan's topics table are of this kind: a DataTable
measures every cell of every row it is given (a 200,000-topic plan: over a minute of the
screen's time), these cost the same for 20 rows or 1,000,000."""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region
from textual.scroll_view import ScrollView
from textual.strip import Strip


class VirtualTable(ScrollView, can_focus=True):
    """Subclasses give `row_count`, `header_text()`, `row_text(index)`, `row_style(index)`
    (the component styles of that row) and `highlighted()` (the cursor moved)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home,g", "jump(0)", "First", show=False),
        Binding("end,G", "jump(-1)", "Last", show=False),
    ]
    CURSOR_CLASS = ""  # the component class of the cursor row, when the table has the focus

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.cursor = 0
        self._base_style: Style | None = None

    @property
    def row_count(self) -> int:
        raise NotImplementedError

    def header_text(self) -> str:
        raise NotImplementedError

    def row_text(self, index: int) -> str:
        raise NotImplementedError

    def row_style(self, index: int) -> Style:
        return Style()

    def highlighted(self) -> None:
        """The cursor is on another row (or the rows changed)."""

    # -- drawing ---------------------------------------------------------------------------

    def render_lines(self, crop: Region) -> list[Strip]:
        # The widget's own style walks every ancestor: look it up once per redraw, not once
        # per line.
        self._base_style = self.rich_style
        try:
            return super().render_lines(crop)
        finally:
            self._base_style = None

    def header_style(self) -> Style:
        return Style()

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        scroll_x, scroll_y = self.scroll_offset
        base = self.rich_style if self._base_style is None else self._base_style
        if y == 0:
            style = base + self.header_style()
            text = self.header_text()
        else:
            index = y - 1 + scroll_y
            if index >= self.row_count:
                return Strip.blank(width, base)
            style = base + self.row_style(index) + self._cursor_style(index)
            text = self.row_text(index)
        text = text[scroll_x : scroll_x + width].ljust(width)
        return Strip([Segment(text, style)], width)

    def _cursor_style(self, index: int) -> Style:
        if index != self.cursor:
            return Style()
        if self.has_focus and self.CURSOR_CLASS:
            return self.get_component_rich_style(self.CURSOR_CLASS)
        return Style(reverse=True)

    # -- moving ----------------------------------------------------------------------------

    def scroll_cursor_into_view(self) -> None:
        visible = max(self.size.height - 1, 1)
        top = self.scroll_offset.y
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False)
        elif self.cursor >= top + visible:
            self.scroll_to(y=self.cursor - visible + 1, animate=False)

    def move_to(self, index: int) -> None:
        if not self.row_count:
            return
        self.cursor = max(0, min(index, self.row_count - 1))
        self.scroll_cursor_into_view()
        self.refresh()
        self.highlighted()

    def action_cursor(self, delta: int) -> None:
        self.move_to(self.cursor + delta)

    def action_page(self, direction: int) -> None:
        self.move_to(self.cursor + direction * max(self.size.height - 2, 1))

    def action_jump(self, index: int) -> None:
        self.move_to(index if index >= 0 else self.row_count - 1)

    def on_click(self, event: events.Click) -> None:
        if event.y >= 1:
            self.move_to(event.y - 1 + self.scroll_offset.y)

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()
