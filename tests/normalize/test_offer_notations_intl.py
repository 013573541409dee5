"""The notations of the English and localized pages of issue 39 (Japanese,
Korean, German, French, Swedish), one test each: most sentences are the
pages' own (tests/data/offer_pages_more_en.toml, the tuned split), the last
ones written like the providers' pages, not copied from one."""

from __future__ import annotations

from decimal import Decimal

from db.kinds import Eligibility, OfferKind
from tracker.normalize.offers.durations import durations
from tracker.normalize.offers.roles import read_offers


def offers(text: str, title: str | None = None, currency: str | None = "USD") -> list[tuple]:
    read = read_offers(text, title=title, default_currency=currency).offers
    return [(o.kind, o.amount, o.currency, o.percent_off, o.duration_days, o.eligibility) for o in read]


def test_the_dollar_written_after_the_number_and_french_validity() -> None:
    text = (
        "Essai gratuit avec 300 $ de crédits valables pendant 90 jours : les nouveaux utilisateurs de Google Cloud "
        "peuvent bénéficier d'une période d'essai de 90 jours qui inclut 300 $ de crédits Cloud Billing gratuits."
    )
    assert offers(text) == [(OfferKind.free_credit, Decimal(300), "USD", None, 90, Eligibility.new_users)]


def test_yen_dollars_and_a_sum_named_a_free_trial() -> None:
    text = "Google Cloud を初めて利用するお客様には、300 ドルの無料トライアルが提供されます。"
    assert offers(text) == [(OfferKind.free_credit, Decimal(300), "USD", None, None, Eligibility.new_users)]


def test_japanese_free_services_for_months_and_a_credit_up_to() -> None:
    text = (
        "AWS 無料利用枠プログラムでは、新規のお客様が AWS のサービスを最大 6 か月間無料でご利用いただけます。"
        "新規のお客様には、最大 $200 の AWS クレジットが付与されます。"
        "サインアップすると $100、基本的な AWS サービスを試すたびに最大 $100 が追加されます。"
    )
    assert offers(text) == [
        (OfferKind.free_trial, None, None, None, 180, Eligibility.new_users),
        (OfferKind.free_credit, Decimal(200), "USD", None, None, Eligibility.new_users),
    ]


def test_korean_ten_thousands_and_the_sum_beside_the_credit() -> None:
    text = (
        "정글 프로그램은 중기부가 창업기업에 사업화 자금 최대 3억원과 특화 프로그램을 지원하면 "
        "AWS는 최대 5만달러의 클라우드 크레딧, 기술 컨설팅 등 성장패키지를 지원하는 사업이다."
    )
    assert offers(text) == [(OfferKind.startup_credit, Decimal(50000), "USD", None, None, Eligibility.startups)]


def test_german_credit_for_the_first_days_and_free_services_for_months() -> None:
    text = (
        "Wir bieten berechtigten Kunden ein Azure-Guthaben („Guthaben“) in Höhe von 200 USD , das innerhalb der "
        "ersten 30 Tage nach der Registrierung genutzt werden kann, sowie 12 Monate lang Zugriff auf ausgewählte "
        "kostenlose Diensten (Änderungen an der Auswahl der Dienste vorbehalten)."
    )
    assert offers(text) == [
        (OfferKind.free_credit, Decimal(200), "USD", None, 30, None),
        (OfferKind.free_trial, None, None, None, 365, None),
    ]


def test_swedish_credit_word_and_days() -> None:
    text = (
        "Berättigade kunder med ett kostnadsfritt Azure-konto får $200 i kredit som kan användas på många olika "
        "Azure-tjänster inom de första 30 dagarna."
    )
    assert offers(text) == [(OfferKind.free_credit, Decimal(200), "USD", None, 30, None)]


def test_past_offers_and_credits_someone_was_told_of_are_no_offers() -> None:
    assert offers("I haven't seen any in awhile but they used to give coupon codes for $10 credit.") == []
    assert offers("Have not previously received Google Cloud credits beyond the standard $300 free trial") == []
    assert offers("I've received an email, that says I'll be granted a 100$ credit in case I sign up.") == []


def test_a_credit_used_up_and_past_days_are_no_offers() -> None:
    assert offers("$300のクレジットを使い切った場合") == []
    text = "無料アカウントは、過去60日の間に使用されているかぎり、アクティブなままで使用可能です。"
    assert [d.role for d in durations(text)] == ["policy"]


