"""The JSON API over HTTP: every endpoint answers the CLI's JSON for the same
question, byte for byte in content; every bad parameter is a 400 with one
sentence; the OpenAPI description names every endpoint; answers carry cache
headers; the Atom feed is an Atom feed."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from tests.web.conftest import Served, serving

ATOM = {"a": "http://www.w3.org/2005/Atom"}


def _text(element: ET.Element, name: str) -> str:
    """The text of the element's Atom child `name`, which must be there."""
    found = element.find(f"a:{name}", ATOM)
    assert found is not None, name
    return found.text or ""


ENDPOINTS = [
    "/api/prices",
    "/api/changes",
    "/api/offers",
    "/api/compare?gpu=H100",
    "/api/recommend?gpus=1",
    "/api/history/p5.48xlarge",
    "/api/sources",
    "/feeds/changes.atom",
]


@pytest.mark.parametrize("path", ENDPOINTS)
def test_every_endpoint_answers(served: Served, path: str) -> None:
    answer = served.get(path)
    assert answer.status_code == 200, answer.text
    assert answer.headers["cache-control"].startswith("private, max-age=")
    assert answer.headers["etag"].startswith('W/"')
    assert "default-src 'none'" in answer.headers["content-security-policy"]
    if path.startswith("/api/"):
        rows = answer.json()
        assert isinstance(rows, list) and rows, path
        # Money as exact strings, as the CLI's JSON writes it: never a float.
        money = ("price", "price_per_gpu_hour", "new_price", "old_price", "total", "per_gpu_hour", "amount")
        found = [row[k] for row in rows for k in money if row.get(k) is not None]
        assert all(isinstance(v, str) for v in found)


# The CLI's command for the same question as the endpoint (limit=10000: the whole list).
SAME_ANSWER = [
    ("/api/prices?gpu=H100&limit=10000", ["prices", "--gpu", "H100"]),
    ("/api/prices?provider=aws&price_model=spot&limit=10000", ["prices", "--provider", "aws", "--price-model", "spot"]),
    ("/api/changes?limit=10000", ["changes"]),
    (
        "/api/changes?kind=price_drop&provider=matpool&limit=10000",
        ["changes", "--kind", "price_drop", "--provider", "matpool"],
    ),
    ("/api/offers", ["offers"]),
    ("/api/offers?provider=tencent", ["offers", "--provider", "tencent"]),
    (
        "/api/compare?gpu=H100&count=8&region_group=us",
        ["compare", "--gpu", "H100", "--count", "8", "--region-group", "us"],
    ),
    (
        "/api/compare?gpu=A100&currency=CNY&rank_by=price_per_tflop_hour",
        ["compare", "--gpu", "A100", "--currency", "CNY", "--rank-by", "price_per_tflop_hour", "--limit", "100"],
    ),
    (
        "/api/recommend?gpus=8&min_gpu_memory=70&hours_per_month=500&months=12",
        ["recommend", "--gpus", "8", "--min-gpu-memory", "70", "--hours-per-month", "500", "--months", "12"],
    ),
    (
        "/api/recommend?gpus=1&gpu=A100&new_account=true&currency=CNY",
        ["recommend", "--gpus", "1", "--gpu", "A100", "--new-account", "--currency", "CNY"],
    ),
    (
        "/api/recommend?gpus=8&min_gpu_memory=70&all=true",
        ["recommend", "--gpus", "8", "--min-gpu-memory", "70", "--all"],
    ),
    ("/api/history/p5.48xlarge?price_model=on_demand", ["history", "p5.48xlarge", "--price-model", "on_demand"]),
    (
        "/api/recommend?gpus=8&price_model=spot&max_interruption=10&checkpoint_minutes=60",
        ["recommend", "--gpus", "8", "--price-model", "spot", "--max-interruption", "10", "--checkpoint-minutes", "60"],
    ),
]


