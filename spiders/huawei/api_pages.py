"""Huawei Cloud official API answers: IAM `KeystoneListProjects`
(`{projects: [{id, name}]}`, as huaweicloudsdkcore reads it to find a
region's project), ECS `ListFlavors` (the SDK model `ListFlavorsResponse`:
`flavors[]{name, vcpus, ram (MiB), os_extra_specs{...}}`), BSS
`ListOnDemandResourceRatings` (`product_rating_results[]{id, amount,
official_website_amount, measure_id}`) and `ListRateOnPeriodDetail`
(`official_website_rating_result.product_rating_results[]` and
`optional_discount_rating_results[]`). Amounts are in the unit `measure_id`
names: 1 is yuan."""

from __future__ import annotations

import re
from typing import Any

from spiders.huawei.items import ApiFlavor
from spiders.pages import PageShapeError, member, name, objects

# cond:operation:status and each zone's state in cond:operation:az (the SDK
# model FlavorExtraSpec lists normal, abandon, sellout, obt, promotion; spot
# adds private and test): `abandon` is not shown (that zone, or the flavor
# where no zone says otherwise); public beta (obt) and private or trial sale
# need an application first: limited. Answers also carry compound states
# such as obt_sellout (beta, sold out): any state ending in sellout is sold out.
SALE_STATES = {
    "normal": "available",
    "promotion": "available",
    "obt": "limited",
    "private": "limited",
    "test": "limited",
    "sellout": "sold_out",
}
ABANDON = "abandon"
# "az0(normal), az1(sellout)" (the reference's example), "cn-east-2d(sellout),cn-east-2a(normal)"
# (its usage guide's answer): a zone name, then its state in parentheses.
AZ_STATE = re.compile(r"([^\s(),]+)\s*\(\s*([A-Za-z_]+)\s*\)")
GPU_TYPES = {"gpu"}
# The classification key: ecs:performancetype, or hws:performancetype on flavors registered early.
PERFORMANCE_KEYS = ("ecs:performancetype", "hws:performancetype")
YUAN = 1


def sale_state(state: str) -> str | None:
    """available, sold_out or limited for a documented state; None for one we do not know."""
    if state in SALE_STATES:
        return SALE_STATES[state]
    if state.endswith("sellout"):
        return "sold_out"
    return None


def zone_states(specs: dict[str, Any]) -> tuple[str, dict[str, str]]:
    """The region-wide state (`cond:operation:status`, normal when absent)
    and each zone's own (`cond:operation:az`), as documented: a zone the
    second does not name takes the first."""
    status = str(specs.get("cond:operation:status") or "normal").strip().lower()
    named = str(specs.get("cond:operation:az") or "")
    return status, {m.group(1): m.group(2).lower() for m in AZ_STATE.finditer(named)}


def api_error(status: int, data: Any) -> tuple[str, str] | None:
    """The error of an answer: APIGW and BSS say `error_code`/`error_msg`,
    ECS and IAM `error: {code, message}`."""
    if member(data, "error_code"):
        return str(data["error_code"]), str(data.get("error_msg") or "")
    error = member(data, "error")
    if isinstance(error, dict):
        return str(error.get("code") or f"HTTP {status}"), str(error.get("message") or "")
    return None


def project_id(data: Any, region: str) -> str:
    projects = [p for p in objects(data, "projects") if p.get("name") == region]
    if len(projects) != 1 or not isinstance(projects[0].get("id"), str) or not projects[0]["id"]:
        raise PageShapeError(
            f"huawei-api: IAM has {len(projects)} projects named {region} (InvalidRegion: check the region name)"
        )
    return str(projects[0]["id"])


def _gpu(specs: dict[str, Any]) -> tuple[str | None, int | None]:
    """(model, count) from `pci_passthrough:alias` ("nvidia-t4:1")."""
    alias = str(specs.get("pci_passthrough:alias") or "")
    match = re.match(r"^(?:nvidia|amd)?-?([a-z0-9]+)[^:]*:(\d+)", alias, re.IGNORECASE)
    if not match:
        return None, None
    return match.group(1).upper(), int(match.group(2))


