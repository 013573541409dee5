"""The offers sources on real page structures (tests/fixtures/<provider>-offers/real/), whose
offers were written down before the spiders ran on them: every real offer block is emitted with
its full text under a fixed id, and the report counts offers read exactly, partly or missed, and
the blocks stored that state no offer (the reader's to drop). An offer is a block that states a
credit, voucher, discount, free GPU or trial time with its amount or size (issue 28): the
expected.toml files hold to that one definition, with a comment wherever a block's side needs a
reason. An offer read from a block besides the block's own names that block (`block`)."""

from __future__ import annotations

import importlib
import tomllib
from pathlib import Path
from typing import Any

import pytest
from parsel import Selector

from db.schema import Offer
from spiders.offers import page_blocks
from tests.conftest import FIXTURES
from tests.helpers.harutil import from_jsonl
from tracker.normalize import NormalizeError
from tracker.normalize.offers import normalize, slug

PROVIDERS = ("aws", "azure", "gcp", "alibaba", "tencent", "huawei", "volcengine")
CURRENCY = {"aws": "USD", "azure": "USD", "gcp": "USD"}
FIELDS = ("kind", "amount", "currency", "min_spend", "duration_days", "eligibility")


def pages(provider: str) -> list[dict[str, Any]]:
    real = FIXTURES / f"{provider}-offers" / "real"
    return [{**p, "path": real / p["file"]} for p in tomllib.loads((real / "expected.toml").read_text())["page"]]


def records(page: dict[str, Any]) -> list[dict[str, Any]]:
    module, name = page["parse"].split(":")
    parse = getattr(importlib.import_module(module), name)
    body = Path(page["path"]).read_bytes()
    return parse(body if page["file"].endswith(".json") else Selector(text=body.decode("utf-8")))


def judge(provider: str, page: dict[str, Any]) -> dict[str, Any]:
    got = records(page)
    items = [
        {
            "kind": "offer",
            "provider": provider,
            "observed_at": "2026-08-03T06:00:00Z",
            "source_url": page["url"],
            "currency": CURRENCY.get(provider, "CNY"),
            "data": r,
        }
        for r in got
    ]
    try:
        offers = normalize(from_jsonl(items)).offers
    except NormalizeError:  # a page none of whose blocks states an offer
        offers = []
    stored: dict[str, Offer] = {}
    for o in offers:  # the tiers of a 满减 ladder are `<block id>-<threshold>`: the block's first tier stands for it
        stored.setdefault(o.offer_id.split(":", 1)[1], o)
        if o.terms and o.terms.get("ladder"):
            stored.setdefault(o.terms["ladder"].split(":", 1)[1], o)
    out: dict[str, Any] = {"exact": [], "partly": [], "missed": [], "noise": []}
    for want in page["offers"]:
        offer = stored.get(slug(want["id"]))
        if offer is None:
            out["missed"].append(want["id"])
            continue
        read = {f: _value(getattr(offer, f)) for f in FIELDS}
        expected = {f: str(want[f]) for f in FIELDS if f in want}
        out["exact" if all(read[f] == v for f, v in expected.items()) else "partly"].append(
            (want["id"], {f: (v, read[f]) for f, v in expected.items() if read[f] != v})
        )
    wanted = {slug(w["id"]) for w in page["offers"]}
    out["noise"] = [k for k in stored if k not in wanted]
    return out


def _value(value: object) -> str | None:
    if value is None:
        return None
    return str(getattr(value, "value", value))


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_real_offer_block_is_emitted_with_its_text_under_a_fixed_id(provider: str) -> None:
    for page in pages(provider):
        got = {r["id"]: r for r in records(page)}
        for want in page["offers"]:
            name = want.get("block", want["id"])
            assert name in got, f"{page['file']}: no block {name!r}; blocks: {sorted(got)}"
            block = got[name]
            assert want["contains"] in f"{block['title']} {block['text']}"
        # Ids are the page's: a second crawl of the same page names the same blocks.
        assert [r["id"] for r in records(page)] == list(got)
        # Only the blocks written down (offers and non-offers) come out: no others.
        assert set(got) <= {w.get("block", w["id"]) for w in page["offers"]} | set(page["not_offers"])


