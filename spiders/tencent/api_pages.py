"""Tencent Cloud CVM API 2017-03-12 `DescribeZoneInstanceConfigInfos`:
`{"Response": {"InstanceTypeQuotaSet": [...], "RequestId"}}`, or
`{"Response": {"Error": {"Code", "Message"}, "RequestId"}}` (HTTP 200 both).

The items are the SDK model `InstanceTypeQuotaItem`; `Price` is `ItemPrice`,
whose fields the API reference marks optional: an hourly item may carry only
`UnitPrice` and `ChargeUnit`, as in the reference's own example.
"""

from __future__ import annotations

from typing import Any, cast

from spiders.pages import PageShapeError, member
from spiders.tencent.items import QuotaItem
from spiders.tencent.pages import is_gpu_item

ITEM_FIELDS = ("InstanceType", "Zone", "InstanceChargeType", "Status", "Price")


def api_error(data: Any) -> tuple[str, str] | None:
    """(code, message) when the answer is an error."""
    error = member(member(data, "Response"), "Error")
    if isinstance(error, dict):
        return str(error.get("Code") or "Error"), str(error.get("Message") or "")
    return None


def parse_quota_set(data: Any) -> list[QuotaItem]:
    """The GPU items of one answer, each with the fields we read."""
    response = member(data, "Response")
    if not isinstance(response, dict):
        raise PageShapeError("tencent-api: the answer has no Response object")
    quota = response.get("InstanceTypeQuotaSet")
    if not isinstance(quota, list):
        raise PageShapeError("tencent-api: Response has no InstanceTypeQuotaSet list")
    # The items as the API states them (spiders/tencent/items.py).
    items = cast(list[QuotaItem], [i for i in quota if isinstance(i, dict) and is_gpu_item(i)])
    for item in items:
        missing = [n for n in ITEM_FIELDS if item.get(n) in (None, "")]
        if missing or not isinstance(item.get("Price"), dict):
            raise PageShapeError(
                f"tencent-api: {', '.join(missing) or 'Price object'} missing for {item.get('InstanceType') or 'an item'}"
            )
    return items
