"""The Textual app: one factory (`make_app`) for the CLI, the tests and the screenshot script."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import ClassVar

from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.worker import Worker

from ..admin import KafkaAdmin
from ..admin import audit_log as audit
from ..admin.placeholders import PlaceholderStore
from ..config import Profile, Settings
from ..secrets import pending
from ..services.ports import AdminPort
from . import notices
from .notices import Told
from .screens.base import default_placeholder_store
from .screens.metadata import MetadataScreen

# The other screens (the profile picker, the error modal, and those the topics screen opens)
# are imported when first shown: the first frame waits for no module it does not draw
# (issue 52.1; tests/unit/test_tui_imports.py names what the app's import must not load).

AdminFactory = Callable[[Profile], AdminPort]
StoreFactory = Callable[[Profile], PlaceholderStore]


class KafkaTuiApp(App[None]):
    CSS_PATH = "kafka_tui.tcss"
    TITLE = "kafka-tui"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "show_help_panel", "Help", id="app.help", key_display="?"),
        Binding("q", "quit", "Quit", id="app.quit"),
    ]

    def __init__(
        self,
        settings: Settings,
        profile: Profile | None,
        admin_factory: AdminFactory | None = None,
        refresh_seconds: float = 10.0,
        store_factory: StoreFactory | None = None,
    ) -> None:
        super().__init__()
        self.settings = settings
        self.initial_profile = profile
        self.admin_factory: AdminFactory = admin_factory or (lambda p: KafkaAdmin(p.connection))
        self.refresh_seconds = refresh_seconds
        # Where screens read and write KIP-409 placeholder records (screens/base.py).
        self.store_factory: StoreFactory = store_factory or default_placeholder_store
        self.profile: Profile | None = None
        self.admin: AdminPort | None = None
        # Why the app ended before connecting (a secret not given): the CLI prints it.
        self.exit_note: str | None = None

    def on_mount(self) -> None:
        if self.settings.key_bindings:
            self.set_keymap(self.settings.key_bindings)
        if self.initial_profile is not None:
            self.open_profile(self.initial_profile)
        else:
            self.action_switch_profile()

    def open_profile(self, profile: Profile) -> None:
        """Show `profile`'s cluster as the home screen (replacing another profile's)."""
        if pending(profile.connection, profile.secrets, profile.secrets_where):
            # its secrets first: read from their commands / keyring, or asked (screens/secret.py)
            self.run_worker(self._unlock(profile), group="secrets", exclusive=True)
            return
        old = self.admin
        self.profile = profile
        audit.configure(
            path=profile.audit_log,
            profile=profile.name,
            warn=self._audit_warning,
        )
        self.admin = self.admin_factory(profile)
        self.sub_title = f"{profile.name}{' (read-only)' if profile.read_only else ''}"
        if old is not None:
            self.run_worker(old.close(), exit_on_error=False)
        while len(self.screen_stack) > 1:
            self.pop_screen()
        self.push_screen(MetadataScreen(profile, self.admin, self.refresh_seconds))

    async def _unlock(self, profile: Profile) -> None:
        from .screens.secret import unlock

        ready = await unlock(self, profile)
        if ready is not None:
            self.open_profile(ready)

    def action_switch_profile(self) -> None:
        from .screens.profiles import ProfilePicker

        self.push_screen(
            ProfilePicker(sorted(self.settings.profiles.values(), key=lambda p: p.name))
        )

    def _audit_warning(self, text: str) -> None:
        self.post_message(Told(notices.warning(text, "Audit log")))

    def on_told(self, message: Told) -> None:
        """Every notice of the screens and their workers, shown by one policy."""
        n = message.notice
        # No markup: a Kafka message or a topic list ("[1, 2]") is shown as it is.
        self.notify(n.text, title=n.title, severity=n.severity, timeout=n.timeout, markup=False)

    def report_worker_failure(self, worker: Worker[object]) -> None:
        """The one place unexpected failures end up: a modal with the error, never a crash."""
        from .screens.error import ErrorScreen

        error = worker.error
        self.push_screen(ErrorScreen(f"{type(error).__name__}: {error}", worker.name or "task"))

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if len(self.settings.profiles) > 1:
            yield SystemCommand(
                "Switch profile", "Choose another cluster profile", self.action_switch_profile
            )
        commands = getattr(screen, "palette_commands", None)
        if commands is not None:
            yield from commands()

    async def on_unmount(self) -> None:
        if self.admin is not None:
            await self.admin.close()


def make_app(
    settings: Settings,
    profile: Profile | None = None,
    *,
    admin_factory: AdminFactory | None = None,
    refresh_seconds: float = 10.0,
    store_factory: StoreFactory | None = None,
) -> KafkaTuiApp:
    """The app for `profile`, or with the profile picker when it is None (the CLI decides
    which, with cli/profiles.py's resolve_profile). The factories default to the profile's
    real cluster; the screen tests pass recorded ones (tests/tui/replay.py)."""
    return KafkaTuiApp(settings, profile, admin_factory, refresh_seconds, store_factory)
