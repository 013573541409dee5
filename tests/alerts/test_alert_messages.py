"""What each channel receives, through real Apprise to a server on 127.0.0.1:
the exact bodies for every change kind, escaping of provider text, and
digests split within each service's limits."""

from __future__ import annotations

import email
import email.policy
import html
import json
import os
import re
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from urllib.parse import parse_qs

import pytest
from apprise.plugins.dingtalk import NotifyDingTalk
from apprise.plugins.discord import NotifyDiscord
from apprise.plugins.feishu import NotifyFeishu
from apprise.plugins.lark import NotifyLark
from apprise.plugins.serverchan import NotifyServerChan
from apprise.plugins.slack import NotifySlack
from apprise.plugins.telegram import NotifyTelegram
from apprise.plugins.wecombot import NotifyWeComBot

from alerts.channels import Channel
from alerts.render import Family, Item, digest, single
from db.schema import Change, ChangeKind
from tests.helpers.alert_samples import AT, HOSTILE, every_kind, price
from tests.helpers.localserver import Received, Reply, serve, serve_smtp

GOLDEN = Path(__file__).parents[1] / "fixtures" / "alerts"
UPDATE = os.environ.get("GPU_TRACKER_UPDATE_GOLDEN") == "1"
SLACK_URL = "https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/cccccccccccccccccccccccc"
WECOM_URL = "wecombot://wecomrobotkey0001"


def answer(req: Received) -> Reply:
    if req.path.startswith("/slack/"):
        return Reply(200, b"ok", {"Content-Type": "text/plain"})
    if req.path.startswith("/wecom"):
        return Reply(200, b'{"errcode":0,"errmsg":"ok"}')
    return Reply(200, b'{"ok":true,"errcode":0,"code":0,"StatusCode":0,"result":{}}')


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, list[Received]]]:
    with serve(answer) as (base, received):
        monkeypatch.setattr(NotifySlack, "webhook_url", f"{base}/slack")
        monkeypatch.setattr(NotifyWeComBot, "notify_url", f"{base}/wecom?key={{key}}")
        monkeypatch.setattr(NotifyDingTalk, "notify_url", f"{base}/dingtalk?access_token={{token}}")
        monkeypatch.setattr(NotifyFeishu, "notify_url", f"{base}/feishu/{{token}}/")
        monkeypatch.setattr(NotifyTelegram, "notify_url", f"{base}/telegram/bot")
        monkeypatch.setattr(NotifyServerChan, "notify_url", f"{base}/schan/{{token}}.send")
        monkeypatch.setattr(NotifyLark, "notify_url", f"{base}/lark/")
        monkeypatch.setattr(NotifyDiscord, "notify_url", f"{base}/discord")
        yield base, received


