"""The offer diff: a pure function from the stored open offers and the ones
just seen to changes, and to the writes that move the snapshot forward.

- A new offer is offer_added (except in a source's first snapshot, its
  baseline); a missing one is offer_removed only after
  `removal_confirmations` complete runs without it.
- An amount that moved is credit_changed, a percentage that moved
  discount_changed, with old and new values; any other change of the terms
  (the columns, or the terms read beyond them: GPU time, tier, caps, models),
  or of the (cleaned) text, is offer_changed. A row stored before offers kept
  their read terms (terms NULL) is rewritten with them, silently.
- An empty snapshot, or one much smaller than the last, is not diffed: the
  result carries the reason and the caller keeps the last good data.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import TypedDict

from db.schema import Change, ChangeKind, Offer
from db.store.writes.offers import TrackedOffer, offer_values
from tracker.normalize.offers.reader import describe
from tracker.run.diff import DiffPolicy, percent_change

# Changing these alone is a change of wording, not of the terms.
_WORDING = {"title", "text_hash"}
# The terms an alert writes out, before and after (满1000减300 → 满1000减200).
_TERMS = ("amount", "currency", "percent_off", "min_spend", "duration_days")


def _terms(prefix: str, values: Mapping[str, str | None]) -> dict[str, str]:
    """The terms an alert writes out, and from the terms read beyond the
    columns a range's low end and the conditions in words ("to be claimed
    within a window after sign-up; first purchase only")."""
    out = {f"{prefix}_{k}": str(values[k]) for k in _TERMS if values.get(k) is not None}
    try:
        read = json.loads(values.get("terms") or "null")
    except ValueError:
        read = None
    if isinstance(read, dict):
        if read.get("amount_low"):
            out[f"{prefix}_amount_low"] = str(read["amount_low"])
        said = "; ".join(p for p in describe(read) if not p.startswith("from "))
        if said:
            out[f"{prefix}_conditions"] = said
    return out


class _About(TypedDict):
    """Which offer a change is about, as every change of it names it."""

    provider: str
    source: str
    offer_id: str
    title: str
    offer_kind: str
    source_url: str
    observed_at: datetime


class _Headline(TypedDict, total=False):
    new: Decimal | None
    unit: str
    currency: str | None


@dataclass
class OfferDiff:
    changes: list[Change] = field(default_factory=list)
    inserts: list[Offer] = field(default_factory=list)
    closes: list[int] = field(default_factory=list)
    misses: dict[int, int] = field(default_factory=dict)
    removed: list[TrackedOffer] = field(default_factory=list)
    broken: str | None = None


class DuplicateOffer(ValueError):
    """Two different offers under one id: ambiguous, so an error."""


def offer_snapshot(offers: Sequence[Offer]) -> dict[str, Offer]:
    current: dict[str, Offer] = {}
    for offer in offers:
        seen = current.get(offer.offer_id)
        if seen is not None and seen.value_hash != offer.value_hash:
            raise DuplicateOffer(
                f"{offer.provider}: two different offers with the id {offer.offer_id}: "
                f"{seen.title!r} and {offer.title!r}"
            )
        current[offer.offer_id] = offer
    return current


def _dec(value: str | None) -> Decimal | None:
    return None if value is None else Decimal(value)


def offer_change(
    kind: ChangeKind,
    *,
    provider: str,
    source: str,
    offer_id: str,
    title: str,
    offer_kind: str,
    source_url: str,
    observed_at: datetime,
    old: Decimal | None = None,
    new: Decimal | None = None,
    currency: str | None = None,
    unit: str = "",
    detail: Mapping[str, str] | None = None,
) -> Change:
    percent = percent_change(old, new) if old is not None and new is not None else None
    return Change(
        kind=kind,
        provider=provider,
        source=source,
        key=offer_id,
        old_price=old,
        new_price=new,
        percent=percent,
        currency=currency or "",
        unit=unit,
        source_url=source_url,
        observed_at=observed_at,
        detail={"offer_id": offer_id, "title": title, "offer_kind": offer_kind, **(detail or {})},
    )