def test_report_offers_found_on_real_pages(capsys: pytest.CaptureFixture[str]) -> None:
    """Prints the before-and-after figure's "after" row; asserts that the reader and the
    pages' expected offers agree on what is an offer (nothing missed, nothing stored that is none)."""
    totals = {"offers": 0, "exact": 0, "partly": 0, "missed": 0, "noise": 0, "not_offers": 0}
    lines = []
    for provider in PROVIDERS:
        for page in pages(provider):
            result = judge(provider, page)
            totals["offers"] += len(page["offers"])
            totals["not_offers"] += len(page["not_offers"])
            for key in ("exact", "partly", "missed", "noise"):
                totals[key] += len(result[key])
            lines.append(
                f"{provider:<10} {page['file']:<26} offers {len(page['offers']):>2}: exact {len(result['exact']):>2}"
                f" partly {len(result['partly']):>2} missed {len(result['missed']):>2};"
                f" non-offer blocks stored {len(result['noise']):>2}/{len(page['not_offers'])}"
            )
            lines += [f"    partly {i}: {diff}" for i, diff in result["partly"]]
            lines += [f"    missed {i}" for i in result["missed"]]
            lines += [f"    non-offer stored {i}" for i in result["noise"]]
            assert not result["missed"], (provider, page["file"], result["missed"])
            assert not result["noise"], (provider, page["file"], result["noise"])
    with capsys.disabled():
        print("\n" + "\n".join(lines))
        print(
            f"all: {totals['offers']} offers, {totals['exact']} exact, {totals['partly']} partly,"
            f" {totals['missed']} missed; {totals['noise']} of {totals['not_offers']} non-offer blocks stored"
        )


def test_every_block_carries_its_pages_title_and_its_heading() -> None:
    """The context the reader reads a block in (issue 39): the page's title
    (its first h1, else its <title>) on every block of an HTML page, and the
    heading a block sits under as its section."""
    page = next(p for p in pages("alibaba") if p["file"] == "free-trials.html")
    got = records(page)
    assert {r.get("page") for r in got} == {"免费试用"}
    assert [r.get("section") for r in got] == ["主要免费产品"] * 4 + ["免费试用"]
    html = Selector(
        text="<html><head><title>Credits | Example</title></head><body><main><h2>Startup programs</h2>"
        "<table><tr><th>Tier</th><th>Credits</th></tr><tr><td>Founders</td><td>$1,000</td></tr></table>"
        "</main></body></html>"
    )
    rows = page_blocks(html, what="example", rows=True)
    assert [(r["title"], r["text"], r.get("section"), r.get("page")) for r in rows] == [
        ("Founders", "Credits: $1,000", "Startup programs", "Credits | Example")
    ]
    # a page without a title or h1 still says so: its list items are read in no heading
    bare = Selector(
        text="<html><body><main><ul><li>Startup credits</li><li>Up to $1,000 in credits</li></ul></main></body></html>"
    )
    assert [r.get("page") for r in page_blocks(bare, what="example", items=True)] == ["", ""]


def test_a_row_carries_the_trail_of_headings_above_it_and_is_read_in_it() -> None:
    """A startup program's tier table two headings down: the row's section is
    the table's heading ("Credit Tiers"), its trail names the program, and
    the normalizer reads its credit as a startup credit for startups."""
    html = Selector(
        text="<html><body><main><h1>Cloud credits</h1><p>Credits for builders.</p>"
        "<h2>Microsoft for Startups Founders Hub</h2><h3>Credit Tiers</h3>"
        "<table><tr><th>Stage</th><th>Credits</th><th>Duration</th></tr>"
        "<tr><td>Idea Stage</td><td>$1,000</td><td>12 months</td></tr></table>"
        "<h2>Free tier</h2><table><tr><th>Plan</th><th>Credits</th></tr><tr><td>Sign-up</td><td>$300</td></tr></table>"
        "</main></body></html>"
    )
    rows = page_blocks(html, what="example", rows=True)
    idea = next(r for r in rows if r["title"] == "Idea Stage")
    assert (idea["section"], idea.get("headings"), idea.get("page")) == (
        "Credit Tiers",
        ["Cloud credits", "Microsoft for Startups Founders Hub", "Credit Tiers"],
        "Cloud credits",
    )
    items = [
        {
            "kind": "offer",
            "provider": "azure",
            "observed_at": "2026-08-03T06:00:00Z",
            "source_url": "https://example.com/credits",
            "currency": "USD",
            "data": r,
        }
        for r in rows
    ]
    offers = {o.title: o for o in normalize(from_jsonl(items)).offers}
    assert (offers["Idea Stage"].kind, offers["Idea Stage"].eligibility, offers["Idea Stage"].duration_days) == (
        "startup_credit",
        "startups",
        365,
    )
    assert (offers["Sign-up"].kind, offers["Sign-up"].eligibility) == ("free_credit", "all")
