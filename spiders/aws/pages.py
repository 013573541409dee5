"""AWS pricing-page responses: the location list, the on-demand price table
of one location and operating system, the spot feed and the Spot Instance
Advisor's interruption data. Pure functions; values are kept as seen."""

from __future__ import annotations

import re
from typing import Any

from spiders.aws.items import OnDemandRow, SpotAdvice, SpotPrice
from spiders.pages import PageShapeError, load_json

# GPU instance families: p3, p4d, p5en, p6-b200, g4dn, g6f, gr6 ... (the
# part before the first dot). The spec table decides what each one is; a
# family that looks like a GPU but is not in the table is still kept, so that
# the normalizer can report it instead of it vanishing here.
GPU_FAMILY = re.compile(r"^(?:p|g|gr)\d", re.IGNORECASE)
GPU_ROW_FAMILY = "GPU instance"
SPOT_SHAPE = "{region, instanceTypes: [{type, sizes: [{size, valueColumns: [{name, prices: {USD}}]}]}]}"
_CALLBACK = re.compile(rb"^\s*[A-Za-z_$][\w$.]*\s*\((?P<body>.*)\)\s*;?\s*$", re.DOTALL)


def looks_like_gpu(instance_type: str, family: str = "") -> bool:
    return bool(GPU_FAMILY.match(instance_type)) or family == GPU_ROW_FAMILY


def _json(body: bytes, what: str) -> Any:
    return load_json(body, f"AWS: the {what}")


def parse_locations(body: bytes) -> list[dict[str, str]]:
    """locations.json: `{name: {name, code, type, label, continent}}`."""
    page = _json(body, "location list")
    if not isinstance(page, dict) or not page:
        raise PageShapeError("AWS: the location list is not a non-empty object")
    bad = [k for k, v in page.items() if not isinstance(v, dict) or not v.get("code") or not v.get("type")]
    if bad:
        raise PageShapeError(f"AWS: code or type missing in {len(bad)}/{len(page)} locations (first: {bad[0]!r})")
    return [{"name": str(v.get("name") or k), "code": str(v["code"]), "type": str(v["type"])} for k, v in page.items()]


def parse_metadata(body: bytes) -> tuple[list[str], list[str]]:
    """The price table's metadata.json: (locations with prices, operating systems)."""
    page = _json(body, "price table metadata")
    values = page.get("valueAttributes") if isinstance(page, dict) else None
    if not isinstance(values, dict):
        raise PageShapeError("AWS: the price table metadata has no valueAttributes")
    locations, systems = values.get("Location"), values.get("plc:OperatingSystem")
    if not isinstance(locations, list) or not isinstance(systems, list):
        raise PageShapeError("AWS: the price table metadata lists no Location or plc:OperatingSystem values")
    return [str(x) for x in locations], [str(x) for x in systems]


ONDEMAND_FIELDS = ("price", "Instance Type", "Location")


def parse_ondemand_page(body: bytes, location: str) -> tuple[dict[str, Any], list[OnDemandRow]]:
    """One location's on-demand table for one OS: (manifest, GPU rows).

    The shape is `{manifest, sets, regions: {Location: {row key: row}}}`;
    every row carries `price` (a string of the hourly rate) and
    `Instance Type`. Only GPU-looking rows are returned."""
    page = _json(body, f"on-demand price table of {location}")
    if not isinstance(page, dict) or not isinstance(page.get("regions"), dict):
        raise PageShapeError(f"AWS: the on-demand price table of {location} has no regions object")
    manifest = page.get("manifest")
    if not isinstance(manifest, dict) or not manifest.get("currencyCode"):
        raise PageShapeError(f"AWS: the on-demand price table of {location} has no manifest currencyCode")
    table = page["regions"].get(location, {})
    if not isinstance(table, dict):
        raise PageShapeError(f"AWS: the rows of {location} are not an object")
    rows = list(table.values())
    broken = sum(1 for r in rows if not isinstance(r, dict) or any(f not in r for f in ONDEMAND_FIELDS))
    if broken:
        raise PageShapeError(f"AWS: {'/'.join(ONDEMAND_FIELDS)} missing in {broken}/{len(rows)} rows of {location}")
    gpu = [r for r in rows if looks_like_gpu(str(r["Instance Type"]), str(r.get("Instance Family", "")))]
    return manifest, gpu


