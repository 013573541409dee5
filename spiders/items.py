"""The raw item envelope every spider yields (`ProviderSpider.items`), and
the raw offer record every offers spider's pages give. A provider's own
records (what `data` holds) are declared in `spiders/<provider>/items.py`;
its page functions return them and its normalizer
(`tracker/normalize/providers/<provider>.py`) takes them, so a renamed key
is a type error. Values are as seen: JSON numbers read as Decimal."""

from __future__ import annotations

from decimal import Decimal
from typing import Generic, NotRequired, TypedDict, TypeVar

DataT = TypeVar("DataT")


class RawItem(TypedDict, Generic[DataT]):
    """One line of a run's `items.jsonl`: a record as the source states it,
    `kind` naming which of the provider's records `data` is."""

    kind: str
    observed_at: str  # ISO 8601: the capture's time in replay
    source_url: str  # secret query parameters masked
    data: DataT


class RegionalItem(RawItem[DataT], Generic[DataT]):
    """An item of a spider that names the regions its crawl covered."""

    regions: list[str]


class OfferRecord(TypedDict):
    """One block of a page of offers (docs/contributing.md, "Offers
    sources"): `{id, title, text, url}`, the heading it sits under and the
    page's title (the context it is read in), and what a JSON page states in
    fields of its own."""

    id: str
    title: str
    text: str
    url: str
    section: NotRequired[str]  # the heading the block sits under
    headings: NotRequired[list[str]]  # the heading trail above it, outermost first (when two or more)
    page: NotRequired[str]  # the page's title (its first h1, else <title>)
    kind: NotRequired[str]
    amount: NotRequired[str | int | Decimal]
    currency: NotRequired[str]
    min_spend: NotRequired[str | int | Decimal]
    percent_off: NotRequired[str | int | Decimal]
    duration_days: NotRequired[str | int | Decimal]
    eligibility: NotRequired[str]
    products: NotRequired[list[str]]
    valid_from: NotRequired[str]
    valid_until: NotRequired[str]


class OfferItem(RawItem[OfferRecord]):
    """`kind` "offer": one offer block, with the provider it is of and the
    currency of amounts its page writes without a sign."""

    provider: str
    currency: str


class WatchMatch(TypedDict):
    """An element a `[[watch]]` page's selector matched (spiders/watch.py)."""

    index: int  # its place among the matches
    id: str  # its own id or data attribute, else ""
    text: str
    href: str


class WatchItem(RawItem[WatchMatch]):
    """kind: watch.match, with the `[[watch]]` entry's settings."""

    watch: str
    provider: str
    offer_kind: str  # an OfferKind, "price", or "" to read it from the words
    ignore: list[str]  # patterns of volatile words
    currency: str | None
