"""Volcano Engine's price page backend, as pure functions of a response.

- `ListTemplate` (GET): `{ResponseMetadata, Result: {List: [{TemplateCode,
  Template: "<JSON text>"}]}}`; the template nests the ECS configurations,
  one node per configuration and region, with `AbilityAttrs` (vcpu,
  memory...) and `AvailableZone` (JSON text: `[{ZoneCode}]`).
- `GetTable` (POST `{TemplateCode}`): `Result.TableList[].Rows[]` carrying
  `Product`, `ConfigurationCode`, `ChargeItemCode` and `PriceInfoList:
  [{Period, Times, Price}]`. The region is the end of `ChargeItemCode`
  (`ecs.g3a_32xlarge_cn-beijing`), as public clients of the page read it;
  a `Region` field, where a row has one, is read first.
- The pricing page's server-rendered state (`__ssrDirect=true`, JSON):
  `activeProductInfo.TemplateInfoList[{TemplateCode, Type}]`.
- The pricing page, rendered by the browser: the template code (`CLT...`)
  appears in the requests it makes and in its state.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from spiders.pages import PageShapeError, json_type, load_json, member, only_one
from spiders.volcengine.items import TableRow

# GPU families: gni2 (A10), ini2, pni2, gni3, hpcpni2, g1ve, g1tl...
GPU_CONFIGURATION = re.compile(r"^ecs\.(?:ebm|hpc)?(?:[gip]n[il]\d|g1[vt][a-z])", re.IGNORECASE)
TEMPLATE_CODE = re.compile(r"\bCLT\d{6,}\b")
REGION = re.compile(r"^[a-z]{2,}(?:-[a-z0-9]+)+$")


def _load(body: bytes, what: str) -> Any:
    return load_json(body, f"Volcano Engine: {what}")


def _object(page: Any, what: str) -> dict[str, Any]:
    if not isinstance(page, dict):
        raise PageShapeError(f"Volcano Engine: {what} answered {json_type(page)}, not a JSON object")
    return page


def _api_error(page: dict[str, Any]) -> str | None:
    error = member(page.get("ResponseMetadata"), "Error")
    if isinstance(error, dict) and error:
        return f"{error.get('Code', '')}: {error.get('Message', '')}".strip(": ")
    return None


def walk(value: Any) -> Iterator[dict[str, Any]]:
    """Every object in a nested JSON value, depth first. A stack, not
    recursion: a hostile answer may nest as deep as the decoder allows."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            yield node
            stack.extend(reversed(list(node.values())))
        elif isinstance(node, list):
            stack.extend(reversed(node))


def configuration(row: dict[str, Any]) -> str:
    """'ecs.gni2.3xlarge.month' -> 'ecs.gni2.3xlarge'."""
    code = str(row.get("ConfigurationCode") or "")
    return code[: -len(".month")] if code.endswith(".month") else code


@dataclass
class Template:
    """What the template says of each GPU configuration: its abilities
    (`{"vcpu": "12vCPU", ...}`), and per region the zones that sell it."""

    abilities: dict[str, dict[str, str]] = field(default_factory=dict)
    zones: dict[str, dict[str, list[str]]] = field(default_factory=dict)


def _zone_codes(text: object) -> list[str] | None:
    """`AvailableZone` ('[{"ZoneCode": "cn-beijing-a"}]'), or None when absent
    or unreadable: then the template says nothing of stock."""
    if not isinstance(text, str):
        return None
    try:
        listed = load_json(text.encode("utf-8"), "AvailableZone", exact=False)
    except PageShapeError:
        return None
    if not isinstance(listed, list):
        return None
    return [str(z["ZoneCode"]) for z in listed if isinstance(z, dict) and z.get("ZoneCode")]


