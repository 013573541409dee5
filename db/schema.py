"""The value types every layer speaks.

These are pydantic models, configured as SQLModel configures a model
without a table (`ValueType`: read from attributes too): they validate and
carry no session, and importing them loads neither SQLModel nor SQLAlchemy
(0.24 s: a command that only words a change, `changes`, need not pay it).
The stored rows (`db/tables.py`, `db/store/writes/offers.py`) are declared beside
them, column for column; `tests/db/test_shapes.py` fails when a value type
and its table disagree on a name, a type or whether it may be empty. How the bulk path spells a quote as a row is in
`db/bulk/encoding.py`. This module imports nothing from the project but
its enumerations (`db/kinds.py`) and the hourly arithmetic (`db/money.py`).
"""

from __future__ import annotations

import hashlib
import json
import operator
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from functools import cached_property
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from db.kinds import ChangeKind, Eligibility, OfferKind, PriceModel, Unit
from db.kinds import RunStatus as RunStatus  # re-exported with the other value types

# The hourly arithmetic lives with the money, where the command line reaches it without pydantic.
from db.money import HOURS_PER_MONTH as HOURS_PER_MONTH
from db.money import HOURS_PER_YEAR as HOURS_PER_YEAR
from db.money import effective_hourly as effective_hourly
from db.money import term_hours as term_hours

# The fields that say *which* price a quote is. Their hash is the quote's key,
# so it must never change meaning: add fields only at the end, with care.
QUOTE_IDENTITY_FIELDS = (
    "provider",
    "region",
    "zone",
    "instance_type",
    "os",
    "price_model",
    "term",
    "payment_option",
    "currency",
    "unit",
)

# The fields whose change is a change of the quote's value (what the diff sees).
QUOTE_VALUE_FIELDS = (
    "price",
    "list_price",
    "upfront_fee",
    "availability",
    "gpu_model",
    "gpu_count",
    "gpu_memory_gb",
    "vcpu",
    "memory_gb",
)
# A marketplace aggregate's own figures (see docs/marketplaces.md): part of its
# value only when set, so that the value hash of every other quote stays as it was.
MARKET_VALUE_FIELDS = ("median_price", "offer_count")


def _hash_part(part: Any) -> str:
    if part is None:
        return ""
    if isinstance(part, Decimal):
        return str(part.normalize())
    return str(part)


def stable_hash(parts: tuple[Any, ...], *, length: int = 32) -> str:
    """A deterministic hex digest of `parts`; `None` and "" hash alike, and
    so do equal Decimals written with different trailing zeros."""
    text = "\x1f".join(map(_hash_part, parts))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:length]


_identity = operator.itemgetter(*QUOTE_IDENTITY_FIELDS)
_values = operator.itemgetter(*QUOTE_VALUE_FIELDS)
_market = operator.itemgetter(*MARKET_VALUE_FIELDS)


def quote_key(fields: Mapping[str, Any]) -> str:
    """`stable_hash` of a quote's identity fields, given by name. The fields
    are all strings (or StrEnums, which join as their value), so they are
    joined without the per-part conversion: the bulk ingest hashes every row."""
    text = "\x1f".join(_identity(fields))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def quote_value_hash(fields: Mapping[str, Any]) -> str:
    """`stable_hash` of a quote's value fields and attrs, given by name
    (inlined: this runs for every row of a bulk ingest)."""
    parts = ["" if v is None else str(v.normalize()) if type(v) is Decimal else str(v) for v in _values(fields)]
    if fields.get("offer_count") is not None:
        parts.extend("" if v is None else str(v.normalize()) if type(v) is Decimal else str(v) for v in _market(fields))
    attrs = fields["attrs"]
    if attrs:
        parts.extend(map(str, sorted(attrs.items())))
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:16]


def aware_time(value: datetime) -> datetime:
    if value.tzinfo is None:
        raise ValueError("observed_at must carry a time zone")
    return value


def currency_code(value: str) -> str:
    if len(value) != 3 or not value.isalpha():
        raise ValueError(f"currency must be a 3-letter code, not {value!r}")
    return value.upper()


class ValueType(BaseModel):
    """What SQLModel gives a model without a table: pydantic, read from
    attributes (an ORM row) as well as from a mapping."""

    model_config = ConfigDict(from_attributes=True)


