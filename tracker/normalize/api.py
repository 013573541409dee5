"""The China clouds' official-API normalizers, written once: each provider
(`normalize_api` of tracker/normalize/providers/{alibaba,huawei,tencent,
volcengine}.py) declares only what differs, as an `ApiNormalizer`.

A run's items are read in two passes: first each item by its kind (what a
type is, where it is in stock, a price, a price an answer left out), then
each price, stored once per zone that lists the type. The rules are the
base's:

- an item with no data record, or of a kind the provider does not read,
  fails the run; so does a price of a variant it does not declare, or an
  amount that is not a number (naming the type and region);
- a price of 0 or less is skipped with a note; a type an answer left out is
  held: skipped with a note, its last price kept (`hold`);
- an answer that prices nothing and holds something fails the run;
- a type whose GPU model neither the API nor the spec table names is stored
  without one, with a note.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, ClassVar

from db.schema import PriceModel, PriceQuote, Unit
from tracker.normalize import Normalized, NormalizeError, hold, zone_quotes
from tracker.normalize.money import MoneyError, to_decimal

# A declared price variant: (price model, term, unit).
Variant = tuple[PriceModel, str, Unit]
# Where a type is sold: (zone, availability); ("", None) for one regional row.
Zones = list[tuple[str, str | None]]


@dataclass(frozen=True)
class Price:
    """One price item, as the base reads it before its amounts."""

    region: str
    name: str  # the type (a flavor, a configuration)
    variant: str


class ApiNormalizer:
    """The base: a provider sets the class attributes and overrides the hooks
    where its answers differ; `normalize` is the same for every one."""

    source: ClassVar[str]  # "alibaba-api": notes and errors
    provider: ClassVar[str]  # "alibaba": the quotes'
    # Each item kind read, and what it is: "type", "stock", "price" or
    # "left out" (a type an answer did not price, held).
    kinds: ClassVar[Mapping[str, str]] = {}
    variants: ClassVar[Mapping[str, Variant]] = {}
    noun: ClassVar[str] = "type"  # "no type could be priced"
    name_key: ClassVar[str] = "instance_type"  # a price record's type
    left_out_key: ClassVar[str] = "instance_type"  # a left-out record's type
    left_out_by: ClassVar[str] = "price"  # the answer that leaves one out, unless the item says
    amount_keys: ClassVar[tuple[str, str]] = ("price", "list_price")  # its paid and list amounts
    amount_names: ClassVar[tuple[str, str]]  # what the API calls them, for errors
    empty_list_is_none: ClassVar[bool] = True  # a list price of 0 or "" means none (else it is read)
    odd_note: ClassVar[str] = ""  # "stock status not known for {}; stored without availability"
    unknown_note: ClassVar[str] = "no GPU model for {}; stored without one"

    def __init__(self) -> None:
        self.out = Normalized()
        self.types: dict[Hashable, Any] = {}  # what each type is, by the provider's key
        self.stock: defaultdict[Hashable, Zones] = defaultdict(list)  # where it is sold
        self.prices: list[Any] = []  # the items `quotes` reads, in order
        self.odd: set[str] = set()  # types whose stock state is not known (`odd_note`)
        self.unknown: set[str] = set()  # types with no GPU model

    # The hooks.
    def read(self, kind: object, item: Any) -> bool:
        """Take one item in by its kind (`kinds`); False for a kind not read."""
        role = self.kinds.get(str(kind))
        if role == "type":
            self.described(item)
        elif role == "stock":
            self.stocked(item)
        elif role == "price":
            self.prices.append(item)
        elif role == "left out":
            self.left_out(item)
        return role is not None

    def described(self, item: Any) -> None:
        """What a type is (a "type" item)."""
        self.types[str(item["data"]["instance_type"])] = item["data"]

    def stocked(self, item: Any) -> None:
        """Where a type is sold (a "stock" item)."""
        raise NotImplementedError

    def variant(self, item: Any) -> str:
        return str(item["data"]["variant"])

    def currency(self, item: Any) -> str:
        return str(item["data"].get("currency") or "CNY")

    def unpriced(self, item: Any) -> str | None:
        """Why a price item prices nothing (held), or None."""
        return None

    def fields(self, price: Price) -> dict[str, Any]:
        """The type's GPU and machine fields."""
        raise NotImplementedError

    def zones(self, price: Price) -> Zones:
        return [("", None)]

    def attrs(self, item: Any, price: Price) -> dict[str, str]:
        """The quotes' attrs."""
        return {}

    def closing_notes(self) -> list[str]:
        """Notes of the whole run, before the odd and unknown types'."""
        return []

    # The skeleton.
    def normalize(self, items: Iterable[Any]) -> Normalized:
        for item in items:
            kind = item.get("kind")
            if not isinstance(item.get("data"), dict):
                raise NormalizeError(f"{self.source}: an item has no data record")
            if not self.read(kind, item):
                raise NormalizeError(f"{self.source}: unknown item kind {kind!r}")
        for item in self.prices:
            self.out.quotes.extend(self.quotes(item))
        if self.prices and not self.out.quotes and self.out.held:
            first = self.out.notes[0].removeprefix(f"{self.source}: ")
            raise NormalizeError(f"{self.source}: no {self.noun} could be priced; {first}")
        self.out.notes.extend(self.closing_notes())
        if self.odd:
            self.out.notes.append(f"{self.source}: {self.odd_note.format(', '.join(sorted(self.odd)))}")
        self.out.notes.extend(f"{self.source}: {self.unknown_note.format(t)}" for t in sorted(self.unknown))
        return self.out

    def left_out(self, item: Any) -> None:
        """A type an answer (the item's `action`) left out: held. A variant
        not declared holds every price of the type."""
        data = item["data"]
        model, term, _ = self.variants.get(str(data["variant"]), (None, None, None))
        why = f"the {item.get('action') or self.left_out_by} answer left it out"
        name = str(data[self.left_out_key])
        hold(self.out, self.source, str(item["region"]), name, str(data["variant"]), model, term, why)

    def quotes(self, item: Any) -> list[PriceQuote]:
        """One price item's quotes, once per zone; none (with a note) for a
        held or unpriced one."""
        data, region, variant = item["data"], str(item["region"]), self.variant(item)
        if variant not in self.variants:
            raise NormalizeError(f"{self.source}: unknown price variant {variant!r}")
        price = Price(region, str(data[self.name_key]), variant)
        model, term, unit = self.variants[variant]
        why = self.unpriced(item)
        if why:
            hold(self.out, self.source, region, price.name, variant, model, term, why)
            return []
        paid_key, list_key = self.amount_keys
        paid_name, list_name = self.amount_names
        raw_list = data.get(list_key)
        try:
            paid = to_decimal(data[paid_key], what=paid_name)
            listed: Decimal | None = None
            if raw_list is not None and (raw_list or not self.empty_list_is_none):
                listed = to_decimal(raw_list, what=list_name)
            fields = self.fields(price)
        except MoneyError as exc:
            raise NormalizeError(f"{self.source}: {exc} for {price.name} in {region}") from None
        if paid <= 0:
            self.out.notes.append(f"{self.source}: {price.name} ({variant}) in {region} is priced {paid}; skipped")
            return []
        if fields.get("gpu_model") is None:
            self.unknown.add(price.name)
        attrs = self.attrs(item, price)
        return zone_quotes(
            self.provider,
            self.zones(price),
            item,
            list_price=listed,
            region=region,
            instance_type=price.name,
            price_model=model,
            term=term,
            unit=unit,
            price=paid,
            currency=self.currency(item),
            attrs=attrs,
            **fields,
        )
