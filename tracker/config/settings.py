"""Configuration: `$GPU_TRACKER_HOME/config.toml`, or the file given with
--config. Unknown keys and bad values are rejected with the file, the key and
the reason. `${VAR}` in a string is replaced by that environment variable."""

from __future__ import annotations

import logging
import os
import re
import tomllib
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_core import InitErrorDetails

from alerts.settings import AlertSettings, ChannelSettings, RuleSettings, check_references
from tracker.config.analytics import AnalyticsSettings
from tracker.config.schedule import DaemonSettings
from tracker.config.watch import WatchSettings
from tracker.config.web import WebSettings
from tracker.errors import ConfigError
from tracker.home import DATABASE_ENV as DATABASE_ENV
from tracker.home import HOME_ENV as HOME_ENV
from tracker.home import database_url, default_home
from tracker.logs import mask_secrets

log = logging.getLogger(__name__)

_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class StoreSettings(Strict):
    url: str | None = Field(None, description="SQLAlchemy URL; $GPU_TRACKER_DATABASE_URL wins over it")


class DiffSettings(Strict):
    removal_confirmations: int = Field(2, ge=1, le=100)
    min_row_ratio: Decimal = Field(Decimal("0.5"), gt=0, le=1)
    max_price_factor: Decimal = Field(Decimal(100), gt=1)
    common_factor: Decimal = Field(
        Decimal(5), gt=1, description="most matched prices moving by one factor this big is a slip, quarantined"
    )
    suspect_factor: Decimal = Field(
        Decimal(4),
        gt=1,
        description="a new price per GPU-hour this many times above or below its market (the other providers' "
        "median for the GPU model and kind of price, else the typical price) is held as suspect",
    )
    market_tolerance: Decimal = Field(
        Decimal("0.10"),
        ge=0,
        lt=1,
        description="a marketplace row changes when its lowest price moves by more than this fraction "
        "of the stored one (docs/marketplaces.md)",
    )
    market_count_tolerance: Decimal = Field(
        Decimal("0.5"),
        ge=0,
        description="a marketplace row's offer count is rewritten (quietly) when it moves by this fraction",
    )


class CrawlSettings(Strict):
    browser_path: str = "/usr/bin/chromium"
    crawl_timeout: int = Field(900, ge=5, description="seconds before a crawl is killed")
    download_timeout: int = Field(60, ge=1)
    retry_times: int = Field(2, ge=0, le=10)
    capture_retention_days: int = Field(30, ge=1, description="days a run's capture is kept for reprocess")


class ProviderSettings(Strict):
    """[providers.<name>]: what to crawl. Every field but `regions` reaches the
    spider as a keyword argument (lists joined with commas)."""

    regions: list[str] | None = None
    api_url: str | None = None
    zones: list[str] | None = Field(None, description="Tencent: the zones to ask, instead of the built-in list")
    site: Literal["cn", "intl"] | None = Field(None, description="cn (CNY) or intl (USD)")
    api_key: SecretStr | None = Field(None, description="falls back to $GPU_TRACKER_<PROVIDER>_API_KEY")

    def secret_values(self) -> list[str]:
        """Every secret of the section (API keys, AccessKeys): scrubbed from what a crawl reports."""
        return [v.get_secret_value() for _, v in self if isinstance(v, SecretStr) and v.get_secret_value()]

    def spider_args(self) -> dict[str, str]:
        args: dict[str, str] = {}
        for name, value in self:
            if name == "regions" or value is None:
                continue
            if isinstance(value, SecretStr):
                value = value.get_secret_value()
            args[name] = ",".join(map(str, value)) if isinstance(value, list) else str(value)
        return args

    def missing_keys(self) -> list[str]:
        """The keys a source that needs credentials still lacks (see Source.needs_api_key)."""
        return [] if self.api_key else ["api_key"]


