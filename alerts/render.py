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
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from urllib.parse import quote

from alerts.cards import KIND_TITLES, Card, card, clip
from db.schema import Change, ChangeKind, stable_hash

__all__ = ["Card", "Family", "Limits", "Message", "card", "clip", "digest", "escape", "single"]


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
    """One change under its group's heading (which names the provider and kind)."""
    esc = _ESCAPES[family]
    return f"- {_bold(esc(c.subject or c.headline), family)}" + (f": {esc(c.summary)}" if c.summary else "")


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


@dataclass
class _Part:
    lines: list[str] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    links: dict[str, str] = field(default_factory=dict)
    group: str = ""


def _group(change: Change, family: Family) -> str:
    kind = ChangeKind(change.kind)
    return _bold(escape(f"{change.provider} · {KIND_TITLES.get(kind, str(kind))}", family), family)


def digest(items: Sequence[Item], family: Family, label: str, limits: Limits | None = None) -> list[Message]:
    """Many changes as few messages, each within the channel's limits,
    grouped by provider and kind (a group that spans two parts is named
    again at the top of the second)."""
    limits = limits or LIMITS[family]
    order = {kind: n for n, kind in enumerate(ChangeKind)}
    ordered = sorted(items, key=lambda item: (item[1].provider, order.get(ChangeKind(item[1].kind), 99)))
    head = f"GPU tracker digest ({label}): {len(items)} changes"
    reserve = limits.measure(_bold(head + " (part 999/999)", family) + "\n\n")
    parts = [_Part()]
    size = reserve
    for key, change in ordered:
        line, group = digest_line(card(change, 160), family), _group(change, family)
        extra = {change.source_url: change.source or change.provider} if safe_url(change.source_url) else {}
        part = parts[-1]
        grow = limits.measure(_sources({**part.links, **extra}, family)) - limits.measure(_sources(part.links, family))
        add = (([""] if part.lines else []) + [group, line]) if group != part.group else [line]
        add_size = sum(limits.measure(text) + 1 for text in add) + grow
        if part.lines and (size + add_size > limits.size or _slack_full(part.lines + add, limits)):
            part = _Part()
            parts.append(part)
            size = reserve
            add = [group, line]
            add_size = sum(limits.measure(text) + 1 for text in add) + limits.measure(_sources(extra, family))
        part.lines += add
        part.keys.append(key)
        part.links.update(extra)
        part.group = group
        size += add_size
    messages = []
    for n, part in enumerate(parts, 1):
        title = escape(head if len(parts) == 1 else f"{head} (part {n}/{len(parts)})", family)
        keys = tuple(part.keys)
        footer = _sources(part.links, family)
        message = Message(
            title=title,
            body=_bold(title, family) + "\n\n" + "\n".join(part.lines) + footer,
            key=stable_hash(("digest",) + keys),
            row_keys=keys,
        )
        if family is Family.slack:
            message.blocks = _blocks(title, _sections(part.lines + ([footer.strip()] if footer else []), limits))
        messages.append(message)
    return messages


def _sections(lines: Sequence[str], limits: Limits) -> list[str]:
    size = limits.section or limits.size
    sections: list[list[str]] = [[]]
    for line in lines:
        if sections[-1] and len("\n".join(sections[-1] + [line])) > size:
            if not line:
                continue  # a blank line between groups never opens a section
            sections.append([])
        sections[-1].append(line)
    return ["\n".join(s) for s in sections]


def _slack_full(lines: list[str], limits: Limits) -> bool:
    if limits.blocks is None:
        return False
    # One block is the header, one the sources; the others are sections.
    return len(_sections(lines, limits)) > limits.blocks - 2


def _blocks(header: str, sections: Sequence[str]) -> list[dict]:
    """`header` is escaped already: plain text, but Slack still reads &, < and >."""
    blocks: list[dict] = [{"type": "header", "text": {"type": "plain_text", "text": header, "emoji": False}}]
    blocks += [{"type": "section", "text": {"type": "mrkdwn", "text": s}} for s in sections]
    return blocks


def sample_change(now: datetime) -> Change:
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
