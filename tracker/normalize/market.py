"""Marketplace offers -> aggregate quotes (docs/marketplaces.md).

A marketplace (Vast.ai, TensorDock, RunPod's community cloud, AutoDL,
矩池云) lists host offers by the thousand. Each provider's normalizer reads
its offers into `MarketOffer`s; `aggregate` groups them per region, GPU,
GPU count, price model and tier, and makes one quote per group: `price` the
lowest hourly price of the whole configuration, `median_price` the median,
`offer_count` how many offers stand behind them. Pure and exact (Decimal).

Country-level marketplaces are grouped by macro region (`macro_region`):
one row per country would be thousands of rows of one or two offers each,
whose medians mean nothing and which come and go with every host.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from db.schema import PriceModel, PriceQuote, Unit
from tracker.normalize import Normalized, NormalizeError, make_quote, parse_time

# Attrs list at most this many of a group's countries.
MAX_COUNTRIES = 12

# ISO 3166 alpha-2 codes of the countries marketplaces list hosts in, by macro
# region. A code not here falls in "other", and the normalizer says so.
_REGIONS = {
    "north-america": "US CA MX PR",
    "south-america": "BR AR CL CO PE UY VE EC",
    "europe": (
        "AT BE BG CH CY CZ DE DK EE ES FI FR GB GR HR HU IE IS IT LT LU LV MD MT NL NO PL PT RO RS SE SI SK "
        "UA BY AL BA ME MK XK GE AM"
    ),
    "middle-east": "AE IL SA QA BH KW OM JO TR IR IQ LB",
    "asia": "JP KR TW HK SG MY TH VN PH ID IN PK BD LK KZ UZ KG MN NP MO",
    "china": "CN",
    "oceania": "AU NZ",
    "africa": "ZA NG KE EG MA TN GH DZ ET",
}
COUNTRY_REGIONS = {code: region for region, codes in _REGIONS.items() for code in codes.split()}
MACRO_REGIONS = (*_REGIONS, "other")

# Country names as marketplaces spell them (TensorDock), to their codes.
COUNTRY_NAMES = {
    "united states": "US",
    "usa": "US",
    "canada": "CA",
    "mexico": "MX",
    "brazil": "BR",
    "united kingdom": "GB",
    "great britain": "GB",
    "germany": "DE",
    "france": "FR",
    "netherlands": "NL",
    "the netherlands": "NL",
    "sweden": "SE",
    "norway": "NO",
    "finland": "FI",
    "iceland": "IS",
    "poland": "PL",
    "spain": "ES",
    "italy": "IT",
    "czech republic": "CZ",
    "czechia": "CZ",
    "estonia": "EE",
    "romania": "RO",
    "bulgaria": "BG",
    "ukraine": "UA",
    "belgium": "BE",
    "switzerland": "CH",
    "austria": "AT",
    "portugal": "PT",
    "ireland": "IE",
    "denmark": "DK",
    "japan": "JP",
    "south korea": "KR",
    "korea": "KR",
    "taiwan": "TW",
    "hong kong": "HK",
    "singapore": "SG",
    "india": "IN",
    "thailand": "TH",
    "vietnam": "VN",
    "china": "CN",
    "australia": "AU",
    "new zealand": "NZ",
    "south africa": "ZA",
    "united arab emirates": "AE",
    "israel": "IL",
    "turkey": "TR",
}


def country_code(text: str | None) -> str:
    """A two-letter code from what a marketplace writes: 'SE', 'Sweden, SE',
    'US-CA', 'Sweden'; '' when none can be read."""
    text = (text or "").strip()
    if not text:
        return ""
    last = text.replace(",", " ").split()[-1]
    if len(last) == 2 and last.isalpha() and last.isupper():
        return last
    head = text.split("-")[0].split(",")[0].strip()
    if len(head) == 2 and head.isalpha() and head.isupper():
        return head
    return COUNTRY_NAMES.get(text.lower()) or COUNTRY_NAMES.get(head.lower(), "")


def scope(wanted: Iterable[str]) -> list[str]:
    """The regions a crawl of macro regions covers: those asked, or all."""
    return sorted(set(wanted)) or list(MACRO_REGIONS)


def macro_region(country: str) -> str:
    """The macro region of a two-letter country code ('other' when unknown)."""
    return COUNTRY_REGIONS.get(country.upper(), "other")


@dataclass(frozen=True)
class MarketOffer:
    """One host offer as a marketplace lists it: `hourly` is the price of the
    whole offer (all `gpu_count` GPUs) for an hour, in `currency`."""

    region: str
    gpu_label: str  # the marketplace's own GPU name: the group's name
    gpu_count: int
    hourly: Decimal
    gpu_model: str | None = None  # the datasheet's name (tracker/data/gpu_models.csv)
    gpu_memory_gb: Decimal | None = None  # of one GPU
    price_model: PriceModel = PriceModel.on_demand
    tier: str = ""  # the marketplace's reliability or verification tier, where it states one
    country: str = ""
    region_name: str = ""  # the marketplace's own name of the region, for people


def group_name(gpu_label: str, gpu_count: int, tier: str = "") -> str:
    """A group's `instance_type`: '8x H100 SXM', '8x H100 SXM verified'."""
    return f"{gpu_count}x {gpu_label}" + (f" {tier}" if tier else "")


