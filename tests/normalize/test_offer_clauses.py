"""The notations of issue 39, as the issue writes them (not copied from a
page): ranges and alternatives, "$X off $Y", durations that are no validity,
questions, referral parties, currencies, and unread offers named."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from db.kinds import Eligibility, OfferKind
from tracker.normalize import NormalizeError
from tracker.normalize.offers import normalize
from tracker.normalize.offers.roles import read_offers


def one(text: str, **kw: Any) -> tuple:  # kind, amount, low, currency, min spend, days, eligibility
    offers = read_offers(text, **kw).offers
    assert len(offers) == 1, offers
    o = offers[0]
    return (o.kind, o.amount, o.amount_low, o.currency, o.min_spend, o.duration_days, o.eligibility)


def test_dollars_off_a_minimum_spend() -> None:
    got = one("$5 OFF $15: a minimum purchase of $15 is required, valid for 30 days")
    assert got == (OfferKind.voucher, Decimal(5), None, "USD", Decimal(15), 30, None)


def test_ranges_and_alternatives() -> None:
    assert one("10 元 ~ 80 元不等的满减券、无门槛代金券")[1:4] == (Decimal(80), Decimal(10), "CNY")
    assert one("Startups get credits worth $1,000 to $5,000")[1:4] == (Decimal(5000), Decimal(1000), "USD")
    got = one("Refer a friend: your friend gets $3 or $8 of credit")
    assert got[1:4] == (Decimal(8), Decimal(3), "USD") and got[6] == Eligibility.referred


def test_durations_that_are_no_validity() -> None:
    assert one("2周岁用户续费专区 续费享7折")[5] is None
    assert read_offers("续费时长为1年,续费享6折").offers[0].duration_days is None
    assert one("Claim $100 in credits within 180 days of registration")[5] is None
    assert one("Founded within the last 5 years? Get up to $2,000 in credits")[5] is None


def test_questions_are_context() -> None:
    title = "I was approved for $2,000 in credits. How do I request more?"
    assert read_offers("Submit a request in the portal.", title=title).offers == []
    assert read_offers("How many times can I get the $25 credit?").offers == []


def test_referral_parties() -> None:
    text = (
        "Anyone you refer will receive $10 in credit after adding a payment method. "
        "In return, we'll give you $25 for each friend, once they are billed $25."
    )
    got = [(o.amount, o.eligibility) for o in read_offers(text).offers]
    assert got == [(Decimal(10), Eligibility.referred), (Decimal(25), Eligibility.referrers)]
    text = (
        "When someone you refer loads their first $10, both of you get a reward worth between $5 and $500 in credits."
    )
    both = read_offers(text).offers
    assert {o.eligibility for o in both} == {Eligibility.referred, Eligibility.referrers}


def test_currencies_and_localized_words() -> None:
    assert one("500円のクーポン")[:4] == (OfferKind.voucher, Decimal(500), None, "JPY")
    assert one("1,000 USD 分の AWS クレジット (2 年間有効)")[5] == 730
    assert one("₹5,000 free credits for new users")[3] == "INR"


def test_a_block_with_two_offers_gives_both() -> None:
    offers = read_offers("年付享85折,3年期最高可获4.5折优惠").offers
    assert sorted(o.percent_off or Decimal(0) for o in offers) == [Decimal(15), Decimal(55)]


def _item(ident: str, text: str) -> Any:
    data = {"id": ident, "title": ident, "text": text}
    return {
        "kind": "offer",
        "provider": "demo",
        "observed_at": "2026-08-03T06:00:00Z",
        "source_url": "https://x/",
        "data": data,
    }


def test_unread_offers_are_named_not_hidden() -> None:
    good = _item("credit", "Get $300 in free credits")
    odd = _item("odd", "Spend $100, earn 2x credits")
    out = normalize([good, odd, _item("faq", "How to sign in")])
    assert "odd" in " ".join(out.notes) and "could not be read" in " ".join(out.notes)
    # A page whose only offer-like blocks cannot be read is new words, not a broken page.
    only = normalize([odd, _item("faq", "How to sign in")])
    assert only.offers == [] and only.unread_offers == ["demo:odd"]
    assert "could not be read (please report them): demo:odd" in only.notes[0]
    with pytest.raises(NormalizeError, match="none of the 1 blocks read states an offer"):
        normalize([_item("faq", "How to sign in")])


def test_traditional_chinese_reads_as_simplified() -> None:
    got = one("阿里雲新用戶專享 20元代金券 有效期: 7天")
    assert got == (OfferKind.voucher, Decimal(20), None, "CNY", None, 7, Eligibility.new_users)
    assert one("註冊即送 50 元代金券")[6] == Eligibility.new_users


def test_currencies_of_every_provider() -> None:
    assert one("Get ¥30,000 in free credits when you sign up", default_currency="JPY")[1:4] == (
        Decimal(30000),
        None,
        "JPY",
    )
    assert one("Recevez 200 € de crédits à l'inscription.")[1:4] == (Decimal(200), None, "EUR")
    assert one("Neue Kunden erhalten 100 € Guthaben.")[3:] == ("EUR", None, None, Eligibility.new_users)
    assert one("신규 가입 시 ₩100,000 크레딧 제공")[3] == "KRW"
    assert one("Get £150 credit when you sign up.")[3] == "GBP"
    assert one("Receive S$500 credit for new users.")[3] == "SGD"
    assert one("云服务器 新用户专享 HK$100 代金券")[3] == "HKD"


def test_windows_ages_and_inactivity_are_conditions() -> None:
    offers = read_offers("Claim $50 of free credit in the first 60 days.").offers
    assert offers[0].duration_days is None and offers[0].conditions == ["claim_window"]
    used = read_offers("Eligible customers receive a $200 credit, which can be used within the first 30 days").offers
    assert used[0].duration_days == 30 and used[0].conditions == []
    lapse = read_offers("Inactive accounts for 90 days lose their credits. New users get $50 credit.").offers
    assert lapse[0].duration_days is None and "inactivity" in lapse[0].conditions
    founded = read_offers(
        "Startups founded within the last 5 years get up to $100,000 in credits, valid for 12 months."
    )
    o = founded.offers[0]
    assert (o.kind, o.duration_days, o.eligibility) == (OfferKind.startup_credit, 365, Eligibility.startups)
    assert read_offers("长期续费折扣:选择3年续费周期可享受较1年续费额外15%的折扣力度").offers[0].duration_days is None


def test_limits_and_top_ups_are_not_offers() -> None:
    assert read_offers('The company must "not have received more than $350,000 in lifetime free credits."').offers == []
    assert read_offers("Top up $50 and earn 2x bonus credits.").offers == []


def test_two_offers_of_one_sentence_and_a_restatement() -> None:
    text = "Benefits include up to $200,000 in cloud credits for startups and up to $350,000 for AI-first startups."
    assert [o.amount for o in read_offers(text).offers] == [Decimal(200000), Decimal(350000)]
    again = (
        "Up to 5,000 USD in Activate Credits. Select participants may qualify for additional credits up to 5,000 USD."
    )
    assert [o.amount for o in read_offers(again).offers] == [Decimal(5000)]


def test_referral_parties_across_clauses() -> None:
    got = read_offers("Give your friends $10 to host their projects and get $25 yourself").offers
    assert [(o.amount, o.eligibility) for o in got] == [
        (Decimal(10), Eligibility.referred),
        (Decimal(25), Eligibility.referrers),
    ]
    got = read_offers("Earn $25 for every friend who signs up; they get $10.").offers
    assert [(o.amount, o.eligibility) for o in got] == [
        (Decimal(25), Eligibility.referrers),
        (Decimal(10), Eligibility.referred),
    ]
    card = read_offers("邀请人每成功邀请一位新用户并绑定关系,可自动获得一张 3 天 基础会员卡券。").offers
    assert [(o.kind, o.duration_days, o.eligibility) for o in card] == [
        (OfferKind.free_trial, 3, Eligibility.referrers)
    ]


def test_card_hours_are_gpu_hours() -> None:
    o = read_offers("审核通过后,系统将发放每月最高 2000 卡时的免费额度").offers[0]
    assert o.kind == OfferKind.free_trial and o.gpu_time is not None and o.gpu_time.amount == 2000


def test_a_startup_programs_referral_is_no_referral_program() -> None:
    got = read_offers("If you were invited by a VC partner, you will receive up to $150,000 in credits.").offers
    assert [(o.kind, o.amount, o.eligibility) for o in got] == [
        (OfferKind.startup_credit, Decimal(150000), Eligibility.startups)
    ]
    plus = read_offers("Founders Hub members get $150,000 in Azure credits plus $2,500 in OpenAI credits.").offers
    assert [o.amount for o in plus] == [Decimal(150000), Decimal(2500)]


def test_validity_only_from_validity_phrases() -> None:
    assert one("$300 credit to spend over 90 days")[5] == 90
    assert one("代金券 100 元，有效期 30 天")[5] == 30
    # A length no validity phrase claims is said, not stored as the offer's validity.
    assert one("2 年老用户专享 100 元代金券")[5] is None


def test_chinese_coupons_subsidies_and_gpu_hours() -> None:
    ladder = read_offers("满 500 元可使用 50 元优惠券，满 2000 元可使用 300 元优惠券。").offers
    assert [(o.amount, o.min_spend) for o in ladder] == [(Decimal(50), Decimal(500)), (Decimal(300), Decimal(2000))]
    assert one("企业用户可申请最高 10 万元的上云补贴。", default_currency="CNY")[1] == Decimal(100000)
    assert one("实名认证即可获得 20 元算力券。")[0] == OfferKind.voucher
    hours = read_offers("高校学生用户每学期可免费领取 100 小时 GPU 算力。").offers[0]
    assert hours.gpu_time is not None and (hours.gpu_time.amount, hours.eligibility) == (100, Eligibility.students)
    h100 = read_offers("The first 100 sign-ups get a free H100 for 24 hours.").offers[0].gpu_time
    assert h100 is not None and (h100.amount, h100.gpu) == (24, "H100")
    a6000 = read_offers("New users receive 10 free GPU hours on an RTX A6000.").offers[0].gpu_time
    assert a6000 is not None and a6000.gpu == "RTX A6000"
    # The most a discount takes off is a cap of that discount, not a voucher.
    capped = read_offers("首次续费用户可领取通用折扣券,享受额外7.5折优惠,单笔最高减免12500元。").offers
    assert [(o.kind, o.percent_off, o.amount) for o in capped] == [(OfferKind.renewal_discount, Decimal(25), None)]


def test_startup_and_student_words_of_localized_pages() -> None:
    korean = one("스타트업은 최대 ₩10,000,000 크레딧을 받을 수 있습니다.")
    assert (korean[0], korean[3], korean[6]) == (OfferKind.startup_credit, "KRW", Eligibility.startups)
    assert one("Les étudiants reçoivent 100 € de crédits.")[6] == Eligibility.students
    assert one("Studierende erhalten 100 € Guthaben.")[6] == Eligibility.students
    assert read_offers("教育优惠：在校师生可享 7 折。").offers[0].eligibility == Eligibility.students


def test_balances_and_aggregates_are_not_offers() -> None:
    assert read_offers("Your account has $25 of remaining credit.").offers == []
    assert read_offers("The program has given out over $1 billion in credits to startups since 2013.").offers == []
    assert one("Startups can get up to $1 million in credits.")[1] == Decimal(1000000)
    assert one("新用户注册赠送 5 元余额。")[1] == Decimal(5)


def test_ranges_of_percentages() -> None:
    def span(text: str) -> tuple:
        o = read_offers(text).offers[0]
        return (o.kind, o.percent_off_low, o.percent_off)

    assert span("Spot instances can cut your compute bill by 50–80%.") == (
        OfferKind.spot_discount,
        Decimal(50),
        Decimal(80),
    )
    assert span("抢占式实例可节省50%~70%。")[1:] == (Decimal(50), Decimal(70))
    assert read_offers("Prices rose 10-20% this year.").offers == []


def test_top_up_bonuses_and_rebates() -> None:
    got = read_offers("Recharge 200 to receive a 20 bonus (equivalent to 10% off)", default_currency="CNY").offers
    assert [(o.kind, o.amount, o.min_spend, o.percent_off) for o in got] == [
        (OfferKind.free_credit, Decimal(20), Decimal(200), None)
    ]
    first = read_offers("新用户首充 ¥1 得 ¥10").offers[0]
    assert (first.amount, first.min_spend, first.eligibility) == (Decimal(10), Decimal(1), Eligibility.new_users)
    rebate = read_offers("充值3000-19900 返3%代金券").offers[0]
    assert (rebate.kind, rebate.percent_off, rebate.min_spend) == (OfferKind.voucher, Decimal(3), Decimal(3000))


def test_percent_words_terms_and_term_ladders() -> None:
    spot = read_offers("Spot VMs offer 60 to 90 percent discounts compared to on-demand pricing.").offers[0]
    assert (spot.kind, spot.percent_off_low, spot.percent_off) == (OfferKind.spot_discount, Decimal(60), Decimal(90))
    paying = read_offers("3% discount when paying for 2 months").offers[0]
    assert (paying.percent_off, paying.duration_days) == (Decimal(3), None)
    ladder = read_offers("企业新用户上云专属机型1年5折，2年4.5折。").offers
    assert [(o.percent_off_low, o.percent_off) for o in ladder] == [(Decimal(50), Decimal(55))]
    assert read_offers("BWH3HYATVBJW（优惠力度 6.25%）").offers[0].percent_off == Decimal("6.25")


def test_examples_headings_and_quotas() -> None:
    assert (
        read_offers(
            "A voucher can be used many times. For example, if a voucher is worth 100 CNY and 30 CNY is used, 70 CNY remain."
        ).offers
        == []
    )
    assert read_offers("代金券一般由云服务提供商发放", title="1.1 代金券的来源").offers == []
    assert read_offers("客户A实付1200元", title="规则举例说明:").offers == []
    assert one("免费额度 ¥300/月")[:4] == (OfferKind.free_credit, Decimal(300), None, "CNY")
    assert read_offers("每周提供数十小时免费GPU算力（Tesla V100）").offers == []
    vs = one("Monthly Credit Amount (USD): $150", title="Visual Studio Enterprise")
    assert vs[6] is None  # a product's name is not an eligibility
    github = read_offers("GitHub Proプランを2年間無料で使用できるようになります。").offers[0]
    assert (github.kind, github.duration_days) == (OfferKind.free_trial, 730)


def test_rebates_lists_and_stacking() -> None:
    rebate = read_offers("累计新购满2888元返10%的阿里云代金券").offers[0]
    assert (rebate.kind, rebate.percent_off, rebate.min_spend) == (OfferKind.voucher, Decimal(10), Decimal(2888))
    ranged = read_offers("购买储值卡 充值立返3%-5%").offers[0]
    assert (ranged.percent_off_low, ranged.percent_off) == (Decimal(3), Decimal(5))
    listed = one("通用代金券:面额分别为50元、100元、200元、500元不等。")
    assert listed[:3] == (OfferKind.voucher, Decimal(500), Decimal(50))
    assert read_offers("双11期间部分云盘产品支持「3.4折+代金券+返现」三重叠加").offers[0].percent_off == Decimal(66)
    assert read_offers("有的优惠幅度高达半价").offers[0].percent_off == Decimal(50)
    quote = "Anyone you refer will receive $10 in credit. In return, we’ll give you $25 for each friend."
    assert [o.eligibility for o in read_offers(quote).offers] == [Eligibility.referred, Eligibility.referrers]


def test_estimates_examples_and_limits_are_no_offers() -> None:
    assert read_offers("优惠组合: 注册礼券+折扣券; 节省幅度: 最高60%").offers == []
    assert read_offers("通过合理规划可降低30%-60%续费成本").offers == []
    assert read_offers("举例:用户新购一台1年付主机,享受83折需支付1000元,续费2年享受7折。").offers == []
    assert read_offers("用户最多可抢到2张50元通用代金券、2张100元通用代金券。", title="4、抢券数量限制").offers == []
    hypothetical = (
        "If you run a VM that costs $50 a month and you have a $200 credit, your credit balance drops to $150."
    )
    assert read_offers(hypothetical).offers == []
    assert [
        (o.percent_off_low, o.percent_off) for o in read_offers("You can receive between 10% and 25% discount.").offers
    ] == [(Decimal(10), Decimal(25))]


def test_shares_as_vouchers_and_stated_discounts() -> None:
    share = read_offers("自动续费奖励:开通自动续费可额外获得5%-10%代金券").offers[0]
    assert (share.kind, share.percent_off_low, share.percent_off) == (OfferKind.voucher, Decimal(5), Decimal(10))
    assert read_offers("– more than 3 months, your discount will be 1%;").offers[0].percent_off == Decimal(1)
    assert read_offers("最主要的活动是充值返券+新购ECS 5折 + 新购满额再返券").offers[0].percent_off == Decimal(50)
    credit = read_offers("新用户云产品体验金(有效期30天)").offers[0]
    assert (credit.kind, credit.duration_days) == (OfferKind.free_credit, 30)


def test_a_startup_programs_tiers() -> None:
    text = "The public Activate page shows a ladder: $1,000 for Builders, $5,000 for Founders."
    assert [o.amount for o in read_offers(text).offers] == [Decimal(1000), Decimal(5000)]
    assert one("Activate offers a $5,000 Founders tier.")[:2] == (OfferKind.startup_credit, Decimal(5000))


def test_both_parties_each_getting_a_sum_is_a_referral_of_two_offers() -> None:
    """'双方各得 $50 额度' (both parties each get): the friend who signs up and
    the one who shared the link, one offer each; '双方各自承担' (each bears
    their own) is a contract's words, no referral."""
    both = read_offers("对方通过链接注册且在 90 天内消费 $20+，双方各得 $50 额度。", default_currency="USD").offers
    assert sorted((o.amount, str(o.eligibility)) for o in both) == [
        (Decimal(50), "referred"),
        (Decimal(50), "referrers"),
    ]
    own = read_offers("赠送 $50 额度，相关税费由双方各自承担。", default_currency="USD").offers
    assert [o.eligibility for o in own] == [None]
