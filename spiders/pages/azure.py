"""Azure Retail Prices API pages: `{BillingCurrency, Items[], NextPageLink, Count}`."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

from spiders.pages import PageShapeError

# The GPU (and FPGA) families: NC, ND, NG, NP and NV sizes.
GPU_SKU = re.compile(r"^Standard_N[CDGPV]", re.IGNORECASE)


def parse_retail_page(body: bytes) -> tuple[list[dict[str, Any]], str | None]:
    """The GPU meters on one page, and the link to the next page (or None)."""
    try:
        page = json.loads(body, parse_float=Decimal)
    except ValueError as exc:
        raise PageShapeError(f"Azure: the page is not valid JSON ({exc})") from None
    if not isinstance(page, dict) or not isinstance(page.get("Items"), list):
        raise PageShapeError("Azure: the page has no Items list")
    if "NextPageLink" not in page:
        raise PageShapeError("Azure: the page has no NextPageLink field")
    items = [i for i in page["Items"] if isinstance(i, dict) and GPU_SKU.match(str(i.get("armSkuName", "")))]
    missing = sum(1 for i in items if "retailPrice" not in i or "type" not in i)
    if missing:
        raise PageShapeError(f"Azure: retailPrice or type missing in {missing}/{len(items)} items")
    next_link = page.get("NextPageLink") or None
    if next_link is not None and not (isinstance(next_link, str) and next_link.startswith(("https://", "http://"))):
        raise PageShapeError(f"Azure: NextPageLink is not a link: {str(next_link)[:80]!r}")
    return items, next_link
