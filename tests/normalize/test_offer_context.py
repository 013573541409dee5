"""A block read in its page's context (issue 39): the page's title, the
heading above the block and what the page is about say whom an offer is for
and what it is, where the block alone does not; they never make an offer of
a block that states none. The wordings are real blocks of the tuned pages
(tests/data/offer_pages_more_en2.toml, offer_pages_more_en.toml,
offer_pages_more.toml)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from db.kinds import Eligibility, OfferKind
from tests.helpers.harutil import from_jsonl
from tracker.normalize.offers import normalize
from tracker.normalize.offers.context import REFERRAL, STARTUPS, Context, contexts, topics
from tracker.normalize.offers.roles import read_offers

# A startup-credit round-up (tests/data/offer_pages_more_en2.toml): its title
# and tier rows, as the corpus gives them (no heading names the programs).
ROUNDUP = "https://github.com/phoenixvc/PhoenixRooivalk/blob/c32b82e7e352c646fbfdc8323069a561f43c7d0c/apps/docs/docs/business/opportunities/cloud-credits-programs.md"
ROUNDUP_BLOCKS = [
    {
        "title": "Overview",
        "text": "Major cloud providers offer significant credits and support for startups. Combined, these programs can provide $500K-$1M+ in cloud resources for infrastructure, AI/ML, and IoT development.",
    },
    {"title": "AWS Activate", "text": "Max Credits: $100,000; Requirements: VC-backed"},
    {"title": "Microsoft Founders Hub", "text": "Max Credits: $150,000; Requirements: Startups"},
    {"title": "Google for Startups", "text": "Max Credits: $350,000; Requirements: AI-first"},
    {"title": "NVIDIA Inception", "text": "Max Credits: $150,000+; Requirements: AI/ML focus"},
    {"title": "Total", "text": "Max Credits: $750,000+"},
    {"title": "Founders", "text": "Credits: $1,000; Requirements: Any startup"},
    {"title": "How to Apply", "text": "Founders Tier: Self-serve at aws.amazon.com/activate"},
    {"title": "Idea Stage", "text": "Credits: $1,000; Duration: 12 months"},
    {"title": "Investment", "text": "$250,000 direct investment"},
    {"title": "Hardware Discounts", "text": "Value: 15-50% off GPUs"},
]
REFERRAL_PAGE = "https://www.alibabacloud.com/campaign/referral"
REFERRAL_BLOCKS = [
    {"title": "Share", "text": "Share your referral code with your friends."},
    {"title": "Get $20", "text": "Get $20 if your friend's spending reaches $20"},
    {
        "title": "$10 Cloud Credit",
        "text": "No minimum purchase amount required. Applicable to select Alibaba Cloud products and valid for 60 days.",
    },
    {
        "title": "$10 OFF $20",
        "text": "A minimum purchase of $20 is required. Applicable to select Alibaba Cloud products and valid for 60 days.",
    },
]


def read(block: dict[str, str], context: Context | None, currency: str = "USD") -> list[tuple[Any, ...]]:
    reading = read_offers(block["text"], title=block["title"], default_currency=currency, context=context)
    return [(t.kind, t.amount, t.percent_off, t.duration_days, t.eligibility) for t in reading.offers]


def roundup(title: str) -> tuple[dict[str, str], Context]:
    around = contexts(ROUNDUP_BLOCKS, ROUNDUP)
    i = next(i for i, b in enumerate(ROUNDUP_BLOCKS) if b["title"] == title)
    return ROUNDUP_BLOCKS[i], around[i]


def test_a_startup_programs_tier_row_is_a_startup_credit_for_startups() -> None:
    block, context = roundup("Idea Stage")
    assert STARTUPS in context.topics  # four of its titles name startup programs
    assert read(block, context) == [(OfferKind.startup_credit, Decimal("1000"), None, 365, Eligibility.startups)]


def test_the_same_row_without_its_page_is_a_credit_for_everyone() -> None:
    block, _ = roundup("Idea Stage")
    assert read(block, None) == [(OfferKind.free_credit, Decimal("1000"), None, 365, None)]
    assert read(block, Context(page="Pricing", address="https://example.com/pricing")) == read(block, None)


def test_a_discount_of_a_startup_programs_page_is_for_startups() -> None:
    block, context = roundup("Hardware Discounts")
    assert read(block, context) == [(OfferKind.discount, None, Decimal("50"), None, Eligibility.startups)]


def test_the_page_never_makes_an_offer_of_a_block_that_states_none() -> None:
    for title in ("How to Apply", "Investment", "Overview"):
        block, context = roundup(title)
        assert read(block, context) == [], title


def test_a_tables_total_row_is_no_offer() -> None:
    block, context = roundup("Total")
    assert read(block, context) == []
    assert read(block, None) == []


def test_a_referral_pages_offer_that_names_no_party_is_the_referred_friends() -> None:
    around = contexts(REFERRAL_BLOCKS, REFERRAL_PAGE)
    assert all(REFERRAL in c.topics for c in around)
    assert read(REFERRAL_BLOCKS[2], around[2]) == [
        (OfferKind.free_credit, Decimal("10"), None, 60, Eligibility.referred)
    ]
    assert read(REFERRAL_BLOCKS[3], around[3])[0][-1] == Eligibility.referred


def test_a_referral_block_that_names_its_party_keeps_it() -> None:
    around = contexts(REFERRAL_BLOCKS, REFERRAL_PAGE)
    assert read(REFERRAL_BLOCKS[1], around[1]) == [
        (OfferKind.free_credit, Decimal("20"), None, None, Eligibility.referrers)
    ]


def test_a_referral_sections_heading_names_the_party() -> None:
    """offer_pages_more.toml, dataforest's referral page: a block under "For
    referrers" is the referrer's, even in words that name no one."""
    context = Context(
        page="Referral program", section="For referrers Recommend and benefit", topics=frozenset({REFERRAL})
    )
    block = {
        "title": "",
        "text": "€25 in token credit for every successful referral, usable for all dataforest cloud products.",
    }
    assert read(block, context, "EUR")[0][-1] == Eligibility.referrers
    under = Context(page="Referral program", section="What your friend gets", topics=frozenset({REFERRAL}))
    assert read(
        {"title": "", "text": "€25 starting credit in token after completing account setup."}, under, "EUR"
    ) == [(OfferKind.free_credit, Decimal("25"), None, None, Eligibility.referred)]


