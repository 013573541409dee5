"""Side costs as tracked prices: data sent out (to the internet, to another
region, to another zone), disks and public IPv4 addresses, read from the
providers' own machine-readable price lists (docs/side-costs.md).

A side cost is stored as a price row of its own kind, through the same
normalizer -> diff -> alert path as a GPU price, so history and alerts come
with it:

- `instance_type` says what it is and which tier, in the words an alert
  shows ("internet egress, first 10 TB", "inter-region transfer to
  us-west-2", "disk gp3", "public IPv4"); a tier is part of the key, so each
  tier has its own history;
- `unit` is `gb` (data sent), `gb_month` (storage kept) or `hour` (an
  address); no `gpu_model` or `gpu_count`, so no GPU answer ranks it;
- attrs `side_cost` names the kind (`KINDS`), `tier_from_gb` and `tier_to_gb`
  the tier's bounds in GB a month ("" for no upper bound), and `disk_gb` the
  size a disk priced per disk tier (Azure's P10, E10 ...) was divided by.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from db.schema import PriceModel, PriceQuote, Unit
from tracker.normalize import NormalizeError, make_quote

# attrs side_cost -> the words an answer and an alert use.
KINDS = {
    "internet_egress": "internet egress",
    "inter_region": "inter-region transfer",
    "inter_zone": "inter-zone transfer",
    "disk": "disk",
    "public_ip": "public IPv4",
}
TRANSFER_KINDS = ("internet_egress", "inter_region", "inter_zone")
TIB = Decimal(1024)
# A month of an hourly disk price (365 x 24 / 12 hours): the China clouds'
# price APIs state a pay-as-you-go disk per hour, stored per GB-month.
HOURS_PER_MONTH = Decimal(730)


def per_gb_month(hour_price: Decimal, disk_gb: Decimal) -> Decimal:
    """A disk's price an hour, for `disk_gb` GB, as a price per GB-month."""
    return (hour_price / disk_gb * HOURS_PER_MONTH).quantize(Decimal("0.0000000001")).normalize()


def size_words(gb: Decimal) -> str:
    """10240 -> '10 TB', 1024 -> '1 TB', 100 -> '100 GB' (TB as the
    providers write them: 1,024 GB)."""
    if gb >= TIB and gb % TIB == 0:
        return f"{format((gb / TIB).normalize(), 'f')} TB"
    return f"{format(gb.normalize(), 'f')} GB"


def tier_words(start: Decimal, end: Decimal | None) -> str:
    """'first 10 TB', 'next 40 TB', 'over 150 TB'; '' for a single tier."""
    if start == 0 and end is None:
        return ""
    if end is None:
        return f"over {size_words(start)}"
    if start == 0:
        return f"first {size_words(end)}"
    return f"next {size_words(end - start)}"


def side_quote(
    provider: str,
    region: str,
    kind: str,
    *,
    price: Decimal,
    currency: str,
    unit: Unit,
    source_url: str,
    observed_at: datetime,
    what: str = "",
    tier: tuple[Decimal, Decimal | None] = (Decimal(0), None),
    attrs: dict[str, str] | None = None,
) -> PriceQuote:
    """One side cost as a price row (see the module's docstring)."""
    if kind not in KINDS:
        raise NormalizeError(f"{provider}: unknown side cost {kind!r}")
    if price < 0:
        raise NormalizeError(f"{provider}: {KINDS[kind]} in {region}: negative price {price}")
    start, end = tier
    words = " ".join(filter(None, (KINDS[kind], what)))
    tier_text = tier_words(start, end)
    return make_quote(
        provider,
        region=region,
        instance_type=f"{words}, {tier_text}" if tier_text else words,
        os="",
        price_model=PriceModel.on_demand,
        price=price,
        currency=currency,
        unit=unit,
        source_url=source_url,
        observed_at=observed_at,
        attrs={
            "side_cost": kind,
            "tier_from_gb": format(start.normalize(), "f"),
            "tier_to_gb": "" if end is None else format(end.normalize(), "f"),
            **(attrs or {}),
        },
    )
