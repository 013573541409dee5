"""A synthetic Azure Retail Prices capture of one region, in the real format,
built from the committed westeurope capture
(tracker/demo_captures/azure/2026-08-03-westeurope.har.gz), of any size.

What `gpu-tracker crawl azure --region westeurope` fetches: the region's
Virtual Machines query, then page after page by `NextPageLink`, each page
`{BillingCurrency, CustomerEntityId, CustomerEntityType, Items[], NextPageLink,
Count}` with up to 1,000 items. Sources: Microsoft's overview documents the paging
by `NextPageLink`
(https://learn.microsoft.com/en-us/rest/api/cost-management/retail-prices/azure-retail-prices#api-response-pagination);
the page size is as public clients of the API write it ("The API returns up
to 1000 items per request", `NextPageLink` ending `$skip=1000`, `Count`
1000), not checked against a live response here. The committed capture was
trimmed to pages of 250. Every item keeps the field names, order and value types of the real
item it is made from.

- GPU meters (`GPU_SHARE` of them, our assumption: N-series sizes are about
  one VM size in ten, and carry fewer meters than general-purpose ones) are
  the capture's 562 GPU meters, copied: copy 0 unchanged, copy n with its
  size renamed (`Standard_NC24ads_A100_v4` -> `Standard_NC24ads_A100_v4_x3`,
  so that every copy prices keys of its own; such sizes are not in the GPU
  spec table and are stored without GPU fields), a new meterId and prices
  scaled up by n%. The last copy is cut at the count asked for.
- The other meters are general-purpose sizes (D, E, F, B, L, M, A families)
  in the shapes of the capture's meters (pay as you go, spot, low priority,
  DevTest, reservations, savings plans; Linux and Windows), with prices of
  the right order. The spider drops them; what they cost is reading them.

Meters are spread over the pages at random (a fixed seed), and the capture is
written as a stream: the generator holds one page at a time."""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from spiders.har import har_entry, read_har

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "tracker" / "demo_captures" / "azure" / "2026-08-03-westeurope.har.gz"
PAGE_SIZE = 1000
GPU_SHARE = 0.05
# Written here rather than imported from the page object, so that the
# benchmark checks the spider's GPU filter instead of sharing it.
GPU_PREFIXES = ("Standard_NC", "Standard_ND", "Standard_NG", "Standard_NP", "Standard_NV")
SUFFIXES = (" Spot", " Low Priority")
# (family letter, size suffix as in armSkuName, series as in productName)
OTHER_FAMILIES = [
    ("D", "s_v5", "Dsv5"),
    ("D", "as_v5", "Dasv5"),
    ("D", "ds_v5", "Ddsv5"),
    ("D", "ls_v5", "Dlsv5"),
    ("D", "_v3", "Dv3"),
    ("E", "s_v5", "Esv5"),
    ("E", "ads_v5", "Eadsv5"),
    ("E", "_v4", "Ev4"),
    ("F", "s_v2", "FSv2"),
    ("B", "ms", "BS"),
    ("L", "s_v3", "Lsv3"),
    ("M", "ms", "MS"),
    ("A", "_v2", "Av2"),
]
OTHER_SIZES = (1, 2, 4, 8, 16, 32, 48, 64, 96)
HOURS_A_YEAR = 8760
NAMESPACE = uuid.UUID("9f4c1d0e-3a52-4e7b-8a61-1c0b2e9d7f10")


@dataclass
class Generated:
    meters: int
    pages: int
    gpu_meters: int
    # What the GPU meters stand for: one price each and one per savings
    # plan, none for DevTest meters (counted here from the items themselves).
    gpu_quotes: int
    bytes: int


def template_items() -> tuple[str, datetime, list[dict[str, Any]]]:
    """The first page's URL, the capture's start, and every item of it."""
    entries = read_har(TEMPLATE)["log"]["entries"]
    started = datetime.fromisoformat(entries[0]["startedDateTime"].replace("Z", "+00:00"))
    items = [i for e in entries for i in json.loads(e["response"]["content"]["text"])["Items"]]
    return entries[0]["request"]["url"], started, items


def _renamed(name: str, tag: str) -> str:
    """'ND96amsr A100 v4 Spot' -> 'ND96amsr A100 v4 x3 Spot': the spot and
    low priority suffixes stay last, where the normalizer reads them."""
    for suffix in SUFFIXES:
        if name.endswith(suffix):
            return f"{name.removesuffix(suffix)} {tag}{suffix}"
    return f"{name} {tag}"


def _scaled(value: float, factor: float) -> float:
    return round(value * factor, 6)


def _priced(item: dict[str, Any], factor: float) -> dict[str, Any]:
    out = dict(item, retailPrice=_scaled(item["retailPrice"], factor), unitPrice=_scaled(item["unitPrice"], factor))
    if "savingsPlan" in item:
        out["savingsPlan"] = [
            dict(p, retailPrice=_scaled(p["retailPrice"], factor), unitPrice=_scaled(p["unitPrice"], factor))
            for p in item["savingsPlan"]
        ]
    return out


