"""A page a user watches: every element the CSS selector matches is one
offer or one price. Pure: response -> raw records."""

from __future__ import annotations

from typing import Any

from parsel import Selector

from spiders.pages import PageShapeError

_TEXT = ".//text()[not(ancestor::script) and not(ancestor::style) and not(ancestor::noscript)]"


def element_id(element: Selector) -> str:
    """The element's own name for itself, when it has one."""
    for attr in ("data-offer-id", "data-id", "id", "data-sku", "data-instance-type"):
        value = element.attrib.get(attr)
        if value:
            return value.strip()
    return ""


def parse_matches(page: Selector, selector: str, *, what: str) -> list[dict[str, Any]]:
    matches = page.css(selector)
    if not matches:
        raise PageShapeError(f"{what}: the selector {selector!r} matched nothing")
    records = []
    for index, element in enumerate(matches):
        text = " ".join(t.strip() for t in element.xpath(_TEXT).getall() if t.strip())
        records.append(
            {
                "index": index,
                "id": element_id(element),
                "text": text,
                "href": element.attrib.get("href") or element.css("a::attr(href)").get() or "",
            }
        )
    if not any(r["text"] for r in records):
        raise PageShapeError(f"{what}: the elements matching {selector!r} hold no text")
    return records