def _changed(before: TrackedOffer, offer: Offer, *, source: str, observed_at: datetime) -> list[Change]:
    old, new = before.values, offer_values(offer)
    fields = sorted(k for k in new if new[k] != old.get(k) and not (k == "terms" and old.get(k) is None))
    terms = _terms("old", old) | _terms("new", new)
    about: _About = {
        "provider": offer.provider,
        "source": source,
        "offer_id": offer.offer_id,
        "title": offer.title,
        "offer_kind": str(offer.kind),
        "source_url": offer.source_url,
        "observed_at": observed_at,
    }
    changes = []
    specific: set[str] = set()
    if "amount" in fields and old["amount"] is not None and new["amount"] is not None:
        changes.append(
            offer_change(
                ChangeKind.credit_changed,
                old=_dec(old["amount"]),
                new=_dec(new["amount"]),
                currency=offer.currency,
                detail=terms,
                **about,
            )
        )
        specific.add("amount")
    if "percent_off" in fields and old["percent_off"] is not None and new["percent_off"] is not None:
        changes.append(
            offer_change(
                ChangeKind.discount_changed,
                old=_dec(old["percent_off"]),
                new=_dec(new["percent_off"]),
                unit="percent_off",
                detail=terms,
                **about,
            )
        )
        specific.add("percent_off")
    rest = [f for f in fields if f not in specific]
    if rest and (not specific or set(rest) - _WORDING):
        what = [f for f in rest if f not in _WORDING] or ["text"]
        detail = {f"old_{f}": old.get(f) or "" for f in what if f != "text"}
        detail.update({f"new_{f}": new.get(f) or "" for f in what if f != "text"})
        changes.append(
            offer_change(ChangeKind.offer_changed, detail={"changed": ", ".join(what), **terms, **detail}, **about)
        )
    return changes


def _headline(offer: Offer) -> _Headline:
    """An added offer's amount, or else its percentage off, as the change's new value."""
    if offer.amount is None and offer.percent_off is not None:
        return {"new": offer.percent_off, "unit": "percent_off"}
    return {"new": offer.amount, "currency": offer.currency}


def implausible(
    previous: Mapping[str, TrackedOffer], current: Mapping[str, Offer], policy: DiffPolicy, *, kept: int = 0
) -> str | None:
    """Why a page's offers cannot be the page's whole list; `kept` of the
    previous ones stand for blocks that could not be read this time."""
    if not current and not kept:
        return "the page listed no offers"
    if previous and len(current) + kept < len(previous) * policy.min_row_ratio:
        return (
            f"the page listed {len(current)} offers, less than {policy.min_row_ratio:%} "
            f"of the {len(previous)} of the last complete run"
        )
    return None


def unread_ids(previous: Mapping[str, TrackedOffer], unread: Collection[str]) -> set[str]:
    """The stored offers of blocks that could not be read this time: a block's
    offer is stored under the block's id, or under it with the kind after a
    dash when the block stated several."""
    blocks = set(unread)
    return {k for k in previous if k in blocks or k.rsplit("-", 1)[0] in blocks}


def diff_offers(
    previous: Mapping[str, TrackedOffer],
    current: Mapping[str, Offer],
    policy: DiffPolicy,
    *,
    source: str,
    observed_at: datetime,
    unread: Collection[str] = (),
) -> OfferDiff:
    result = OfferDiff()
    kept = unread_ids(previous, unread) - set(current)
    result.broken = implausible(previous, current, policy, kept=len(kept))
    if result.broken:
        return result
    baseline = not previous
    for offer_id, offer in current.items():
        before = previous.get(offer_id)
        if before is None:
            result.inserts.append(offer)
            if not baseline:
                result.changes.append(
                    offer_change(
                        ChangeKind.offer_added,
                        provider=offer.provider,
                        source=source,
                        offer_id=offer_id,
                        title=offer.title,
                        offer_kind=str(offer.kind),
                        source_url=offer.source_url,
                        observed_at=observed_at,
                        detail=_terms("new", offer_values(offer)),
                        **_headline(offer),
                    )
                )
            continue
        if before.missed_runs:
            result.misses[before.id] = 0
        if before.value_hash == offer.value_hash:
            continue
        result.closes.append(before.id)
        result.misses.pop(before.id, None)
        result.inserts.append(offer)
        result.changes.extend(_changed(before, offer, source=source, observed_at=observed_at))
    for offer_id, before in previous.items():
        if offer_id in current or offer_id in kept:
            continue  # kept: its block is on the page, in words the reader does not know yet
        missed = before.missed_runs + 1
        if missed >= policy.removal_confirmations:
            result.removed.append(before)
        else:
            result.misses[before.id] = missed
    return result


def removal_change(before: TrackedOffer, *, provider: str, source: str, observed_at: datetime) -> Change:
    v = before.values
    return offer_change(
        ChangeKind.offer_removed,
        provider=provider,
        source=source,
        offer_id=before.offer_id,
        title=v.get("title") or "",
        offer_kind=v.get("kind") or "",
        source_url=before.source_url,
        observed_at=observed_at,
        old=_dec(v.get("amount")),
        currency=v.get("currency"),
        detail=_terms("old", v),
    )
