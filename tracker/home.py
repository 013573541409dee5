"""Where the tracker keeps its files: the home folder, and the store in it
unless the environment or the configuration names another. Apart from the
settings models, so that a simple query with no configuration file finds
its store without loading them (docs/performance-startup.md)."""

from __future__ import annotations

import os
from pathlib import Path

HOME_ENV = "GPU_TRACKER_HOME"
DATABASE_ENV = "GPU_TRACKER_DATABASE_URL"


def default_home() -> Path:
    env = os.environ.get(HOME_ENV)
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("gpu-tracker"))


def database_url(home: Path, configured: str | None = None) -> str:
    """$GPU_TRACKER_DATABASE_URL, else the configured URL, else SQLite in the home folder."""
    url = os.environ.get(DATABASE_ENV) or configured
    if url:
        return url
    return f"sqlite:///{home / 'tracker.db'}"
