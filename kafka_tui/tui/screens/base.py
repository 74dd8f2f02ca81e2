"""What every screen shares: the one handler for unexpected worker failures, palette hooks."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import SystemCommand
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from ...config import Profile

if TYPE_CHECKING:
    from ..app import KafkaTuiApp


class KafkaScreen(Screen[Any]):
    # Actions that change the cluster: a read-only profile hides them from the footer and
    # the palette, and refuses them.
    CHANGE_ACTIONS: ClassVar[frozenset[str]] = frozenset()
    profile: Profile | None = None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        read_only = self.profile is not None and self.profile.read_only
        return not (read_only and action in self.CHANGE_ACTIONS)

    @property
    def kafka_app(self) -> KafkaTuiApp:
        return self.app  # type: ignore[return-value]

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # Expected Kafka errors are handled inside the workers (notify / inline); what
        # reaches here is unexpected and goes to the app's single error modal.
        if event.state is WorkerState.ERROR:
            self.kafka_app.report_worker_failure(event.worker)

    def palette_commands(self) -> Iterable[SystemCommand]:
        """Every named action of this screen (bindings with an id), for the command palette;
        actions the screen disables (read-only profile) are left out."""
        for bindings in self._bindings.key_to_bindings.values():
            for binding in bindings:
                name = binding.action.split("(")[0]
                if binding.id and self.check_action(name, ()) is not False:
                    yield SystemCommand(
                        binding.tooltip or binding.description,
                        f"key {binding.key_display or binding.key}",
                        partial(self.run_action, binding.action),
                    )
