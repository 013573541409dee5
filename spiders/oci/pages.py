"""Oracle's public price list: `GET https://apexapps.oracle.com/pls/apex/cetools/api/v1/products/?currencyCode=USD`,
answered `{lastUpdated, items: [...]}` (and, as Oracle REST Data Services
pages are, possibly `links` with a `next` page). Each item is a part:
`{partNumber, displayName, metricName, serviceCategory,
currencyCodeLocalizations: [{currencyCode, prices: [{model, value}]}]}`.

GPU compute is priced per GPU-hour: the parts whose `metricName` is
`GPU Per Hour` are kept (this also keeps NVIDIA software licences and
Cloud@Customer appliances, which share the metric; the normalizer sets them
apart). Records are returned as seen.
"""

from __future__ import annotations

from typing import Any

from spiders.oci.items import OciProduct
from spiders.pages import PageShapeError, json_type, load_json, member

GPU_METRIC = "GPU Per Hour"


def parse_products(body: bytes) -> tuple[list[OciProduct], str, str | None]:
    """The GPU parts of one page, the price list's `lastUpdated`, and the
    link to the next page (or None)."""
    page = load_json(body, "OCI: the price list")
    items = member(page, "items")
    if not isinstance(items, list):
        raise PageShapeError(f"OCI: the price list has no items list (items is {json_type(items)})")
    updated = member(page, "lastUpdated")
    if not isinstance(updated, str) or not updated:
        raise PageShapeError("OCI: the price list has no lastUpdated date")
    links = member(page, "links") or []
    if not isinstance(links, list):
        raise PageShapeError(f"OCI: links is {json_type(links)}, not an array")
    following = [member(link, "href") for link in links if member(link, "rel") == "next"]
    if following and not (isinstance(following[0], str) and following[0].startswith(("https://", "/"))):
        raise PageShapeError(f"OCI: the next link is not a link: {str(following[0])[:80]!r}")
    gpu: list[Any] = [i for i in items if member(i, "metricName") == GPU_METRIC]
    return gpu, updated, following[0] if following else None
