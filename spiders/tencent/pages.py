"""Tencent Cloud purchase-page backend: `DescribeZoneInstanceConfigInfos`
answered through the workbench proxy as
`{code, data: {Response: {InstanceTypeQuotaSet[], RequestId}}}`.

Every item carries its zone, charge type, sale status (SELL / SOLD_OUT) and a
`Price` object whose fields depend on the charge type: hourly types quote
`UnitPrice` (list) and `UnitPriceDiscount`, prepaid types `OriginalPrice`
(list) and `DiscountPrice` for one month. The API reference marks every
`Price` field optional (its own example of an hourly price holds only
`UnitPrice` and `ChargeUnit`): an item needs one of its charge type's two.

An odd item (a field missing, an unknown charge type) is left out with a
note; when every GPU item of an answer is odd, the shape changed and the
answer is refused.
"""

from __future__ import annotations

import re
from collections import Counter
from decimal import Decimal
from typing import Any, cast

from spiders.pages import PageShapeError, load_json
from spiders.tencent.items import QuotaItem

CHARGE_TYPES = ("POSTPAID_BY_HOUR", "PREPAID", "SPOTPAID")
PRICE_FIELDS = {
    "POSTPAID_BY_HOUR": ("UnitPrice", "UnitPriceDiscount"),
    "SPOTPAID": ("UnitPrice", "UnitPriceDiscount"),
    "PREPAID": ("OriginalPrice", "DiscountPrice"),
}
ITEM_FIELDS = ("InstanceType", "Zone", "InstanceChargeType", "Status", "Price")
# GPU and other accelerator families, for items whose Gpu/GpuCount is 0
# (vGPU slices on older API versions report Gpu 0).
GPU_FAMILY = re.compile(r"^(GN|GI|GT|GNV|PNV|HCC|PTX|GC)", re.IGNORECASE)


def _number(value: object) -> Decimal:
    """A count as written, or 0 when it is not a finite number."""
    try:
        number = Decimal(str(value)) if isinstance(value, (int, float, str, Decimal)) else Decimal(0)
    except ArithmeticError:
        return Decimal(0)
    return number if number.is_finite() else Decimal(0)


def is_gpu_item(item: dict[str, Any]) -> bool:
    if _number(item.get("Gpu")) > 0 or _number(item.get("GpuCount")) > 0:
        return True
    return bool(GPU_FAMILY.match(str(item.get("InstanceFamily") or item.get("InstanceType") or "")))


def _problem(item: QuotaItem) -> str | None:
    """Why the item cannot be read, or None."""
    for name in ITEM_FIELDS:
        if item.get(name) in (None, ""):
            return f"{name} missing"
    if not isinstance(item["Price"], dict):
        return "Price object missing"
    charge_type = str(item["InstanceChargeType"])
    if charge_type not in PRICE_FIELDS:
        return f"unknown InstanceChargeType {charge_type}"
    fields = PRICE_FIELDS[charge_type]
    if all(item["Price"].get(n) is None for n in fields):
        return f"Price.{fields[0]} (or {fields[1]}) missing"
    return None


def parse_zone_configs(body: bytes, notes: list[str] | None = None) -> list[QuotaItem]:
    """The GPU items of one answer, checked for the fields we read."""
    page = load_json(body, "Tencent: the answer")
    if not isinstance(page, dict):
        raise PageShapeError("Tencent: the answer is not a JSON object")
    if page.get("code") not in (0, "0", None):
        raise PageShapeError(
            f"Tencent: the workbench answered code {page.get('code')!r}: "
            f"{page.get('msg') or page.get('message') or 'no message'}"
        )
    response = (page.get("data") or {}).get("Response") if isinstance(page.get("data"), dict) else None
    if not isinstance(response, dict):
        raise PageShapeError("Tencent: the answer has no data.Response object")
    error = response.get("Error")
    if isinstance(error, dict):
        raise PageShapeError(f"Tencent: the API answered {error.get('Code')}: {error.get('Message')}")
    quota = response.get("InstanceTypeQuotaSet")
    if not isinstance(quota, list):
        raise PageShapeError("Tencent: data.Response has no InstanceTypeQuotaSet list")
    # The items as the API states them (spiders/tencent/items.py).
    items = cast(list[QuotaItem], [i for i in quota if isinstance(i, dict) and is_gpu_item(i)])
    problems = Counter(p for p in map(_problem, items) if p is not None)
    if items and sum(problems.values()) == len(items):
        problem, count = problems.most_common(1)[0]
        raise PageShapeError(f"Tencent: {problem} in {count}/{len(items)} items")
    if notes is not None:
        notes.extend(f"tencent: {p} in {n}/{len(items)} items; skipped" for p, n in sorted(problems.items()))
    return [i for i in items if _problem(i) is None]
