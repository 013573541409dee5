"""The rows both faces show: a stored price, offer or listing row as the
column contract (`tracker.answers.columns`) has it, and the `--since`
reading of a moment. Nothing heavy loads until a row is made."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from tracker.answers.columns import detail_text
from tracker.scalars import plain

if TYPE_CHECKING:
    from db.store.writes.offers import OfferPoint

# The offer fields whose words the table shows (满1000减300, $300, 40% off).
_TERMS = ("amount", "currency", "percent_off", "min_spend", "duration_days")
_RELATIVE = re.compile(r"^(\d+)([hdw])$")


class BadMoment(ValueError):
    """A `--since` (or `since=`) that is neither a date, a time nor a span."""


def json_rows(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> list[dict[str, Any]]:
    """The JSON contract of a listing: one flat object per row, its keys the
    columns in order, each value `plain` (Decimals as strings, times ISO 8601
    UTC). `--format json` prints it; the web API answers it."""
    return [{c: plain(r.get(c)) for c in columns} for r in rows]


def price_dict(stored: dict[str, Any]) -> dict[str, Any]:
    """A stored price (`db.store.reads.reader`'s or `db.store.reads.session.point_to_dict`'s) as the PRICE_COLUMNS row."""
    from tracker.analytics.facts.network import network_fields
    from tracker.analytics.points import price_record

    row = price_record(stored)
    # The node network as the provider states it: its Gbps and interconnect where the price has none, RDMA.
    row.update(network_fields(row))
    # Provider extras (interruption rates, part prices) as one readable cell.
    row["attrs"] = detail_text(row["attrs"]) or None
    return row


def offer_dict(point: OfferPoint) -> dict[str, Any]:
    """A stored offer as the OFFER_COLUMNS row, its terms in words."""
    from alerts.cards import offer_terms, writes_chinese
    from db.store.writes.offers import offer_point_dict
    from tracker.normalize.offers.reader import describe

    row = offer_point_dict(point)
    row["conditions"] = "; ".join(describe(row.pop("terms")))
    row["valid_from"], row["valid_until"] = row.pop("offer_valid_from"), row.pop("offer_valid_until")
    row["products"] = ",".join(row["products"])
    row["observed_at"] = point.valid_from
    row["seen_from"], row["seen_to"] = point.valid_from, point.valid_to
    # For the table alone: the terms in words, as alerts write them (满1000减300, $300, 40% off).
    values = {k: None if row.get(k) is None else str(row[k]) for k in _TERMS}
    words = offer_terms(values, writes_chinese(row.get("title") or "", row.get("currency")))
    row["terms"] = "; ".join(p for p in (words, row["conditions"]) if p)
    if row.get("unparsed") and not row["terms"]:
        row["terms"] = "(not read)"
    return row


def parse_since(text: str | None) -> datetime | None:
    """'2026-08-01', an ISO time, or a span back from now: '24h', '7d', '2w'."""
    if not text:
        return None
    match = _RELATIVE.match(text.strip())
    if match:
        n, unit = int(match.group(1)), match.group(2)
        span = {"h": timedelta(hours=n), "d": timedelta(days=n), "w": timedelta(weeks=n)}[unit]
        return datetime.now(UTC) - span
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        from tracker.answers.ranges import head

        raise BadMoment(f"{head(text)} is not a date (2026-08-01), a time or a span (24h, 7d, 2w)") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def source_rows() -> list[dict[str, Any]]:
    """Every registered source as the SOURCE_COLUMNS row: what it stores,
    whether the daemon crawls it by default, and what verified its reading."""
    from tracker.sources import SOURCES

    return [
        {
            "source": s.name,
            "provider": s.provider,
            "kind": s.kind,
            "price_models": ", ".join(s.price_models),
            "needs_api_key": s.needs_api_key,
            "crawled_by_default": s.crawled_by_default,
            "evidence": s.evidence_label,
            "evidence_kind": s.evidence.kind if s.evidence else None,
            "evidence_date": (s.evidence.date or None) if s.evidence else None,
            "evidence_ref": s.evidence.ref if s.evidence else None,
            "fixture": (s.evidence.fixture or None) if s.evidence else None,
        }
        for s in SOURCES.values()
    ]
