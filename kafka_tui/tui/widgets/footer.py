"""The key footer of the start screens: Textual's Footer, rebuilt only when its keys change."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.dom import NoScreen
from textual.reactive import Reactive
from textual.widgets import Footer

Shown = tuple[object, ...]


class KeysFooter(Footer):
    """Textual's Footer rebuilds every key (FooterKey) each time the screen's bindings are
    refreshed: a screen pushed, a widget focused, a worker's callback. Each rebuilt key is
    styled twice more (its `compact` starts True and is bound to the footer's False), and the
    refreshes come in bursts: before the topics screen's first frame the footer was rebuilt 5
    times, 87 restyles, ~0.27 s of the first frame's CPU (issue 52, bench/first_frame.py).
    This one rebuilds when what it shows differs from what it last built, and the keys bound
    to the footer's `compact` start with its value (the same look, without two restyles each).
    Screen snapshots (tests/tui) hold the look."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._built: Shown | None = None

    def _shown(self) -> Shown:
        """What the footer's compose reads: the screen's shown bindings (each with whether
        it is enabled and its tooltip), the command palette's, and the footer's options."""
        active = self.screen.active_bindings
        keys = tuple(
            (binding, enabled, tooltip)
            for _, binding, enabled, tooltip in active.values()
            if binding.show
        )
        palette = active.get(self.app.COMMAND_PALETTE_BINDING)
        palette_key: tuple[Binding, bool, str] | None = (
            None if palette is None else (palette.binding, palette.enabled, palette.tooltip)
        )
        return (keys, palette_key, self.compact, self.show_command_palette)

    def compose(self) -> ComposeResult:
        compact = self.compact
        for widget in super().compose():
            field = getattr(type(widget), "compact", None)
            # The command palette's key is not bound to the footer's `compact`: it stays so.
            if isinstance(field, Reactive) and not widget.has_class("-command-palette"):
                widget.set_reactive(field, compact)
            yield widget

    async def recompose(self) -> None:
        try:
            shown = self._shown()
        except NoScreen:  # removed with its screen: Textual's recompose does nothing then
            return
        if shown == self._built:
            return  # a refresh of the same keys (several come before the first frame)
        self._built = shown
        await super().recompose()