class KeyPairSettings(ProviderSettings):
    """A section whose official API signs requests with an AccessKey pair
    (Tencent's SecretId/SecretKey, Huawei's AK/SK): the `<provider>-api` source."""

    access_key_id: SecretStr | None = Field(None, description="falls back to $GPU_TRACKER_<PROVIDER>_ACCESS_KEY_ID")
    access_key_secret: SecretStr | None = Field(
        None, description="falls back to $GPU_TRACKER_<PROVIDER>_ACCESS_KEY_SECRET"
    )
    api_endpoint: str | None = Field(
        None, description="the `-api` source: send every request here instead (a proxy, a test server)"
    )

    def missing_keys(self) -> list[str]:
        return [k for k in ("access_key_id", "access_key_secret") if getattr(self, k) is None]


class AlibabaSettings(KeyPairSettings):
    """[providers.alibaba]: an AccessKey turns on spot prices from DescribePrice
    and the alibaba-api source."""

    cdn_base: str | None = Field(None, description="where the price files are; default g.alicdn.com/aliyun")
    pricing_page: str | None = Field(None, description="the page naming the price file's current version")
    ecs_endpoint: str | None = Field(None, description="the ECS API for DescribePrice")


class VolcengineSettings(KeyPairSettings):
    """[providers.volcengine]: the price page's ECS template code, if known."""

    template_code: str | None = Field(None, pattern=r"^CLT\d+$")


class AwsSettings(ProviderSettings):
    """[providers.aws]: read by both AWS sources (aws, aws-reserved); each spider
    takes the settings it knows."""

    operating_systems: list[str] = Field(
        default_factory=lambda: ["Linux", "Windows"],
        description="on-demand tables to read, named as the pricing page names them: Linux, Windows, RHEL, "
        "SUSE, Ubuntu Pro, 'Windows with SQL Std' ...",
    )
    location_types: list[str] = Field(
        default_factory=lambda: ["AWS Region"],
        description="when no regions are set, the kinds of location to crawl: 'AWS Region', 'AWS Local Zone', "
        "'AWS Wavelength Zone'",
    )
    spot: bool = Field(True, description="read the spot price feed")
    spot_advisor: bool = Field(True, description="attach the Spot Instance Advisor's interruption rates")
    reserved_regions: list[str] | None = Field(
        None,
        description="regions whose bulk offer files aws-reserved reads, when no regions are set "
        "(each file is over 1 GB)",
    )
    convertible: bool = Field(True, description="aws-reserved: keep convertible reservations besides standard")
    savings_plans: bool = Field(
        True,
        description="aws-reserved: also read the savings plan files (Compute and EC2 "
        "Instance Savings Plans; one more large file per region)",
    )


class RunpodSettings(ProviderSettings):
    """[providers.runpod]: `regions` are the secure cloud's data centres
    (EU-RO-1, US-TX-3 ...); `countries` the community cloud's."""

    countries: list[str] | None = Field(
        None, description="runpod-community: the country codes to ask (US, SE ...); default: every one RunPod lists"
    )


class MatpoolSettings(ProviderSettings):
    """[providers.matpool]: the console token is `api_key`; the web console
    also sends the account's user id, which `user_id` sets."""

    user_id: str | None = Field(None, description="sent as x-matpool-user-id when set")


class OciSettings(ProviderSettings):
    """[providers.oci]: the currency of Oracle's price list."""

    currency: str = Field("USD", pattern=r"^[A-Z]{3}$", description="the price list's currency (USD, EUR, JPY...)")


class VerdaSettings(ProviderSettings):
    """[providers.verda]: the API client (Verda's console, Keys) that the
    verda source authenticates with; it takes no api_key."""

    client_id: SecretStr | None = Field(None, description="falls back to $GPU_TRACKER_VERDA_CLIENT_ID")
    client_secret: SecretStr | None = Field(None, description="falls back to $GPU_TRACKER_VERDA_CLIENT_SECRET")

    def missing_keys(self) -> list[str]:
        return [k for k in ("client_id", "client_secret") if getattr(self, k) is None]


class CrusoeSettings(KeyPairSettings):
    """[providers.crusoe]: the API access key (Crusoe's console, API Keys) that
    signs the crusoe source's API requests, and the project whose VM types to read."""

    project_id: str | None = Field(None, description="default: the first project the access key sees")
    pricing_url: str | None = Field(None, description="the public pricing page; default www.crusoe.ai/cloud/pricing")


