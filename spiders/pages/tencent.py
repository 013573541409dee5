"""Tencent Cloud purchase-page backend: `DescribeZoneInstanceConfigInfos`
answered through the workbench proxy as
`{code, data: {Response: {InstanceTypeQuotaSet[], RequestId}}}`.

Every item carries its zone, charge type, sale status (SELL / SOLD_OUT) and a
`Price` object whose fields depend on the charge type: hourly types quote
`UnitPrice` (list) and `UnitPriceDiscount`, prepaid types `OriginalPrice`
(list) and `DiscountPrice` for one month.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from spiders.pages import PageShapeError, load_json

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


def _missing(items: list[dict[str, Any]], what: str, test: Any) -> None:
    bad = sum(1 for i in items if test(i))
    if bad:
        raise PageShapeError(f"Tencent: {what} missing in {bad}/{len(items)} items")


def parse_zone_configs(body: bytes) -> list[dict[str, Any]]:
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
    items = [i for i in quota if isinstance(i, dict) and is_gpu_item(i)]
    for name in ITEM_FIELDS:
        _missing(items, name, lambda i, n=name: i.get(n) in (None, ""))
    _missing(items, "Price object", lambda i: not isinstance(i["Price"], dict))
    unknown = sorted({str(i["InstanceChargeType"]) for i in items} - set(CHARGE_TYPES))
    if unknown:
        raise PageShapeError(f"Tencent: unknown InstanceChargeType {', '.join(unknown)}")
    for charge_type, fields in PRICE_FIELDS.items():
        of_type = [i for i in items if i["InstanceChargeType"] == charge_type]
        for name in fields:
            _missing(of_type, f"Price.{name}", lambda i, n=name: i["Price"].get(n) is None)
    return items
