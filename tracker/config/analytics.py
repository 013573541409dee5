"""`[analytics]`: overrides of the bundled reference tables (exchange rates,
provider egress and storage rates, region groups) that comparisons and
reports use; tracker/analytics/facts/reference.py merges them with the defaults."""

from __future__ import annotations

from decimal import Decimal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from db.kinds import RegionGroup

REGION_GROUPS = tuple(g.value for g in RegionGroup)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FxSettings(_Strict):
    """[analytics.fx]: units of each currency that one US dollar buys."""

    date: str = Field(..., description="the date the rates are from, for example 2026-12-01")
    source: str = "configuration"
    per_usd: dict[str, Decimal] = Field(default_factory=dict)


class ProviderRateSettings(_Strict):
    """[analytics.provider_rates.<provider>]: egress per GB and storage per GB-month."""

    egress_per_gb: Decimal = Field(..., ge=0)
    storage_per_gb_month: Decimal = Field(..., ge=0)
    currency: str = "USD"
    date: str
    source: str = "configuration"


class AnalyticsSettings(_Strict):
    fx: FxSettings | None = None
    provider_rates: dict[str, ProviderRateSettings] = Field(default_factory=dict)
    region_groups: dict[str, dict[str, str]] = Field(
        default_factory=dict, description="provider -> region -> us|eu|asia|cn|other"
    )

    @field_validator("region_groups")
    @classmethod
    def _known_groups(cls, value: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
        for provider, regions in value.items():
            for region, group in regions.items():
                if group not in (*REGION_GROUPS, "other"):
                    raise ValueError(f"{provider}.{region}: {group!r} is not one of {', '.join(REGION_GROUPS)}, other")
        return value
