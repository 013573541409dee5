"""Rules: filters, thresholds against the last notified price, hysteresis,
quiet hours and digests; and the rule settings in config.toml."""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from sqlmodel import Session

from alerts.rules import MemoryReferences, Rule, StoredReferences, compile_rules, route
from alerts.settings import RuleSettings
from db.schema import ChangeKind
from db.store.engine import make_engine, migrate
from tests.helpers.alert_samples import AT, price
from tracker.config.settings import load_config
from tracker.errors import ConfigError


def rule(**kw: object) -> Rule:
    kw.setdefault("name", "r")
    kw.setdefault("channels", ["team"])
    return Rule(RuleSettings.model_validate(kw))


def moves(*prices: str) -> list:
    """Successive price changes of one SKU: prices[0] -> prices[1] -> ..."""
    out = []
    for i, (old, new) in enumerate(itertools.pairwise(prices)):
        kind = ChangeKind.price_drop if Decimal(new) < Decimal(old) else ChangeKind.price_increase
        out.append(price(kind, old=old, new=new, at=AT + timedelta(hours=i)))
    return out


def fired(r: Rule, changes: list, refs=None) -> list[tuple[str, str, str]]:
    refs = refs if refs is not None else MemoryReferences()
    out = []
    for change in changes:
        verdict = r.judge(change, refs, change.observed_at)
        if verdict.fires:
            c = verdict.change
            assert c is not None
            out.append((str(c.kind), f"{c.old_price}->{c.new_price}", str(c.percent)))
    return out


@pytest.mark.parametrize(
    "filters, matches",
    [
        ({"provider": "azure"}, True),
        ({"provider": ["aws", "gcp"]}, False),
        ({"region": "EastUS"}, True),
        ({"gpu": "a100"}, True),
        ({"gpu": ["H100", "H200"]}, False),
        ({"instance_type": "Standard_ND*"}, True),
        ({"instance_type": "Standard_NC*"}, False),
        ({"price_model": "on_demand"}, False),
        ({"provider": "azure", "gpu": "A100", "price_model": ["spot", "low_priority"]}, True),
    ],
)
def test_filters(filters: dict, matches: bool) -> None:
    r = rule(**filters)
    assert (r.mismatch(price()) is None) is matches


def test_a_filter_names_why_it_rejects() -> None:
    assert rule(gpu=["H100", "H200"]).mismatch(price()) == "gpu A100 40GB is not H100 or H200"


def test_when_selects_kinds() -> None:
    r = rule(when=["price_drop"])
    assert fired(r, moves("10", "9")) == [("price_drop", "10->9", "-10.00")]
    assert fired(r, moves("9", "10")) == []


def test_slow_drift_adds_up_against_the_last_notified_price() -> None:
    r = rule(min_percent=5)
    # Four moves of about 2% each: none alone reaches 5%, together they do.
    changes = moves("10.00", "9.80", "9.60", "9.40", "9.20", "9.00", "8.90")
    assert fired(r, changes) == [("price_drop", "10.00->9.40", "-6.00"), ("price_drop", "9.40->8.90", "-5.32")]


def test_min_amount_is_measured_the_same_way() -> None:
    r = rule(min_amount="0.50")
    assert fired(r, moves("10.00", "9.80", "9.60", "9.45")) == [("price_drop", "10.00->9.45", "-5.50")]


def test_hysteresis_stops_a_flapping_price() -> None:
    flapping = moves("10.00", "9.40", "10.00", "9.40", "10.00", "9.40", "10.20")
    plain = fired(rule(min_percent=5), flapping)
    assert len(plain) == 6  # every run
    damped = fired(rule(min_percent=5, hysteresis=3), flapping)
    # Down once; back up by 6.4% is not the 8% a reversal needs; then a real rise.
    assert damped == [("price_drop", "10.00->9.40", "-6.00"), ("price_increase", "9.40->10.20", "8.51")]


def test_hysteresis_without_a_threshold() -> None:
    r = rule(hysteresis=2)
    assert fired(r, moves("10.00", "9.90", "10.00", "10.30")) == [
        ("price_drop", "10.00->9.90", "-1.00"),
        ("price_increase", "9.90->10.30", "4.04"),
    ]


def test_other_kinds_ignore_thresholds() -> None:
    r = rule(min_percent=50)
    change = price(ChangeKind.availability_changed, old="1.2", new="1.2")
    assert fired(r, [change]) == [("availability_changed", "1.2->1.2", "0.00")]


def test_references_persist_in_the_store(db_url: str) -> None:
    engine = make_engine(db_url)
    migrate(engine)
    r = rule(min_percent=5)
    changes = moves("10.00", "9.80", "9.60", "9.40")
    results = []
    for change in changes:  # one crawl (one transaction) per change
        with Session(engine) as session:
            results += fired(r, [change], StoredReferences(session))
            session.commit()
    assert results == [("price_drop", "10.00->9.40", "-6.00")]
    engine.dispose()


