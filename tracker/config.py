"""Configuration: `$GPU_TRACKER_HOME/config.toml`, or the file given with
--config. Unknown keys and bad values are rejected with the file, the key and
the reason. `${VAR}` in a string is replaced by that environment variable."""

from __future__ import annotations

import os
import re
import tomllib
from decimal import Decimal
from pathlib import Path
from typing import Any

import platformdirs
from pydantic_core import PydanticCustomError
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

from tracker.errors import ConfigError

HOME_ENV = "GPU_TRACKER_HOME"
DATABASE_ENV = "GPU_TRACKER_DATABASE_URL"
_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class StoreSettings(Strict):
    url: str | None = Field(None, description="SQLAlchemy URL; $GPU_TRACKER_DATABASE_URL wins over it")


class DiffSettings(Strict):
    removal_confirmations: int = Field(2, ge=1, le=100)
    min_row_ratio: Decimal = Field(Decimal("0.5"), gt=0, le=1)
    max_price_factor: Decimal = Field(Decimal(100), gt=1)


class CrawlSettings(Strict):
    browser_path: str = "/usr/bin/chromium"
    crawl_timeout: int = Field(900, ge=5, description="seconds before a crawl is killed")
    download_timeout: int = Field(60, ge=1)
    retry_times: int = Field(2, ge=0, le=10)


class ProviderSettings(Strict):
    """[providers.<name>]: what to crawl. Every field but `regions` reaches the
    spider as a keyword argument (lists joined with commas)."""

    regions: list[str] | None = None
    api_url: str | None = None

    def spider_args(self) -> dict[str, str]:
        args: dict[str, str] = {}
        for name, value in self:
            if name == "regions" or value is None:
                continue
            if isinstance(value, SecretStr):
                value = value.get_secret_value()
            args[name] = ",".join(map(str, value)) if isinstance(value, list) else str(value)
        return args


class Config(Strict):
    store: StoreSettings = StoreSettings()
    diff: DiffSettings = DiffSettings()
    crawl: CrawlSettings = CrawlSettings()
    providers: dict[str, ProviderSettings] = Field(default_factory=dict)

    @field_validator("providers", mode="before")
    @classmethod
    def _provider_models(cls, raw: Any) -> Any:
        """Providers with settings of their own validate against their model."""
        from tracker.settings_aws import AwsSettings  # it extends ProviderSettings, defined here

        if isinstance(raw, dict) and isinstance(raw.get("aws"), dict):
            try:
                raw = {**raw, "aws": AwsSettings.model_validate(raw["aws"])}
            except ValidationError as exc:
                first = exc.errors()[0]
                key = ".".join(["aws", *map(str, first["loc"])])
                reason = "unknown key" if first["type"] == "extra_forbidden" else first["msg"]
                raise PydanticCustomError("provider_settings", "{key}: {reason}", {"key": key, "reason": reason})
        return raw

    path: Path | None = Field(None, exclude=True)
    home: Path = Field(default_factory=lambda: default_home(), exclude=True)

    def database_url(self) -> str:
        url = os.environ.get(DATABASE_ENV) or self.store.url
        if url:
            return url
        return f"sqlite:///{self.home / 'tracker.db'}"

    def provider(self, name: str) -> ProviderSettings:
        return self.providers.get(name, ProviderSettings())


def default_home() -> Path:
    env = os.environ.get(HOME_ENV)
    return Path(env).expanduser() if env else Path(platformdirs.user_data_dir("gpu-tracker"))


def _expand(value: Any, where: str, path: Path) -> Any:
    if isinstance(value, dict):
        return {k: _expand(v, f"{where}.{k}" if where else k, path) for k, v in value.items()}
    if isinstance(value, list):
        return [_expand(v, f"{where}[{i}]", path) for i, v in enumerate(value)]
    if isinstance(value, str):
        def sub(match: re.Match[str]) -> str:
            name = match.group(1)
            if name not in os.environ:
                raise ConfigError(f"{path}: {where}: environment variable {name} is not set")
            return os.environ[name]
        return _ENV_REF.sub(sub, value)
    return value


def _describe(exc: ValidationError, path: Path) -> str:
    errors = exc.errors()
    first = errors[0]
    key = ".".join(str(p) for p in first["loc"]) or "(top level)"
    reason = "unknown key" if first["type"] == "extra_forbidden" else first["msg"]
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{path}: {key}: {reason}{more}"


def load_config(path: Path | None = None, *, home: Path | None = None) -> Config:
    home = home or default_home()
    explicit = path is not None
    path = path or home / "config.toml"
    if not path.exists():
        if explicit:
            raise ConfigError(f"{path}: no such configuration file")
        return Config(home=home)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read it: {exc}") from None
    for reserved in ("path", "home"):
        if reserved in raw:
            raise ConfigError(f"{path}: {reserved}: unknown key")
    try:
        config = Config.model_validate(_expand(raw, "", path))
    except ValidationError as exc:
        raise ConfigError(_describe(exc, path)) from None
    return config.model_copy(update={"path": path, "home": home})
