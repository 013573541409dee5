"""Chinese notations learned from offer_pages_more_zh.toml (issue 39), each
written as the notation, not copied from a page: hours of compute power as
GPU time, the referrer who brings in new users, a monthly gift received,
USD$ amounts and 点数 (Azure's Traditional-Chinese word for credits)."""

from __future__ import annotations

from decimal import Decimal

from db.kinds import Eligibility, OfferKind
from tracker.normalize.offers.roles import read_offers


def test_hours_of_compute_power_are_gpu_time_with_their_validity() -> None:
    (offer,) = read_offers("每天签到可获得 5 小时算力卡（有效期三天）").offers
    assert offer.kind == OfferKind.free_trial and offer.duration_days == 3
    assert offer.gpu_time is not None and (offer.gpu_time.amount, offer.gpu_time.unit) == (Decimal(5), "gpu_hour")
    (named,) = read_offers("参赛可获得【专属算力】（一般为 50 小时）").offers
    assert named.gpu_time is not None and named.gpu_time.amount == Decimal(50)


def test_a_trial_of_hours_on_several_cards_names_no_model() -> None:
    (offer,) = read_offers("新用户注册即享【畅玩 6 小时】体验，含 4090、H20 等算力卡").offers
    assert offer.gpu_time is not None and (offer.gpu_time.amount, offer.gpu_time.gpu) == (Decimal(6), None)
    assert offer.eligibility == Eligibility.new_users
    assert read_offers("限制：每周最多使用 70 小时").offers == []  # a limit, no compute given


def test_who_brings_in_new_users_is_the_referrer() -> None:
    (offer,) = read_offers("每拉取一个新用户注册即可获得 2 小时算力卡").offers
    assert offer.eligibility == Eligibility.referrers


def test_a_monthly_gift_received_is_no_rate_and_usd_dollar_and_dianshu() -> None:
    (offer,) = read_offers("會員每月都會免費收到 USD$50 的 Azure 點數").offers
    assert (offer.kind, offer.amount, offer.currency) == (OfferKind.free_credit, Decimal(50), "USD")
    assert read_offers("估計每月 USD$50 可讓您使用多少的量").offers == []  # an estimate, nothing given
