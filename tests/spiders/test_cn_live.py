"""Tencent and Huawei live paths against a local server: the headers the
real pages send (Origin, Referer), the POST bodies, the zone and region
lists, and the site setting (cn in CNY, intl in USD)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from spiders.har import read_har
from tests.conftest import DEMO_CAPTURES
from tests.helpers.localserver import Received, Reply, serve

TENCENT = DEMO_CAPTURES / "tencent" / "2026-11-02-ap-guangzhou+ap-beijing.har.gz"
HUAWEI = DEMO_CAPTURES / "huawei" / "2026-11-02-cn-north-4+cn-east-3.har.gz"


def tencent_pages() -> dict[tuple[str, str], dict[str, Any]]:
    """(zone, charge type) -> the fixture's answer."""
    pages = {}
    for entry in read_har(TENCENT)["log"]["entries"]:
        filters = {
            f["Name"]: f["Values"][0] for f in json.loads(entry["request"]["postData"]["text"])["data"]["Filters"]
        }
        pages[(filters["zone"], filters["instance-charge-type"])] = json.loads(entry["response"]["content"]["text"])
    return pages


def filters_of(req: Received) -> dict[str, str]:
    return {f["Name"]: f["Values"][0] for f in json.loads(req.body)["data"]["Filters"]}


@pytest.mark.parametrize(
    "site, origin, currency",
    [
        ("cn", "https://buy.cloud.tencent.com", "CNY"),
        ("intl", "https://buy.tencentcloud.com", "USD"),
    ],
)
def test_tencent_posts_per_zone_with_the_page_headers(
    sqlite_cli, home: Path, site: str, origin: str, currency: str
) -> None:
    pages = tencent_pages()

    def answer(req: Received) -> Reply:
        filters = filters_of(req)
        return Reply(body=json.dumps(pages[(filters["zone"], filters["instance-charge-type"])]).encode())

    with serve(answer) as (base, received):
        (home / "config.toml").write_text(
            f'[providers.tencent]\nregions = ["ap-beijing"]\nzones = ["ap-beijing-6"]\nsite = "{site}"\n'
            f'api_url = "{base}/cgi/api"\n'
        )
        result = sqlite_cli("crawl", "tencent", "--format", "json")
    assert result.code == 0, result.err
    assert len(received) == 3
    for req in received:
        assert req.method == "POST"
        assert req.path == "/cgi/api?i=cvm/DescribeZoneInstanceConfigInfos&uin=&region=ap-beijing"
        assert (req.headers["Origin"], req.headers["Referer"]) == (origin, origin + "/price/cvm")
        assert req.headers["Content-Type"].startswith("application/json")
        body = json.loads(req.body)
        assert (body["serviceType"], body["action"], body["region"], body["cgiName"]) == (
            "cvm",
            "DescribeZoneInstanceConfigInfos",
            "ap-beijing",
            "api",
        )
        # As the purchase page and its public clients send them.
        assert (body["data"]["Version"], body["data"]["Platform"]) == ("2017-03-12", "LINUX")
    assert sorted(filters_of(r)["instance-charge-type"] for r in received) == [
        "POSTPAID_BY_HOUR",
        "PREPAID",
        "SPOTPAID",
    ]
    assert {filters_of(r)["zone"] for r in received} == {"ap-beijing-6"}
    prices = json.loads(sqlite_cli("prices", "--format", "json").out)
    assert len(prices) == 8 and {p["currency"] for p in prices} == {currency}
    assert {p["zone"] for p in prices} == {"ap-beijing-6"}


def test_tencent_region_without_a_zone_list_is_asked_whole(sqlite_cli, home: Path) -> None:
    pages = tencent_pages()

    def answer(req: Received) -> Reply:
        filters = filters_of(req)
        assert "zone" not in filters
        page = json.loads(json.dumps(pages[("ap-beijing-6", filters["instance-charge-type"])]))
        for item in page["data"]["Response"]["InstanceTypeQuotaSet"]:
            item["Zone"] = "ap-hongkong-2"
        return Reply(body=json.dumps(page).encode())

    with serve(answer) as (base, received):
        (home / "config.toml").write_text(f'[providers.tencent]\napi_url = "{base}/cgi/api"\n')
        result = sqlite_cli("crawl", "tencent", "-r", "ap-hongkong", "--format", "json")
    assert result.code == 0, result.err
    assert len(received) == 3
    assert "no zone list for ap-hongkong; asked for the whole region" in result.err
    prices = json.loads(sqlite_cli("prices", "--region", "ap-hongkong", "--format", "json").out)
    assert len(prices) == 8 and {p["zone"] for p in prices} == {"ap-hongkong-2"}


def test_huawei_menu_then_regions_with_the_page_headers(sqlite_cli, home: Path) -> None:
    answers = {}
    for entry in read_har(HUAWEI)["log"]["entries"]:
        query = parse_qs(urlsplit(entry["request"]["url"]).query)
        answers[query.get("region", ["menu"])[0]] = entry["response"]["content"]["text"].encode()

    def answer(req: Received) -> Reply:
        query = parse_qs(urlsplit(req.path).query)
        if req.path.startswith("/v4/api/menuInfo"):
            assert query == {"sign": ["common"], "language": ["zh-cn"]}
            return Reply(body=answers["menu"])
        assert req.path.startswith("/v4/api/productInfo")
        assert {k: v[0] for k, v in query.items()} == {
            "urlPath": "ecs",
            "tag": "general.online.portal",
            "region": "cn-east-3",
            "tab": "calc",
            "sign": "common",
        }
        return Reply(body=answers[query["region"][0]])

    with serve(answer) as (base, received):
        (home / "config.toml").write_text(f'[providers.huawei]\nregions = ["cn-east-3"]\napi_url = "{base}/v4/api"\n')
        result = sqlite_cli("crawl", "huawei", "--format", "json")
    assert result.code == 0, result.err
    assert [r.path.split("?")[0] for r in received] == ["/v4/api/menuInfo", "/v4/api/productInfo"]
    for req in received:
        assert req.method == "GET"
        assert req.headers["Origin"] == "https://www.huaweicloud.com"
        assert req.headers["Referer"] == "https://www.huaweicloud.com/pricing/calculator.html"
    prices = json.loads(sqlite_cli("prices", "--format", "json").out)
    assert {p["region"] for p in prices} == {"cn-east-3"} and {p["currency"] for p in prices} == {"CNY"}
