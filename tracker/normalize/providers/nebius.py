"""What the Nebius Compute pricing page means.

- A platform section's USD table prices it per hour. NVIDIA H100, H200, B200,
  B300 and RTX PRO 6000 platforms have one price per GPU-hour that covers the
  GPU with its share of vCPUs and RAM (unified billing since October 2025):
  a preset with n GPUs costs n times it. The L40S platforms are priced by
  part (rows ending ". GPU", ". CPU", ". RAM"; per GPU-hour, vCPU-hour and
  GiB-hour): a preset costs GPUs x GPU + vCPUs x CPU + GiB x RAM.
- A row whose item begins "Preemptible" is the spot price (preemptible VMs);
  the others are on demand. A part-priced platform gets a spot price only
  when all three preemptible parts are listed.
- When a section announces a change ("Item — before October 1, 2026" and
  "Item — from October 1, 2026"), the table in force at the observation time
  is used, so the change shows on its day.
- A preset is `<platform>.<preset>` (gpu-h100-sxm.8gpu-128vcpu-1600gb), with
  its GPUs, vCPUs and memory from gpu_specs/nebius.csv. A heading that adds
  the platform ID ("NVIDIA® B200 NVLink, gpu-b200-sxm") names the platform
  itself; one that names the platform alone is looked up in PLATFORMS below
  (by region where two platforms share a name), by its full name or by its
  name before " with " where that is one platform's. A heading we do not
  know is noted, not priced; a `cpu-` platform is not a GPU platform.
- Each preset is stored in every region its section names (the crawl's
  regions, when given, narrow them). No stock is published.
- One odd row (a price that is not a dollar amount, an unknown unit) is
  skipped with a note; a page with no platform we can price fails the run.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from db.schema import PriceModel, Unit
from spiders.nebius.items import NebiusItem
from tracker.normalize import Normalized, NormalizeError, make_quote, parse_time
from tracker.normalize.specs import spec_table

PROVIDER = "nebius"
# Section heading (without ® and ™) -> platform, or {region: platform, "*": platform}.
PLATFORMS: dict[str, str | dict[str, str]] = {
    "NVIDIA H100 NVLink with Intel Sapphire Rapids": "gpu-h100-sxm",
    "NVIDIA H200 NVLink with Intel Sapphire Rapids": "gpu-h200-sxm",
    "NVIDIA B200 NVLink with Intel Emerald Rapids": {"me-west1": "gpu-b200-sxm-a", "*": "gpu-b200-sxm"},
    "NVIDIA B300 NVLink with Intel Granite Rapids": "gpu-b300-sxm",
    "NVIDIA RTX PRO 6000": "gpu-rtx6000",
    "NVIDIA L40S PCIe with Intel Ice Lake": "gpu-l40s-a",
    "NVIDIA L40S PCIe with AMD Epyc Genoa": "gpu-l40s-d",
}
# "NVIDIA B200 NVLink" -> the same, when only one platform's full name begins so
SHORT: dict[str, str | dict[str, str]] = {
    short: found
    for short, found in ((name.split(" with ")[0], found) for name, found in PLATFORMS.items())
    if [name.split(" with ")[0] for name in PLATFORMS].count(short) == 1
}
UNITS = {"1 gpu hour": "gpu", "1 vcpu hour": "cpu", "1 cpu hour": "cpu", "1 gib hour": "ram"}
_PRICE = re.compile(r"^\\?\$\s*(\d+(?:\.\d+)?)$")
_PERIOD = re.compile(r"^(from|before)\s+([A-Z][a-z]+ \d{1,2}, \d{4})$")


def _plain(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("®", "").replace("™", "")).strip()


def _platform(section: str, platform: str, region: str) -> str | None:
    if platform:
        return platform
    name = _plain(section)
    found = PLATFORMS.get(name) or SHORT.get(name)
    if isinstance(found, dict):
        return found.get(region, found.get("*"))
    return found


def _in_force(period: str, day: date) -> bool | None:
    """Whether a table qualified by `period` applies on `day` (None: unreadable)."""
    if not period:
        return True
    match = _PERIOD.match(period)
    if not match:
        return None
    start = datetime.strptime(match.group(2), "%B %d, %Y").date()
    return day >= start if match.group(1) == "from" else day < start


def _presets(platform: str) -> list[Any]:
    prefix = platform.lower() + "."
    return [s for name, s in spec_table(PROVIDER).items() if name.startswith(prefix)]


def normalize(items: Iterable[NebiusItem]) -> Normalized:
    out = Normalized()
    # (platform, region, spot) -> part -> rate; one rate per key
    rates: dict[tuple[str, str, bool], dict[str, Decimal]] = defaultdict(dict)
    seen: dict[tuple[str, str, bool], tuple[str, str]] = {}
    unknown: set[str] = set()
    for item in items:
        if item.get("kind") != "nebius.price":
            raise NormalizeError(f"Nebius: unknown item kind {item.get('kind')!r}")
        row = item["data"]
        platform_id = str(row.get("platform") or "")
        if _plain(row["section"]).startswith("Non-GPU") or platform_id.startswith("cpu-"):
            continue  # CPU-only platforms
        observed = parse_time(item["observed_at"])
        applies = _in_force(str(row["period"]), observed.date())
        label = f"{_plain(row['item'])} ({row['section']})"
        if applies is None:
            out.notes.append(f"nebius: {label}: the table's date {row['period']!r} is unreadable; skipped")
            continue
        if not applies:
            continue
        unit = UNITS.get(_plain(row["unit"]).lower())
        price = _PRICE.match(row["price"].strip())
        if unit is None or price is None:
            if "gpu" in row["unit"].lower() or unit:
                out.notes.append(
                    f"nebius: {label}: {row['price']!r} per {row['unit']!r} is not a price we read; skipped"
                )
            continue
        try:
            rate = Decimal(price.group(1))
        except InvalidOperation:  # pragma: no cover - the pattern admits only digits
            continue
        asked = item.get("regions") or []
        regions = [r for r in row["regions"] if not asked or r in asked] if row["regions"] else list(asked)
        item_words = _plain(row["item"])
        spot = item_words.lower().startswith("preemptible")
        part = unit if re.search(r"\.\s*(GPU|CPU|RAM)$", item_words) else "unified"
        for region in regions:
            platform = _platform(row["section"], platform_id, region)
            if platform is None:
                unknown.add(_plain(row["section"]))
                continue
            key = (platform, region, spot)
            if part in rates[key] and rates[key][part] != rate:
                raise NormalizeError(
                    f"Nebius: two {part} prices for {platform} in {region} "
                    f"({rates[key][part]} and {rate}); which is in force cannot be told"
                )
            rates[key][part] = rate
            seen[key] = (item["source_url"], item["observed_at"])
    for (platform, region, spot), parts in sorted(rates.items()):
        presets = _presets(platform)
        if not presets:
            out.notes.append(f"nebius: {platform} has no preset in gpu_specs/nebius.csv; not stored")
            continue
        for spec in presets:
            if "unified" in parts and spec.gpu_count:
                price = parts["unified"] * spec.gpu_count
                formula = f"{spec.gpu_count} x {parts['unified']}"
            elif {"gpu", "cpu", "ram"} <= set(parts) and spec.gpu_count and spec.vcpu and spec.memory_gb:
                price = spec.gpu_count * parts["gpu"] + spec.vcpu * parts["cpu"] + spec.memory_gb * parts["ram"]
                formula = f"{spec.gpu_count} x {parts['gpu']} + {spec.vcpu} x {parts['cpu']} + {spec.memory_gb} x {parts['ram']}"
            else:
                if not spot:
                    out.notes.append(
                        f"nebius: {spec.instance_type} in {region}: its parts are not all priced; not stored"
                    )
                continue
            source_url, observed_at = seen[platform, region, spot]
            out.quotes.append(
                make_quote(
                    PROVIDER,
                    region=region,
                    instance_type=spec.instance_type,
                    price_model=PriceModel.spot if spot else PriceModel.on_demand,
                    unit=Unit.hour,
                    price=price,
                    currency="USD",
                    source_url=source_url,
                    observed_at=parse_time(observed_at),
                    attrs={"formula": formula},
                    **spec.as_fields(),
                )
            )
    out.notes.extend(f"nebius: no platform known for the section {s!r}; not stored" for s in sorted(unknown))
    if not out.quotes:
        raise NormalizeError("Nebius: no platform on the pricing page could be priced")
    return out
