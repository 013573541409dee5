"""Messages: one template per change kind, written out per channel family.

A change becomes a `Card` (a headline, labelled facts and a source link),
holding the provider's text as is. Each family's writer escapes every value
it inserts, so a title such as `<!channel>` or `**[x](evil)**` stays text:
no mention, no link and no broken markdown. A digest is one line per change,
packed into as many messages as the channel's limits need; long text is
clipped at a character boundary, never inside a UTF-8 sequence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from urllib.parse import quote

from db.schema import Change, ChangeKind, effective_hourly, stable_hash


class Family(StrEnum):
    slack = "slack"  # mrkdwn and Block Kit
    wecom = "wecom"  # WeCom group robot markdown
    markdown = "markdown"  # CommonMark: DingTalk, Feishu/Lark, Telegram, ServerChan, email, Discord
    text = "text"  # anything else


@dataclass(frozen=True)
class Limits:
    size: int
    in_bytes: bool = False  # WeCom counts UTF-8 bytes, the others characters
    blocks: int | None = None
    section: int | None = None  # characters of one Block Kit section
    per_minute: int | None = None

    def measure(self, text: str) -> int:
        return len(text.encode("utf-8")) if self.in_bytes else len(text)


LIMITS = {
    Family.slack: Limits(40_000, blocks=50, section=3000, per_minute=60),
    Family.wecom: Limits(4096, in_bytes=True, per_minute=20),
    # DingTalk and Telegram groups take 20 messages a minute.
    Family.markdown: Limits(4000, per_minute=20),
    Family.text: Limits(4000),
}


@dataclass(frozen=True)
class Card:
    headline: str
    facts: list[tuple[str, str]]
    link: str = ""
    summary: str = ""  # the one-line form of the facts, for digests


@dataclass
class Message:
    """`title` is escaped for the family; `body` starts with it in bold, and
    `lead` is the body without it, for services that show a title apart."""

    title: str
    body: str
    key: str
    row_keys: tuple[str, ...]
    blocks: list[dict] | None = None

    @property
    def lead(self) -> str:
        return self.body.partition("\n")[2].lstrip("\n") or self.body


_KIND_TITLES = {
    ChangeKind.price_drop: "Price drop",
    ChangeKind.price_increase: "Price increase",
    ChangeKind.new_sku: "New price",
    ChangeKind.sku_removed: "Price removed",
    ChangeKind.availability_changed: "Availability changed",
    ChangeKind.offer_added: "New offer",
    ChangeKind.offer_removed: "Offer ended",
    ChangeKind.offer_changed: "Offer changed",
    ChangeKind.credit_changed: "Credit changed",
    ChangeKind.discount_changed: "Discount changed",
    ChangeKind.source_broken: "Source failing",
    ChangeKind.source_recovered: "Source recovered",
    ChangeKind.source_stale: "Source stale",
}
_UNITS = {"hour": "hour", "month": "month", "year": "year"}
_OFFER_KINDS = (
    ChangeKind.offer_added,
    ChangeKind.offer_removed,
    ChangeKind.offer_changed,
    ChangeKind.credit_changed,
    ChangeKind.discount_changed,
)
_SOURCE_KINDS = (ChangeKind.source_broken, ChangeKind.source_recovered, ChangeKind.source_stale)


def clip(text: str, limit: int) -> str:
    """At most `limit` characters, one line, cut between characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _signed(percent: Decimal | None) -> str:
    if percent is None:
        return ""
    return f"+{percent}%" if percent > 0 else f"−{-percent}%" if percent < 0 else "0%"


def _per(change: Change) -> str:
    unit = _UNITS.get(change.unit) or (f"{change.term} term" if change.unit == "term" else change.unit)
    return f"{change.currency}/{unit}" if unit else change.currency


def _rate(value: Decimal) -> str:
    return format(value.quantize(Decimal("0.0001")), "f")


def per_gpu_hour(change: Change, price: Decimal | None) -> Decimal | None:
    if price is None or not change.gpu_count:
        return None
    hourly = effective_hourly(price, change.unit, change.term)
    return None if hourly is None else hourly / change.gpu_count


