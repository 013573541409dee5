"""Alibaba Cloud price sources, as pure functions of a saved response.

- The CDN price file `instancePrice.json`: `{currency, version,
  publicationDate, pricingInfo: {"region::type::network::os::io": {hours,
  months, years: [{price, period}]}}}`.
- The pricing page: the price file's `<version>` is in the URLs the page
  loads (`.../ecs-price-info-intl/<version>/...`); the China site's page
  names it in its plain HTML, the international one once rendered.
- ECS DescribePrice: `{PriceInfo: {Price: {Currency, OriginalPrice,
  DiscountPrice, TradePrice}}}`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from spiders.alibaba.items import PriceFileRecord
from spiders.pages import PageShapeError, load_json, member, only_one

# gn*, ebmgn*, sgn* and vgn* are the GPU families (vGPU slices included).
GPU_TYPE = re.compile(r"^ecs\.(?:ebm|s|v)?gn\d", re.IGNORECASE)
PERIOD_LISTS = ("hours", "months", "years")


def _load(body: bytes, what: str) -> Any:
    return load_json(body, f"Alibaba: {what}")


def parse_price_file(body: bytes) -> tuple[dict[str, Any], list[PriceFileRecord]]:
    """The file's header (currency, version, publicationDate) and one record
    per GPU price key, its period lists as seen."""
    page = _load(body, "the price file")
    if not isinstance(page, dict) or not isinstance(page.get("pricingInfo"), dict):
        raise PageShapeError("Alibaba: pricingInfo missing")
    if not page.get("currency"):
        raise PageShapeError("Alibaba: currency missing from the price file")
    records: list[PriceFileRecord] = []
    bad_keys, bad_lists = 0, 0
    for key, entry in page["pricingInfo"].items():
        parts = str(key).split("::")
        if len(parts) != 5:
            bad_keys += 1
            continue
        region, instance_type, network, os_name, io = parts
        if not GPU_TYPE.match(instance_type):
            continue
        lists = {name: entry.get(name) for name in PERIOD_LISTS} if isinstance(entry, dict) else {}
        if not any(isinstance(v, list) for v in lists.values()) or any(
            not isinstance(v, list) or not all(isinstance(p, dict) and "price" in p and "period" in p for p in v)
            for v in lists.values()
            if v is not None
        ):
            bad_lists += 1
            continue
        records.append(
            {
                "key": key,
                "region": region,
                "instance_type": instance_type,
                "network": network,
                "os": os_name,
                "io": io,
                "hours": lists.get("hours") or [],
                "months": lists.get("months") or [],
                "years": lists.get("years") or [],
            }
        )
    total = len(records) + bad_lists
    if bad_keys:
        raise PageShapeError(f"Alibaba: {bad_keys} pricingInfo keys are not region::type::network::os::io")
    if bad_lists:
        raise PageShapeError(
            f"Alibaba: hours/months/years with price and period missing in {bad_lists}/{total} GPU items"
        )
    if not records:
        raise PageShapeError("Alibaba: the price file lists no GPU instance types")
    header = {
        "currency": page["currency"],
        "version": page.get("version"),
        "publication_date": page.get("publicationDate"),
    }
    return header, records


def price_versions(texts: Iterable[str], price_path: str) -> set[str]:
    """The `<version>`s in URLs like `.../<price_path>/<version>/price/...`
    (or ending at the version, as a page may write its base URL)."""
    pattern = re.compile(re.escape(price_path) + r"/(\d+(?:\.\d+)+)(?![\d.\w-])")
    return {m.group(1) for text in texts for m in pattern.finditer(text)}


def pick_version(found: set[str], page_url: str) -> str:
    return only_one(
        found,
        none=f"Alibaba: the pricing page {page_url} names no price file version",
        several=f"Alibaba: the pricing page {page_url} names several price file versions "
        "({found}); refusing to pick one",
    )


# DescribePrice errors that mean "no price for this type here", not a fault.
NO_PRICE_CODES = {
    "PriceNotFound",
    "InvalidInstanceType.ValueNotSupported",
    "InstanceType.Offline",
    "InvalidInstanceType.NotSupported",
    "Zone.NotOnSale",
}


def parse_describe_price(status: int, body: bytes) -> dict[str, Any] | None:
    """The Price struct, or None when the API says the type has no price in
    that region; any other error raises with the API's own code."""
    page = _load(body, "DescribePrice")
    if status != 200:
        code, message = member(page, "Code"), member(page, "Message")
        if isinstance(code, str) and code in NO_PRICE_CODES:
            return None
        raise PageShapeError(f"Alibaba DescribePrice: HTTP {status} {code or ''}: {message or 'no message'}")
    price = member(member(page, "PriceInfo"), "Price")
    if not isinstance(price, dict) or "TradePrice" not in price or "Currency" not in price:
        raise PageShapeError("Alibaba DescribePrice: PriceInfo.Price.TradePrice missing")
    return {k: price.get(k) for k in ("Currency", "OriginalPrice", "DiscountPrice", "TradePrice")}
