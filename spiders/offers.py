"""Offer spiders: one per provider, each crawled as the source
`<provider>-offers`. They fetch the promotion pages (or the JSON those pages
load) and emit one raw `offer` item per block of a page, with the words as
seen; tracker/normalize/offers/__init__.py reads them.

A provider's spider lists its pages; each page names its pure parser, which
gets the parsed HTML (`Selector`) or, with `json=True`, the body bytes. HTML
pages are read by `page_blocks`, by the page's own structure (headings and
what follows them, list items, table rows, term lists), never by class names
or data attributes: a redesign gives fewer blocks or one PageShapeError.

A raw offer record is `{id, title, text, url}` (the contract: docs/contributing.md,
"Offers sources"), with `section` (the heading a block sits under: a table
row's is the heading above its table) where there is one, `headings` (the
trail of headings above it, h1 > h2 > h3, where there are two or more), and `page` (the
page's title: its first h1, else its <title>): the context the reader reads
a block in (tracker/normalize/offers/context.py)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from parsel import Selector, SelectorList
from scrapy.http import TextResponse

from spiders.base import ProviderSpider
from spiders.items import OfferRecord
from spiders.pages import PageShapeError


@dataclass(frozen=True)
class OfferPage:
    url: str
    parse: Callable[[Any], list[OfferRecord]]
    json: bool = False
    headers: dict[str, str] = field(default_factory=dict)
    # A CSS selector: render the page in Chromium and wait for it.
    wait_for: str | None = None


class OfferSpider(ProviderSpider):
    # The currency of amounts the page writes without a sign ("5000代金券").
    currency: ClassVar[str]
    offer_pages: ClassVar[tuple[OfferPage, ...]]

    async def start(self) -> Any:
        for page in self.offer_pages:
            if page.wait_for:
                yield self.browser_request(page.url, self.parse, wait_for=page.wait_for, cb_kwargs={"page": page})
            else:
                yield self.request(page.url, self.parse, headers=page.headers, cb_kwargs={"page": page})

    def parse(self, response: TextResponse, page: OfferPage) -> Iterable[Any]:  # type: ignore[override]  # HTML asked for: Scrapy answers with a TextResponse
        self.fetched(response)
        records = page.parse(response.body if page.json else response.selector)
        absolute = [{**r, "url": response.urljoin(r["url"])} if r.get("url") else r for r in records]
        yield from self.items(response, "offer", absolute, provider=self.provider, currency=self.currency)


_TEXT = ".//text()[not(ancestor::script) and not(ancestor::style)]"


def text_of(node: Selector | SelectorList[Selector] | None) -> str:
    if node is None:
        return ""
    return " ".join(t.strip() for t in node.xpath(_TEXT).getall() if t.strip())


# Page structure read as blocks. Everything a reader skips: code, chrome and
# what the page hides.
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4}
_SKIPPED = {"head", "script", "style", "noscript", "template", "svg", "iframe", "nav", "footer", "button", "select"}
_LABEL = "(.//*[self::h2 or self::h3 or self::h4 or self::h5 or self::h6 or self::strong or self::b])[1]"
_SPACE = re.compile(r"\s+")
_SLUG = re.compile(r"[^0-9a-z\u4e00-\u9fff]+")
# An item's leading words up to its first number, when another number follows
# ("满1000减200" is keyed "满1000"): a changed amount keeps the item's id.
_LEADING_KEY = re.compile(r"^(\D*?\d[\d,.]*)\D+\d")


def _clean(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _slug(text: str) -> str:
    return _SLUG.sub("-", text.lower()).strip("-")


def _text(el: Any) -> str:
    return _clean(" ".join(t for t in el.xpath(".//text()[not(ancestor::script) and not(ancestor::style)]")))


@dataclass
class _Block:
    key: str
    title: str
    level: int = 0  # a heading's level; 0 for an item, row or term
    section: str = ""
    url: str = ""
    headings: list[str] = field(default_factory=list)  # the heading trail above it, outermost first
    parts: list[str] = field(default_factory=list)
    children: int = 0

    def record(self) -> OfferRecord:
        record: OfferRecord = {
            "id": self.key,
            "title": self.title,
            "text": _clean(" ".join(self.parts)),
            "url": self.url,
        }
        if self.section:
            record["section"] = self.section
        if len(self.headings) > 1:
            record["headings"] = list(self.headings)
        return record

    def kept(self) -> bool:
        """A section with no words of its own between its heading and its
        first sub-block is only a container."""
        return bool(self.title) and (self.level == 0 or bool(self.parts) or not self.children)


class _Reader:
    def __init__(self, *, prefix: str, levels: Iterable[int], items: bool, rows: bool, terms: bool) -> None:
        self.prefix, self.levels, self.items, self.rows, self.terms = prefix, set(levels), items, rows, terms
        self.blocks: list[_Block] = []
        self.open: list[_Block] = []
        self.keys: set[str] = set()
        self.headers: dict[Any, list[str]] = {}
        self.skip: Any = None

    def new(self, wanted: str, title: str, *, level: int = 0, url: str = "") -> _Block:
        parent = self.open[-1] if self.open else None
        base = "/".join(filter(None, (self.prefix, _slug(wanted) or "block")))
        key = base if base not in self.keys or parent is None else f"{parent.key}/{base.rsplit('/', 1)[-1]}"
        n = 2
        while key in self.keys:
            key, n = f"{base}-{n}", n + 1
        self.keys.add(key)
        if parent is not None:
            parent.children += 1
        block = _Block(key, title, level, parent.title if parent else "", url, headings=[b.title for b in self.open])
        self.blocks.append(block)
        return block

    def add(self, capture: _Block | None, text: str | None) -> None:
        target = capture if capture is not None else (self.open[-1] if self.open else None)
        if target is not None and text and text.strip():
            target.parts.append(text)

    def walk(self, el: Any, capture: _Block | None) -> None:
        tag = el.tag.lower() if isinstance(el.tag, str) else None
        if tag is None or tag in _SKIPPED or el is self.skip:
            return
        if el.get("hidden") is not None or el.get("aria-hidden") == "true":
            return
        if capture is None:
            if tag in _HEADINGS and _HEADINGS[tag] in self.levels:
                return self.heading(el, _HEADINGS[tag])
            if self.items and tag == "li":
                return self.item(el)
            if self.rows and tag == "tr":
                return self.row(el)
            if self.terms and tag == "dl":
                return self.term_list(el)
        self.add(capture, el.text)
        for child in el:
            self.walk(child, capture)
            self.add(capture, child.tail)

    def heading(self, el: Any, level: int) -> None:
        title = _text(el)
        if not title:
            return
        while self.open and self.open[-1].level >= level:
            self.open.pop()
        anchors = el.xpath("./@id | .//*[@id]/@id | .//a[@name]/@name")
        own = str(anchors[0]) if anchors else ""
        self.open.append(self.new(own or title, title, level=level, url=f"#{own}" if own else ""))

    def item(self, el: Any) -> None:
        labels = el.xpath(_LABEL)
        label, full = (_text(labels[0]) if labels else ""), _text(el)
        leading = _LEADING_KEY.match(full)
        wanted = el.get("id") or label or (leading.group(1) if leading else full[:60])
        block = self.new(wanted, label or full, url=(el.xpath(".//a/@href") or [""])[0])
        if label:
            self.skip = labels[0]
            self.walk_inside(el, block)
            self.skip = None

    def walk_inside(self, el: Any, block: _Block) -> None:
        self.add(block, el.text)
        for child in el:
            self.walk(child, block)
            self.add(block, child.tail)

    def row(self, el: Any) -> None:
        cells = el.xpath("./td | ./th")
        texts = [_text(c) for c in cells]
        table = (el.xpath("ancestor::table[1]") or [None])[0]
        if cells and all(c.tag == "th" for c in cells):
            self.headers[table] = texts
            return
        if not texts or not texts[0]:
            return
        heads = self.headers.get(table, [])
        heads = heads + [""] * (len(texts) - len(heads))
        block = self.new(el.get("id") or texts[0], texts[0], url=(el.xpath(".//a/@href") or [""])[0])
        block.parts = [f"{h}: {t}" if h else t for h, t in zip(heads[1:], texts[1:], strict=False) if t]

    def term_list(self, el: Any) -> None:
        current: _Block | None = None
        for node in el.xpath("./dt | ./dd | ./div/dt | ./div/dd"):
            if node.tag == "dt":
                title = _text(node)
                current = self.new(node.get("id") or title, title) if title else None
            elif current is not None:
                self.walk_inside(node, current)


def page_blocks(
    page: Selector,
    *,
    what: str,
    prefix: str = "",
    levels: Iterable[int] = (1, 2, 3, 4),
    items: bool = False,
    rows: bool = False,
    terms: bool = False,
    root: str = "main, article, [role=main]",
) -> list[OfferRecord]:
    """The page's blocks, in order, as raw offer records `{id, title, text,
    url, section?, headings?, page?}` (`page`: the page's title, `page_title`): each heading (levels) with its words up to the next
    heading of any level (a section whose words all sit under sub-headings
    is left out, as its sub-blocks carry them); with `items`, each list item
    as its own block, titled by its first heading or bold label; with `rows`,
    each table row titled by its first cell, its other cells as
    "header: value"; with `terms`, each <dt> with its <dd>s. Ids come from the
    page's own ids and anchors, else from the heading, label or first cell, so
    they stay put when a page is reordered; `prefix` (the page's name) keeps
    the ids of a provider's pages apart. Only the main content is read
    (`root`, else the body); navigation, footers, scripts and hidden
    elements are skipped. No block at all is a PageShapeError."""
    reader = _Reader(prefix=prefix, levels=levels, items=items, rows=rows, terms=terms)
    found = page.css(root) if root else []
    top = found[0].root if found else page.root
    if isinstance(getattr(top, "tag", None), str):
        reader.walk(top, None)
    records = [b.record() for b in reader.blocks if b.kept()]
    if not records:
        raise PageShapeError(f"{what}: the page has no headings, list items or table rows to read")
    title = page_title(page, top)
    for record in records:
        record["page"] = title  # "" too: the blocks of a page read by its headings, none of them a heading
    return records


def page_title(page: Selector, top: Any) -> str:
    """The page's title as a reader sees it: its first h1 in the main
    content, else its <title>."""
    first = top.xpath("(.//h1)[1]") if isinstance(getattr(top, "tag", None), str) else []
    title = _text(first[0]) if first else ""
    return title or _clean(" ".join(page.xpath("//head/title//text()").getall()))
