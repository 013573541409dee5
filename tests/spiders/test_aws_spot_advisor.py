"""aws-spot-advisor: the Spot Instance Advisor's bands read from a real
answer (tests/fixtures/aws-spot-advisor/real/), and the demo's pair of
captures replayed through the CLI: a band that worsens is one change, once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from spiders.aws.pages import parse_spot_advisor
from spiders.pages import PageShapeError
from tests.conftest import DEMO_CAPTURES, FIXTURES
from tracker.normalize import NormalizeError
from tracker.normalize.providers.aws_spot import normalize

REAL = FIXTURES / "aws-spot-advisor" / "real" / "spot-advisor-data-2025-06-28-gpu.json"
EARLY = DEMO_CAPTURES / "aws-spot-advisor" / "2026-10-30-us-east-1+us-west-2.har.gz"
LATE = DEMO_CAPTURES / "aws-spot-advisor" / "2026-11-30-us-east-1+us-west-2.har.gz"


# The module's replays share the stores `replayed` makes once per worker.
pytestmark = pytest.mark.xdist_group("spiders-aws-spot-advisor")


def crawl(capture: Path) -> tuple[str, ...]:
    return ("crawl", "aws-spot-advisor", "--replay", str(capture), "--format", "json")


def items(body: bytes) -> list[Any]:
    return [
        {"kind": "aws.spot_advisor", "observed_at": "2025-06-28T00:00:00Z", "source_url": "u", "data": r}
        for r in parse_spot_advisor(body)
    ]


def test_the_real_answer_gives_a_band_per_pool() -> None:
    bands = {b.pool: b for b in normalize(items(REAL.read_bytes())).spot_bands}
    assert len(bands) == 1286
    p5 = bands[("aws", "p5.48xlarge", "us-east-1", "linux")]
    assert (p5.band, p5.rank, p5.savings_percent) == (">20%", 4, 52)
    p5en = bands[("aws", "p5en.48xlarge", "us-east-1", "linux")]
    assert (p5en.band, p5en.rank, p5en.savings_percent) == ("<5%", 0, 64)
    assert bands[("aws", "p4d.24xlarge", "us-east-1", "linux")].band == "10-15%"
    # Every label of AWS's ranges is one the normalizer ranks.
    labels = [r["label"] for r in json.loads(REAL.read_bytes())["ranges"]]
    assert labels == ["<5%", "5-10%", "10-15%", "15-20%", ">20%"]


def test_an_unknown_band_or_shape_is_refused() -> None:
    page = json.loads(REAL.read_bytes())
    page["ranges"][4]["label"] = "over a fifth"
    with pytest.raises(NormalizeError, match="unknown interruption band 'over a fifth'"):
        normalize(items(json.dumps(page).encode()))
    with pytest.raises(PageShapeError, match="no ranges or spot_advisor"):
        parse_spot_advisor(b'{"spot_advisor": {}}')


@pytest.mark.backends("sqlite", "postgres")
def test_a_band_that_worsens_alerts_once(cli, replayed) -> None:
    first, second = replayed(crawl(EARLY), crawl(LATE))
    assert first.code == 0, first.err
    assert json.loads(first.out) == []  # the first reading of every pool: no change
    assert second.code == 0, second.err
    changes = json.loads(second.out)
    assert [(c["kind"], c["instance_type"], c["region"], c["os"]) for c in changes] == [
        ("spot_risk_worse", "p5en.48xlarge", "us-east-1", "linux")
    ]
    assert changes[0]["detail"] == "new_band: 5-10%; old_band: <5%; savings_percent: 64"
    # The same answer again changes nothing.
    again = cli("crawl", "aws-spot-advisor", "--replay", str(LATE), "--format", "json")
    assert again.code == 0 and json.loads(again.out) == []
    table = cli("changes", "--kind", "spot_risk_worse")
    assert "interruptions <5% → 5-10%" in table.out


@pytest.mark.backends("sqlite", "postgres")
def test_the_bands_keep_their_history(cli, replayed, tmp_path: Path) -> None:
    """A band that gets better is stored without a change; a pool the answer no longer lists is closed."""
    import os

    import sqlalchemy as sa

    from spiders.har import read_har, write_har

    assert [r.code for r in replayed(crawl(EARLY), crawl(LATE))] == [0, 0]
    har = read_har(LATE)
    entry = har["log"]["entries"][0]
    page = json.loads(entry["response"]["content"]["text"])
    page["spot_advisor"]["us-east-1"]["Linux"]["p5en.48xlarge"]["r"] = 0  # better again
    del page["spot_advisor"]["us-east-1"]["Linux"]["p4d.24xlarge"]  # no longer listed
    entry["response"]["content"]["text"] = json.dumps(page)
    entry["startedDateTime"] = "2026-12-30T06:00:00Z"
    later = tmp_path / "2026-12-30-us-east-1+us-west-2.har"
    write_har(later, [entry])
    third = cli("crawl", "aws-spot-advisor", "--replay", str(later), "--format", "json")
    assert third.code == 0, third.err
    assert json.loads(third.out) == []
    engine = sa.create_engine(os.environ["GPU_TRACKER_DATABASE_URL"])
    with engine.connect() as conn:
        rows = conn.execute(
            sa.text(
                "SELECT instance_type, band, valid_to IS NULL AS open FROM spot_bands"
                " WHERE region = 'us-east-1' AND os = 'linux' AND instance_type IN ('p5en.48xlarge', 'p4d.24xlarge')"
                " ORDER BY instance_type, id"
            )
        ).all()
    engine.dispose()
    assert [(t, b, bool(o)) for t, b, o in rows] == [
        ("p4d.24xlarge", "10-15%", False),
        ("p5en.48xlarge", "<5%", False),
        ("p5en.48xlarge", "5-10%", False),
        ("p5en.48xlarge", "<5%", True),
    ]