def test_you_signing_up_with_a_referral_link_are_the_friend_referred() -> None:
    text = "Yes, when you sign up via a referral link you get $50 free credit that you could use for 30 days."
    assert offers(text) == [(OfferKind.free_credit, Decimal(50), "USD", None, 30, Eligibility.referred)]


def test_a_range_and_another_offer_are_two() -> None:
    text = (
        "On-demand H100 pricing dropped 15-20% across hyperscalers. Spot markets are volatile but offering 50-65% "
        "discounts. Reserved 1-year commitments remain the best value at 35-40% off on-demand."
    )
    read = read_offers(text).offers
    assert [(o.kind, o.percent_off, o.percent_off_low) for o in read] == [
        (OfferKind.spot_discount, Decimal(65), Decimal(50)),
        (OfferKind.discount, Decimal(40), Decimal(35)),
    ]


def test_a_discount_of_a_block_on_spot_prices_is_a_spot_discount() -> None:
    text = (
        "AWS Spot pricing fluctuates based on supply and demand. Less popular instance types and regions can see "
        "discounts of 80 to 90 percent."
    )
    read = read_offers(text).offers
    assert [(o.kind, o.percent_off, o.percent_off_low) for o in read] == [
        (OfferKind.spot_discount, Decimal(90), Decimal(80))
    ]


def test_savings_said_and_savings_referred_to() -> None:
    text = "RunPod offers H100 SXM reserved at approximately $1.94/hour versus $2.69/hour on-demand, delivering 28% savings."
    assert [(o.kind, o.percent_off) for o in read_offers(text).offers] == [(OfferKind.discount, Decimal(28))]
    text = "the specific patterns that let you capture those 60 to 90 percent savings without sacrificing reliability."
    assert read_offers(text).offers == []


def test_a_contrast_clause_names_another_party() -> None:
    text = (
        "PhD students can receive up to $1,000 (renewable annually), while faculty, postdocs, and nonprofit "
        "researchers can receive up to $5,000 (one-time)."
    )
    assert [(o.amount, o.eligibility) for o in read_offers(text).offers] == [
        (Decimal(1000), Eligibility.students),
        (Decimal(5000), Eligibility.all),
    ]


def test_a_review_time_is_no_validity() -> None:
    assert [
        d.role for d in durations("you apply with a research proposal and Google reviews it within 4-8 weeks.")
    ] == ["policy"]


def test_thousands_apart_by_spaces_before_the_sign() -> None:
    text = (
        "De nombreuses startups se demandent comment débloquer le niveau suivant de crédits Azure (50 000 $) avant "
        "l'expiration de leurs crédits initiaux."
    )
    assert offers(text) == [(OfferKind.startup_credit, Decimal(50000), "USD", None, None, Eligibility.startups)]


def test_a_heading_restated_for_the_party_it_names_in_the_text() -> None:
    text = (
        "Google Cloud offers free cloud credits for academic researchers at accredited institutions worldwide. "
        "PhD students can receive up to $1,000 (renewable annually), while faculty, postdocs, and nonprofit "
        "researchers can receive up to $5,000 (one-time)."
    )
    read = read_offers(text, title="Google Cloud Research Credits - Up to $5,000").offers
    assert sorted((o.amount, o.eligibility or Eligibility.all) for o in read) == [
        (Decimal(1000), Eligibility.students),
        (Decimal(5000), Eligibility.all),
    ]


def test_a_commitment_named_earlier_in_the_sentence() -> None:
    text = (
        "Reserved Instances lock in prices for 1 or 3-year terms, delivering 30-50% discounts. Spot Instances fill "
        "idle capacity at steep discounts (60-90% cheaper), though they risk interruption."
    )
    read = read_offers(text).offers
    assert [(o.kind, o.percent_off, o.percent_off_low) for o in read] == [
        (OfferKind.discount, Decimal(50), Decimal(30)),
        (OfferKind.spot_discount, Decimal(90), Decimal(60)),
    ]


def test_an_elided_percentage_is_another_offer_of_the_kind() -> None:
    text = "One-year commitments produce 30-40% savings; three-year commitments 50-60%."
    assert [(o.kind, o.percent_off, o.percent_off_low) for o in read_offers(text).offers] == [
        (OfferKind.discount, Decimal(40), Decimal(30)),
        (OfferKind.discount, Decimal(60), Decimal(50)),
    ]


def test_no_credit_card_required_names_no_credit() -> None:
    assert offers("Try it free for 14 days, no credit card required") == [
        (OfferKind.free_trial, None, None, None, 14, None)
    ]
    assert offers("A valid credit card is required to sign up.") == []


