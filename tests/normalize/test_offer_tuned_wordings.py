"""Wordings of the tuned pages (issue 39) read once each block was read in
its page's context, each a real block of tests/data/offer_pages_more_en.toml
or offer_pages_more_zh*.toml: "get a maximum of" a sum is a credit up to it,
"双方各 $50" a referral's two credits, a sum with 券 and 无门槛 a voucher,
新手 (a beginner) a new user."""

from __future__ import annotations

from decimal import Decimal

from db.kinds import Eligibility, OfferKind
from tracker.normalize.offers.context import Context
from tracker.normalize.offers.roles import read_offers
from tracker.normalize.offers.words import eligibility


def offers(text: str, title: str | None = None, currency: str = "USD") -> list[tuple[object, ...]]:
    return [
        (o.kind, o.amount, o.currency, o.eligibility)
        for o in read_offers(text, title=title, default_currency=currency).offers
    ]


def test_get_a_maximum_of_a_sum_is_a_credit_up_to_it() -> None:
    text = (
        "You can get a maximum of $300 in cloud credits from each friend that you referred. "
        "There is no limit for the total number of referrals."
    )
    assert offers(text) == [(OfferKind.free_credit, Decimal(300), "USD", Eligibility.referrers)]


def test_both_parties_each_get_a_sum() -> None:
    assert offers("每个合格推荐：双方各 $50", title="领取") == [
        (OfferKind.free_credit, Decimal(50), "USD", Eligibility.referred),
        (OfferKind.free_credit, Decimal(50), "USD", Eligibility.referrers),
    ]


def test_a_sum_with_quan_is_a_voucher() -> None:
    text = "实际内容: ¥300 券，但未列明覆盖 GPU，且不可叠加; 可用性: ⚠️ 未核实"
    assert offers(text, title="阿里云 云工开物", currency="CNY") == [(OfferKind.voucher, Decimal(300), "CNY", None)]


def test_a_beginners_voucher_without_a_threshold_is_a_new_users_voucher() -> None:
    text = "实际内容: 无门槛 ¥50（≈24 小时 4090 积分）; 可用性: ❌ 仅可用于云主机/弹性部署档，而该档官方禁用 "
    assert offers(text, title="共绩算力 新手券", currency="CNY") == [
        (OfferKind.voucher, Decimal(50), "CNY", Eligibility.new_users)
    ]


def test_a_credit_on_signup_is_for_new_users() -> None:
    text = "Website: https://spell.run/developers; Pricing: pricing :label:; Free Trial / Free Credits: $10 GPU credit on signup"
    assert offers(text, title="Spell") == [(OfferKind.free_credit, Decimal(10), "USD", Eligibility.new_users)]


def test_the_github_education_pack_is_for_students() -> None:
    text = "Github Education pack - along with many offers has upto $110 credits for AWS - link"
    assert offers(text) == [(OfferKind.free_credit, Decimal(110), "USD", Eligibility.students)]


def test_register_and_enjoy_is_for_new_users() -> None:
    text = "Register and complete identity verification to instantly enjoy the [Full Access 8-Hour Package] experience!"
    assert eligibility(text) == Eligibility.new_users
    assert eligibility("Click on the following button to share your referral code via email.") is None


def test_new_purchases_and_renewals_alike_are_a_discount_and_a_renewal_discount() -> None:
    text = "· 面向全用户开放云主机2年7折、3年5 折的年付优惠 · 针对新购或续费的云主机,适用于所有机型 · 可与销售折扣叠加,为折上折 |"
    got = read_offers(text, default_currency="CNY").offers
    assert [(o.kind, o.percent_off, o.percent_off_low) for o in got] == [
        (OfferKind.discount, Decimal(50), Decimal(30)),
        (OfferKind.renewal_discount, Decimal(50), Decimal(30)),
    ]
    renewed = "2. Active Server Packages can be renewed for 1 year in advance, billed upfront, with a 33 percent discount calculated based on the regular annual renewal fee."
    assert [(o.kind, o.percent_off) for o in read_offers(renewed).offers] == [
        (OfferKind.renewal_discount, Decimal(33))
    ]  # renewals alone


def test_what_a_prize_of_goods_is_worth_is_no_credit() -> None:
    prize = "【腾讯云】买云服务器，参与礼品兑换、抽奖，最高送价值 8000 元 IPad，还有 Bose 耳机、千元京东卡等您来！"
    assert offers(prize, currency="CNY") == []
    worth = "本文将介绍如何免费领取 Google Cloud Platform (GCP) 赠金，并使用这些赠金体验 Google AI Studio 及其他谷歌云服务。这些赠金来自上海谷歌开发者大会，价值 5 美元，有效期为 180 天。"
    assert offers(worth, currency="CNY") == [(OfferKind.free_credit, Decimal(5), "USD", None)]  # a credit worth $5


def test_days_of_free_quota_without_a_sum_are_a_trial() -> None:
    (offer,) = read_offers("一键入库随问随引，RAG新客享30天免费额度", title="企业知识库").offers
    assert (offer.kind, offer.amount, offer.duration_days, offer.eligibility) == (
        OfferKind.free_trial,
        None,
        30,
        Eligibility.new_users,
    )


def test_faculty_are_no_students() -> None:
    text = "Credit will have a value of $100 USD for faculty members and $50 for students."
    assert offers(text, title="What is the value of the credit which we will be receiving?") == [
        (OfferKind.free_credit, Decimal(100), "USD", Eligibility.all),
        (OfferKind.free_credit, Decimal(50), "USD", Eligibility.students),
    ]