def check_golden(name: str, body: dict) -> None:
    path = GOLDEN / f"{name}.json"
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(body, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    assert body == json.loads(path.read_text(encoding="utf-8")), f"{name}: the body differs from {path}"


@pytest.mark.parametrize("kind", list(ChangeKind))
@pytest.mark.parametrize("service, url", [("slack", SLACK_URL), ("wecom", WECOM_URL)])
def test_exact_bodies_for_every_kind(server, service: str, url: str, kind: ChangeKind) -> None:
    _, received = server
    channel = Channel(service, url)
    result = channel.send(single(("key-1", every_kind()[kind]), channel.family, channel.limits))
    assert result.ok, result.answer
    assert len(received) == 1
    expected_path = (
        "/slack/T0AAAAAAA/B0BBBBBBB/cccccccccccccccccccccccc" if service == "slack" else "/wecom?key=wecomrobotkey0001"
    )
    assert received[0].path == expected_path
    check_golden(f"{service}/{kind}", json.loads(received[0].body))


@pytest.mark.parametrize(
    "service, url, path",
    [
        ("dingtalk", "dingtalk://dingtalktoken0001/", "/dingtalk?access_token=dingtalktoken0001"),
        ("feishu", "feishu://feishutoken0001", "/feishu/feishutoken0001/"),
        ("telegram", "tgram://123456789:AAbbccddeeffgghh/4242", "/telegram/bot123456789:AAbbccddeeffgghh/sendMessage"),
        ("serverchan", "schan://schankey0001", "/schan/schankey0001.send"),
    ],
)
@pytest.mark.parametrize("kind", [ChangeKind.price_drop, ChangeKind.offer_changed])
def test_chinese_and_chat_services(server, service: str, url: str, path: str, kind: ChangeKind) -> None:
    _, received = server
    channel = Channel(service, url)
    assert channel.family is Family.markdown
    result = channel.send(single(("key-1", every_kind()[kind]), channel.family, channel.limits))
    assert result.ok, result.answer
    sent = [r for r in received if r.path == path]
    assert len(sent) == 1, [r.path for r in received]
    body = sent[0].body.decode("utf-8")
    check_golden(f"{service}/{kind}", parse_qs(body) if service == "serverchan" else json.loads(body))


def test_other_urls_get_plain_text(server) -> None:
    base, received = server
    channel = Channel("hook", f"json://{base.removeprefix('http://')}/hook")
    assert channel.family is Family.text
    assert channel.send(single(("key-9", price()), channel.family, channel.limits)).ok
    payload = json.loads(received[0].body)
    assert received[0].headers["Idempotency-Key"] == "key-9"
    assert payload["title"] == "Price drop −7.43%: azure Standard_ND96asr_v4 (8 × A100 40GB) in eastus"
    assert payload["message"].splitlines() == [
        "Price: 27.20 → 25.18 USD/hour (−7.43%)",
        "Per GPU-hour: 3.400 → 3.148 USD",
        "GPU: 8 × A100 40GB",
        "Terms: spot · linux",
        "Where: azure · eastus · Standard_ND96asr_v4",
        "Source page: https://prices.azure.com/api/retail/prices?$filter=armRegionName%20eq%20'eastus'",
    ]


def test_provider_text_cannot_mention_link_or_break_markdown(server) -> None:
    _, received = server
    offer = every_kind()[ChangeKind.offer_added]
    for url in (SLACK_URL, WECOM_URL):
        channel = Channel("c", url)
        assert channel.send(single(("k", offer), channel.family, channel.limits)).ok
    slack, wecom = (json.loads(r.body) for r in received)
    slack_text = json.dumps(slack, ensure_ascii=False)
    for bad in ("<!channel>", "<@U024", "<http://evil", "http://evil", "**[Free]"):
        assert bad not in slack_text
    assert re.findall(r"<([^>]*)>", slack_text) == ["https://cloud.tencent.com/act/pro/gpu|Source page"]
    assert "GPU 新用户 3.5折" in slack_text
    content = wecom["markdown"]["content"]
    assert "<font" not in content and "[Free](" not in content and "<@" not in content
    assert "http://evil" not in content  # a bare link is defanged as on Slack
    # Our own markup is intact: one bold headline, one link, to the source page.
    assert content.count("**") % 2 == 0
    assert re.findall(r"\[([^\]]+)\]\(([^)]+)\)", content) == [("Source page", "https://cloud.tencent.com/act/pro/gpu")]


# Every trick at once: mentions of everyone in each service's syntax, a
# markdown link, HTML, and a bare link.
NASTY = HOSTILE + ' @everyone @here @all <@123456789> <at user_id="all">所有人</at> http://evil.example/x'
OFFER_PAGE = "https://cloud.tencent.com/act/pro/gpu"


def hostile_offer() -> Change:
    offer = every_kind()[ChangeKind.offer_added]
    return offer.model_copy(
        update={"detail": {"title": "GPU 新用户 3.5折 " + NASTY, "new_terms": "满1000减300 " + NASTY}}
    )


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _sent_text(req: Received) -> str:
    """Every text a service was sent, decoded: JSON strings or form values."""
    body = req.body.decode("utf-8")
    if req.headers.get("Content-Type", "").startswith("application/x-www-form-urlencoded"):
        return "\n".join(v for values in parse_qs(body).values() for v in values)
    return "\n".join(_strings(json.loads(body)))


def _mailed_text(raw: bytes) -> str:
    message = email.message_from_bytes(raw, policy=email.policy.default)
    return "\n".join(
        [str(message["Subject"])] + [part.get_content() for part in message.walk() if not part.is_multipart()]
    )


@pytest.mark.parametrize(
    "service, url",
    [
        ("dingtalk", "dingtalk://dingtalktoken0001/"),
        ("feishu", "feishu://feishutoken0001"),
        ("lark", "lark://larktoken0001"),
        ("telegram", "tgram://123456789:AAbbccddeeffgghh/4242"),
        ("telegram-html", "tgram://123456789:AAbbccddeeffgghh/4242?format=html"),
        ("serverchan", "schan://schankey0001"),
        ("discord", "discord://1234567/discordtoken0001"),
        ("matrix-html", "matrix://bot:matrixtoken0001@{host}/?mode=matrix"),
        ("email-html", "mailto://127.0.0.1:{smtp}?from=bot@example.com&to=ops@example.com"),
        ("ntfy", "ntfy://{host}/gpu"),
        ("json", "json://{host}/hook"),
    ],
)
def test_provider_text_is_defanged_in_every_format(server, service: str, url: str) -> None:
    base, received = server
    with serve_smtp() as (port, mails):
        channel = Channel(service, url.format(host=base.removeprefix("http://"), smtp=port))
        result = channel.send(single(("k", hostile_offer()), channel.family, channel.limits))
    assert result.ok, result.answer
    assert len(received) + len(mails) == 1
    text = _mailed_text(mails[0]) if mails else _sent_text(received[0])
    shown = html.unescape(text).replace("\xa0", " ")
    assert "GPU 新用户 3.5折" in shown and "满1000减300" in shown  # the offer itself gets through
    assert "evil.example" in text and "http://evil" not in text  # shown, but never linked
    assert re.findall(r"\]\(([^)]*)\)", text) in ([], [OFFER_PAGE])  # markdown links: ours alone
    assert set(re.findall(r'href="([^"]*)"', text)) <= {OFFER_PAGE}
    assert not re.search(r"@(?:everyone|here|all|U024BE7LH|123456789)", text)  # nobody is mentioned
    if channel.family is not Family.text:
        # No tag of the provider's, raw or entity-escaped: DingTalk and Feishu render
        # <font> and <at>, and may not honour a backslash. Plain text is only text, and
        # Apprise escapes it itself where a service renders markup.
        assert not re.search(r"(?:<|&lt;)(?:/?font|!channel|@|at\b)", text), text


def test_wecom_errcode_is_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    with serve(lambda req: Reply(200, b'{"errcode":93000,"errmsg":"invalid webhook url"}')) as (base, _):
        monkeypatch.setattr(NotifyWeComBot, "notify_url", f"{base}/wecom?key={{key}}")
        channel = Channel("wecom", WECOM_URL)
        result = channel.send(single(("k", price()), channel.family, channel.limits))
    assert not result.ok
    assert "93000" in result.answer and "invalid webhook url" in result.answer
    assert "wecomrobotkey0001" not in result.answer


def many_changes(n: int) -> list[Item]:
    return [
        (
            f"key-{i:04d}",
            price(
                key=f"k{i}",
                instance=f"ecs.gn7i-c{i}g1.规格{i}",
                region="cn-北京",
                old="12.50",
                new=str(Decimal("12.50") - Decimal(i) / 100),
            ),
        )
        for i in range(n)
    ]


def test_digest_of_500_changes_to_wecom_arrives_split_and_valid(server) -> None:
    _, received = server
    channel = Channel("wecom", WECOM_URL)
    items = many_changes(500)
    messages = digest(items, channel.family, "daily 09:00 Asia/Shanghai", channel.limits)
    assert len(messages) > 1
    for message in messages:
        assert channel.send(message).ok
    assert len(received) == len(messages)
    seen: list[str] = []
    for i, req in enumerate(received, 1):
        assert len(req.body.decode("utf-8").encode("utf-8")) == len(req.body)  # valid UTF-8
        content = json.loads(req.body)["markdown"]["content"]
        assert len(content.encode("utf-8")) < 4096
        assert f"(part {i}/{len(messages)})" in content
        seen += re.findall(r"ecs\.gn7i-c(\d+)g1", content)
    assert sorted(map(int, seen)) == list(range(500))


def test_slack_digest_respects_blocks_and_characters() -> None:
    channel = Channel("slack", SLACK_URL)
    messages = digest(many_changes(800), channel.family, "weekly mon 09:00 UTC", channel.limits)
    assert len(messages) > 1
    for message in messages:
        assert message.blocks is not None and len(message.blocks) <= 50
        assert sum(len(b["text"]["text"]) for b in message.blocks) <= 40_000
        assert all(len(b["text"]["text"]) <= 3000 for b in message.blocks)
    assert sum(len(m.row_keys) for m in messages) == 800


def test_long_provider_text_is_clipped_between_characters() -> None:
    change = every_kind()[ChangeKind.offer_changed].model_copy(
        update={"detail": {"title": "满减" * 3000, "old_terms": "代金券" * 3000, "new_terms": "折" * 5000}}
    )
    message = single(("k", change), Family.wecom)
    assert len(message.body.encode("utf-8")) <= 4096
    assert "…" in message.body
    message.body.encode("utf-8").decode("utf-8")


def test_sample_times_are_aware() -> None:
    assert AT.tzinfo is not None and HOSTILE
