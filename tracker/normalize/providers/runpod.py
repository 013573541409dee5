"""RunPod: the secure cloud's list prices (`normalize`) and the community
cloud as a marketplace (`normalize_community`), from the GPU catalog and
the stock of each GPU type per place and GPU count.

Prices are per GPU-hour in USD (`securePrice`, `communityPrice`, their spot
forms; `lowestPrice.uninterruptablePrice` and `minimumBidPrice` for the
GPU count asked), so a configuration of N GPUs costs N times them.

- Secure cloud: one quote per data centre, GPU type and count with stock,
  at the type's list price; `availability` is RunPod's `stockStatus`
  (High, Medium, Low). A type not in stock in a data centre is not listed.
- Community cloud: RunPod lists no hosts; per country it states the lowest
  price of a GPU type and count. Each country's price is one offer of the
  macro region's group (tier `community`: `1x RTX 4090 community`), so
  `offer_count` is how many countries have it in stock and the median is
  across them.

`gpu_specs/runpod.csv` maps RunPod's GPU type ids to the datasheet's models.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any, cast

from db.schema import PriceModel, PriceQuote, Unit
from spiders.runpod.items import RunpodGpuType, RunpodItem, RunpodStockItem
from tracker.normalize import Normalized, NormalizeError, make_quote, parse_time
from tracker.normalize.market import MarketOffer, macro_region, normalized, scope
from tracker.normalize.money import MoneyError, to_decimal
from tracker.normalize.specs import GpuSpec, spec_table

PROVIDER = "runpod"
PRICING_URL = "https://www.runpod.io/pricing"
CONSOLE_URL = "https://console.runpod.io/deploy"


def _price(value: object, what: str) -> Decimal | None:
    if value in (None, "", 0):
        return None
    price = to_decimal(value, what=what)
    return price if price > 0 else None


def _split(items: list[RunpodItem]) -> tuple[dict[str, RunpodGpuType], list[RunpodStockItem]]:
    if not items:
        raise NormalizeError("runpod: the crawl returned nothing")
    # `kind` says which record `data` is.
    types = {t["id"]: t for i in items if i["kind"] == "runpod.gpu_type" for t in [cast(RunpodGpuType, i["data"])]}
    stock = [cast(RunpodStockItem, i) for i in items if i["kind"] == "runpod.stock"]
    if not types:
        raise NormalizeError("runpod: the crawl has no GPU catalog")
    return types, stock


def _spec(gpu_type: str) -> GpuSpec | None:
    return spec_table(PROVIDER).get(gpu_type.lower())


def _unknown_note(names: set[str]) -> list[str]:
    if not names:
        return []
    return [f"runpod: no gpu_specs/runpod.csv row for {', '.join(sorted(names))}; stored without a GPU model"]


def normalize(items: Iterable[RunpodItem]) -> Normalized:
    """The secure cloud's list prices, with stock per data centre."""
    types, stock = _split(list(items))
    quotes: list[PriceQuote] = []
    notes: list[str] = []
    unknown: set[str] = set()
    for item in stock:
        data = item["data"]
        gpu = types.get(data["gpu_type"])
        if gpu is None:
            notes.append(f"runpod: stock of {data['gpu_type']}, which the catalog does not list: skipped")
            continue
        spec = _spec(gpu["id"])
        if spec is None:
            unknown.add(gpu["id"])
        count = data["gpu_count"]
        for model, field in ((PriceModel.on_demand, "securePrice"), (PriceModel.spot, "secureSpotPrice")):
            try:
                per_gpu = _price(gpu.get(field), field)
            except MoneyError as exc:
                notes.append(f"runpod: {gpu['id']}: {exc}: skipped")
                continue
            if per_gpu is None:
                continue
            quotes.append(
                make_quote(
                    PROVIDER,
                    region=data["place"],
                    instance_type=f"{count}x {gpu['displayName']}",
                    gpu_model=spec.gpu_model if spec else None,
                    gpu_count=Decimal(count),
                    gpu_memory_gb=Decimal(memory) * count if (memory := gpu.get("memoryInGb")) else None,
                    price_model=model,
                    price=per_gpu * count,
                    currency="USD",
                    unit=Unit.hour,
                    availability=str(data["stockStatus"]),
                    source_url=PRICING_URL,
                    observed_at=parse_time(item["observed_at"]),
                    attrs={"cloud": "secure"},
                )
            )
    if not quotes:
        raise NormalizeError("runpod: no GPU type is in stock in the data centres asked")
    return Normalized(quotes=quotes, notes=notes + _unknown_note(unknown))


def normalize_community(items: Iterable[RunpodItem]) -> Normalized:
    """The community cloud as a marketplace: each country's lowest price an offer."""
    items = list(items)
    types, stock = _split(items)
    offers: list[MarketOffer] = []
    notes: list[str] = []
    for item in stock:
        data = item["data"]
        gpu = types.get(data["gpu_type"])
        if gpu is None:
            notes.append(f"runpod-community: stock of {data['gpu_type']}, which the catalog does not list: skipped")
            continue
        spec = _spec(gpu["id"])
        count, country = data["gpu_count"], str(data["place"]).upper()
        base: dict[str, Any] = {
            "region": macro_region(country),
            "gpu_label": gpu["displayName"],
            "gpu_count": count,
            "gpu_model": spec.gpu_model if spec else None,
            "gpu_memory_gb": Decimal(memory) if (memory := gpu.get("memoryInGb")) else None,
            "country": country,
            "tier": "community",
        }
        prices = (
            (PriceModel.on_demand, data.get("uninterruptablePrice"), gpu.get("communityPrice")),
            (PriceModel.spot, data.get("minimumBidPrice"), gpu.get("communitySpotPrice")),
        )
        for model, lowest, listed in prices:
            try:
                per_gpu = _price(lowest, "uninterruptablePrice") or _price(listed, "communityPrice")
            except MoneyError as exc:
                notes.append(f"runpod-community: {gpu['id']} in {country}: {exc}: skipped")
                continue
            if per_gpu is not None:
                offers.append(MarketOffer(hourly=per_gpu * count, price_model=model, **base))
    # The regions of the countries asked (the crawl's regions are countries; every one when none was).
    asked = {r for i in items if i["kind"] == "runpod.gpu_type" for r in i.get("regions") or []}
    covered = scope(macro_region(c) for c in asked)
    return normalized(PROVIDER, offers, items, currency="USD", source_url=CONSOLE_URL, notes=notes, regions=covered)