def test_a_commitments_length_is_no_validity() -> None:
    text = (
        "Reserved Instances function as capacity guarantees. Prepay for compute time upfront, locking in rates for "
        "1 or 3-year periods. RunPod offers H100 SXM reserved at approximately $1.94/hour versus $2.69/hour "
        "on-demand, delivering 28% savings."
    )
    (offer,) = read_offers(text, title="Reserved Instance Economics").offers
    assert (offer.kind, offer.percent_off, offer.duration_days) == (OfferKind.discount, Decimal(28), None)


def test_smes_are_enterprises() -> None:
    text = "【腾讯云】中小企业福利专场，多款刚需产品，满足企业通用场景需求，云服务器 2.5 折起"
    (offer,) = read_offers(text, default_currency="CNY").offers
    assert (offer.kind, offer.percent_off, offer.eligibility) == (
        OfferKind.discount,
        Decimal(75),
        Eligibility.enterprise,
    )


def test_a_free_trial_credit_is_for_new_users() -> None:
    text = "它是什么 Google Cloud 为您提供了高达 300 美元的免费试用赠金。试用赠金会发放到您创建的第一个结算账号。"
    assert offers(text, currency="CNY") == [(OfferKind.free_credit, Decimal(300), "USD", Eligibility.new_users)]


def test_a_grant_to_be_spent_is_one_had_however_far_its_verb() -> None:
    text = (
        "— During the first 2 months of the Trial Period, the Client should spend the standard Grant of 200 000 rubles."
    )
    assert offers(text, currency="RUB") == []


def test_a_story_of_a_bill_cut_is_no_offer() -> None:
    story = (
        "A few years back I was helping a fintech startup cut their AWS bill. They were running a sprawling ETL "
        "pipeline on On-Demand m5.xlarge instances 24/7 and spending around $28,000 a month just on those batch "
        "jobs. Within six weeks of migrating them to Spot Instances with proper interruption handling, that same "
        "workload was costing $5,400 a month. Same results, same throughput, 80% cheaper."
    )
    assert offers(story) == []
    assert read_offers(story).why_not == "a story"


def test_hours_given_on_a_gpu_are_gpu_time() -> None:
    paddle = (
        "PaddlePaddle用户可领取免费Tesla V100在线算力资源，高效训练模型，每日登陆即送12小时，连续五天运行再加送48小时，"
        "前往使用免费算力。"
    )
    got = [(o.kind, o.gpu_time) for o in read_offers(paddle, title="PaddlePaddle Models").offers]
    assert got and all(kind == OfferKind.free_trial for kind, _ in got)
    assert {(t.amount, t.unit, t.gpu) for _, t in got if t} >= {(Decimal(12), "gpu_hour", "V100")}
    (studio,) = read_offers(
        "实际内容: 首次绑定送 20 机时，但 GPU Docker 未经证实，且无 24GB 卡; 可用性: ⚠️ 未核实"
    ).offers
    assert studio.gpu_time is not None and (studio.gpu_time.amount, studio.gpu_time.gpu) == (Decimal(20), None)
    package = (
        "Register and complete identity verification to instantly enjoy the [Full Access 8-Hour Package] experience! "
        "This includes several power cards like 3090, 4090, and H20, giving you access to powerful computing resources!"
    )
    (trial,) = read_offers(package).offers
    assert trial.gpu_time is not None and (trial.gpu_time.amount, trial.gpu_time.gpu) == (Decimal(8), None)
    assert trial.eligibility == Eligibility.new_users


def test_a_term_ladder_joined_by_yiji_is_one_ranged_discount() -> None:
    text = "4、主机(CPU、内存、网络增强)和磁盘(本地磁盘、云盘、数据方舟)享受2年7折以及3年5折的优惠,而外网弹性IP购买1年及其以上,均为83折优惠。"
    got = [(o.kind, o.percent_off, o.percent_off_low) for o in read_offers(text, default_currency="CNY").offers]
    assert (OfferKind.discount, Decimal(50), Decimal(30)) in got


def test_credits_from_a_sum_to_another_are_a_range_of_credit() -> None:
    text = "If you are a Startup then google has you covered wth Startup Program giving you credits from $1000 to $100000 - link"
    (offer,) = read_offers(text).offers
    assert (offer.kind, offer.amount, offer.amount_low, offer.eligibility) == (
        OfferKind.startup_credit,
        Decimal(100000),
        Decimal(1000),
        Eligibility.startups,
    )


def test_months_of_credit_are_a_credit_for_that_long() -> None:
    text = "DigitalOcean Hatch Program https://www.digitalocean.com/hatch - 12 months of infrastructure credit"
    (offer,) = read_offers(text).offers
    assert (offer.kind, offer.amount, offer.duration_days) == (OfferKind.free_credit, None, 365)
    context = Context(
        page="Perks, grants and discounts for startups", section="Perks, grants and discounts for startups"
    )
    (startup,) = read_offers(text, context=context).offers
    assert (startup.kind, startup.eligibility) == (OfferKind.startup_credit, Eligibility.startups)


def test_a_validity_in_words_and_bracketed_digits_counts_the_digits() -> None:
    text = (
        "4.1. Grant. The Member is provided with a Grant — up to 500 USD. The Grant validity period: up to one "
        "hundred and eighty (180) calendar days."
    )
    (offer,) = read_offers(text).offers
    assert (offer.kind, offer.amount, offer.duration_days) == (OfferKind.free_credit, Decimal(500), 180)


def test_an_offer_no_longer_made_is_no_offer() -> None:
    text = (
        "What You Get: None currently — GCP merged these into Always Free; Duration: N/A; Scope: N/A; "
        "What Happens When It Ends: N/A (GCP simplified this in 2024)"
    )
    reading = read_offers(text, title="12-Month Free Services")
    assert (reading.offers, reading.why_not) == ([], "no longer offered")