@pytest.mark.parametrize(("path", "argv"), SAME_ANSWER, ids=[p for p, _ in SAME_ANSWER])
def test_the_api_answers_what_the_cli_prints(demo_cli, home, path: str, argv: list[str]) -> None:
    import os

    done = demo_cli(*argv, "--format", "json")
    assert done.code == 0, done.err
    with serving(os.environ["GPU_TRACKER_DATABASE_URL"], home) as served:
        answer = served.get(path)
    assert answer.status_code == 200, answer.text
    api, cli = answer.json(), json.loads(done.out)
    assert api, "an empty answer proves nothing"
    # The same rows, keys and values; in the same order, but for rows the CLI's
    # own ORDER BY leaves tied (PostgreSQL may return those in any order).
    assert sorted(api, key=json.dumps) == sorted(cli, key=json.dumps)
    tied = ("provider", "region", "instance_type", "price_model", "term", "os", "observed_at", "rank", "kind")
    assert [[r.get(k) for k in tied] for r in api] == [[r.get(k) for k in tied] for r in cli]


def test_a_page_of_prices_says_how_many_and_links_the_next(served: Served) -> None:
    first = served.get("/api/prices?limit=5")
    total = int(first.headers["x-total-count"])
    assert len(first.json()) == 5 and total > 5
    following = first.links["next"]["url"]
    second = served.get(following.removeprefix(served.base))
    assert second.json()[0] != first.json()[0]
    everything = served.get(f"/api/prices?limit={total}").json()
    assert everything[5:10] == second.json()
    assert "link" not in served.get(f"/api/prices?limit={total}").headers


def test_sorting_and_filters_hold(served: Served) -> None:
    rows = served.get("/api/prices?gpu=h100&sort=price_per_gpu_hour&limit=10000").json()
    per_gpu = [float(r["price_per_gpu_hour"]) for r in rows if r["price_per_gpu_hour"] is not None]
    assert per_gpu == sorted(per_gpu) and len(per_gpu) > 10
    assert all("H100" in r["gpu_model"] for r in rows)
    desc = served.get("/api/prices?sort=price&order=desc&currency=USD&unit=hour&limit=20")
    assert desc.status_code == 400 and "unit" in desc.json()["error"]
    rows = served.get("/api/prices?region_group=eu&limit=10000").json()
    assert rows and {r["provider"] for r in rows} >= {"azure"}
    assert not [r for r in rows if r["provider"] == "azure" and r["region"] in ("eastus", "westus2")]
    cn = served.get("/api/prices?region_group=cn&limit=10000").json()
    assert any(r["provider"] == "autodl" for r in cn)  # every AutoDL region is in China (its `*` row)
    sold = served.get("/api/prices?availability=sold_out&limit=10000").json()
    assert sold and all(r["availability"] == "sold_out" for r in sold)
    cny = served.get("/api/prices?currency=cny&limit=10000").json()
    assert cny and all(r["currency"] == "CNY" for r in cny)