def test_a_section_naming_students_makes_its_credit_theirs() -> None:
    """offer_pages.toml (tuned), a renewal guide's student section: its
    voucher sentence, without the sentence before it that names students,
    under the heading that does."""
    context = Context(page="阿里云学生续费", section="学生专属优惠与资格验证")
    block = {
        "title": "",
        "text": "核心优惠包括每年可领取的300元无门槛代金券,该券需通过学信网在线验证码完成认证后自动发放,有效期为365天,支持分次使用直至余额清零。",
    }
    assert read(block, context, "CNY") == [(OfferKind.voucher, Decimal("300"), None, 365, Eligibility.students)]
    assert read(block, None, "CNY")[0][-1] is None
    # the prices under the same heading stay prices
    price = {
        "title": "",
        "text": "ECS共享型n4实例:1核2G配置年费约87.12元(折合月费7.26元),适合个人博客搭建与数据库学习。",
    }
    assert read(price, context, "CNY") == []


def test_what_a_page_is_about() -> None:
    assert topics("Overview", [b["title"] for b in ROUNDUP_BLOCKS], ROUNDUP) == {STARTUPS}
    assert topics("Share", ["Share", "Register"], REFERRAL_PAGE) == {REFERRAL}
    # one startup program named among GPU clouds is not a startup page
    assert topics("Alibaba cloud", ["Alibaba cloud", "Google for Startups", "Spell", "Q Blocks"], "") == frozenset()


def test_a_pages_context_without_headings_of_its_own() -> None:
    """The corpus, and a page whose spider gives no headings: the first
    block's title is the page's, a heading without words the section of the
    titled blocks after it, the last titled block that of the untitled ones."""
    blocks = [
        {"title": "Cloud Credits", "text": "Credits for builders."},
        {"title": "Startup programs", "text": ""},
        {"title": "AWS Activate", "text": "Max Credits: $100,000"},
        {"title": "", "text": "Up to $100,000 in credits."},
    ]
    around = contexts(blocks, "https://example.com/credits")
    assert [c.page for c in around] == ["Cloud Credits"] * 4
    assert [c.section for c in around] == ["", "", "Startup programs", "AWS Activate"]
    assert read(blocks[2], around[2]) == [
        (OfferKind.startup_credit, Decimal("100000"), None, None, Eligibility.startups)
    ]


