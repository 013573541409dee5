"""Promotion cards on an HTML page: one element per offer, with its id in an
attribute, a title and a body. Pure: selector -> raw records."""

from __future__ import annotations

from typing import Any

from parsel import Selector

from spiders.pages import PageShapeError

_TEXT = ".//text()[not(ancestor::script) and not(ancestor::style)]"


def text_of(node: Selector | None) -> str:
    if node is None:
        return ""
    return " ".join(t.strip() for t in node.xpath(_TEXT).getall() if t.strip())


def cards(
    page: Selector, card_css: str, *, id_attr: str, title_css: str, body_css: str, what: str
) -> list[dict[str, Any]]:
    """One record per card: {id, title, text, url}. No cards, or a card
    without its id or title, is a page we no longer know."""
    found = page.css(card_css)
    if not found:
        raise PageShapeError(f"{what}: no promotion cards ({card_css}) on the page")
    records = []
    for card in found:
        ident, title = card.attrib.get(id_attr, "").strip(), text_of(card.css(title_css)[:1] or None)
        if not ident or not title:
            raise PageShapeError(f"{what}: a card has no {id_attr} or no title ({title_css})")
        body = " ".join(text_of(n) for n in card.css(body_css))
        records.append({"id": ident, "title": title, "text": body, "url": card.css("a::attr(href)").get() or ""})
    return records