# Providers whose section takes more keys than ProviderSettings.
PROVIDER_SETTINGS: dict[str, type[ProviderSettings]] = {
    "alibaba": AlibabaSettings,
    "aws": AwsSettings,
    "crusoe": CrusoeSettings,
    "huawei": KeyPairSettings,
    "matpool": MatpoolSettings,
    "runpod": RunpodSettings,
    "oci": OciSettings,
    "tencent": KeyPairSettings,
    "verda": VerdaSettings,
    "volcengine": VolcengineSettings,
}


class Config(Strict):
    store: StoreSettings = StoreSettings()
    diff: DiffSettings = DiffSettings()
    crawl: CrawlSettings = CrawlSettings()
    daemon: DaemonSettings = DaemonSettings()
    providers: dict[str, ProviderSettings] = Field(default_factory=dict)
    analytics: AnalyticsSettings = AnalyticsSettings()
    alerts: AlertSettings = AlertSettings()
    web: WebSettings = WebSettings()
    channel: list[ChannelSettings] = Field(default_factory=list, description="[[channel]] entries")
    rule: list[RuleSettings] = Field(default_factory=list, description="[[rule]] entries")
    watch: list[WatchSettings] = Field(default_factory=list, description="[[watch]] pages; see tracker/config/watch.py")

    @field_validator("providers", mode="before")
    @classmethod
    def _provider_models(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        models: dict[str, ProviderSettings] = {}
        errors: list[InitErrorDetails] = []
        for name, section in value.items():
            try:
                models[name] = PROVIDER_SETTINGS.get(name, ProviderSettings).model_validate(section)
            except ValidationError as exc:
                for e in exc.errors():
                    detail: InitErrorDetails = {"type": e["type"], "loc": (name, *e["loc"]), "input": e["input"]}
                    if "ctx" in e:
                        detail["ctx"] = e["ctx"]
                    errors.append(detail)
        if errors:
            raise ValidationError.from_exception_data("providers", errors)
        return models

    path: Path | None = Field(None, exclude=True)
    home: Path = Field(default_factory=lambda: default_home(), exclude=True)
    # A section group's error, set aside so that commands which do not use it run (see load_config).
    problems: dict[str, str] = Field(default_factory=dict, exclude=True)

    def need(self, *groups: str) -> None:
        """Stop a command that uses a section group the file got wrong:
        'alerts' ([alerts], [[channel]], [[rule]]), 'daemon', 'analytics',
        'providers', 'watch'; with no group, any of them."""
        for group, problem in self.problems.items():
            if not groups or group in groups:
                raise ConfigError(problem)

    def database_url(self) -> str:
        return database_url(self.home, self.store.url)

    @model_validator(mode="after")
    def _alert_names(self) -> Config:
        problem = check_references(self.channel, self.rule)
        if problem:
            raise ValueError(problem)
        if self.channel:
            from alerts.channels import url_problem  # Apprise loads its plugins: only when needed

            for channel in self.channel:
                problem = url_problem(channel.url.get_secret_value())
                if problem:
                    raise ValueError(f"channel {channel.name}: {problem}")
        return self

    def provider(self, name: str) -> ProviderSettings:
        settings = self.providers.get(name, PROVIDER_SETTINGS.get(name, ProviderSettings)())
        from_env = {
            key: SecretStr(os.environ[api_key_env(name, key)])
            for key, field in type(settings).model_fields.items()
            if "SecretStr" in str(field.annotation)
            and getattr(settings, key) is None
            and os.environ.get(api_key_env(name, key))
        }
        return settings.model_copy(update=from_env) if from_env else settings


def api_key_env(provider: str, key: str = "api_key") -> str:
    """The environment variable that holds a provider's secret `key` when the
    configuration has none: GPU_TRACKER_GCP_API_KEY for gcp's api_key."""
    return f"GPU_TRACKER_{provider.upper().replace('-', '_')}_{key.upper()}"


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


def _describe(exc: ValidationError | list[Any], path: Path) -> str:
    errors = exc.errors() if isinstance(exc, ValidationError) else exc
    first = errors[0]
    key = ".".join(str(p) for p in first["loc"]) or "(top level)"
    reason = "unknown key" if first["type"] == "extra_forbidden" else first["msg"].removeprefix("Value error, ")
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    if not first["loc"]:
        return f"{path}: {reason}{more}"
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
    for reserved in ("path", "home", "problems"):
        if reserved in raw:
            raise ConfigError(f"{path}: {reserved}: unknown key")
    data, problems = _expand_sections(raw, path)
    config = _validate(data, problems, path)
    # The commands that use a faulty part stop with its error; the CLI warns the others once.
    config = config.model_copy(update={"path": path, "home": home, "problems": problems})
    if path.stat().st_mode & 0o077 and _holds_secrets(config, raw):
        log.warning("%s holds secrets and can be read by other users; run: chmod 600 %s", path, path)
    return config


# Section groups whose errors stop only the commands that use them; an
# error anywhere else ([store], [diff], [crawl], an unknown key) stops all.
SECTION_GROUPS = {
    "alerts": ("alerts", "channel", "rule"),
    "daemon": ("daemon",),
    "analytics": ("analytics",),
    "providers": ("providers",),
    "watch": ("watch",),
}
_GROUP_OF = {key: group for group, keys in SECTION_GROUPS.items() for key in keys}


def _expand_sections(raw: dict[str, Any], path: Path) -> tuple[dict[str, Any], dict[str, str]]:
    """`${VAR}` expanded section by section: an unset variable in a channel
    URL is a problem of the alerts alone."""
    data: dict[str, Any] = {}
    problems: dict[str, str] = {}
    for key, value in raw.items():
        try:
            data[key] = _expand(value, key, path)
        except ConfigError as exc:
            group = _GROUP_OF.get(key)
            if group is None:
                raise
            problems.setdefault(group, str(exc))
    for group in problems:
        _drop_group(data, group)
    return data, problems


def _drop_group(data: dict[str, Any], group: str) -> None:
    for key in SECTION_GROUPS[group]:
        data.pop(key, None)


def _validate(data: dict[str, Any], problems: dict[str, str], path: Path) -> Config:
    """The configuration with every faulty section group set aside (and its
    error kept in `problems`); an error outside those groups is raised."""
    for _ in range(len(SECTION_GROUPS) + 1):
        try:
            return Config.model_validate(data)
        except ValidationError as exc:
            # The model-level check is of channel and rule names and URLs: the alerts' own.
            groups = {_GROUP_OF.get(str(e["loc"][0])) if e["loc"] else "alerts" for e in exc.errors()}
            if None in groups:
                raise ConfigError(_describe(exc, path)) from None
            for group in groups:
                assert group is not None
                mine = [e for e in exc.errors() if (_GROUP_OF.get(str(e["loc"][0])) if e["loc"] else "alerts") == group]
                problems.setdefault(group, _describe(mine, path))
                _drop_group(data, group)
    raise ConfigError(f"{path}: the configuration could not be read")


def _secrets(value: object) -> Iterator[str]:
    """Every secret the settings hold: SecretStr values, and strings that carry
    a secret of their own (a password in `[store] url`, `?key=` in an `api_url`)."""
    if isinstance(value, SecretStr):
        if value.get_secret_value():
            yield value.get_secret_value()
    elif isinstance(value, str):
        if mask_secrets(value) != value:
            yield value
    elif isinstance(value, BaseModel):
        for name in type(value).model_fields:
            yield from _secrets(getattr(value, name))
    elif isinstance(value, dict):
        for v in value.values():
            yield from _secrets(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _secrets(v)


def _strings(raw: object) -> Iterator[str]:
    if isinstance(raw, str):
        yield raw
    elif isinstance(raw, dict):
        for v in raw.values():
            yield from _strings(v)
    elif isinstance(raw, list):
        for v in raw:
            yield from _strings(v)


def _holds_secrets(config: Config, raw: dict[str, Any]) -> bool:
    """Whether the file itself spells out a secret: one that reaches the
    settings through `${NAME}` lives in the environment, not in the file."""
    written = set(_strings(raw))
    return any(secret in written for secret in _secrets(config))
