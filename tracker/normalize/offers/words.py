"""The words of promotion text, in English and Chinese (and the other
languages the providers publish in): what makes a sum a credit or a voucher,
what names a startup program, a renewal, a spot price, a trial or an example,
who an offer is for and what it covers.

`normal(text)` is the form every reader works on: NFKC (full-width digits as
ASCII) and, for Chinese written in traditional characters (Taiwan, Hong Kong
pages: "新用戶專享券", "註冊即送"), the simplified characters OpenCC gives,
so one vocabulary reads both. Japanese text (with kana) is left as it is.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from db.kinds import Eligibility

CREDIT_WORDS = re.compile(
    r"credits?\b(?!\s?cards?)|额度|赠金|点数|抵扣金|现金券|试用金|试用点|体验金|奖励金|补贴|补助|赠送|送|bonus|クレジット|積分|抵用金|크레딧|crédits?\b|créditos?\b|"
    r"क्रेडिट|Guthaben|Gutschriften?|kredit\b|\bgrants?\b",
    re.I,
)
VOUCHER_WORDS = re.compile(
    r"代金券|优惠券|抵用券|優惠券|算力券|满减券|无门槛券|返券|新手券|新人券|\d\s?券|无门槛(?=\s?[¥$\d])|面额|面值|voucher|coupon|红包|クーポン|쿠폰|Gutschein\w*",
    re.I,
)
STARTUP_WORDS = re.compile(
    r"[Ss]tartups?\b|[Ss]tart-ups?\b|STARTUPS?\b|\bActivate\b|\bVCs?\b|[Vv]enture|[Aa]ccelerators?\b|[Ii]ncubators?\b|加速器|初创|创业|云创|孵化|founders?\b|Founders|スタートアップ|新創|스타트업|창업"
)
RENEWAL_WORDS = re.compile(r"续费|续订|renewal|renewing|renew\b", re.I)
# "针对新购或续费的云主机", "UCloud新购,UCloud续费云主机同享": new purchases and renewals alike
_NEW_AND_RENEWAL = re.compile(
    r"新购[^。;；]{0,12}续费|续费[^。;；]{0,12}新购|new (?:purchases?|orders?)[^.;]{0,12}renewals?|renewals?[^.;]{0,12}new (?:purchases?|orders?)",
    re.I,
)


def renewal(text: str) -> bool:
    """Whether a text speaks of renewals only (not of new purchases and renewals alike)."""
    return bool(RENEWAL_WORDS.search(text)) and not _NEW_AND_RENEWAL.search(text)


def new_and_renewal(text: str) -> bool:
    """Whether a text names new purchases and renewals alike ("新购或续费")."""
    return bool(_NEW_AND_RENEWAL.search(text))


SPOT_WORDS = re.compile(r"\bspot\b|抢占式|竞价|preemptible|low[- ]priority", re.I)
# A membership card or pass of N days given away is a trial of that length ("一张 3 天 基础会员卡券").
TRIAL_KIND = re.compile(r"免费试用|免费体验|试用|無料|0元体验|会员卡|体验卡|free trial|trial|free tier|free pass", re.I)
TRIAL_WORDS = re.compile(
    r"免费|無料|試用|试用|体验|会员卡|(?<![\d.])0元|\bfree\b|trial|お試し|試す|kostenlos\w*|kostenfrei\w*|Test(?:server|zeitraum|phase)\w*|kostnadsfri\w*|gratuit\w*",
    re.I,
)
# "12 Monate lang ... kostenlose Dienste", "kostnadsfria tjänster i 12 månader", "サービスを最大 6 か月間無料で":
# free services for a time, a trial of that length of its own
FREE_SERVICES = re.compile(
    r"(?:kostenlose?\w*|kostnadsfria|gratuits?)\s(?:\w+\s)?(?:services|Dienste\w*|tjänster)|services gratuits|"
    r"サービスを?[^。]{0,12}無料",
    re.I,
)

EXAMPLE = re.compile(r"(?:比如|例如|譬如|such as|e\.g\.|for example|如)[\s:：,，]{0,2}[“\"「『'(（]?$", re.I)
# A sentence that works a sum out ("补贴金额计算如下", "= 退款金额", "is calculated as"): its sums are
# figures of the calculation, not offers (issue 39, noise)
CALCULATION = re.compile(
    r"计算如下|如下计算|计算方式|计算公式|calculated as|is calculated|computed as|=|[（(]\s?\d[\d.,\s]*[+*×÷]\s?\d",
    re.I,
)


_ALL = re.compile(
    r"不限新老|新老同享|新老用户|新老客户|所有用户|全部用户|全员|all (?:customers|users|accounts)|everyone"
)
_ALL_EITHER = re.compile(r"个人[^。;；]{0,8}企业|企业[^。;；]{0,8}个人|均可")
_ELIGIBILITY = (
    (
        Eligibility.students,
        re.compile(
            r"学生|高校|在校|师生|students?\b|universit|education pack|학생|대학|étudiants?|Studierende|Studenten|estudiantes?",
            re.I,
        ),
    ),
    (
        Eligibility.startups,
        re.compile(
            r"初创|创业|云创|孵化|加速器|startups?\b|start-ups?\b|founders?\b|(?-i:\bActivate\b)|\bVCs?\b|venture[- ]backed|"
            r"accelerators?\b|incubators?\b|スタートアップ|新創|스타트업|창업|jeunes pousses",
            re.I,
        ),
    ),
    (
        Eligibility.enterprise,
        re.compile(
            r"企业(?:用户|客户|认证|实名认证|专享|免费|新用户|新客|福利|专场)|中小企业|enterprise (?:customers?|users?|accounts?|clients?)|business customers",
            re.I,
        ),
    ),
    (
        Eligibility.new_users,
        re.compile(
            r"新用户|新客|新人|新手|新注册|免费试用赠金|新账号|new[- ](?:customers?|users?|accounts?|sign-?ups?)|first[- ]time|"
            r"(?:aren't|are not|not) yet an? [^.;]{0,40}customer|never been a paying customer|"
            r"(?:days|months?) (?:after|of) (?:your )?sign(?:ing)?[- ]?up|注册(?:后|之日起)\s?\d+\s?(?:天|日|个月)内|"
            r"when you sign(?:ed)? up|sign(?:ing)?[- ]?up (?:today |now )?(?:and|to) (?:get|receive|claim|enjoy)|"
            r"(?:on|upon|at|after) (?:sign(?:ing)?[- ]?up|registration)\b|regist(?:er|ering) (?:and|to) (?:[\w ]{0,60}?)(?:get|receive|claim|enjoy)\b|neukunden|注册即(?:送|可|领|得)|注册就送|新規登録|新規(?:ユーザー|会員)|신규|"
            r"neue[nr]? (?:kunden|nutzer|benutzer)|nouveaux (?:clients|utilisateurs)|nya kunder|nuevos clientes|nuovi clienti|"
            r"novos clientes|新規の?お客様|初めて(?:ご)?利用(?:する|される)お客様|サインアップ(?:時|すると)",
            re.I,
        ),
    ),
)
_A = r"(?<![A-Za-z0-9])"  # an ASCII word edge: \b fails beside Chinese characters
_Z = r"(?![A-Za-z0-9])"
PRODUCTS = (
    ("gpu", re.compile(rf"{_A}GPU|显卡|异构计算|{_A}(?:A100|H100|H800|A800|A10|T4|V100|L4|L20|H20){_Z}", re.I)),
    ("ecs", re.compile(rf"{_A}ECS{_Z}|云服务器|弹性计算|cloud server", re.I)),
    ("cvm", re.compile(rf"{_A}CVM{_Z}", re.I)),
    ("ec2", re.compile(rf"{_A}EC2{_Z}", re.I)),
    ("compute_engine", re.compile(r"compute engine", re.I)),
    ("virtual_machines", re.compile(r"virtual machines?|虚拟机", re.I)),
    ("storage", re.compile(rf"对象存储|{_A}(?:OSS|COS|OBS|S3){_Z}|storage", re.I)),
)


def eligibility(text: str) -> Eligibility | None:
    """Who may take the offer: "all users" phrases win over "new users" ones;
    "personal or enterprise verification" is everyone."""
    if _ALL.search(text):
        return Eligibility.all
    for who, pattern in _ELIGIBILITY:
        if pattern.search(text):
            if who == Eligibility.enterprise and _ALL_EITHER.search(text):
                continue
            return who
    return None


def near(pattern: re.Pattern[str], text: str, start: int, end: int, before: int = 24, after: int = 24) -> bool:
    """`pattern` within `before` characters before [start, end), in it, or within `after` after it."""
    return bool(pattern.search(text, max(0, start - before), end + after))


_KANA = re.compile(r"[\u3040-\u30ff]")


@cache
def _simplified() -> object:
    import opencc  # the converter's tables load on first use

    return opencc.OpenCC("t2s")


_QUOTES = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"'})
_PERCENT_WORD = re.compile(r"(\d)\s?(?:percent|per cent)\b", re.I)


def normal(text: str | None) -> str:
    text = _PERCENT_WORD.sub(r"\1%", unicodedata.normalize("NFKC", text or ""))  # "60 to 90 percent": 60 to 90%
    text = text.translate(_QUOTES)  # "we’ll" as "we'll"
    if text.isascii() or _KANA.search(text):
        return text
    return str(_simplified().convert(text))  # type: ignore[attr-defined]