def parse_flavors(data: Any) -> list[ApiFlavor]:
    """The GPU flavors on sale (performance type gpu under either key, or a
    GPU passthrough alias), with per-zone availability. A flavor whose
    region-wide status is abandon is kept when its zones say it is sold in
    some (the API reference's own example); the abandoned zones are left out.
    A state we do not know is kept raw in `unknown_states`."""
    if not isinstance(member(data, "flavors"), list):
        raise PageShapeError("huawei-api: the ListFlavors answer has no flavors list")
    out: list[ApiFlavor] = []
    for flavor in objects(data, "flavors"):
        flavor_name = name(flavor.get("name"), "huawei-api: a flavor name")
        specs = flavor.get("os_extra_specs") or {}
        if not isinstance(specs, dict):
            raise PageShapeError(f"huawei-api: os_extra_specs of {flavor_name} is not an object")
        model, cards = _gpu(specs)
        kinds = {str(specs.get(key)) for key in PERFORMANCE_KEYS if specs.get(key)}
        if not kinds & GPU_TYPES and not model:
            continue
        status, states = zone_states(specs)
        zones = {z: st for z, st in states.items() if st != ABANDON}
        if status == ABANDON and not zones:
            continue
        unknown = sorted({st for st in [status, *zones.values()] if st != ABANDON and sale_state(st) is None})
        record: ApiFlavor = {
            "flavor": flavor_name,
            "vcpu": flavor.get("vcpus"),
            "memory_mib": flavor.get("ram"),
            "gpu_model": model,
            "gpu_count": cards,
            # Zones not named in cond:operation:az take the region-wide status.
            "status": None if status == ABANDON else sale_state(status),
            "zones": {z: sale_state(st) for z, st in zones.items()},
        }
        if unknown:
            record["unknown_states"] = unknown
        out.append(record)
    return out


def _yuan(line: dict[str, Any], field: str, what: str) -> Any:
    if line.get("measure_id") not in (None, YUAN):
        raise PageShapeError(f"huawei-api: {what} is in measure_id {line['measure_id']!r}, not yuan")
    value = line.get(field)
    if value is None:
        raise PageShapeError(f"huawei-api: {what} has no {field}")
    return value


def _line_id(line: dict[str, Any]) -> str:
    value = line.get("id")
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise PageShapeError("huawei-api: a rating line has no id")
    return str(value)


def parse_on_demand(data: Any) -> dict[str, dict[str, Any]]:
    """id -> (price paid, list price) of each product line."""
    if not isinstance(member(data, "product_rating_results"), list):
        raise PageShapeError("huawei-api: the ListOnDemandResourceRatings answer has no product_rating_results")
    return {
        _line_id(line): {
            "price": _yuan(line, "amount", "an on-demand rating"),
            "list_price": line.get("official_website_amount"),
        }
        for line in objects(data, "product_rating_results")
    }


def parse_period(data: Any) -> dict[str, dict[str, Any]]:
    """id -> (price paid, list price): the list price from the official
    rating, the price paid from the optional discount marked best_offer when
    there is one, else the list price."""
    official = member(member(data, "official_website_rating_result"), "product_rating_results")
    if not isinstance(official, list):
        raise PageShapeError(
            "huawei-api: the ListRateOnPeriodDetail answer has no official_website_rating_result.product_rating_results"
        )
    out = {}
    for line in objects(data["official_website_rating_result"], "product_rating_results"):
        listed = _yuan(line, "official_website_amount", "a period rating")
        out[_line_id(line)] = {"price": listed, "list_price": listed}
    best = [d for d in objects(data, "optional_discount_rating_results") if d.get("best_offer") == 1]
    for line in objects(best[0], "product_rating_results") if best else []:
        if _line_id(line) in out and line.get("amount") is not None:
            out[_line_id(line)]["price"] = _yuan(line, "amount", "a discounted period rating")
    return out