def test_german_vouchers_and_new_customers() -> None:
    assert offers("Gutschein über 50 € für neue Kunden", currency="EUR") == [
        (OfferKind.voucher, Decimal(50), "EUR", None, None, Eligibility.new_users)
    ]
    assert offers("Neukunden erhalten 20 € Startguthaben", currency="EUR") == [
        (OfferKind.free_credit, Decimal(20), "EUR", None, None, Eligibility.new_users)
    ]


def test_percentages_off_in_german_french_japanese_korean() -> None:
    for text in (
        "20 % Rabatt auf alle GPU-Server",
        "20 % de réduction sur les instances GPU",
        "GPUインスタンスが20%オフ",
    ):
        assert offers(text) == [(OfferKind.discount, None, None, Decimal(20), None, None)], text
    assert offers("GPU 서버 20% 할인") == [(OfferKind.discount, None, None, Decimal(20), None, None)]


def test_a_credit_of_days_on_sign_up() -> None:
    assert offers("Sign up today and receive a $100, 60-day credit") == [
        (OfferKind.free_credit, Decimal(100), "USD", None, 60, Eligibility.new_users)
    ]


def test_referral_parties_said_by_what_the_friend_does() -> None:
    assert offers("You can earn up to $300 in credit on each friend you refer.") == [
        (OfferKind.free_credit, Decimal(300), "USD", None, None, Eligibility.referrers)
    ]
    assert offers("Get $20 if your friend's spending reaches $20") == [
        (OfferKind.free_credit, Decimal(20), "USD", None, None, Eligibility.referrers)
    ]
    read = read_offers("Click the Get My Referral Link.", title="1. You Send $5 or $10 in Credit").offers
    assert [(o.amount, o.amount_low, o.eligibility) for o in read] == [(Decimal(10), Decimal(5), Eligibility.referred)]


def test_a_trial_worth_a_sum_beside_a_credit() -> None:
    text = (
        "Your friend will receive $5 or $10 of credit and a new user free trial worth $300-$1200 after signing up "
        "via your referral link."
    )
    read = read_offers(text, default_currency="USD").offers
    assert [(o.kind, o.amount, o.amount_low, o.eligibility) for o in read] == [
        (OfferKind.free_credit, Decimal(10), Decimal(5), Eligibility.referred),
        (OfferKind.free_trial, Decimal(1200), Decimal(300), Eligibility.referred),
    ]


def test_shares_of_a_spend_limits_and_credits_one_was_given_are_no_offers() -> None:
    assert offers("Get extra 10% based on the amount that exceeds $20") == []
    assert offers("I also have a code and the Github code gives me $50 of platform credit.") == []
    assert offers("A $100 negative balance limit is being introduced.") == []


def test_a_grant_activated_is_no_startup_program() -> None:
    assert offers("Eligible nonprofits can activate the annual $2,000 Azure grant through the Nonprofit Hub.") == [
        (OfferKind.free_credit, Decimal(2000), "USD", None, None, None)
    ]


def test_a_range_with_the_sign_on_its_low_end() -> None:
    text = "Get started with over 40 products worth $300-1200 for free. Applicable to all new users."
    read = read_offers(text, title="$300-$1200 Free Trial", default_currency="USD").offers
    assert [(o.kind, o.amount, o.amount_low, o.eligibility) for o in read] == [
        (OfferKind.free_trial, Decimal(1200), Decimal(300), Eligibility.new_users)
    ]


def test_japanese_weeks_and_a_german_test_server() -> None:
    assert offers("さくらのレンタルサーバのお試し期間は、申し込みから2週間利用できる無料サービスです。") == [
        (OfferKind.free_trial, None, None, None, 14, None)
    ]
    text = (
        "Wir bieten derzeit jedem Interessierten einen kostenfreien Testserver an. Direkt nach Angabe einer "
        "Mailadresse erhälst du für 7 Tage Zugriff auf einen ganz regulären Server aus unserem Produktsortiment."
    )
    assert offers(text, currency="EUR") == [(OfferKind.free_trial, None, None, None, 7, None)]


def test_a_credit_named_a_few_words_before_its_sum_and_a_french_bound() -> None:
    text = "Google Maps Platform propose un crédit mensuel récurrent de 200 $ (consultez la page Tarifs)."
    assert offers(text) == [(OfferKind.free_credit, Decimal(200), "USD", None, None, None)]
    text = "Vous ne pourrez utiliser de crédits qu'à concurrence de 10 000 USD pour l'un quelconque des services R2."
    assert offers(text) == []