def _price_facts(change: Change, width: int) -> tuple[list[tuple[str, str]], str]:
    old, new, per = change.old_price, change.new_price, _per(change)
    if change.kind == ChangeKind.sku_removed or new is None:
        price = f"was {old} {per}" if old is not None else "(no price)"
    elif old is not None and old != new:
        price = f"{old} → {new} {per} ({_signed(change.percent)})"
    else:
        price = f"{new} {per}"
    facts = [("Price", price)]
    gpu_old, gpu_new = per_gpu_hour(change, old), per_gpu_hour(change, new)
    gpus = f"{change.gpu_count.normalize():f} × {change.gpu_model or 'GPU'}" if change.gpu_count else ""
    per_gpu = ""
    if gpu_new is not None and gpu_old is not None and gpu_old != gpu_new:
        per_gpu = f"{_rate(gpu_old)} → {_rate(gpu_new)} {change.currency}"
    elif (gpu_new if gpu_new is not None else gpu_old) is not None:
        per_gpu = f"{_rate(gpu_new if gpu_new is not None else gpu_old)} {change.currency}"  # type: ignore[arg-type]
    if per_gpu:
        facts.append(("Per GPU-hour", f"{per_gpu} ({gpus})"))
    elif gpus:
        facts.append(("GPUs", gpus))
    if change.kind == ChangeKind.availability_changed:
        facts.insert(
            0,
            (
                "Availability",
                f"{change.detail.get('old_availability') or 'unknown'} → "
                f"{change.detail.get('new_availability') or 'unknown'}",
            ),
        )
    terms = " · ".join(p for p in (change.price_model, change.term, change.payment_option, change.os) if p)
    facts.append(("Terms", terms))
    facts.append(
        ("Where", " · ".join(p for p in (change.provider, change.region, change.zone, change.instance_type) if p))
    )
    moved = f"{old} → {new} {per}" if old is not None and new is not None and old != new else price
    summary = moved + (f", {per_gpu} per GPU-hour" if per_gpu else "")
    return [(k, clip(v, width)) for k, v in facts if v], summary


def _offer_facts(change: Change, width: int) -> tuple[list[tuple[str, str]], str]:
    d = change.detail
    old = d.get("old_terms") or d.get("old") or ""
    new = d.get("new_terms") or d.get("new") or d.get("terms") or d.get("text") or ""
    facts = []
    if change.kind != ChangeKind.offer_added and old:
        facts.append(("Before", old))
    if change.kind != ChangeKind.offer_removed and new:
        facts.append(("Now" if old else "Terms", new))
    shown = {"title", "old_terms", "new_terms", "old", "new", "terms", "text", "offer_id"}
    facts += [(k.replace("_", " ").capitalize(), v) for k, v in sorted(d.items()) if k not in shown and v]
    summary = f"{clip(old, 80)} → {clip(new, 80)}" if old and new else clip(new or old, 120)
    return [(k, clip(v, width)) for k, v in facts], summary


def card(change: Change, width: int = 600) -> Card:
    """The template of the change's kind, filled in (text still unescaped)."""
    kind = ChangeKind(change.kind)
    title = _KIND_TITLES.get(kind, str(kind))
    if kind in _OFFER_KINDS:
        name = change.detail.get("title") or change.detail.get("offer_id") or change.key
        facts, summary = _offer_facts(change, width)
        return Card(f"{title} ({change.provider}): {clip(name, 200)}", facts, change.source_url, summary)
    if kind in _SOURCE_KINDS:
        reason = change.detail.get("reason") or change.detail.get("after") or change.detail.get("since") or ""
        label = {"source_broken": "Reason", "source_recovered": "After", "source_stale": "Since"}[kind]
        facts = [(label, clip(reason, width))] if reason else []
        return Card(f"{title}: {change.source or change.provider}", facts, change.source_url, clip(reason, 160))
    where = f"{change.instance_type} in {change.region}" if change.region else change.instance_type
    pct = f" {_signed(change.percent)}" if kind in (ChangeKind.price_drop, ChangeKind.price_increase) else ""
    facts, summary = _price_facts(change, width)
    return Card(f"{title}{pct}: {change.provider} {clip(where, 200)}", facts, change.source_url, summary)


# --- escaping, per family ----------------------------------------------------