def test_a_spiders_headings_win() -> None:
    blocks = [
        {
            "title": "Idea Stage",
            "text": "Credits: $1,000",
            "page": "Cloud Credits & Startup Programs",
            "section": "Credit Tiers",
        },
        {"title": "Building", "text": "Credits: $5,000", "page": "Cloud Credits & Startup Programs"},
    ]
    around = contexts(blocks, "https://example.com/credits")
    assert [(c.page, c.section) for c in around] == [("Cloud Credits & Startup Programs", "Credit Tiers")] + [
        ("Cloud Credits & Startup Programs", "")
    ]
    assert all(STARTUPS in c.topics for c in around)


def test_the_normalizer_reads_each_block_in_its_pages_context() -> None:
    """A referral page's blocks as a spider gives them, through `normalize`:
    the friend's credit is the referred friend's, the referrer's reward the
    referrer's; the blocks of another page of the same run are not."""
    items = [
        {
            "kind": "offer",
            "provider": "alibaba",
            "observed_at": "2026-08-03T06:00:00Z",
            "source_url": url,
            "currency": "USD",
            "data": {"id": f"b{i}", "url": "", **block},
        }
        for i, (url, block) in enumerate(
            [(REFERRAL_PAGE, b) for b in REFERRAL_BLOCKS]
            + [("https://www.alibabacloud.com/free", {"title": "$10 Cloud Credit", "text": REFERRAL_BLOCKS[2]["text"]})]
        )
    ]
    offers = normalize(from_jsonl(items)).offers
    who = {(o.offer_id, o.eligibility) for o in offers}
    assert ("alibaba:b1", Eligibility.referrers) in who
    assert ("alibaba:b2", Eligibility.referred) in who
    assert ("alibaba:b4", Eligibility.all) in who


def test_under_a_heading_of_vouchers_a_bare_sum_is_a_voucher() -> None:
    """offer_pages_more_zh.toml, a GPU cloud's Double 11 page: the recharge
    bonuses under "充值返券" are vouchers, the heading's own block as well."""
    blocks = [
        {"title": "💰 充值返券（所有用户）：", "text": "充值 200 返 20（相当于 9 折）💵"},
        {"title": "", "text": "充值 500 返 60（相当于 89 折）💸"},
    ]
    around = contexts(blocks, "https://example.com/activity")
    assert around[1].section == "💰 充值返券(所有用户):"
    assert [o[:2] for o in read(blocks[0], around[0], "CNY")] == [(OfferKind.voucher, Decimal("20"))]
    assert [o[:2] for o in read(blocks[1], around[1], "CNY")] == [(OfferKind.voucher, Decimal("60"))]
    assert [o[:2] for o in read(blocks[1], None, "CNY")] == [(OfferKind.free_credit, Decimal("60"))]


def test_an_faq_answer_is_read_under_its_question() -> None:
    """offer_pages_more.toml, LambdaTest's referral FAQ: the question names
    whom the answer's discount is for."""
    block = {
        "title": "What does your referral get?",
        "text": "A FLAT 20% discount coupon on their first subscription fee when they purchase.",
    }
    assert read(block, Context(address="https://www.testmuai.com/referral-program/"))[0][-1] == Eligibility.referred
    assert read(block, Context())[0][-1] == Eligibility.referred  # the question alone says it
    assert read({"title": "", "text": block["text"]}, Context())[0][-1] is None


