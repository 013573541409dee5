"""Cloud Billing Catalog pages: `{skus: [...], nextPageToken}` for one service.

Only the SKUs that can price a GPU machine are kept: Compute's GPU, CPU and
RAM resource groups (N1's cores and RAM share the group `N1Standard`), and
the Local SSD group (`LocalSSD`, under Storage or Compute), which prices the
Local SSD that some GPU machines come with.
"""

from __future__ import annotations

from typing import Any

from spiders.gcp.items import Sku
from spiders.pages import PageShapeError, json_page

PART_GROUPS = {"GPU", "CPU", "RAM", "N1Standard"}
SSD_GROUP, SSD_FAMILIES = "LocalSSD", {"Storage", "Compute"}


def _kept(sku: Any) -> bool:
    category = sku.get("category") if isinstance(sku, dict) else None
    if not isinstance(category, dict):
        return False
    family, group = category.get("resourceFamily"), category.get("resourceGroup")
    return (family == "Compute" and group in PART_GROUPS) or (family in SSD_FAMILIES and group == SSD_GROUP)


def parse_skus_page(body: bytes) -> tuple[list[Sku], str | None]:
    """The machine-part SKUs on one page, and the next page's token (or None)."""
    page = json_page(body, "GCP", "skus")
    token = page.get("nextPageToken", "")
    if not isinstance(token, str):
        raise PageShapeError(f"GCP: nextPageToken is {token!r}, not a string")
    skus = [s for s in page["skus"] if _kept(s)]
    missing = sum(
        1
        for s in skus
        if not s.get("skuId")
        or not isinstance(s.get("pricingInfo"), list)
        or not isinstance(s.get("serviceRegions"), list)
    )
    if missing:
        raise PageShapeError(f"GCP: skuId, pricingInfo or serviceRegions missing in {missing}/{len(skus)} SKUs")
    return skus, token or None
