"""What every alert says: the old and the new value, in words and numbers,
from changes as the offer diff and the price diff really record them."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from alerts.render import Family, digest, single
from db.money import readable, readable_pair
from db.schema import ChangeKind, Offer
from db.store.writes.offers import TrackedOffer, offer_values
from tests.helpers.alert_samples import every_kind, gcp_credit, price
from tracker.config.analytics import FxSettings
from tracker.config.settings import Config
from tracker.normalize.offers import build_offer
from tracker.run.alerting import with_rates
from tracker.run.diff import DiffPolicy
from tracker.run.diff.offers import diff_offers, removal_change

WHEN = datetime(2026, 8, 3, tzinfo=UTC)


def text(change) -> str:
    return single(("k", change), Family.text).body


def offer(title: str, provider: str = "tencent", currency: str = "CNY") -> Offer:
    return build_offer(
        provider=provider,
        offer_id=f"{provider}:gpu",
        data={"title": title},
        observed_at=WHEN,
        source_url="https://example.com/offers",
        default_currency=currency,
    )


def diffed(before: Offer, after: Offer):
    tracked = TrackedOffer(1, before.offer_id, before.value_hash, 0, before.source_url, offer_values(before))
    result = diff_offers(
        {before.offer_id: tracked}, {after.offer_id: after}, DiffPolicy(), source="s", observed_at=WHEN
    )
    return result.changes


def test_voucher_credit_and_discount_from_the_real_offer_diff() -> None:
    (voucher,) = diffed(offer("GPU 新用户 满1000减300"), offer("GPU 新用户 满1000减200"))
    assert voucher.kind == ChangeKind.credit_changed
    body = text(voucher)
    assert "Was: 满1000减300" in body and "Now: 满1000减200" in body
    (discount,) = diffed(offer("GPU 云服务器 6折续费"), offer("GPU 云服务器 5折续费"))
    assert "Was: 6折\nNow: 5折" in text(discount)
    (credit,) = diffed(
        offer("Get $300 in free GPU credit", "gcp", "USD"), offer("Get $200 in free GPU credit", "gcp", "USD")
    )
    assert "Was: $300\nNow: $200" in text(credit)
    # The digest line carries the move too: what reached the channel in the issue lacked the $300.
    line = digest([("k", credit)], Family.text, "daily 09:00")[0].body
    assert "$300 → $200" in line


def test_added_and_removed_offers_say_their_terms() -> None:
    tracked = TrackedOffer(1, "tencent:old", "h", 1, "https://example.com/offers", offer_values(offer("满500减100")))
    ended = removal_change(tracked, provider="tencent", source="s", observed_at=WHEN)
    assert "Was: 满500减100" in text(ended)
    assert "Terms: 满1000减300, 30 天" in text(every_kind()["offer_added"])


def test_every_sample_says_before_and_after() -> None:
    kinds = every_kind()
    assert "Availability: sold out → available" in text(kinds["availability_changed"])
    assert "Price: 27.20 → 25.18 USD/hour (−7.43%)" in text(kinds["price_drop"])
    assert "Valid until: 2026-08-31 → 2026-09-30" in text(kinds["offer_changed"])
    gcp = text(gcp_credit())
    assert "Was: $300, 90 days\nNow: $200, 90 days" in gcp and "https://cloud.google.com/free" in gcp


def test_price_shows_gpu_where_and_the_configured_currency_with_its_date() -> None:
    config = Config.model_validate(
        {"alerts": {"currency": "CNY"}, "analytics": {"fx": FxSettings(date="2026-12-01", per_usd={"CNY": "7.2"})}}
    )
    (change,) = with_rates(config)([price()])
    body = text(change)
    assert "Per GPU-hour: 3.400 → 3.148 USD; 24.48 → 22.66 CNY (1 USD = 7.20 CNY, rate of 2026-12-01)" in body
    assert "GPU: 8 × A100 40GB" in body and "Where: azure · eastus · Standard_ND96asr_v4" in body
    # A change already in the configured currency is left as it is.
    same = Config.model_validate({"alerts": {"currency": "USD"}})
    assert with_rates(same)([price()])[0].detail == {}


def test_digest_groups_by_provider_and_kind_and_names_a_split_group_again() -> None:
    items = [(f"k{i}", price(key=f"k{i}", instance=f"Standard_NC{i}")) for i in range(60)]
    items.insert(5, ("off", every_kind()["credit_changed"]))
    messages = digest(items, Family.markdown, "daily 09:00")
    assert len(messages) > 1
    first = messages[0].body
    assert first.index("**azure · Price drop**") < first.index("- **−7.43% Standard_NC0")
    assert all("**azure · Price drop**" in m.body for m in messages)
    assert "**tencent · Credit changed**\n- **代金券**: 满1000减300 → 满1000减200" in messages[-1].body
    assert sum(len(m.row_keys) for m in messages) == 61


def test_money_reads_at_a_precision_for_its_size() -> None:
    assert readable(Decimal("70.5280000000")) == "70.53"
    assert readable(Decimal("0.0000000000")) == "0.00"
    assert readable(Decimal("3.0600")) == "3.06"
    assert readable(Decimal("0.041666")) == "0.04167"
    assert readable_pair(Decimal("70.528"), Decimal("70.529")) == ("70.528", "70.529")
    assert readable_pair(Decimal("3.4"), Decimal("3.1475")) == ("3.400", "3.148")
