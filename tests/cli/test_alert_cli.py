"""Alerts from the command line: crawl changes reach the outbox in the same
transaction, `alerts deliver|outbox|retry`, `notify test`, `rules check`,
and webhook secrets masked everywhere."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from apprise.plugins.slack import NotifySlack
from apprise.plugins.wecombot import NotifyWeComBot

from tests.helpers.localserver import Received, Reply, serve
from tracker.run.captures import capture_regions, demo_captures

SECRET = "T0SECRET/B0SECRET/verysecretwebhooktoken"


def crawl_azure(cli) -> None:
    """The two bundled Azure captures, in date order: a baseline, then changes."""
    for source, capture in demo_captures():
        if source == "azure":
            result = cli(
                "crawl",
                "azure",
                "--replay",
                str(capture),
                *[a for r in capture_regions(capture) for a in ("--region", r)],
            )
            assert result.code == 0, result.err


def write_config(home: Path, url: str, **rule: str) -> None:
    extra = "".join(f"{k} = {v}\n" for k, v in rule.items())
    (home / "config.toml").write_text(
        f"""
[alerts]
retry_base_seconds = 1

[[channel]]
name = "team"
url = "{url}"

[[rule]]
name = "drops"
when = ["price_drop", "price_increase", "new_sku", "sku_removed"]
channels = ["team"]
{extra}""",
        encoding="utf-8",
    )


def test_crawl_changes_are_delivered(cli, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with serve(lambda req: Reply(200, b"ok", {"Content-Type": "text/plain"})) as (base, received):
        monkeypatch.setattr(NotifySlack, "webhook_url", f"{base}/slack")
        monkeypatch.setenv("TEAM_SLACK", f"https://hooks.slack.com/services/{SECRET}")
        write_config(home, "${TEAM_SLACK}", gpu='"A100"')
        crawl_azure(cli)
        changes = json.loads(cli("changes", "--format", "json").out)
        kinds = {"price_drop", "price_increase", "new_sku", "sku_removed"}
        a100 = [c for c in changes if "A100" in (c["gpu_model"] or "") and c["kind"] in kinds]
        outbox = json.loads(cli("alerts", "outbox", "--format", "json").out)
        assert a100 and len(outbox) == len(a100)
        assert {r["state"] for r in outbox} == {"pending"}

        check = json.loads(cli("rules", "check", "--since", "3000d", "--format", "json").out)
        assert sum(r["fires"] == "yes" for r in check) == len(a100)
        assert any(r["reason"].startswith("gpu ") for r in check if r["fires"] == "no")

        result = cli("alerts", "deliver")
        assert result.code == 0, result.err
        assert f"sent {len(a100)} messages" in result.err
        assert len(received) == len(a100)
        assert all(r.path == f"/slack/{SECRET}" for r in received)
        body = json.loads(received[0].body)
        assert body["blocks"][0]["type"] == "header" and "Standard_ND" in body["text"]
        sent = json.loads(cli("alerts", "outbox", "--state", "sent", "--format", "json").out)
        assert len(sent) == len(a100)
        assert cli("alerts", "deliver").err.startswith("sent 0 messages")


def test_secrets_never_show(cli, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def echo(req: Received) -> Reply:  # a server that repeats the URL, secret and all, in its error
        return Reply(500, json.dumps({"error": f"no route for {req.path}"}).encode())

    with serve(echo) as (base, received):
        host = base.removeprefix("http://")
        monkeypatch.setenv("HOOK_URL", f"json://{host}/hook/{SECRET}")
        write_config(home, "${HOOK_URL}")
        crawl_azure(cli)
        result = cli("--debug", "alerts", "deliver")
        assert result.code == 1 and "failed" in result.err and "500" in result.err
        listing = cli("alerts", "outbox", "--format", "json")
        table = cli("alerts", "outbox")
        test = cli("--verbose", "notify", "test", "team")
        assert test.code == 1 and "refused the test message" in test.err
        by_url = cli("notify", "test", f"json://{host}/hook/{SECRET}")
        assert by_url.code == 1
    assert received and all(SECRET in r.path for r in received)
    rows = json.loads(listing.out)
    tried = [r for r in rows if r["attempts"]]
    assert tried and all("500" in r["last_error"] and "***" in r["last_error"] for r in tried)
    for output in (
        result.out,
        result.err,
        listing.out,
        table.out,
        table.err,
        test.out,
        test.err,
        by_url.out,
        by_url.err,
    ):
        for piece in SECRET.split("/"):
            assert piece not in output


def test_dead_letters_shown_and_retried(cli, home: Path) -> None:
    status = {"code": 500}
    with serve(lambda req: Reply(status["code"], b"{}")) as (base, _received):
        (home / "config.toml").write_text(
            f"""
[alerts]
max_attempts = 1

[[channel]]
name = "hook"
url = "json://{base.removeprefix("http://")}/hook"

[[rule]]
name = "all"
channels = ["hook"]
when = ["price_drop"]
""",
            encoding="utf-8",
        )
        crawl_azure(cli)
        assert cli("alerts", "deliver").code == 1
        dead = json.loads(cli("alerts", "outbox", "--state", "dead", "--format", "json").out)
        assert dead and all(r["attempts"] == 1 for r in dead)
        csv_out = cli("alerts", "outbox", "--state", "dead", "--format", "csv").out.splitlines()
        assert csv_out[0].startswith("id,state,channel,kind") and len(csv_out) == len(dead) + 1
        retried = cli("alerts", "retry", "--id", str(dead[0]["id"]))
        assert retried.code == 0 and "1 messages are due again" in retried.err
        status["code"] = 200
        assert cli("alerts", "deliver").code == 0
        assert len(json.loads(cli("alerts", "outbox", "--state", "dead", "--format", "json").out)) == len(dead) - 1
        assert cli("alerts", "retry").code == 0
        assert cli("alerts", "deliver").code == 0
    assert json.loads(cli("alerts", "outbox", "--state", "dead", "--format", "json").out) == []
    assert cli("alerts", "outbox", "--state", "lost").code == 2


def test_notify_test_reports_the_channels_answer(sqlite_cli, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    replies = iter([b'{"errcode":0,"errmsg":"ok"}', b'{"errcode":93000,"errmsg":"invalid webhook url"}'])
    with serve(lambda req: Reply(200, next(replies))) as (base, received):
        monkeypatch.setattr(NotifyWeComBot, "notify_url", f"{base}/cgi-bin/webhook/send?key={{key}}")
        write_config(home, "wecombot://robotkey123456")
        good = sqlite_cli("notify", "test", "team")
        bad = sqlite_cli("notify", "test", "wecombot://robotkey123456")
    assert good.code == 0 and 'the channel answered: HTTP 200: {"errcode":0,"errmsg":"ok"}' in good.out
    assert "WeCom Bot, wecom format" in good.out
    assert bad.code == 1 and "93000" in bad.err and "invalid webhook url" in bad.err
    assert "robotkey123456" not in bad.err + good.out
    content = json.loads(received[0].body)["markdown"]["content"]
    assert content.startswith("**Price drop −7.43%: azure Standard_ND96asr_v4 (8 × A100 40GB) in eastus**")
    assert (
        sqlite_cli("notify", "test", "nosuch").err.strip()
        == "error: no channel named 'nosuch' (known: team); give a name or an Apprise URL"
    )
    assert "does not understand" in sqlite_cli("notify", "test", "nosuchscheme://x").err


def test_rules_check_needs_rules(sqlite_cli) -> None:
    result = sqlite_cli("rules", "check")
    assert result.code == 1 and result.err.strip() == "error: no [[rule]] is configured"
