"""Azure Retail Prices API pages: `{BillingCurrency, Items[], NextPageLink, Count}`."""

from __future__ import annotations

import re
from typing import cast

from spiders.azure.items import RetailPrice
from spiders.pages import PageShapeError, json_page

# The GPU (and FPGA) families: NC, ND, NG, NP and NV sizes.
GPU_SKU = re.compile(r"^Standard_N[CDGPV]", re.IGNORECASE)


def parse_retail_page(body: bytes) -> tuple[list[RetailPrice], str | None]:
    """The GPU meters on one page, and the link to the next page (or None)."""
    page = json_page(body, "Azure", "Items")
    if "NextPageLink" not in page:
        raise PageShapeError("Azure: the page has no NextPageLink field")
    # The meters as the API states them (spiders/azure/items.py).
    items = cast(
        list[RetailPrice],
        [i for i in page["Items"] if isinstance(i, dict) and GPU_SKU.match(str(i.get("armSkuName", "")))],
    )
    missing = sum(1 for i in items if "retailPrice" not in i or "type" not in i)
    if missing:
        raise PageShapeError(f"Azure: retailPrice or type missing in {missing}/{len(items)} items")
    next_link = page.get("NextPageLink") or None
    if next_link is not None and not (isinstance(next_link, str) and next_link.startswith(("https://", "http://"))):
        raise PageShapeError(f"Azure: NextPageLink is not a link: {str(next_link)[:80]!r}")
    return items, next_link
