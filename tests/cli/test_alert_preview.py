"""`alerts preview`: stored changes rendered as each channel, or a named
family, would receive them; nothing is sent (no server is even running)."""

from __future__ import annotations

import json
from pathlib import Path

from sqlmodel import Session

from alerts.render import Family, single
from db.store.engine import make_engine, migrate
from db.store.reads import session as store
from db.store.writes.runs import add_changes
from tests.helpers.alert_samples import every_kind, gcp_credit


def stored(home: Path) -> list[int]:
    """Three changes in the home's SQLite store; their ids."""
    engine = make_engine(f"sqlite:///{home / 'tracker.db'}")
    migrate(engine)
    kinds = every_kind()
    changes = [kinds["price_drop"], kinds["credit_changed"], gcp_credit()]
    with Session(engine) as session:
        add_changes(session=session, run_id=None, changes=changes)
        session.commit()
        ids = [row.id or 0 for row in store.query_changes(session=session)]
    engine.dispose()
    return ids


def test_preview_as_a_named_family_is_what_the_channel_gets(sqlite_cli, home: Path) -> None:
    ids = stored(home)
    result = sqlite_cli("alerts", "preview", "--family", "wecom", "--change", str(ids[1]), "--format", "json")
    assert result.code == 0, result.err
    (shown,) = json.loads(result.out)
    assert shown["family"] == "wecom" and shown["changes"] == [ids[1]]
    expected = single(("k", every_kind()["credit_changed"]), Family.wecom)
    assert shown["body"] == expected.body
    assert "满1000减300" in shown["body"] and "满1000减200" in shown["body"]


def test_preview_of_configured_channels_and_digest(sqlite_cli, home: Path) -> None:
    stored(home)
    (home / "config.toml").write_text(
        '[alerts]\ncurrency = "CNY"\n\n'
        '[[channel]]\nname = "team"\nurl = "slack://T0AAAAAAA/B0BBBBBBB/cccccccccccccccccccccccc"\n'
        '[[channel]]\nname = "ops"\nurl = "dingtalk://dingtalktoken0001/"\n',
        encoding="utf-8",
    )
    result = sqlite_cli("alerts", "preview", "--since", "3000d")
    assert result.code == 0, result.err
    assert result.out.count("── team (slack)") == 3 and result.out.count("── ops (markdown)") == 3
    assert "*Credit changed (gcp): Welcome GPU credit*" in result.out  # Slack's bold
    assert "**Credit changed (gcp): Welcome GPU credit**" in result.out  # DingTalk's
    assert "CNY (1 USD = 7.10 CNY, rate of 2026-11-30)" in result.out
    assert "dingtalktoken0001" not in result.out + result.err
    digest = sqlite_cli("alerts", "preview", "--since", "3000d", "--digest", "--family", "text")
    assert digest.code == 0, digest.err
    assert "GPU tracker digest (preview): 3 changes" in digest.out
    assert "gcp · Credit changed" in digest.out and "$300 → $200" in digest.out


def test_preview_says_what_is_wrong_in_one_line(sqlite_cli, home: Path) -> None:
    stored(home)
    bad = sqlite_cli("alerts", "preview", "--family", "pager")
    assert bad.code == 2 and "use one of" in bad.err
    missing = sqlite_cli("alerts", "preview", "--change", "999")
    assert missing.code == 1 and "no change with the id 999" in missing.err
    none = sqlite_cli("alerts", "preview", "--family", "slack", "--since", "2099-01-01")
    assert none.code == 1 and "no changes to preview" in none.err
    assert "Traceback" not in bad.err + missing.err + none.err