def gpu_meters(gpu: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The capture's GPU meters, then copies of them under new size names, endlessly."""
    copy = 0
    while True:
        for item in gpu:
            if copy == 0:
                yield item
                continue
            tag = f"x{copy}"
            out = _priced(item, 1 + copy / 100)
            out["armSkuName"] = f"{item['armSkuName']}_{tag}"
            out["skuName"] = _renamed(item["skuName"], tag)
            out["meterName"] = _renamed(item["meterName"], tag)
            out["meterId"] = str(uuid.uuid5(NAMESPACE, f"{item['meterId']}/{copy}"))
            out["skuId"] = f"{item['productId']}/{copy:04X}"
            yield out
        copy += 1


def other_meters(shapes: list[dict[str, Any]], rng: random.Random) -> Iterator[dict[str, Any]]:
    """General-purpose meters, each in the shape of one of the capture's meters."""
    serial = 0
    while True:
        shape = shapes[serial % len(shapes)]
        letter, suffix, series = rng.choice(OTHER_FAMILIES)
        size = rng.choice(OTHER_SIZES)
        sku = f"{letter}{size}{suffix.replace('_', ' ')}".replace("  ", " ")
        windows = " Windows" if shape["productName"].endswith(" Windows") else ""
        price = size * rng.uniform(0.03, 0.09)
        if shape["type"] == "Reservation":  # a whole term's price, at about 60% of the hourly rate
            price *= HOURS_A_YEAR * int(shape["reservationTerm"].split()[0]) * 0.6
        out = _priced(shape, price / shape["retailPrice"])
        tail = next((s for s in SUFFIXES if shape["skuName"].endswith(s)), "")
        out.update(
            meterId=str(uuid.uuid5(NAMESPACE, f"other/{serial}")),
            meterName=sku + tail,
            productId=f"DZH318Z0{serial % 4096:04X}",
            skuId=f"DZH318Z0{serial % 4096:04X}/{serial % 65536:04X}",
            productName=f"Virtual Machines {series} Series{windows}",
            skuName=sku + tail,
            armSkuName=f"Standard_{letter}{size}{suffix}",
        )
        yield out
        serial += 1


def _quotes(item: dict[str, Any]) -> int:
    if item["type"] == "DevTestConsumption" or "Cloud Services" in item["productName"]:
        return 0
    return 1 + len(item.get("savingsPlan", []))


def _entry(url: str, page: dict[str, Any], started: datetime) -> dict[str, Any]:
    return har_entry(
        method="GET",
        url=url,
        request_headers=[("Accept", "application/json")],
        request_body=None,
        status=200,
        response_headers=[("Content-Type", "application/json; charset=utf-8")],
        body=json.dumps(page, separators=(",", ":")).encode(),
        mime_type="application/json",
        started=started,
        elapsed_ms=180,
    )


def write_region(path: Path, meters: int, *, gpu_share: float = GPU_SHARE, seed: int = 19) -> Generated:
    """A plain HAR capture of one region's `meters` meters at `path`."""
    first_url, started, items = template_items()
    rng = random.Random(seed)
    gpu = [i for i in items if i["armSkuName"].startswith(GPU_PREFIXES)]
    gpu_count = round(meters * gpu_share)
    gpu_at = set(rng.sample(range(meters), gpu_count))
    gpus, others = gpu_meters(gpu), other_meters(items, rng)
    pages = (meters + PAGE_SIZE - 1) // PAGE_SIZE
    quotes = 0
    with path.open("w", encoding="utf-8") as fh:
        fh.write('{"log":{"version":"1.2","creator":{"name":"gpu-tracker","version":"1"},"pages":[],"entries":[\n')
        for n in range(pages):
            start = n * PAGE_SIZE
            page_items = [
                next(gpus) if i in gpu_at else next(others) for i in range(start, min(start + PAGE_SIZE, meters))
            ]
            quotes += sum(_quotes(i) for i in page_items if i["armSkuName"].startswith(GPU_PREFIXES))
            next_link = f"{first_url}&$skip={start + PAGE_SIZE}" if n + 1 < pages else None
            page = {
                "BillingCurrency": "USD",
                "CustomerEntityId": "Default",
                "CustomerEntityType": "Retail",
                "Items": page_items,
                "NextPageLink": next_link,
                "Count": len(page_items),
            }
            url = first_url if n == 0 else f"{first_url}&$skip={start}"
            fh.write(("" if n == 0 else ",\n") + json.dumps(_entry(url, page, started + timedelta(seconds=n))))
        fh.write("\n]}}\n")
    return Generated(meters, pages, gpu_count, quotes, path.stat().st_size)
