"""Raw items -> value types. One module per provider, each with a
`normalize(items) -> Normalized` function; tracker/sources/ names which."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from db.bulk.encoding import StagedQuote
from db.schema import Offer, PriceQuote
from db.spot_risk import SpotBand

if TYPE_CHECKING:
    from tracker.normalize.specs import GpuSpec


class NormalizeError(ValueError):
    """A raw item says something we cannot read without guessing."""


@dataclass(frozen=True)
class Held:
    """An item the provider could not price in this run, though the rest of
    its answer was whole: a type DescribePrice answers `PriceNotFound` for, a
    flavor a price answer left out. The run's note names it; its stored rows
    keep their last price and count no miss, so the diff never takes it for
    removed. `price_model` and `term` None: every price of the item."""

    region: str
    instance_type: str
    price_model: str | None = None
    term: str | None = None

    def covers(self, row: Mapping[str, Any]) -> bool:
        """Whether a stored row (its region, instance_type, price_model and term) is this item's."""
        return (
            row.get("region") == self.region
            and row.get("instance_type") == self.instance_type
            and (self.price_model is None or str(row.get("price_model")) == self.price_model)
            and (self.term is None or (row.get("term") or "") == self.term)
        )


def hold(
    out: Normalized, source: str, region: str, name: str, variant: str, model: Any, term: str | None, why: str
) -> None:
    """Skip one item with a note naming it, and keep its last price (see `Held`).
    `model` None (a variant we do not know): every price of the item."""
    out.notes.append(f"{source}: {name} ({variant}) in {region} skipped, its last price kept: {why}")
    out.held.append(Held(region, name, str(model) if model is not None else None, term))


@dataclass
class Normalized:
    quotes: list[PriceQuote] = field(default_factory=list)
    offers: list[Offer] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # Items skipped with a note whose last prices stand (see `Held`).
    held: list[Held] = field(default_factory=list)
    # Instead of `quotes`, for inputs too big to hold: chunks read lazily,
    # given the diff's recognizer of file rows it already holds (see
    # `SnapshotDiff.recognize`; None when it holds none). A bad row raises
    # NormalizeError mid-run.
    staged: Callable[[Recognizer | None], Iterable[Sequence[StagedQuote]]] | None = None
    # The regions this snapshot covers in full, when the normalizer knows them
    # better than the crawl (a marketplace asked per country stores macro
    # regions, and a region none of whose groups is listed now still counts):
    # the diff compares against the stored rows of these regions (of every
    # region the source has, when empty).
    scope: list[str] | None = None
    # Offer blocks that look like offers but could not be read (their words
    # are new): by offer id. The run's note names them; the offers stored
    # under these ids keep their last reading, never taken for removed.
    unread_offers: list[str] = field(default_factory=list)
    # A spot-risk source's bands (kind "spot_risk"; tracker/run/diff/spot_risk.py).
    spot_bands: list[SpotBand] = field(default_factory=list)


# Whether the diff already holds the quote of each file row, by the rows' hashes (8 bytes each).
Recognizer = Callable[[Sequence[bytes]], list[bool]]
# A source's raw items as its spider wrote them (JSON lines); each normalizer
# declares their shape with the TypedDicts of spiders/<provider>/items.py,
# which the registry (tracker/sources/) takes on trust.
Normalizer = Callable[[Iterable[Any]], Normalized]


def make_quote(provider: str, **fields: Any) -> PriceQuote:
    """A PriceQuote, or a NormalizeError that says which field is wrong."""
    try:
        return PriceQuote(provider=provider, **fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise NormalizeError(f"{provider}: {fields.get('instance_type', '?')}: {where}: {first['msg']}") from None


def zone_quotes(
    provider: str, zones: Iterable[tuple[str, str | None]], item: Mapping[str, Any], *, list_price: Any, **fields: Any
) -> list[PriceQuote]:
    """One Linux quote per (zone, availability): the official APIs price a
    type once per region and state its stock per zone. A list price of 0
    means none."""
    observed = parse_time(item.get("observed_at"))
    source_url = str(item.get("source_url") or "")
    listed = list_price if list_price and list_price > 0 else None
    return [
        make_quote(
            provider,
            zone=zone,
            availability=availability,
            os="linux",
            list_price=listed,
            source_url=source_url,
            observed_at=observed,
            **fields,
        )
        for zone, availability in zones
    ]


def spec_quote(provider: str, item: Mapping[str, Any], spec: GpuSpec, **fields: Any) -> PriceQuote:
    """An hourly Linux quote of the type `spec` describes, observed with the
    raw `item` (the GPU clouds' APIs: one price per type, region and model)."""
    return make_quote(
        provider,
        instance_type=spec.instance_type,
        unit="hour",
        source_url=str(item.get("source_url") or ""),
        observed_at=parse_time(item.get("observed_at")),
        **spec.as_fields(),
        **fields,
    )


def parse_time(value: object) -> datetime:
    try:
        parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise NormalizeError(f"observation time {value!r} is not an ISO 8601 time") from None
    if parsed.tzinfo is None:
        raise NormalizeError(f"observation time {value!r} has no time zone")
    return parsed