def parse_template(body: bytes) -> Template | None:
    """The ECS GPU configurations of the template, or None when the API
    knows no such template (a stale code)."""
    page = _object(_load(body, "ListTemplate"), "ListTemplate")
    error = _api_error(page)
    listed = member(page.get("Result"), "List")
    if error or not listed:
        return None
    if not isinstance(listed, list):
        raise PageShapeError("Volcano Engine: ListTemplate Result.List is not a list")
    found = Template()
    for entry in listed:
        text = entry.get("Template") if isinstance(entry, dict) else None
        if not isinstance(text, str):
            raise PageShapeError("Volcano Engine: ListTemplate entry has no Template text")
        template = _load(text.encode("utf-8"), "the template")
        for node in walk(template):
            name = configuration(node)
            if node.get("Product") != "ECS" or not GPU_CONFIGURATION.match(name):
                continue
            abilities = node.get("AbilityAttrs")
            if isinstance(abilities, list):
                found.abilities.setdefault(name, {}).update(
                    {str(a.get("Ability")): str(a.get("Value")) for a in abilities if isinstance(a, dict)}
                )
            zones, region = _zone_codes(node.get("AvailableZone")), node.get("Region")
            if zones is not None and isinstance(region, str) and region:
                known = found.zones.setdefault(name, {}).setdefault(region, [])
                known.extend(z for z in zones if z not in known)
    return found


def row_region(row: dict[str, Any]) -> str | None:
    """`Region`, else the end of `ChargeItemCode`; None when neither names one."""
    stated = row.get("Region")
    if isinstance(stated, str) and REGION.match(stated):
        return stated
    code = row.get("ChargeItemCode")
    tail = code.rpartition("_")[2] if isinstance(code, str) and "_" in code else ""
    return tail if REGION.match(tail) else None


def parse_table(body: bytes, notes: list[str] | None = None) -> list[TableRow]:
    """The ECS GPU rows of the price table, values as seen. A row naming no
    region is left out with a note; when none names one, the shape changed."""
    page = _object(_load(body, "GetTable"), "GetTable")
    error = _api_error(page)
    if error:
        raise PageShapeError(f"Volcano Engine: GetTable answered {error}")
    rows = [
        r for r in walk(page.get("Result")) if r.get("Product") == "ECS" and GPU_CONFIGURATION.match(configuration(r))
    ]
    if not rows:
        raise PageShapeError("Volcano Engine: the price table has no ECS GPU rows")
    no_prices = sum(1 for r in rows if not isinstance(r.get("PriceInfoList"), list))
    if no_prices:
        raise PageShapeError(f"Volcano Engine: PriceInfoList missing in {no_prices}/{len(rows)} items")
    regions = [row_region(r) for r in rows]
    unplaced = sorted({configuration(r) for r, region in zip(rows, regions, strict=True) if region is None})
    if all(region is None for region in regions):
        raise PageShapeError(
            f"Volcano Engine: Region (or a ChargeItemCode ending in one) missing in {len(rows)}/{len(rows)} items"
        )
    if unplaced and notes is not None:
        notes.append(f"volcengine: no region in the price rows of {', '.join(unplaced)}; skipped")
    placed = [(r, region) for r, region in zip(rows, regions, strict=True) if region is not None]
    entries = [p for r, _ in placed for p in r["PriceInfoList"]]
    bad = sum(1 for p in entries if not isinstance(p, dict) or "Period" not in p or "Price" not in p)
    if bad:
        raise PageShapeError(f"Volcano Engine: Period or Price missing in {bad}/{len(entries)} price entries")
    return [
        {
            "configuration": configuration(r),
            "ConfigurationCode": r.get("ConfigurationCode"),
            "Region": region,
            "ChargeItemCode": r.get("ChargeItemCode"),
            "PriceInfoList": r["PriceInfoList"],
        }
        for r, region in placed
    ]


def ssr_template_codes(body: bytes) -> set[str]:
    """The template codes the page's server-rendered state names; the price
    table's is the one of Type 1 where types are given. Empty when the
    state is not the JSON expected."""
    try:
        page = _load(body, "the pricing page state")
    except PageShapeError:
        return set()
    listed = member(member(page, "activeProductInfo"), "TemplateInfoList")
    if not isinstance(listed, list):
        return set()
    entries = [e for e in listed if isinstance(e, dict) and isinstance(e.get("TemplateCode"), str)]
    typed = [e for e in entries if e.get("Type") == 1]
    return {e["TemplateCode"] for e in typed or entries if TEMPLATE_CODE.fullmatch(e["TemplateCode"])}


def template_codes(texts: Iterable[str]) -> set[str]:
    return {m.group(0) for text in texts for m in TEMPLATE_CODE.finditer(text)}


def pick_template_code(found: set[str], page_url: str) -> str:
    return only_one(
        found,
        none=f"Volcano Engine: the pricing page {page_url} names no ECS template code",
        several=f"Volcano Engine: the pricing page {page_url} names several template codes "
        "({found}); refusing to pick one",
    )
