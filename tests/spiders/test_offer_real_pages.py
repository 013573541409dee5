"""The offers sources on real page structures (tests/fixtures/<provider>-offers/real/), whose
offers were written down before the spiders ran on them: every real offer block is emitted with
its full text under a fixed id, and the report counts offers read exactly, partly or missed, and
the blocks stored that state no offer (the reader's to drop)."""

from __future__ import annotations

import importlib
import tomllib
from pathlib import Path
from typing import Any

import pytest
from parsel import Selector

from tests.conftest import FIXTURES
from tracker.normalize import NormalizeError
from tracker.normalize.offers import normalize, slug

PROVIDERS = ("aws", "azure", "gcp", "alibaba", "tencent", "huawei", "volcengine")
CURRENCY = {"aws": "USD", "azure": "USD", "gcp": "USD"}
FIELDS = ("kind", "amount", "currency", "min_spend", "duration_days", "eligibility")
# Where the reader (tracker/normalize/offer_reader.py) judges otherwise than these pages'
# expected.toml, by its rule that an offer states its amount or size: free trials and free
# tiers that give no length or amount are no offers; "for free ... for one year" is a
# 365-day trial, in an FAQ answer too.
READER_DROPS = {
    "aws-lambda",  # "1 Million free requests per month": a free tier's quota, no trial length
    "free-tier",  # "free usage ... up to specified monthly limits"
    "if-you-are-already-a-google-cloud-customer",
    "free-test/华为云免费试用",  # "0 元试用", no length
    "free-test/弹性云服务器-ecs",  # "新用户专享 免费试用", no length
    "free-test/gpu-加速型云服务器",
}
READER_READS = {
    "guide-q1-what-is-the-aws-free-tier",  # "... for free up to specified limits for one year ..."
    "guide-q2-when-does-the-aws-free-tier-expire",
    "new-云产品体验-renewal-discount",  # the block's "续费一年3.3折起": a renewal discount of its own
}


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
        offers = normalize(items).offers
    except NormalizeError:  # a page none of whose blocks states an offer
        offers = []
    stored = {}
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
    offers = {slug(w["id"]) for w in page["offers"]}
    out["noise"] = [k for k in stored if k not in offers]
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
            assert want["id"] in got, f"{page['file']}: no block {want['id']!r}; blocks: {sorted(got)}"
            block = got[want["id"]]
            assert want["contains"] in f"{block['title']} {block['text']}"
        # Ids are the page's: a second crawl of the same page names the same blocks.
        assert [r["id"] for r in records(page)] == list(got)
        # Only the blocks written down (offers and non-offers) come out: no others.
        assert set(got) <= {w["id"] for w in page["offers"]} | set(page["not_offers"])


def test_report_offers_found_on_real_pages(capsys: pytest.CaptureFixture[str]) -> None:
    """Prints the before-and-after figure's "after" row; asserts only what the sources
    guarantee (nothing missed)."""
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
            assert set(result["missed"]) <= READER_DROPS, (provider, page["file"], result["missed"])
            assert set(result["noise"]) <= READER_READS, (provider, page["file"], result["noise"])
    with capsys.disabled():
        print("\n" + "\n".join(lines))
        print(
            f"all: {totals['offers']} offers, {totals['exact']} exact, {totals['partly']} partly,"
            f" {totals['missed']} missed; {totals['noise']} of {totals['not_offers']} non-offer blocks stored"
        )
