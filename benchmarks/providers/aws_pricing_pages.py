"""Synthetic AWS pricing-page captures in the real format, built from the
committed us-east-1 capture (tracker/demo_captures/aws/2026-08-06-us-east-1.har.gz):

- `all_regions_entries`: what `gpu-tracker crawl aws` fetches with no
  `--region`: the real `locations.json` and `metadata.json` of that capture,
  then one on-demand table per priced AWS Region (36 of the 38 in those files)
  and operating system, each the us-east-1 table of that OS with the location
  renamed in every row, key and set name, new rate codes and prices scaled by
  a per-region factor; the spot feed and the Spot Instance Advisor data list
  every region the same way. `gpu_rows` / `other_rows` cut each table to that
  many GPU and other rows (the suite's small capture); None keeps them all
  (1,322 Linux rows a table, as the live page has: the benchmark's capture).
- `os_table_entry`: the us-east-1 table for another operating system (RHEL,
  "Windows with SQL Std" ...), derived from the Linux one: the OS names
  changed and a licence fee per vCPU-hour added. The fee is ours, not AWS's.

The prices are made up from the template's; the shapes, URLs, names and
vocabulary are the real ones. Used by tests/spiders/test_aws_replay.py, by
tests/fixtures/aws/make_fixtures.py and by benchmarks/providers/bench_aws.py."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import quote

from benchmarks.providers.aws_offer_file import sku_code
from spiders.har import har_entry, read_har

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "tracker" / "demo_captures" / "aws" / "2026-08-06-us-east-1.har.gz"
US = "US East (N. Virginia)"
TABLES = "https://b0.p.awsstatic.com/pricing/2.0/meteredUnitMaps/ec2/USD/current/ec2-ondemand-without-sec-sel"
# Written here rather than imported from the spider, so that a test built on
# these captures checks the spider's GPU filter instead of sharing it.
GPU = re.compile(r"^(?:p|g|gr)\d")
TEN = Decimal("0.0000000001")


def table_url(location: str, os_name: str) -> str:
    """As the pricing page asks: spaces quoted, parentheses kept."""
    return f"{TABLES}/{quote(location, safe='()')}/{quote(os_name, safe='()')}/index.json"


def _key_place(location: str) -> str:
    """'US East (N. Virginia)' -> 'US East N. Virginia', as row keys spell it."""
    return location.replace("(", "").replace(")", "")


def template() -> dict[str, dict[str, Any]]:
    """The us-east-1 capture's entries by URL."""
    return {e["request"]["url"]: e for e in read_har(TEMPLATE)["log"]["entries"]}


def _body(entry: dict[str, Any]) -> Any:
    return json.loads(entry["response"]["content"]["text"])


def _entry(url: str, page: Any, started: datetime) -> dict[str, Any]:
    body = json.dumps(page, separators=(",", ":")).encode()
    return har_entry(
        method="GET",
        url=url,
        request_headers=[("Accept", "*/*")],
        request_body=None,
        status=200,
        response_headers=[("Content-Type", "application/json")],
        body=body,
        mime_type="application/json",
        started=started,
        elapsed_ms=0,
    )


def priced_regions(entries: dict[str, dict[str, Any]]) -> list[tuple[str, str]]:
    """(location name, region code) of every AWS Region the metadata prices."""
    locations = _body(next(e for u, e in entries.items() if u.endswith("/locations.json")))
    metadata = _body(next(e for u, e in entries.items() if u.endswith("/metadata.json")))
    priced = set(metadata["valueAttributes"]["Location"])
    return sorted(
        (name, loc["code"]) for name, loc in locations.items() if loc["type"] == "AWS Region" and name in priced
    )


def factor(index: int, code: str) -> Decimal:
    """The price factor of the `index`th region over us-east-1 (whose prices
    stay as captured): 1.03 to 1.21, by position."""
    return Decimal(1) if code == "us-east-1" else Decimal(1) + Decimal(index % 7 + 1) * Decimal("0.03")


def _rows(table: dict[str, Any], gpu_rows: int | None, other_rows: int | None) -> list[dict[str, Any]]:
    rows = list(table.values())
    if gpu_rows is None and other_rows is None:
        return rows
    gpu = sorted((r for r in rows if GPU.match(r["Instance Type"])), key=lambda r: r["Instance Type"])
    other = sorted((r for r in rows if not GPU.match(r["Instance Type"])), key=lambda r: r["Instance Type"])
    return gpu[:gpu_rows] + other[:other_rows]


