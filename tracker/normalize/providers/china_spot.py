"""What the China clouds' `DescribeSpotAdvice` items mean (sources
`alibaba-spot-advice` and `volcengine-spot-advice`, kind "spot_risk").

Each item is one instance type in one zone of a region, with the release
rate of its spot instances over the previous 30 days as the provider states
it: a range label (Alibaba `InterruptRateDesc`: "0-3%", "3-5%", "5-10%",
"10-100%"; Volcano Engine `InterruptionRateRange`) and a percentage.

- The band stored is the label as stated (db/spot_risk.py); the risk model
  takes its bounds from it (db/spot_risk.stated_bounds). These ranges are
  not AWS's, and are never mapped onto AWS's.
- A pool is a type in a region, as prices are (spot prices are per region):
  of a region's zones, the riskiest band stands for the region (a spot
  request may land in any of them). Its rank, within the source, is the
  band's midpoint in hundredths of a percent ("0-3%" 150, "10-100%" 5500):
  higher is riskier, so a band that worsens is one change.
- Alibaba's `AverageSpotDiscount` is the average spot price as a percentage
  of the pay-as-you-go price: the savings are 100 minus it. Volcano Engine's
  is named a discount rate with no stated meaning: no savings are stored.
- Every field is optional in the SDK models: a record without a type, or
  with no range it states or we can place, is skipped with a note; an
  Alibaba record with a rate but no range is placed on Alibaba's documented
  scale.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from db.spot_risk import SpotBand, stated_bounds
from tracker.normalize import Normalized, NormalizeError, parse_time

# Alibaba's documented ranges of InterruptRateDesc, in order of risk.
ALIBABA_SCALE = ("0-3%", "3-5%", "5-10%", "10-100%")
# The API states no operating system; spot prices are stored for Linux.
OS = "linux"


def _number(value: Any) -> Decimal | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


def _alibaba_label(rate: Decimal) -> str:
    """The range of Alibaba's documented scale a rate in percent falls in."""
    for label in ALIBABA_SCALE[:-1]:
        bounds = stated_bounds(label)
        if bounds is not None and rate < bounds[1]:
            return label
    return ALIBABA_SCALE[-1]


def _band(source: str, provider: str, item: Mapping[str, Any]) -> SpotBand | str:
    """The item's band, or the note saying why it is skipped."""
    data, region = item["data"], str(item.get("region") or "")
    instance_type = data.get("instance_type")
    if not isinstance(instance_type, str) or not instance_type:
        return f"{source}: a record in {region} ({data.get('zone')}) names no instance type; skipped"
    label = data.get("interruption")
    rate = _number(data.get("interruption_rate"))
    if not isinstance(label, str) or not label.strip():
        if provider != "alibaba" or rate is None or rate < 0:
            return f"{source}: {instance_type} in {data.get('zone') or region} states no release-rate range; skipped"
        label = _alibaba_label(rate)
    label = label.strip()
    bounds = stated_bounds(label)
    if bounds is None:
        return f"{source}: {instance_type} in {data.get('zone') or region}: a release-rate range {label!r} we cannot read; skipped"
    low, high = bounds
    savings = None
    price_percent = _number(data.get("spot_price_percent"))
    if price_percent is not None and 0 < price_percent <= 100:
        savings = int(100 - price_percent)
    return SpotBand(
        provider=provider,
        instance_type=instance_type,
        region=region,
        os=OS,
        band=label,
        rank=int((low + high) * 50),
        savings_percent=savings,
        source_url=str(item["source_url"]),
        observed_at=parse_time(item["observed_at"]),
    )


def _normalize(items: Iterable[Mapping[str, Any]], *, source: str, provider: str, kind: str) -> Normalized:
    out = Normalized()
    worst: dict[tuple[str, str, str, str], SpotBand] = {}
    for item in items:
        if item.get("kind") != kind:
            raise NormalizeError(f"{source}: unknown item kind {item.get('kind')!r}")
        if not isinstance(item.get("data"), dict):
            raise NormalizeError(f"{source}: an item has no data record")
        found = _band(source, provider, item)
        if isinstance(found, str):
            out.notes.append(found)
            continue
        before = worst.get(found.pool)
        if before is None or found.rank > before.rank:
            worst[found.pool] = found
    out.spot_bands.extend(worst[pool] for pool in sorted(worst))
    return out


def normalize_alibaba(items: Iterable[Mapping[str, Any]]) -> Normalized:
    return _normalize(items, source="alibaba-spot-advice", provider="alibaba", kind="alibaba.spot_advice")


def normalize_volcengine(items: Iterable[Mapping[str, Any]]) -> Normalized:
    return _normalize(items, source="volcengine-spot-advice", provider="volcengine", kind="volcengine.spot_advice")