def median(values: list[Decimal]) -> Decimal:
    """The middle value; of an even count, the mean of the two middle ones."""
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def aggregate(
    provider: str,
    offers: Iterable[MarketOffer],
    *,
    currency: str,
    observed_at: datetime,
    source_url: str = "",
) -> list[PriceQuote]:
    """One quote per group of offers, in a stable order."""
    groups: dict[tuple[str, str, int, PriceModel, str], list[MarketOffer]] = defaultdict(list)
    for offer in offers:
        groups[(offer.region, offer.gpu_label, offer.gpu_count, offer.price_model, offer.tier)].append(offer)
    quotes = []
    for (region, label, count, price_model, tier), members in sorted(groups.items()):
        prices = [m.hourly for m in members]
        first = members[0]
        attrs = {}
        if tier:
            attrs["tier"] = tier
        names = sorted({m.region_name for m in members if m.region_name})
        if names:
            attrs["region_name"] = "/".join(names)
        countries = sorted({m.country for m in members if m.country})
        if countries and countries != [region]:
            attrs["countries"] = ",".join(countries[:MAX_COUNTRIES]) + ("…" if len(countries) > MAX_COUNTRIES else "")
        memory = first.gpu_memory_gb
        quotes.append(
            make_quote(
                provider,
                region=region,
                instance_type=group_name(label, count, tier),
                gpu_model=first.gpu_model,
                gpu_count=Decimal(count),
                gpu_memory_gb=None if memory is None else memory * count,
                price_model=price_model,
                price=min(prices),
                median_price=median(prices),
                offer_count=len(members),
                currency=currency,
                unit=Unit.hour,
                source_url=source_url,
                observed_at=observed_at,
                attrs=attrs,
            )
        )
    return quotes


def normalized(
    provider: str,
    offers: list[MarketOffer],
    items: Sequence[Mapping[str, Any]],
    *,
    currency: str,
    source_url: str,
    notes: list[str],
    regions: list[str] | None,
) -> Normalized:
    """A marketplace normalizer's result: the offers aggregated, observed when
    the crawl began, a note naming the GPUs its spec table lacks; `regions`
    the snapshot covers (None: those of its quotes; [] every one). No group
    at all is an error, never an empty market."""
    unknown = sorted({o.gpu_label for o in offers if o.gpu_model is None})
    if unknown:
        notes.append(
            f"{provider}: no gpu_specs/{provider}.csv row for {', '.join(unknown)}; stored without a GPU model"
        )
    observed = min(parse_time(i["observed_at"]) for i in items)
    quotes = aggregate(provider, offers, currency=currency, observed_at=observed, source_url=source_url)
    if not quotes:
        raise NormalizeError(f"{provider}: no offer could be read")
    return Normalized(quotes=quotes, notes=notes, scope=regions)