def test_quiet_hours_hold_messages_until_they_end() -> None:
    r = rule(quiet_hours="22:00-07:30", timezone="Asia/Shanghai")
    late = datetime(2026, 8, 3, 15, 0, tzinfo=UTC)  # 23:00 in Shanghai
    assert r.due(late) == (datetime(2026, 8, 3, 23, 30, tzinfo=UTC), None)
    day = datetime(2026, 8, 3, 3, 0, tzinfo=UTC)  # 11:00
    assert r.due(day) == (day, None)
    early = datetime(2026, 8, 3, 21, 0, tzinfo=UTC)  # 05:00 the next day
    assert r.due(early)[0] == datetime(2026, 8, 3, 23, 30, tzinfo=UTC)


def test_daily_and_weekly_digests_in_a_time_zone() -> None:
    daily = rule(digest="daily 09:00", timezone="Europe/Berlin")
    due, label = daily.due(datetime(2026, 8, 3, 10, 0, tzinfo=UTC))  # noon in Berlin (summer time)
    assert due == datetime(2026, 8, 4, 7, 0, tzinfo=UTC)
    assert label == "daily 09:00 Europe/Berlin @ 2026-08-04T07:00Z"
    assert daily.due(datetime(2026, 12, 3, 6, 0, tzinfo=UTC))[0] == datetime(2026, 12, 3, 8, 0, tzinfo=UTC)
    weekly = rule(digest="weekly Friday 18:00", timezone="America/New_York")
    due, label = weekly.due(datetime(2026, 8, 3, 12, 0, tzinfo=UTC))  # a Monday
    assert due == datetime(2026, 8, 7, 22, 0, tzinfo=UTC) and label and label.startswith("weekly fri 18:00")


def test_a_digest_in_quiet_hours_waits_for_their_end() -> None:
    r = rule(digest="daily 08:00", quiet_hours="07:00-09:00")
    assert r.due(datetime(2026, 8, 3, 6, 0, tzinfo=UTC))[0] == datetime(2026, 8, 3, 9, 0, tzinfo=UTC)


def test_two_rules_one_channel_one_row() -> None:
    rules = compile_rules(
        [
            RuleSettings(name="a", channels=["team"], digest="daily 09:00"),
            RuleSettings(name="b", channels=["team", "ops"], gpu="A100"),
        ]
    )
    routed = route(rules, [price()], MemoryReferences(), AT)
    assert [(r.channel, r.rules, r.digest) for r in routed] == [("team", ["a", "b"], None), ("ops", ["b"], None)]
    assert routed[0].due == AT


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_channels_and_rules_in_the_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLACK_WEBHOOK", "https://hooks.slack.com/services/T000/B000/secretsecretsecret")
    config = load_config(
        write(
            tmp_path,
            """
[alerts]
retry_base_seconds = 10
timezone = "Asia/Shanghai"

[[channel]]
name = "team"
url = "${SLACK_WEBHOOK}"

[[rule]]
name = "a100-drops"
when = ["price_drop"]
gpu = "A100"
min_percent = 5
channels = ["team"]
digest = "daily 09:00"
quiet_hours = "22:00-07:00"
""",
        ),
        home=tmp_path,
    )
    assert config.alerts.retry_base_seconds == 10 and config.alerts.max_attempts == 8
    assert config.channel[0].url.get_secret_value().endswith("secretsecretsecret")
    assert "secretsecret" not in repr(config) and "secretsecret" not in str(config.channel[0])
    assert config.rule[0].gpu == ["A100"] and config.rule[0].min_percent == Decimal(5)


@pytest.mark.parametrize(
    "text, message",
    [
        ('[[rule]]\nname = "r"\nchannels = ["nope"]\n', "rule[0].channels: no [[channel]] named 'nope'"),
        (
            '[[channel]]\nname = "c"\nurl = "json://x"\n[[rule]]\nname = "r"\nchannels = ["c"]\ndigest = "hourly"\n',
            "rule.0.digest: 'hourly': use 'immediate', 'daily HH:MM' or 'weekly mon HH:MM'",
        ),
        (
            '[[channel]]\nname = "c"\nurl = "json://x"\n[[rule]]\nname = "r"\nchannels = ["c"]\nquiet_hours = "late"\n',
            "rule.0.quiet_hours: 'late': use 'HH:MM-HH:MM'",
        ),
        (
            '[[channel]]\nname = "c"\nurl = "json://x"\n[[rule]]\nname = "r"\nchannels = ["c"]\ntimezone = "Mars/Base"\n',
            "rule.0.timezone: unknown time zone 'Mars/Base'",
        ),
        (
            '[[channel]]\nname = "c"\nurl = "json://x"\n[[rule]]\nname = "r"\nchannels = ["c"]\nwhen = ["price_dorp"]\n',
            "rule.0.when.0: Input should be",
        ),
        (
            '[[channel]]\nname = "c"\nurl = "json://a"\n[[channel]]\nname = "c"\nurl = "json://b"\n',
            "channel: the name 'c' is used twice",
        ),
        ("[alerts]\nmax_attempts = 0\n", "alerts.max_attempts: Input should be greater than or equal to 1"),
    ],
)
def test_bad_alert_settings_are_named(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, text), home=tmp_path).need("alerts")
    assert message in str(info.value)
    assert str(info.value).startswith(str(tmp_path))


