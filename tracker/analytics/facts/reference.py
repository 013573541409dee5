"""Dated reference tables for comparisons: exchange rates, each provider's
egress and storage rates, and which region group each region belongs to.

Bundled defaults live in tracker/data/*.csv, each row with its date and
source; the configuration's [analytics] section overrides them row by row.
Currency conversion happens only in comparisons and reports: stored prices
and diffs always keep the currency the provider quoted.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from functools import cache

from tracker.config.analytics import AnalyticsSettings
from tracker.data import rows as data_rows
from tracker.errors import UserError


@dataclass(frozen=True)
class FxRate:
    currency: str
    per_usd: Decimal
    date: str
    source: str


@dataclass(frozen=True)
class Conversion:
    """How one amount was converted: `rate` target units per source unit."""

    rate: Decimal
    date: str
    source: str

    def label(self, source_currency: str, target: str) -> str:
        return f"1 {source_currency} = {format(self.rate.normalize(), 'f')} {target}"


class FxTable:
    def __init__(self, rates: dict[str, FxRate]) -> None:
        self.rates = rates

    def conversion(self, source_currency: str, target: str) -> Conversion:
        """The rate from `source_currency` to `target`; an unknown currency is
        an error, never a guess."""
        if source_currency == target:
            return Conversion(Decimal(1), "", "")
        missing = [c for c in (source_currency, target) if c not in self.rates]
        if missing:
            raise UserError(
                f"no exchange rate for {', '.join(missing)}; known: {', '.join(sorted(self.rates))}. "
                "Add it under [analytics.fx] per_usd in the configuration"
            )
        src, dst = self.rates[source_currency], self.rates[target]
        # The base currency's own row carries no date: the conversion is as old as its older real rate.
        dated = [r for r in (src, dst) if r.per_usd != 1 or r.currency != "USD"]
        dates = sorted({r.date for r in dated if r.date})
        sources = sorted({r.source for r in dated if r.source})
        return Conversion(dst.per_usd / src.per_usd, dates[0] if dates else "", "; ".join(sources))


@dataclass(frozen=True)
class ProviderRates:
    provider: str
    egress_per_gb: Decimal
    storage_per_gb_month: Decimal
    currency: str
    date: str
    source: str


@cache
def _bundled_fx() -> dict[str, FxRate]:
    return {
        r["currency"]: FxRate(r["currency"], Decimal(r["per_usd"]), r["date"], r["source"])
        for r in data_rows("fx_rates.csv")
    }


@cache
def _bundled_provider_rates() -> dict[str, ProviderRates]:
    return {
        r["provider"]: ProviderRates(
            r["provider"],
            Decimal(r["egress_per_gb"]),
            Decimal(r["storage_per_gb_month"]),
            r["currency"],
            r["date"],
            r["source"],
        )
        for r in data_rows("provider_rates.csv")
    }


@cache
def _bundled_region_groups() -> dict[tuple[str, str], str]:
    return {(r["provider"], r["region"]): r["group"] for r in data_rows("region_groups.csv")}


@dataclass(frozen=True)
class References:
    """The tables one command uses: the bundled ones with the configuration's overrides."""

    fx: FxTable
    provider_rates: dict[str, ProviderRates]
    region_groups: dict[tuple[str, str], str]

    def region_group(self, provider: str, region: str) -> str:
        """The group of a region; a provider's row for region `*` groups the
        regions it does not name (every AutoDL region is in China)."""
        return self.region_groups.get((provider, region)) or self.region_groups.get((provider, "*"), "")


def load_references(settings: AnalyticsSettings | None = None) -> References:
    settings = settings or AnalyticsSettings()
    fx = dict(_bundled_fx())
    if settings.fx:
        for currency, per_usd in settings.fx.per_usd.items():
            if per_usd <= 0:
                raise UserError(f"[analytics.fx] per_usd.{currency}: must be above 0")
            fx[currency.upper()] = FxRate(currency.upper(), per_usd, settings.fx.date, settings.fx.source)
    rates = dict(_bundled_provider_rates())
    for provider, r in settings.provider_rates.items():
        rates[provider] = ProviderRates(
            provider, r.egress_per_gb, r.storage_per_gb_month, r.currency.upper(), r.date, r.source
        )
    groups = dict(_bundled_region_groups())
    for provider, regions in settings.region_groups.items():
        groups.update({(provider, region): group for region, group in regions.items()})
    return References(FxTable(fx), rates, groups)
