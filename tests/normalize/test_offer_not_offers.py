"""Blocks that state no offer give none (issue 39, noise on pages never
seen): sums in calculations and worked examples, refunds, compensation,
payouts and earnings, thresholds, credits someone already has, rates and
budgets, rules about how long a free quota lasts; and beside each, a sentence
as near as can be that does state an offer, so that a rule that swallows
offers fails too. Written like the billing docs, SLAs and marketplace pages of
tests/data/offer_pages_more_noise.toml, not copied from them."""

from __future__ import annotations

from decimal import Decimal

import pytest

from db.kinds import Eligibility, OfferKind
from tracker.normalize.offers.roles import read_offers


def offers(text: str, currency: str = "CNY", title: str | None = None) -> list[tuple]:
    found = read_offers(text, title=title, default_currency=currency).offers
    return [(o.kind, o.amount, o.currency, o.percent_off, o.duration_days, o.gpu_time) for o in found]


NOT_OFFERS = [
    # a sum worked out: its figures are the calculation's
    ("8核的服务器使用了1个自然月，则补贴金额为2元（2 * 1）", "CNY"),
    ("总的补贴金额为7元，补贴金额计算如下：", "CNY"),
    ("总的补贴金额为7元（2 + 5）。", "CNY"),
    ("按剩余算力退款 举例1：订单 100元送20算力，消耗掉10个算力，110/120 X 100元=退款金额", "CNY"),
    # paid back, paid for a loss, earned: no offer
    ("Refunds of up to $500 in credits are processed within 10 business days.", "USD"),
    ("因平台故障造成损失的，将补偿 100 元代金券至您的账户。", "CNY"),
    ("If a host's machine goes offline, renters receive a refund credit of $5 for every hour of downtime.", "USD"),
    ("Payouts are made once your referral earnings reach $50 in credits.", "USD"),
    # a rate, a budget, a threshold
    ("Hosts earn $0.40 per GPU hour, minus a 25% platform fee.", "USD"),
    ("每月免费额度 100 万 tokens，超出部分按 0.002 元/千 tokens 计费。", "CNY"),
    ("→ 不要按免费额度做预算，按 ¥12–20 备。", "CNY"),
    ("金额限制:代金券可能对订单的应付金额有限制,满¥100可用。", "CNY"),
    ("Ce programme concerne les startups disposant de crédits (25 000 $ ou plus en crédits Azure).", "USD"),
    # a credit someone has, charged against or used up
    ("Your balance includes a $20 promotional credit that expires on June 30.", "USD"),
    ("超出部分的使用费将计入 Google Cloud 300 美元试用赠金。", "USD"),
    ("If you were issued a $300 credit, it appears under Billing > Credits.", "USD"),
    ("The credit of $200 you received expires 30 days after activation.", "USD"),
    # a bound of a rule
    ("Each account may hold at most $10,000 in promotional credits at a time.", "USD"),
    ("试用期结束或 300 美元赠金用完时，试用期即结束。", "USD"),
    # how long a free quota lasts, how long trials usually run
    ("免费额度自领取后 6 个月（以 180 天计）内有效。", "CNY"),
    ("有效期管理:试用周期通常为30天,到期后实例自动释放且数据不可恢复。", "CNY"),
]


@pytest.mark.parametrize(("text", "currency"), NOT_OFFERS)
def test_blocks_that_state_no_offer_give_none(text: str, currency: str) -> None:
    assert offers(text, currency) == []


def test_near_identical_sentences_that_state_an_offer_give_it() -> None:
    # a subsidy given, not worked out
    assert offers("开通服务即补贴 200 元算力券。") == [(OfferKind.voucher, Decimal(200), "CNY", None, None, None)]
    # a credit given to whoever signs up, not a refund or a payout
    assert offers("New customers receive a $100 service credit to try GPU instances.", "USD") == [
        (OfferKind.free_credit, Decimal(100), "USD", None, None, None)
    ]
    assert offers("New accounts are issued a $300 credit.", "USD") == [
        (OfferKind.free_credit, Decimal(300), "USD", None, None, None)
    ]
    assert offers("Each new account gets up to $10,000 in promotional credits.", "USD")[0][:2] == (
        OfferKind.free_credit,
        Decimal(10000),
    )
    assert offers("Refer a friend and you both get $25 in credits.", "USD")[0][:3] == (
        OfferKind.free_credit,
        Decimal(25),
        "USD",
    )
    # a voucher given, with how long it lasts
    assert offers("首次部署网站后赠送 30 元代金券，30 天内有效。") == [
        (OfferKind.voucher, Decimal(30), "CNY", None, 30, None)
    ]
    assert offers("代金券金额: 10 元; 代金券时长: 6 个月; 代金券类型: 后付费无门槛", title="对象存储 COS") == [
        (OfferKind.voucher, Decimal(10), "CNY", None, 180, None)
    ]
    # a trial of three months' free use, not a credit of no amount
    assert offers("使用动态网站部署，自动赠送三个月免费使用量：") == [
        (OfferKind.free_trial, None, None, None, 90, None)
    ]
    # a voucher for an order of at least ¥100 is one offer, its threshold a minimum spend
    ladder = read_offers("新用户领取满100元可用20元代金券", default_currency="CNY").offers
    assert [(o.kind, o.amount, o.min_spend, o.eligibility) for o in ladder] == [
        (OfferKind.voucher, Decimal(20), Decimal(100), Eligibility.new_users)
    ]


def test_free_gpu_time_is_hours_given_not_a_price_tables_unit() -> None:
    trial = read_offers("All new users get a free 2 hour GPU Powerup for a 14 day trial period.").offers
    assert [(o.kind, o.gpu_time.amount if o.gpu_time else None, o.duration_days) for o in trial] == [
        (OfferKind.free_trial, Decimal(2), 14)
    ]
    assert read_offers("CPU算力：0.005算力/核/小时，GPU 算力 0.1 小时起计费").offers == []