def test_the_docs_example_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page = (Path(__file__).parents[2] / "docs" / "alerts.md").read_text(encoding="utf-8")
    example = page.split("## Example", 1)[1].split("```toml\n", 1)[1].split("```", 1)[0]
    monkeypatch.setenv("SLACK_WEBHOOK", "https://hooks.slack.com/services/T1/B1/xyz")
    monkeypatch.setenv("WECOM_BOT_KEY", "abc123")
    config = load_config(write(tmp_path, example), home=tmp_path)
    assert [r.name for r in config.rule] == ["a100-drops", "china-offers", "broken-sources"]
    from tracker.run.alerting import build_channels

    assert {n: c.family for n, c in build_channels(config).items()} == {"team-slack": "slack", "ops-wecom": "wecom"}


# --- stock: "tell me when 8×A100 in cn-beijing is back in stock" --------------


def test_rule_selects_gpu_count_and_availability() -> None:
    change = price(ChangeKind.availability_changed).model_copy(
        update={"gpu_count": Decimal(8), "detail": {"old_availability": "sold_out", "new_availability": "available"}}
    )
    assert rule(gpu_count=8, availability="available").mismatch(change) is None
    assert rule(gpu_count=[4, 8]).mismatch(change) is None
    assert rule(gpu_count=4).mismatch(change) == "gpu_count 8 is not 4"
    assert rule(availability="sold_out").mismatch(change) == "availability available is not sold_out"
    # A price move says nothing of stock.
    assert rule(availability="available").mismatch(price()) == "availability (none) is not available"


def test_back_in_stock_rule_fires_once_from_two_replays(sqlite_cli, tmp_path: Path) -> None:
    """Volcano Engine's 8×A100 type in cn-beijing sells out, then comes back:
    each replay's changes pass through the rule as the crawl stores them."""
    from tests.conftest import DEMO_CAPTURES
    from tests.helpers.harutil import page_json, set_page_json, shifted

    early = DEMO_CAPTURES / "volcengine" / "2026-08-03-cn-beijing+cn-shanghai.har.gz"

    def sold_out(i: int, entry: dict) -> None:
        if "ListTemplate" not in entry["request"]["url"]:
            return
        page = page_json(entry)
        template = json.loads(page["Result"]["List"][0]["Template"])
        for node in _nodes(template):
            if (node.get("ConfigurationCode"), node.get("Region")) == ("ecs.pni2.28xlarge", "cn-beijing"):
                node["AvailableZone"] = "[]"  # listed, in no zone: sold out
        page["Result"]["List"][0]["Template"] = json.dumps(template, ensure_ascii=False)
        set_page_json(entry, page)

    (sqlite_cli.home / "config.toml").write_text(
        """
[[channel]]
name = "team"
url = "json://127.0.0.1:9/hook"

[[rule]]
name = "a100-back"
when = "availability_changed"
gpu = "A100"
gpu_count = 8
region = "cn-beijing"
availability = "available"
price_model = "on_demand"
channels = ["team"]
""",
        encoding="utf-8",
    )
    runs = [
        early,
        shifted(early, tmp_path / "gone.har", datetime(2026, 8, 10, 6, tzinfo=UTC), sold_out),
        shifted(early, tmp_path / "back.har", datetime(2026, 8, 17, 6, tzinfo=UTC)),
    ]
    for har in runs:
        result = sqlite_cli("crawl", "volcengine", "--replay", str(har), "--format", "json")
        assert result.code == 0, result.err
    changes = json.loads(sqlite_cli("changes", "--kind", "availability_changed", "--format", "json").out)
    assert {(c["instance_type"], c["region"], c["detail"]) for c in changes} == {
        ("ecs.pni2.28xlarge", "cn-beijing", "availability: available -> sold_out"),
        ("ecs.pni2.28xlarge", "cn-beijing", "availability: sold_out -> available"),
    }
    outbox = json.loads(sqlite_cli("alerts", "outbox", "--format", "json").out)
    assert [(r["rules"], r["channel"]) for r in outbox] == [("a100-back", "team")]
    assert "ecs.pni2.28xlarge" in outbox[0]["summary"]


def _nodes(value: object) -> list[dict]:
    if isinstance(value, dict):
        return [value, *(n for v in value.values() for n in _nodes(v))]
    if isinstance(value, list):
        return [n for v in value for n in _nodes(v)]
    return []
