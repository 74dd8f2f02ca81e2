"""Where kafka-tui keeps files: an environment override, else the XDG base directory."""

from __future__ import annotations

import os
from pathlib import Path


def user_path(override_env: str, xdg_env: str, home_default: str, *parts: str) -> Path:
    """$override_env if set; else $xdg_env (or ~/home_default) / kafka-tui / parts."""
    override = os.environ.get(override_env)
    if override:
        return Path(override).expanduser()
    xdg = os.environ.get(xdg_env)
    base = Path(xdg).expanduser() if xdg else Path.home() / home_default
    return base.joinpath("kafka-tui", *parts)
