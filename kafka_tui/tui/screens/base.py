"""What every screen shares: the one handler for unexpected worker failures, palette hooks.

Screens never import the app module (it imports them): what they need of the app is the
`KafkaHost` protocol below, which `KafkaTuiApp` satisfies.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from typing import Any, ClassVar, Protocol, cast

from textual.app import SystemCommand
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from ...admin.placeholders import PlaceholderStore
from ...config import Profile
from ..notices import Notice, Told

# The share of a core automatic refreshes may take: a cluster whose refresh costs more than
# that (2.1 s of CPU at 1,000,000 partitions) is refreshed less often (bench/README.md).
REFRESH_SHARE = 0.05


def refresh_interval(base: float, cost: float) -> float:
    """Seconds until the next automatic refresh: `base` (the app's setting), stretched so
    that refreshes that each took `cost` seconds of CPU use at most REFRESH_SHARE of a core
    (the topics screen and the groups screen refresh at this cadence)."""
    return max(base, cost / REFRESH_SHARE)


class KafkaHost(Protocol):
    """The app as the screens see it."""

    profile: Profile | None
    store_factory: Callable[[Profile], PlaceholderStore]
    # One line the CLI prints after the app exits (Textual's own exit message wraps it).
    exit_note: str | None

    def report_worker_failure(self, worker: Worker[object]) -> None: ...

    def open_profile(self, profile: Profile) -> None: ...


def default_placeholder_store(profile: Profile) -> PlaceholderStore:
    return PlaceholderStore(profile.connection, profile.placeholders_topic)


def placeholder_store(screen: Screen[Any], profile: Profile) -> PlaceholderStore:
    """The profile's placeholder records, through the app's `store_factory` when it has one
    (the screen tests replay recorded records)."""
    host = cast(KafkaHost, screen.app)
    return host.store_factory(profile)


class KafkaScreen(Screen[Any]):
    # Actions that change the cluster: a read-only profile hides them from the footer and
    # the palette, and refuses them.
    CHANGE_ACTIONS: ClassVar[frozenset[str]] = frozenset()
    profile: Profile | None = None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        read_only = self.profile is not None and self.profile.read_only
        return not (read_only and action in self.CHANGE_ACTIONS)

    def tell(self, *notices: Notice) -> None:
        """Post what happened to the app, which shows it by the notices' policy
        (tui/notices.py); to the app, not this screen: a form dismissed right after its
        change would never read its own messages."""
        for notice in notices:
            self.app.post_message(Told(notice))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # Expected Kafka errors are handled inside the workers (tell / inline); what
        # reaches here is unexpected and goes to the app's single error modal.
        if event.state is WorkerState.ERROR:
            report = getattr(self.app, "report_worker_failure", None)
            if report is not None:
                report(event.worker)

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