_SLACK = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "*": "∗", "~": "∼", "`": "ˋ"}
_WECOM = {"*": "＊", "[": "［", "]": "］", "<": "＜", ">": "＞", "`": "｀", "#": "＃", "@": "＠"}
# DingTalk and Feishu render some HTML (<font>, <at>) and may not honour a
# backslash before it; a full-width bracket is no tag in any renderer.
_ANGLES = {"<": "＜", ">": "＞"}
# An underscore inside a word (Standard_ND96asr_v4) is no emphasis in CommonMark.
_MARKDOWN = re.compile(r"([\\`*{}\[\]#|~!]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")
# A word joiner (U+2060) is invisible, but no link, autolink or mention
# parser reads across it.
_WJ = "\u2060"


def _table(mapping: dict[str, str]) -> Callable[[str], str]:
    table = str.maketrans(mapping)
    return lambda text: " ".join(text.split()).translate(table)


def _defang(text: str) -> str:
    """Provider text can neither link nor mention: `http://evil` is not
    linked (as on Slack's path), `](` opens no markdown link, and `@all`,
    `@everyone` or `<@123>` reach nobody."""
    text = text.replace("://", f":{_WJ}//").replace("](", f"]{_WJ}(")
    return re.sub(r"@(?=\w)", "@" + _WJ, text)


_ESCAPES: dict[Family, Callable[[str], str]] = {
    # '@here' typed as text is no mention, but a word joiner makes sure;
    # and a word joiner in "://" keeps Slack from turning provider text into a link.
    Family.slack: lambda t: re.sub(r"@(?=(?:here|channel|everyone)\b)", "@\u2060", _table(_SLACK)(t)).replace(
        "://", ":\u2060//"
    ),
    Family.wecom: lambda t: _defang(_table(_WECOM)(t)),
    Family.markdown: lambda t: _defang(_MARKDOWN.sub(r"\\\1", _table(_ANGLES)(t))),
    # Plain text still reaches services that autolink and mention (ntfy,
    # Mattermost, Teams...); Apprise escapes it for markdown and HTML itself.
    Family.text: lambda t: _defang(" ".join(t.split())),
}


def escape(text: str, family: Family) -> str:
    return _ESCAPES[family](text)


def safe_url(url: str) -> str:
    """Only http(s) links, with the characters that end a link in any family encoded."""
    if not re.match(r"^https?://", url or ""):
        return ""
    return quote(url, safe=":/?#[]@!$&'*+,;=%-._~").replace("[", "%5B").replace("]", "%5D")


def _link(url: str, label: str, family: Family) -> str:
    url = safe_url(url)
    if not url:
        return ""
    match family:
        case Family.slack:
            return f"<{url.replace('|', '%7C')}|{label}>"
        case Family.wecom | Family.markdown:
            return f"[{label}]({url.replace('(', '%28').replace(')', '%29')})"
        case _:
            return f"{label}: {url}"


def _bold(text: str, family: Family) -> str:
    return {Family.slack: f"*{text}*", Family.wecom: f"**{text}**", Family.markdown: f"**{text}**"}.get(family, text)


def write_card(c: Card, family: Family) -> str:
    esc = _ESCAPES[family]
    lines = [_bold(esc(c.headline), family)]
    for label, value in c.facts:
        bullet = "> " if family is Family.wecom else "• " if family is Family.slack else "- "
        lines.append(
            f"{bullet}{_bold(label + ':', family)} {esc(value)}"
            if family is not Family.text
            else f"{label}: {esc(value)}"
        )
    link = _link(c.link, "Source page", family)
    if link:
        lines.append(link)
    return "\n".join(lines)


def digest_line(c: Card, family: Family) -> str:
    esc = _ESCAPES[family]
    return f"- {_bold(esc(c.headline), family)}" + (f": {esc(c.summary)}" if c.summary else "")


def _sources(links: dict[str, str], family: Family) -> str:
    """A part's source pages, once each: one link per line would double a digest's size."""
    shown = [_link(url, escape(name, family), family) for url, name in links.items()]
    shown = [s for s in shown if s]
    return ("\n\nSources: " + " · ".join(shown)) if shown else ""


# --- messages ---------------------------------------------------------------

Item = tuple[str, Change]  # (outbox idempotency key, change)


