"""Huawei Cloud price calculator backend.

- `menuInfo`: `{menuInfos: [{subCategoryLists: [{urlPath, regionOnline: {regionList}}...]}]}`,
  nested; the `ecs` entry lists the regions the calculator prices ECS in.
- `productInfo?urlPath=ecs`: `{product: {ec2_vm: [{resourceSpecCode, spec,
  imageSpec, cpu, mem, acceleratorCard, planList, bakPlanList: [{billingMode,
  periodNum, amount}]}]}}`, one region. `resourceSpecCode` carries the OS
  (`p2s.2xlarge.8.linux`), `spec` the bare flavor and `imageSpec` the OS, as
  public clients of the calculator read them; the calculator keeps the full
  plan list in `bakPlanList` once a plan is picked into `planList`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, cast

from spiders.huawei.items import Flavor
from spiders.pages import PageShapeError, load_json

# GPU flavors: p (compute), pi (inference), g (graphics) families.
GPU_FLAVOR = re.compile(r"^(p|pi|g)\d", re.IGNORECASE)


def _load(body: bytes, what: str) -> dict[str, Any]:
    page = load_json(body, f"Huawei: the {what} answer")
    if not isinstance(page, dict):
        raise PageShapeError(f"Huawei: the {what} answer is not a JSON object")
    return page


def _menu_nodes(nodes: Iterable[Any]) -> Iterable[dict[str, Any]]:
    for node in nodes:
        if isinstance(node, dict):
            yield node
            children = node.get("subCategoryLists")
            if isinstance(children, list):
                yield from _menu_nodes(children)


def parse_menu(body: bytes, url_path: str = "ecs") -> list[str]:
    """The regions the calculator prices `url_path` in."""
    page = _load(body, "menuInfo")
    if not isinstance(page.get("menuInfos"), list):
        raise PageShapeError("Huawei: the menuInfo answer has no menuInfos list")
    for node in _menu_nodes(page["menuInfos"]):
        if node.get("urlPath") != url_path:
            continue
        regions = (
            (node.get("regionOnline") or {}).get("regionList") if isinstance(node.get("regionOnline"), dict) else None
        )
        if not isinstance(regions, list) or not all(isinstance(r, str) for r in regions):
            raise PageShapeError(f"Huawei: the menuInfo entry {url_path!r} has no regionOnline.regionList")
        return list(regions)
    raise PageShapeError(f"Huawei: menuInfo has no calculator entry with urlPath {url_path!r}")


def is_gpu_flavor(flavor: dict[str, Any]) -> bool:
    return bool(str(flavor.get("acceleratorCard") or "").strip()) or bool(
        GPU_FLAVOR.match(str(flavor.get("resourceSpecCode") or ""))
    )


def plans_of(flavor: dict[str, Any]) -> list[Any]:
    """`planList` then `bakPlanList`, each where it is a list."""
    return [p for key in ("planList", "bakPlanList") if isinstance(flavor.get(key), list) for p in flavor[key]]


def _missing(items: list[Any], what: str, bad: Any, noun: str = "items") -> None:
    count = sum(1 for i in items if bad(i))
    if count:
        raise PageShapeError(f"Huawei: {what} missing in {count}/{len(items)} {noun}")


def parse_product_info(body: bytes) -> list[Flavor]:
    """The GPU flavors of one region, checked for the fields we read."""
    page = _load(body, "productInfo")
    product = page.get("product")
    if not isinstance(product, dict):
        raise PageShapeError("Huawei: the productInfo answer has no product object")
    flavors = product.get("ec2_vm")
    if not isinstance(flavors, list):
        raise PageShapeError("Huawei: product has no ec2_vm list")
    gpus = [f for f in flavors if isinstance(f, dict) and is_gpu_flavor(f)]
    _missing(gpus, "resourceSpecCode", lambda f: not f.get("resourceSpecCode"))
    _missing(gpus, "planList (or bakPlanList)", lambda f: not plans_of(f))
    plans = [p for f in gpus for p in plans_of(f)]
    _missing(plans, "planList[].billingMode", lambda p: not isinstance(p, dict) or not p.get("billingMode"), "plans")
    _missing(plans, "planList[].amount", lambda p: p.get("amount") in (None, ""), "plans")
    return cast(list[Flavor], gpus)  # the flavors as the calculator states them