def region_table(
    page: dict[str, Any],
    location: str,
    code: str,
    os_name: str,
    scale: Decimal,
    gpu_rows: int | None = None,
    other_rows: int | None = None,
) -> dict[str, Any]:
    """The us-east-1 table `page` (of `os_name`) as `location`'s. With
    `gpu_rows` or `other_rows` set, only that many of each (None: all)."""
    place = _key_place(location)
    rows: dict[str, Any] = {}
    for row in _rows(page["regions"][US], gpu_rows, other_rows):
        new = dict(row, Location=location)
        family, size = row["Instance Type"].split(".", 1)
        sku = sku_code(f"{code}-{row['Instance Type']}-{os_name}")
        new["rateCode"] = f"{sku}.{row['rateCode'].split('.', 1)[1]}"
        new["price"] = str((Decimal(row["price"]) * scale).quantize(TEN))
        rows[f"{family} {size} {place} {os_name}"] = new
    return {
        "manifest": page["manifest"],
        "sets": {f"{place.replace('.', '')} {os_name}": list(rows)},
        "regions": {location: rows},
    }


def _spot(page: dict[str, Any], regions: list[tuple[str, str]]) -> dict[str, Any]:
    out = copy.deepcopy(page)
    us = next(r for r in page["config"]["regions"] if r["region"] == "us-east-1")
    listed = []
    for i, (_, code) in enumerate(regions):
        scale = factor(i, code)
        region = copy.deepcopy(us)
        region["region"] = code
        for group in region["instanceTypes"]:
            for size in group["sizes"]:
                for column in size["valueColumns"]:
                    usd = column["prices"]["USD"]
                    if not usd.startswith("N/A"):
                        column["prices"]["USD"] = str((Decimal(usd) * scale).quantize(Decimal("0.0001")))
        listed.append(region)
    out["config"]["regions"] = listed
    return out


def _advisor(page: dict[str, Any], regions: list[tuple[str, str]]) -> dict[str, Any]:
    out = copy.deepcopy(page)
    out["spot_advisor"] = {code: copy.deepcopy(page["spot_advisor"]["us-east-1"]) for _, code in regions}
    return out


def all_regions_entries(
    started: datetime,
    systems: tuple[str, ...] = ("Linux", "Windows"),
    gpu_rows: int | None = None,
    other_rows: int | None = None,
) -> Iterator[dict[str, Any]]:
    """Every entry of an all-regions crawl, one at a time (a full capture's
    tables are about 40 MB of JSON)."""
    entries = template()
    regions = priced_regions(entries)
    for url, entry in entries.items():
        if url.endswith(("/locations.json", "/metadata.json")):
            yield _entry(url, _body(entry), started)
    for os_name in systems:
        page = _body(entries[table_url(US, os_name)])
        for i, (location, code) in enumerate(regions):
            table = region_table(page, location, code, os_name, factor(i, code), gpu_rows, other_rows)
            yield _entry(table_url(location, os_name), table, started)
    for url, entry in entries.items():
        if url.endswith("/spot.json"):
            yield _entry(url, _spot(_body(entry), regions), started)
        elif url.endswith("/spot-advisor-data.json"):
            yield _entry(url, _advisor(_body(entry), regions), started)


def os_table_entry(
    os_name: str,
    fee_per_vcpu: Decimal,
    started: datetime,
    *,
    system: str,
    software: str = "NA",
    gpu_rows: int | None = None,
    other_rows: int | None = None,
) -> dict[str, Any]:
    """The us-east-1 table for `os_name` ('RHEL', 'Windows with SQL Std'):
    the Linux rows with `Operating System` `system`, `Pre Installed S/W`
    `software` and `fee_per_vcpu` an hour per vCPU added to the price."""
    linux = _body(template()[table_url(US, "Linux")])
    place = _key_place(US)
    rows: dict[str, Any] = {}
    for row in _rows(linux["regions"][US], gpu_rows, other_rows):
        family, size = row["Instance Type"].split(".", 1)
        price = (Decimal(row["price"]) + fee_per_vcpu * Decimal(row["vCPU"])).quantize(TEN)
        sku = sku_code(f"us-east-1-{row['Instance Type']}-{os_name}")
        rows[f"{family} {size} {place} {os_name}"] = dict(
            row,
            price=str(price),
            rateCode=f"{sku}.{row['rateCode'].split('.', 1)[1]}",
            **{
                "plc:OperatingSystem": os_name,
                "Operating System": system,
                "Pre Installed S/W": software,
                "License Model": "No License required",
            },
        )
    page = {
        "manifest": linux["manifest"],
        "sets": {f"{place.replace('.', '')} {os_name}": list(rows)},
        "regions": {US: rows},
    }
    return _entry(table_url(US, os_name), page, started)