BAD = [
    ("/api/prices?bogus=1", "unknown parameter 'bogus'"),
    ("/api/prices?limit=abc", "limit='abc' must be a whole number"),
    ("/api/prices?limit=0", "limit='0' must be a whole number from 1"),
    ("/api/prices?offset=-1", "offset='-1'"),
    ("/api/prices?price_model=cheap", "price_model='cheap' is not one of"),
    ("/api/prices?region_group=mars", "region_group='mars' is not one of"),
    ("/api/recommend?max_interruption=ten", "max_interruption='ten' is not a number"),
    ("/api/recommend?price_model=cheap", "price_model='cheap' is not one of"),
    ("/api/prices?sort=colour", "sort='colour' is not one of"),
    ("/api/prices?order=up", "order='up' is not one of"),
    ("/api/prices?currency=dollars", "is not a 3-letter currency code"),
    ("/api/prices?gpu=a&gpu=b", "gpu is given 2 times"),
    ("/api/prices?gpu=" + "x" * 300, "longer than 200 characters"),
    ("/api/prices?region=%00", "control characters"),
    ("/api/changes?since=yesterday", "since: 'yesterday' is not a date"),
    ("/api/changes?until=soon", "until: 'soon' is not a date"),
    ("/api/changes?kind=price_jump", "kind='price_jump' is not one of"),
    ("/api/changes?order=sideways", "order='sideways'"),
    ("/api/offers?kind=gift", "kind='gift' is not one of"),
    ("/api/offers?active=maybe", "active='maybe' must be true or false"),
    ("/api/compare", "gpu is required"),
    ("/api/compare?gpu=H100&count=lots", "count='lots' is not a number"),
    ("/api/compare?gpu=H100&rank_by=vibes", "rank_by='vibes' is not one of"),
    ("/api/compare?gpu=H100&currency=XYZ", "XYZ"),
    ("/api/recommend?gpus=1.5", "gpus='1.5' must be a whole number of GPUs"),
    ("/api/recommend?gpus=-1", "gpus='-1' must be a number from"),
    ("/api/recommend?hours_per_month=800", "a month has at most 744 hours"),
    ("/api/recommend?usable_memory_share=2", "usable_memory_share='2' must be a number above 0 and at most 1"),
    ("/api/recommend?months=999", "months='999' must be a whole number from 1 to 240"),
    ("/api/recommend?workload=gaming", "workload='gaming' is not one of"),
    ("/api/recommend?limit=0", "limit='0' must be a whole number from 1"),
    ("/api/recommend?gpus=8&min_gpu_memory=5000", "no GPU in the store has 5000 GB"),
    ("/api/recommend?qualify=friends", "qualify='friends' is not one of"),
    ("/api/recommend?mix=on_demand=2", "mix"),
    ("/api/recommend?spot_overhead=0.5", "spot_overhead='0.5' must be a number from 1"),
    ("/api/history/p5.48xlarge?price_model=free", "price_model='free' is not one of"),
    ("/api/history/p5.48xlarge?since=later", "since: 'later' is not a date"),
    ("/api/sources?x=1", "unknown parameter 'x'"),
    ("/feeds/changes.atom?rule=nobody", "no [[rule]] named 'nobody'"),
    ("/feeds/changes.atom?kind=nope", "kind='nope' is not one of"),
]


@pytest.mark.parametrize(("path", "says"), BAD, ids=[p for p, _ in BAD])
def test_a_bad_parameter_is_one_sentence(served: Served, path: str, says: str) -> None:
    answer = served.get(path)
    assert answer.status_code == 400, answer.text
    message = answer.json()["error"]
    assert says in message
    assert "\n" not in message and "Traceback" not in message and len(message) < 300


def test_needs_nothing_meets_keep_the_form(served: Served) -> None:
    """The recommend page answers needs no instance meets with the CLI's sentence, the form kept."""
    page = served.get("/recommend?gpus=8&min_gpu_memory=5000")
    assert page.status_code == 200
    assert "no GPU in the store has 5000 GB" in page.text and 'name="gpus"' in page.text


def test_the_recommend_form_takes_the_spot_risk(served: Served) -> None:
    """The form keeps checkpoint minutes, the interruption limit and the price model; the why names the band."""
    page = served.get("/recommend?gpus=8&price_model=spot&max_interruption=10&checkpoint_minutes=45")
    assert page.status_code == 200, page.text
    assert 'name="max_interruption" value="10"' in page.text and 'name="checkpoint_minutes" value="45"' in page.text
    assert "AWS Spot Instance Advisor" in page.text and "at 45 min a reclaim" in page.text
    assert "left out by --max-interruption 10%" in page.text


def test_read_only_and_unknown_paths(served: Served) -> None:
    import httpx

    posted = httpx.post(served.base + "/api/prices", json={})
    assert posted.status_code == 405 and posted.headers["allow"] == "GET, HEAD"
    assert "read-only" in posted.json()["error"]
    missing = served.get("/api/nothing")
    assert missing.status_code == 404 and "/api/openapi.json" in missing.json()["error"]