def single(item: Item, family: Family, limits: Limits | None = None) -> Message:
    """One change, one message; long provider text is clipped to fit."""
    limits = limits or LIMITS[family]
    key, change = item
    for width in (600, 200, 60):
        c = card(change, width)
        body = write_card(c, family)
        if limits.measure(body) <= limits.size and (limits.section is None or len(body) <= limits.section):
            break
    message = Message(title=escape(clip(c.headline, 150), family), body=body, key=key, row_keys=(key,))
    if family is Family.slack:
        message.blocks = _blocks(message.title, [message.lead])
    return message


def digest(items: Sequence[Item], family: Family, label: str, limits: Limits | None = None) -> list[Message]:
    """Many changes as few messages, each within the channel's limits."""
    limits = limits or LIMITS[family]
    lines = [(key, digest_line(card(change, 160), family), change) for key, change in items]
    head = f"GPU tracker digest ({label}): {len(items)} changes"
    reserve = limits.measure(_bold(head + " (part 999/999)", family) + "\n\n")
    parts: list[list[tuple[str, str, Change]]] = [[]]
    links: list[dict[str, str]] = [{}]
    size = reserve
    for key, line, change in lines:
        extra = {change.source_url: change.source or change.provider} if safe_url(change.source_url) else {}
        grow = limits.measure(_sources({**links[-1], **extra}, family)) - limits.measure(_sources(links[-1], family))
        line_size = limits.measure(line) + 1 + grow
        if parts[-1] and (size + line_size > limits.size or _slack_full(parts[-1], line, limits)):
            parts.append([])
            links.append({})
            size = reserve
            line_size = limits.measure(line) + 1 + limits.measure(_sources(extra, family))
        parts[-1].append((key, line, change))
        links[-1].update(extra)
        size += line_size
    messages = []
    for n, (part, part_links) in enumerate(zip(parts, links, strict=True), 1):
        title = escape(head if len(parts) == 1 else f"{head} (part {n}/{len(parts)})", family)
        text = [line for _, line, _ in part]
        keys = tuple(k for k, _, _ in part)
        footer = _sources(part_links, family)
        message = Message(
            title=title,
            body=_bold(title, family) + "\n\n" + "\n".join(text) + footer,
            key=stable_hash(("digest",) + keys),
            row_keys=keys,
        )
        if family is Family.slack:
            message.blocks = _blocks(title, _sections(text + ([footer.strip()] if footer else []), limits))
        messages.append(message)
    return messages


def _sections(lines: Sequence[str], limits: Limits) -> list[str]:
    size = limits.section or limits.size
    sections: list[list[str]] = [[]]
    for line in lines:
        if sections[-1] and len("\n".join(sections[-1] + [line])) > size:
            sections.append([])
        sections[-1].append(line)
    return ["\n".join(s) for s in sections]


def _slack_full(part: list[tuple[str, str, Change]], line: str, limits: Limits) -> bool:
    if limits.blocks is None:
        return False
    # One block is the header, one the sources; the others are sections.
    return len(_sections([text for _, text, _ in part] + [line], limits)) > limits.blocks - 2


def _blocks(header: str, sections: Sequence[str]) -> list[dict]:
    """`header` is escaped already: plain text, but Slack still reads &, < and >."""
    blocks: list[dict] = [{"type": "header", "text": {"type": "plain_text", "text": header, "emoji": False}}]
    blocks += [{"type": "section", "text": {"type": "mrkdwn", "text": s}} for s in sections]
    return blocks


def sample_change(now: object) -> Change:
    """The change `notify test` sends."""
    return Change(
        kind=ChangeKind.price_drop,
        provider="azure",
        source="azure",
        key="sample",
        region="eastus",
        instance_type="Standard_ND96asr_v4",
        gpu_model="A100 40GB",
        gpu_count=Decimal(8),
        os="linux",
        price_model="spot",
        old_price=Decimal("27.20"),
        new_price=Decimal("25.18"),
        percent=Decimal("-7.43"),
        currency="USD",
        unit="hour",
        source_url="https://azure.microsoft.com/pricing/details/virtual-machines/linux/",
        observed_at=now,
        detail={"sample": "this is a test message from gpu-tracker"},
    )