def test_under_a_referral_programs_heading_a_share_is_the_referrers_commission() -> None:
    """offer_pages_more.toml, a hosting company's finance docs: the shares a
    referrer gets of the referral's payments are no discount; the loyalty
    bonus above the heading is one."""
    blocks = [
        {"title": "", "text": "5 and more years -5% bonus."},
        {
            "title": "Referral program",
            "text": "The affiliate (referral) program consists in attracting customers (referrals) to use our service using a unique referral link (the attracted client must register in his personal account by clicking on your referral link).",
        },
        {
            "title": "",
            "text": 'This link can be copied in your account on the way - "Settings" - "Finance". For each referral payment of your services, you get:',
        },
        {"title": "", "text": "10% bonus when paying for dedicated servers and"},
        {"title": "", "text": "15% when paying for virtual servers."},
    ]
    around = contexts(blocks, "https://en.kb.xserver.cloud/books/personal-account/chapter/finance/export/html")
    assert [c.section for c in around[3:]] == ["Referral program", "Referral program"]
    assert read(blocks[3], around[3]) == [] and read(blocks[4], around[4]) == []
    assert read(blocks[3], None) == [(OfferKind.discount, None, Decimal("10"), None, None)]
    assert [o[:3] for o in read(blocks[0], around[0])] == [(OfferKind.discount, None, Decimal("5"))]
    # a discount said as one keeps it, under the same heading
    coupon = {
        "title": "",
        "text": "Each referral of yours will earn a FLAT 20% discount coupon on their first subscription fee.",
    }
    assert [o[2] for o in read(coupon, around[3])] == [Decimal("20")]


def test_what_is_no_startup_or_referral_page() -> None:
    """Words that name no startup program or referral program: activating
    an account, a GPU's accelerators, an invitation to a beta."""
    assert (
        topics("Activate your free trial", [], "https://example.com/docs/how-to-activate-your-free-trial")
        == frozenset()
    )
    gpu = ["Accelerator-optimized machines", "GPU accelerators", "Accelerators and pricing"]
    assert topics("Compute Engine GPUs", gpu, "https://cloud.google.com/compute/docs/gpus") == frozenset()
    assert topics("Invite-only beta", [], "https://example.com/blog/invite-only-beta") == frozenset()
    accelerators = Context(page="Compute Engine GPUs", section="GPU accelerators")
    assert read({"title": "", "text": "Spot VMs: up to 91% off"}, accelerators)[0][-1] is None
    assert topics("AWS Activate credits & commercial routes", [], "https://cloudcredits.pages.dev/x") == {STARTUPS}
    assert topics("", [], "https://aws.amazon.com/activate/providers/") == {STARTUPS}


def test_a_share_listed_under_a_loyalty_programs_heading_is_a_discount() -> None:
    """offer_pages_more.toml, a hosting company's finance docs: the list
    items after "for 1 year, you get 1% bonus" say only a length and a share."""
    blocks = [
        {
            "title": "Loyalty program for regular customers.",
            "text": "Bonuses are awarded for your loyalty to our company, if you use our services:",
        },
        {"title": "", "text": "for 1 year, you get 1% bonus on any payment on our service,"},
        {"title": "", "text": "2 years - 2%,"},
        {"title": "", "text": "4 years - 4%"},
    ]
    around = contexts(blocks, "https://en.kb.xserver.cloud/books/personal-account/chapter/finance/export/html")
    assert read(blocks[2], around[2]) == [(OfferKind.discount, None, Decimal("2"), None, None)]
    assert read(blocks[3], around[3]) == [(OfferKind.discount, None, Decimal("4"), None, None)]
    assert read(blocks[2], None) == []  # a bare share, anywhere else
    # a spider gives a list item without a label as its title alone
    assert read({"title": "2 years - 2%,", "text": ""}, around[2]) == [
        (OfferKind.discount, None, Decimal("2"), None, None)
    ]
    # under a heading of SLA credits or of a referral program, a share is no discount
    sla = Context(section="Service credits (SLA)")
    assert read(blocks[2], sla) == []
    assert read(blocks[2], Context(section="Referral program discounts")) == []


def test_a_spiders_page_without_headings_takes_no_list_item_for_a_heading() -> None:
    """A page of list items only (no h1, no <title>): a spider gives each
    item as its title alone; none of them is the next one's section."""
    blocks = [
        {"title": "Startup credits for founders", "text": "", "page": ""},
        {"title": "Up to $1,000 in credits", "text": "", "page": ""},
    ]
    around = contexts(blocks, "https://example.com/perks")
    assert [c.section for c in around] == ["", ""]
    assert read(blocks[1], around[1]) == [(OfferKind.free_credit, Decimal("1000"), None, None, None)]
