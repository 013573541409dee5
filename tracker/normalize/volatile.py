"""Taking the volatile parts out of a page's text before it is hashed or
parsed: countdowns, stock and visitor counters, tracking parameters and
whitespace change from one visit to the next without the offer changing."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

_CN_NUM = "0-9,一二三四五六七八九十百千万两"
# Each pattern is a piece of text that says nothing about the offer itself.
BUILTIN_VOLATILE = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"\d{1,3}\s*:\s*\d{2}\s*:\s*\d{2}(?:\s*[:.]\s*\d{1,3})?",  # 02:13:45 countdowns and clocks
        rf"(?:距(?:离)?(?:活动)?(?:结束|开始|开抢)(?:还有|仅剩)?|倒计时)\s*[:：]?\s*(?:[{_CN_NUM}]+\s*(?:天|小时|时|分钟|分|秒)\s*)*",
        rf"[{_CN_NUM}]+\s*天\s*[{_CN_NUM}]+\s*(?:小时|时)(?:\s*[{_CN_NUM}]+\s*分(?:钟)?)?(?:\s*[{_CN_NUM}]+\s*秒)?",
        rf"(?:剩余|仅剩|还剩|余量|库存)\s*[:：]?\s*[{_CN_NUM}]+\s*(?:份|台|个|张|件|%)?",
        rf"已(?:抢|售|领|抢购|领取)\s*[:：]?\s*[{_CN_NUM}.]+\s*(?:%|份|台|个|张|件|人)?",
        rf"[{_CN_NUM}]+\s*(?:人|位用户)\s*(?:已|正在)\s*(?:领取|参与|购买|抢购|浏览|查看|围观)",
        r"\b(?:ends|starts|closes) in\s+(?:\d+\s*(?:d|h|m|s|days?|hours?|minutes?|mins?|seconds?)\b[\s,]*)+",
        r"\b\d[\d,]*\s+(?:people|users|customers|visitors)\s+(?:are\s+)?(?:viewing|claimed|have claimed|joined|watching)\b",
        r"\bonly\s+\d+\s+left\b",
        r"\b\d+\s+(?:left|remaining)\s+today\b",
    )
)
TRACKING_PARAMS = re.compile(
    r"^(?:utm_\w+|spm|scm|from|source|fbclid|gclid|msclkid|trk|ref|_ga|sc_\w+|trackingid)$", re.IGNORECASE
)
_SPACE = re.compile(r"\s+")


class IgnorePatternError(ValueError):
    """A user's ignore pattern is not a valid regular expression."""


def compile_ignore(patterns: Iterable[str]) -> list[re.Pattern[str]]:
    compiled = []
    for pattern in patterns:
        try:
            compiled.append(re.compile(pattern))
        except re.error as exc:
            raise IgnorePatternError(f"ignore pattern {pattern!r} is not a regular expression: {exc}") from None
    return compiled


def clean_text(text: str, ignore: Iterable[re.Pattern[str]] = ()) -> str:
    """NFKC (full-width digits and signs become ASCII), volatile parts and the
    user's ignore patterns removed, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text)
    for pattern in (*ignore, *BUILTIN_VOLATILE):
        text = pattern.sub(" ", text)
    return _SPACE.sub(" ", text).strip()


def clean_url(url: str) -> str:
    """The URL without tracking parameters (utm_*, spm, from ...) or fragment."""
    parts = urlsplit(url)
    if not parts.query and not parts.fragment:
        return url
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not TRACKING_PARAMS.match(k)]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), ""))
