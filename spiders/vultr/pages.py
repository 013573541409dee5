"""Vultr's plans API pages: `{plans: [...], meta: {total, links: {next, prev}}}`
(`plans_metal` for bare metal). `links.next` is the cursor of the next page,
empty on the last. Only plans with GPUs are kept: the Cloud GPU type (`vcg`)
and bare-metal plans that state a GPU."""

from __future__ import annotations

from typing import Any, cast

from spiders.pages import PageShapeError, json_page, member
from spiders.vultr.items import VultrPlan


def next_cursor(page: dict[str, Any]) -> str | None:
    cursor = member(member(page.get("meta"), "links"), "next")
    if cursor is None or cursor == "":
        return None
    if not isinstance(cursor, str):
        raise PageShapeError(f"Vultr: meta.links.next is {cursor!r}, not a cursor")
    return cursor


def _with_gpu(plan: dict[str, Any], metal: bool) -> bool:
    if metal:
        return bool(plan.get("gpu_count") or plan.get("gpu_vram_gb")) or str(plan.get("id", "")).endswith("-gpu")
    return plan.get("type") == "vcg" or bool(plan.get("gpu_type"))


def parse_plans_page(body: bytes, *, metal: bool = False) -> tuple[list[VultrPlan], str | None]:
    """The GPU plans on one page, and the next page's cursor (or None)."""
    key = "plans_metal" if metal else "plans"
    page = json_page(body, "Vultr", key)
    plans = page[key]
    if not all(isinstance(p, dict) for p in plans):
        raise PageShapeError(f"Vultr: {key} holds something that is not an object")
    if any(not isinstance(p.get("id"), str) or not p.get("id") for p in plans):
        raise PageShapeError(f"Vultr: a plan in {key} has no id")
    kept = [cast(VultrPlan, p) for p in plans if _with_gpu(p, metal)]
    return kept, next_cursor(page)