def unwrap_callback(body: bytes) -> bytes:
    """`callback({...});` -> `{...}`; plain JSON is returned as it is."""
    found = _CALLBACK.match(body)
    return found.group("body") if found and not body.lstrip().startswith(b"{") else body


def parse_spot_feed(body: bytes) -> list[SpotPrice]:
    """spot.json (or spot.js, wrapped in a callback):
    `{config: {regions: [{region, instanceTypes: [{type, sizes: [{size,
    valueColumns: [{name, prices: {USD}}]}]}]}]}}`, flattened to one record
    per region, size and OS column, GPU sizes only. Prices stay strings
    ("N/A*" where a size is not offered)."""
    page = _json(unwrap_callback(body), "spot feed")
    config = page.get("config") if isinstance(page, dict) else None
    regions = config.get("regions") if isinstance(config, dict) else None
    if not isinstance(regions, list) or not regions:
        raise PageShapeError("AWS: the spot feed has no config.regions list")
    records: list[SpotPrice] = []
    for region in regions:
        try:
            for group in region["instanceTypes"]:
                for size in group["sizes"]:
                    if not looks_like_gpu(str(size["size"])):
                        continue
                    for column in size["valueColumns"]:
                        records.append(
                            {
                                "region": str(region["region"]),
                                "group": str(group.get("type", "")),
                                "size": str(size["size"]),
                                "os": str(column["name"]),
                                "price": str(column["prices"]["USD"]),
                            }
                        )
        except (KeyError, TypeError) as exc:
            name = region.get("region", "?") if isinstance(region, dict) else "?"
            problem = f"lacks {exc}" if isinstance(exc, KeyError) else f"is not {SPOT_SHAPE}"
            raise PageShapeError(f"AWS: a spot feed entry of {name} {problem}") from None
    return records


def parse_spot_advisor(body: bytes) -> list[SpotAdvice]:
    """spot-advisor-data.json: `{ranges: [{index, label}], spot_advisor:
    {region: {Linux|Windows: {type: {s: savings %, r: range index}}}}}`,
    one record per region, OS and GPU type, with the range's label."""
    page = _json(body, "Spot Instance Advisor data")
    if (
        not isinstance(page, dict)
        or not isinstance(page.get("ranges"), list)
        or not isinstance(page.get("spot_advisor"), dict)
    ):
        raise PageShapeError("AWS: the Spot Instance Advisor data has no ranges or spot_advisor")
    try:
        labels = {int(r["index"]): str(r["label"]) for r in page["ranges"]}
    except (KeyError, TypeError, ValueError, OverflowError):
        raise PageShapeError("AWS: a Spot Instance Advisor range lacks index or label") from None
    records: list[SpotAdvice] = []
    for region, systems in page["spot_advisor"].items():
        systems = systems or {}
        if not isinstance(systems, dict) or not all(isinstance(t, dict | None) for t in systems.values()):
            raise PageShapeError(
                f"AWS: the Spot Instance Advisor entry of {region} is not {{Linux|Windows: {{type: {{s, r}}}}}}"
            )
        for os_name, types in systems.items():
            for instance_type, stats in (types or {}).items():
                if not looks_like_gpu(instance_type):
                    continue
                raw = stats.get("r") if isinstance(stats, dict) else None
                index = _range_index(raw)
                if index is None or index not in labels:
                    raise PageShapeError(f"AWS: unknown interruption range {raw!r} for {instance_type} in {region}")
                records.append(
                    {
                        "region": str(region),
                        "os": str(os_name),
                        "instance_type": instance_type,
                        "interruption": labels[index],
                        "savings_percent": str(stats.get("s", "")),
                    }
                )
    return records


def _range_index(value: object) -> int | None:
    try:
        return int(value)  # type: ignore[call-overload]  # any value: the except takes what int() refuses
    except (TypeError, ValueError, OverflowError):
        return None