class PriceQuote(ValueType):
    """One normalized price, as observed at one moment."""

    provider: str
    region: str
    zone: str = ""
    instance_type: str
    gpu_model: str | None = None
    gpu_count: Decimal | None = None
    gpu_memory_gb: Decimal | None = None
    vcpu: Decimal | None = None
    memory_gb: Decimal | None = None
    gpu_interconnect: str | None = None
    network_gbps: Decimal | None = None
    os: str = "linux"
    price_model: PriceModel
    term: str = ""
    payment_option: str = ""
    price: Decimal
    currency: str
    unit: Unit
    list_price: Decimal | None = None
    upfront_fee: Decimal | None = None
    availability: str | None = None
    source_url: str = ""
    observed_at: datetime
    attrs: dict[str, str] = Field(default_factory=dict)
    # A marketplace aggregate (offer_count set): `price` is the lowest offer of
    # the group, `median_price` the median, `offer_count` how many offers stand
    # behind them. None for every list price.
    median_price: Decimal | None = None
    offer_count: int | None = Field(default=None, ge=0)

    @field_validator("observed_at")
    @classmethod
    def _aware(cls, value: datetime) -> datetime:
        return aware_time(value)

    @property
    def is_market(self) -> bool:
        return self.offer_count is not None

    @field_validator("currency")
    @classmethod
    def _currency(cls, value: str) -> str:
        return currency_code(value)

    # Computed once: a snapshot of a million quotes asks for them often.
    @cached_property
    def key(self) -> str:
        return quote_key(self.__dict__)

    @cached_property
    def value_hash(self) -> str:
        return quote_value_hash(self.__dict__)

    def hourly_rate(self) -> Decimal | None:
        """The effective price of one hour: monthly over 720 h, yearly over
        8,760 h, a whole term over its years, with any upfront fee amortised."""
        return effective_hourly(self.price, self.unit, self.term, self.upfront_fee)

    def per_gpu_hour(self) -> Decimal | None:
        hourly = self.hourly_rate()
        if hourly is None or not self.gpu_count:
            return None
        return hourly / self.gpu_count


@dataclass(frozen=True, slots=True)
class TrackedPrice:
    """The part of an open price row that the diff needs."""

    id: int
    value_hash: str
    price: Decimal
    availability: str | None
    missed_runs: int
    # A marketplace row's figures (None for a list price): the diff's tolerance reads them.
    median_price: Decimal | None = None
    offer_count: int | None = None


# The fields whose change is a change of the offer (what the offer diff sees).
# `text_hash` is over the offer's text with volatile parts (countdowns,
# stock counters, whitespace) already taken out.
OFFER_VALUE_FIELDS = (
    "kind",
    "title",
    "amount",
    "currency",
    "percent_off",
    "min_spend",
    "duration_days",
    "eligibility",
    "valid_from",
    "valid_until",
    "unparsed",
    "text_hash",
    "terms",
)


class Offer(ValueType):
    """One promotion: a credit, voucher, trial or discount. `offer_id` is
    stable across crawls (`<provider>:<slug>`); an amount that could not be
    read is None with `unparsed` set, never a guess."""

    provider: str
    offer_id: str
    kind: OfferKind
    title: str
    amount: Decimal | None = None
    currency: str | None = None
    percent_off: Decimal | None = None
    min_spend: Decimal | None = None
    duration_days: int | None = None
    eligibility: Eligibility = Eligibility.all
    products: list[str] = Field(default_factory=list)
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    source_url: str = ""
    observed_at: datetime
    text: str = ""
    text_hash: str = ""
    unparsed: bool = False
    # The terms read from the text beyond the columns above, stored so that no
    # reader parses text again: GPU time, a ladder tier, caps, the price models
    # and purchases covered, an order-length limit (tracker/normalize/
    # offer_reader.terms_record). None: stored before terms were (0008).
    terms: dict[str, Any] | None = None

    @field_validator("observed_at", "valid_from", "valid_until")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        if value is not None and value.tzinfo is None:
            raise ValueError("offer times must carry a time zone")
        return value

    @field_validator("currency")
    @classmethod
    def _currency(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if len(value) != 3 or not value.isalpha():
            raise ValueError(f"currency must be a 3-letter code, not {value!r}")
        return value.upper()

    @property
    def terms_text(self) -> str | None:
        """The terms as stored: canonical JSON."""
        return None if self.terms is None else json.dumps(self.terms, sort_keys=True, ensure_ascii=False)

    @property
    def value_hash(self) -> str:
        parts = tuple(self.terms_text if f == "terms" else getattr(self, f) for f in OFFER_VALUE_FIELDS)
        return stable_hash(parts + tuple(sorted(self.products)), length=16)


class Change(ValueType):
    """One thing that changed between two snapshots of a source."""

    kind: ChangeKind
    provider: str
    source: str = ""
    key: str = ""
    region: str = ""
    zone: str = ""
    instance_type: str = ""
    gpu_model: str | None = None
    gpu_count: Decimal | None = None
    os: str = ""
    price_model: str = ""
    term: str = ""
    payment_option: str = ""
    old_price: Decimal | None = None
    new_price: Decimal | None = None
    percent: Decimal | None = None
    currency: str = ""
    unit: str = ""
    source_url: str = ""
    observed_at: datetime
    detail: dict[str, str] = Field(default_factory=dict)


class CrawlResult(ValueType):
    """What one crawl produced. A failure is never a value: when `error` is
    set, `items` must not be used as a snapshot."""

    source: str
    provider: str
    started_at: datetime
    finished_at: datetime
    observed_at: datetime | None = None
    regions: list[str] = Field(default_factory=list)
    pages: int = 0
    items: list[dict[str, Any]] = Field(default_factory=list)
    # Set when the items are streamed to the pipeline rather than held here.
    item_count: int | None = None
    error: str | None = None
    notes: list[str] = Field(default_factory=list)
    capture_path: str | None = None
    replayed: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def items_seen(self) -> int:
        return len(self.items) if self.item_count is None else self.item_count
