"""Settings: every configuration model, loaded in one place."""

from tracker.config.settings import Config, load_config

__all__ = ["Config", "load_config"]