def test_head_answers_as_get_without_a_body(served: Served) -> None:
    import httpx

    for path in ("/prices?gpu=A100", "/api/prices?limit=2", "/healthz"):
        got, head = served.get(path), httpx.head(served.base + path)
        assert head.status_code == got.status_code == 200, path
        assert head.content == b"", path
        assert head.headers["content-type"] == got.headers["content-type"], path


def test_the_openapi_description_names_every_endpoint_and_parameter(served: Served) -> None:
    spec = served.get("/api/openapi.json").json()
    assert spec["openapi"].startswith("3.")
    paths = spec["paths"]
    for path in ("/api/prices", "/api/changes", "/api/offers", "/api/compare", "/api/recommend", "/api/sources"):
        assert path in paths, path
    assert any(p.startswith("/api/history/") for p in paths)
    assert "/feeds/changes.atom" in paths
    names = {p["name"] for p in paths["/api/prices"]["get"]["parameters"]}
    assert {"gpu", "region_group", "availability", "currency", "sort", "limit", "offset"} <= names
    assert not [p for p in paths if not p.startswith(("/api/", "/feeds/"))], "pages are not API"


def test_an_unchanged_answer_is_not_sent_again(served: Served) -> None:
    first = served.get("/api/offers")
    again = served.get("/api/offers", headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304 and not again.content
    other = served.get("/api/offers?provider=gcp", headers={"If-None-Match": first.headers["etag"]})
    assert other.status_code == 200


def test_the_atom_feed(served: Served) -> None:
    answer = served.get("/feeds/changes.atom?kind=price_drop")
    assert answer.headers["content-type"].startswith("application/atom+xml")
    ns = {"a": "http://www.w3.org/2005/Atom"}
    feed = ET.fromstring(answer.content)
    assert feed.tag == "{http://www.w3.org/2005/Atom}feed"
    for name in ("id", "title", "updated", "author"):
        assert len(feed.findall(f"a:{name}", ns)) == 1, name
    entries = feed.findall("a:entry", ns)
    assert entries
    for entry in entries:
        assert _text(entry, "id") and _text(entry, "updated")
        assert _text(entry, "title").startswith("price_drop: ")
    assert len({_text(e, "id") for e in entries}) == len(entries)


def test_health_is_open_and_says_so(served: Served) -> None:
    answer = served.get("/healthz")
    assert answer.status_code == 200 and answer.text == "ok\n"


def test_a_feed_per_rule(demo_db_url: str, tmp_path) -> None:
    """`rule=NAME` gives what that [[rule]] selects: its kinds and filters."""
    settings = {
        "channel": [{"name": "team", "url": "json://127.0.0.1:9/"}],
        "rule": [
            {"name": "matpool-drops", "when": ["price_drop"], "provider": "matpool", "channels": ["team"]},
            {"name": "h100", "gpu": "H100", "channels": ["team"]},
        ],
    }
    ns = {"a": "http://www.w3.org/2005/Atom"}
    with serving(demo_db_url, tmp_path, settings) as served:
        drops = ET.fromstring(served.get("/feeds/changes.atom?rule=matpool-drops").content)
        titles = [_text(e, "title") for e in drops.findall("a:entry", ns)]
        assert titles and all(t.startswith("price_drop: matpool ") for t in titles)
        assert _text(drops, "title") == "gpu-tracker: rule matpool-drops"
        h100 = ET.fromstring(served.get("/feeds/changes.atom?rule=h100").content).findall("a:entry", ns)
        assert h100 and len(h100) < len(ET.fromstring(served.get("/feeds/changes.atom").content).findall("a:entry", ns))
        unknown = served.get("/feeds/changes.atom?rule=other")
        assert unknown.status_code == 400 and "the rules: matpool-drops, h100" in unknown.json()["error"]
