"""Volcano Engine's price page backend, as pure functions of a response.

- `ListTemplate` (GET): `{ResponseMetadata, Result: {List: [{TemplateCode,
  Template: "<JSON text>"}]}}`; the template nests the ECS configurations with
  `AbilityAttrs` (vcpu, memory...).
- `GetTable` (POST `{TemplateCode}`): nested tables whose rows carry
  `Product`, `ConfigurationCode`, `Region` and `PriceInfoList: [{Period, Times,
  Price}]`.
- The pricing page, rendered by the browser: the template code (`CLT...`)
  appears in the requests it makes and in its state.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from spiders.pages import PageShapeError, json_type, load_json, member, only_one

# GPU families: gni2 (A10), ini2, pni2, gni3, hpcpni2, g1ve, g1tl...
GPU_CONFIGURATION = re.compile(r"^ecs\.(?:ebm|hpc)?(?:[gip]n[il]\d|g1[vt][a-z])", re.IGNORECASE)
TEMPLATE_CODE = re.compile(r"\bCLT\d{6,}\b")


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


def parse_template(body: bytes) -> dict[str, dict[str, str]] | None:
    """The ECS GPU configurations' abilities (`{"vcpu": "12", ...}` by
    configuration), or None when the API knows no such template (a stale
    code)."""
    page = _object(_load(body, "ListTemplate"), "ListTemplate")
    error = _api_error(page)
    listed = member(page.get("Result"), "List")
    if error or not listed:
        return None
    if not isinstance(listed, list):
        raise PageShapeError("Volcano Engine: ListTemplate Result.List is not a list")
    specs: dict[str, dict[str, str]] = {}
    for entry in listed:
        text = entry.get("Template") if isinstance(entry, dict) else None
        if not isinstance(text, str):
            raise PageShapeError("Volcano Engine: ListTemplate entry has no Template text")
        template = _load(text.encode("utf-8"), "the template")
        for node in walk(template):
            if node.get("Product") != "ECS" or not GPU_CONFIGURATION.match(configuration(node)):
                continue
            abilities = node.get("AbilityAttrs")
            if isinstance(abilities, list):
                specs.setdefault(configuration(node), {}).update(
                    {str(a.get("Ability")): str(a.get("Value")) for a in abilities if isinstance(a, dict)}
                )
    return specs


def parse_table(body: bytes) -> list[dict[str, Any]]:
    """The ECS GPU rows of the price table, values as seen."""
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
    no_region = sum(1 for r in rows if not r.get("Region"))
    if no_region:
        raise PageShapeError(f"Volcano Engine: Region missing in {no_region}/{len(rows)} items")
    entries = [p for r in rows for p in r["PriceInfoList"]]
    bad = sum(1 for p in entries if not isinstance(p, dict) or "Period" not in p or "Price" not in p)
    if bad:
        raise PageShapeError(f"Volcano Engine: Period or Price missing in {bad}/{len(entries)} price entries")
    return [
        {
            "configuration": configuration(r),
            **{k: r.get(k) for k in ("ConfigurationCode", "Region", "ChargeItemCode", "PriceInfoList")},
        }
        for r in rows
    ]


def template_codes(texts: Iterable[str]) -> set[str]:
    return {m.group(0) for text in texts for m in TEMPLATE_CODE.finditer(text)}


def pick_template_code(found: set[str], page_url: str) -> str:
    return only_one(
        found,
        none=f"Volcano Engine: the pricing page {page_url} names no ECS template code",
        several=f"Volcano Engine: the pricing page {page_url} names several template codes "
        "({found}); refusing to pick one",
    )
