"""Which profile a command runs against, from its --bootstrap-server and --profile flags: the
CLI's own rule (the TUI's profile picker asks instead), worded in the flags' terms."""

from __future__ import annotations

from dataclasses import replace

from ..admin import ConnectionSettings
from ..config import ConfigError, Profile, Settings, default_config_path


def resolve_profile(
    settings: Settings, *, profile: str | None, bootstrap_server: str | None
) -> Profile:
    """The profile a command runs against: --bootstrap-server wins, then --profile, then the
    file's default_profile, then the only profile there is."""
    if bootstrap_server:
        base = settings.profiles.get(profile) if profile else None
        if profile and base is None:
            raise ConfigError(_no_such_profile(settings, profile))
        if base is None:
            return Profile("(command line)", ConnectionSettings(bootstrap_server))
        connection = ConnectionSettings(
            **{**base.connection.__dict__, "bootstrap_servers": bootstrap_server}
        )
        return replace(base, connection=connection)
    name = profile or settings.default_profile
    if name is None and len(settings.profiles) == 1:
        name = next(iter(settings.profiles))
    if name is None:
        if settings.profiles:
            raise ConfigError(
                f"several profiles exist ({', '.join(sorted(settings.profiles))}); choose one "
                "with --profile or set default_profile"
            )
        raise ConfigError(
            "no cluster given: pass --bootstrap-server HOST:PORT, or --profile NAME with a "
            f"config file (default {default_config_path()})"
        )
    if name not in settings.profiles:
        raise ConfigError(_no_such_profile(settings, name))
    return settings.profiles[name]


def _no_such_profile(settings: Settings, name: str) -> str:
    known = ", ".join(sorted(settings.profiles)) or "none"
    return f"no profile '{name}' (profiles: {known})"
