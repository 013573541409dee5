"""Alibaba Cloud end to end: the CDN price file replayed into a store on each
back end, the version found again after a 404 (from the China page's plain
HTML, or the page as the browser rendered it, replayed without a browser),
shape changes, and spot prices from DescribePrice against a local server."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from urllib.parse import parse_qsl

import pytest

from spiders.alibaba.spider import sign_rpc
from spiders.har import read_har
from tests.conftest import DEMO_CAPTURES, FIXTURES
from tests.helpers.harutil import assert_broken_replay_keeps_data, page_json, set_page_json, shifted
from tests.helpers.localserver import Received, Reply, serve

# A whole crawl replayed end to end tests the spider and the pipeline, which do
# not depend on the store: SQLite only (the store's own tests run on both).
# The first crawl of EARLY runs once per worker (`replayed`, tests/helpers/replayed.py).
pytestmark = [pytest.mark.backends("sqlite"), pytest.mark.xdist_group("spiders-alibaba")]

EARLY = DEMO_CAPTURES / "alibaba" / "2026-08-03-ap-northeast-1+ap-southeast-1.har.gz"
NEW_VERSION = FIXTURES / "alibaba" / "alibaba-2026-09-03-new-version.har"
CHINA = DEMO_CAPTURES / "alibaba-cn" / "2026-08-03-cn-hangzhou+cn-beijing.har.gz"
LATER = datetime(2026, 10, 3, 6, tzinfo=UTC)
NO_BROWSER = "[crawl]\nbrowser_path = '/nonexistent/chromium'\n"
FIRST = ("crawl", "alibaba", "--replay", str(EARLY), "--format", "json")


def crawl(cli, har: Path, source: str = "alibaba"):
    return cli("crawl", source, "--replay", str(har), "--format", "json")


def prices(cli, *args: str) -> list[dict]:
    return json.loads(cli("prices", "--format", "json", *args).out)


def test_price_file_rows_per_period(cli, replayed) -> None:
    (first,) = replayed(FIRST)
    assert first.code == 0, first.err
    assert "spot prices skipped" in first.err and "[providers.alibaba]" in first.err
    rows = prices(cli, "--instance-type", "ecs.gn7e-c16g1.4xlarge")
    assert sorted((r["price_model"], r["term"], r["unit"], r["price"], r["hourly_price"]) for r in rows) == [
        ("monthly", "1mo", "month", "2035.44", "2.827000"),
        ("on_demand", "", "hour", "5.140", "5.140000"),
        ("yearly", "1yr", "year", "20354.40", "2.323562"),
    ]
    assert {(r["region"], r["currency"], r["gpu_model"], r["gpu_count"], r["gpu_memory_gb"]) for r in rows} == {
        ("ap-northeast-1", "USD", "A100 80GB", "1", "80")
    }
    every = prices(cli)
    assert {r["provider"] for r in every} == {"alibaba"}
    assert not [r for r in every if r["instance_type"] == "ecs.g7.large"]  # not a GPU type
    gn6i = {
        (r["os"], r["price"])
        for r in every
        if r["instance_type"] == "ecs.gn6i-c4g1.xlarge"
        and r["region"] == "ap-northeast-1"
        and r["price_model"] == "on_demand"
    }
    assert gn6i == {("linux", "1.165"), ("windows", "1.257")}  # the classic-network key is not kept
    slice_ = next(r for r in every if r["instance_type"] == "ecs.vgn6i-m4-vws.xlarge")
    assert (slice_["gpu_model"], Decimal(slice_["gpu_count"]), slice_["gpu_memory_gb"]) == ("T4", Decimal("0.25"), "4")


def test_gpu_filter_gives_usd_rows_with_periods(cli, replayed) -> None:
    assert replayed(FIRST)[0].code == 0
    rows = prices(cli, "--provider", "alibaba", "--gpu", "A100")
    assert {r["instance_type"] for r in rows} == {f"ecs.gn7e-c16g1.{s}xlarge" for s in (4, 8, 16, 32)}
    assert {(r["price_model"], r["term"], r["unit"]) for r in rows} == {
        ("on_demand", "", "hour"),
        ("monthly", "1mo", "month"),
        ("yearly", "1yr", "year"),
    }
    eight = next(r for r in rows if r["instance_type"] == "ecs.gn7e-c16g1.32xlarge" and r["unit"] == "hour")
    assert (eight["currency"], eight["price"], eight["price_per_gpu_hour"]) == ("USD", "41.060", "5.132500")


def test_china_site_gives_cny_rows(cli) -> None:
    result = crawl(cli, CHINA, "alibaba-cn")
    assert result.code == 0, result.err
    rows = prices(cli, "--provider", "alibaba", "--gpu", "A100", "--region", "cn-hangzhou")
    assert {(r["instance_type"], r["price_model"], r["currency"], r["price"]) for r in rows} == {
        ("ecs.gn7e-c16g1.4xlarge", "on_demand", "CNY", "34.74"),
        ("ecs.gn7e-c16g1.4xlarge", "monthly", "CNY", "13757.04"),
        ("ecs.gn7e-c16g1.4xlarge", "yearly", "CNY", "137570.40"),
    }
    v100 = prices(cli, "--gpu", "V100")
    assert {r["instance_type"] for r in v100} == {"ecs.gn6v-c8g1.2xlarge"}


def test_version_found_again_after_404(cli) -> None:
    (cli.home / "config.toml").write_text(NO_BROWSER)  # the rendered page is in the capture
    assert crawl(cli, EARLY).code == 0
    state = cli.home / "state" / "alibaba.json"
    assert json.loads(state.read_text())["version"] == "2.0.421"

    second = crawl(cli, NEW_VERSION)
    assert second.code == 0, second.err
    assert "no price file at version 2.0.421 (HTTP 404)" in second.err
    assert "names price file version 2.0.433" in second.err
    assert json.loads(state.read_text())["version"] == "2.0.433"
    changes = sorted((c["kind"], c["instance_type"], c["price_model"]) for c in json.loads(second.out))
    assert ("price_drop", "ecs.gn7e-c16g1.32xlarge", "on_demand") in changes
    assert ("new_sku", "ecs.gn8is-4x.16xlarge", "on_demand") in changes
    assert {c[1] for c in changes} == {"ecs.gn7e-c16g1.32xlarge", "ecs.gn8is-4x.16xlarge"}
    assert all(
        r["source_url"].endswith("/2.0.433/price/download/instancePrice.json")
        for r in prices(cli, "--instance-type", "ecs.gn8is-4x.16xlarge")
    )


def test_remembered_version_is_tried_first(cli, tmp_path: Path) -> None:
    """A capture holding only the 2.0.433 file loads once that version is
    remembered: no page, no browser."""
    (cli.home / "state").mkdir()
    (cli.home / "state" / "alibaba.json").write_text('{"version": "2.0.433"}')
    only_new = shifted(NEW_VERSION, tmp_path / "only-new.har", LATER)
    data = json.loads(only_new.read_text())
    data["log"]["entries"] = data["log"]["entries"][-1:]
    only_new.write_text(json.dumps(data))
    result = crawl(cli, only_new)
    assert result.code == 0, result.err
    assert "no price file" not in result.err
    assert prices(cli, "--instance-type", "ecs.gn8is-4x.16xlarge")


def test_page_naming_the_missing_version_fails(cli, tmp_path: Path) -> None:
    def same_version(i: int, entry: dict) -> None:
        if entry["request"]["url"] == "https://www.alibabacloud.com/product/ecs/pricing":
            text = entry["response"]["content"]["text"]
            entry["response"]["content"]["text"] = text.replace("2.0.433", "2.0.421")

    broken = shifted(NEW_VERSION, tmp_path / "same.har", LATER, same_version)
    result = crawl(cli, broken)
    assert result.code == 1
    assert "Alibaba: the price file for version 2.0.421 is missing" in result.err
    assert not prices(cli)


def _drop_pricing_info(i: int, entry: dict) -> None:
    page = page_json(entry)
    page["prices"] = page.pop("pricingInfo")
    set_page_json(entry, page)


def _drop_some_prices(i: int, entry: dict) -> None:
    page = page_json(entry)
    gpu_keys = [k for k in page["pricingInfo"] if "::ecs.gn" in k][:3]
    for key in gpu_keys:
        page["pricingInfo"][key]["hours"] = [{"cost": "1.0", "period": "1"}]
    set_page_json(entry, page)


@pytest.mark.parametrize(
    "edit, message",
    [
        (_drop_pricing_info, "Alibaba: pricingInfo missing"),
        (_drop_some_prices, "Alibaba: hours/months/years with price and period missing in 3/"),
    ],
)
def test_shape_change_fails_and_keeps_the_last_data(cli, replayed, tmp_path: Path, edit, message: str) -> None:
    broken = shifted(EARLY, tmp_path / "changed.har", LATER, edit)
    assert replayed(FIRST)[0].code == 0
    assert_broken_replay_keeps_data(cli, crawl, None, broken, message)


def test_spot_from_describe_price_keeps_list_and_trade_apart(cli) -> None:
    price_file = page_json(read_har(EARLY)["log"]["entries"][0])
    price_file["pricingInfo"] = {
        k: v for k, v in price_file["pricingInfo"].items() if k.startswith("ap-northeast-1::ecs.gn7e-c16g1.")
    }

    def answer(req: Received) -> Reply:
        if req.method == "GET":
            return Reply(body=json.dumps(price_file).encode())
        form = dict(parse_qsl(req.body.decode()))
        signature = form.pop("Signature")
        assert signature == sign_rpc(form, "s3cr3t-key")
        if form["InstanceType"] == "ecs.gn7e-c16g1.32xlarge":
            return Reply(status=400, body=json.dumps({"Code": "PriceNotFound", "Message": "no price"}).encode())
        return Reply(
            body=json.dumps(
                {
                    "RequestId": "r",
                    "PriceInfo": {
                        "Price": {"Currency": "USD", "OriginalPrice": 5.14, "DiscountPrice": 3.541, "TradePrice": 1.599}
                    },
                }
            ).encode()
        )

    with serve(answer) as (base, received):
        (cli.home / "config.toml").write_text(
            "[providers.alibaba]\naccess_key_id = 'LTAIexample'\naccess_key_secret = 's3cr3t-key'\n"
            f"cdn_base = '{base}'\necs_endpoint = '{base}/'\n"
        )
        result = cli("crawl", "alibaba", "--format", "json")
    assert result.code == 0, result.err
    forms = [dict(parse_qsl(r.body.decode())) for r in received if r.method == "POST"]
    assert {f["InstanceType"] for f in forms} == {f"ecs.gn7e-c16g1.{s}xlarge" for s in (4, 8, 16, 32)}
    assert {(f["SpotStrategy"], f["RegionId"], f["AccessKeyId"]) for f in forms} == {
        ("SpotAsPriceGo", "ap-northeast-1", "LTAIexample")
    }
    spot = prices(cli, "--price-model", "spot")
    assert sorted((r["instance_type"], r["price"], r["list_price"], r["unit"]) for r in spot) == [
        (f"ecs.gn7e-c16g1.{s}xlarge", "1.599", "5.14", "hour") for s in (16, 4, 8)
    ]
    assert "no spot price for 1 region and type pairs" in result.err
    leaked = [
        p for p in cli.home.rglob("*") if p.is_file() and p.name != "config.toml" and b"s3cr3t-key" in p.read_bytes()
    ]
    assert not leaked and "s3cr3t-key" not in result.out + result.err


def _cdn(versions: dict[str, bytes], page: bytes):
    """A CDN holding the price file at `versions`, and the pricing page."""

    def answer(req: Received) -> Reply:
        if req.path.startswith("/page"):
            return Reply(body=page, headers={"Content-Type": "text/html; charset=utf-8"})
        for version, body in versions.items():
            if f"/{version}/price/download/instancePrice.json" in req.path:
                return Reply(body=body)
        return Reply(status=404, body=b"<html>404</html>", headers={"Content-Type": "text/html"})

    return serve(answer)


def test_china_version_read_from_the_plain_page_without_a_browser(sqlite_cli) -> None:
    price_file = read_har(CHINA)["log"]["entries"][0]["response"]["content"]["text"].encode()
    page = b'<html><head><script src="https://g.alicdn.com/aliyun/ecs-price-info/2.0.433/js/app.js"></script>'
    with _cdn({"2.0.433": price_file}, page) as (base, received):
        (sqlite_cli.home / "config.toml").write_text(
            NO_BROWSER + f"[providers.alibaba]\ncdn_base = '{base}'\npricing_page = '{base}/page'\n"
        )
        result = sqlite_cli("crawl", "alibaba-cn", "--format", "json")
    assert result.code == 0, result.err
    assert "names price file version 2.0.433" in result.err
    assert [r.path for r in received] == [
        "/ecs-price-info/2.0.421/price/download/instancePrice.json",
        "/page",
        "/ecs-price-info/2.0.433/price/download/instancePrice.json",
    ]
    assert {r["currency"] for r in prices(sqlite_cli)} == {"CNY"}


def test_missing_browser_says_how_to_install_one(sqlite_cli) -> None:
    """Live, a page that names the version only once rendered needs Chromium."""
    with _cdn({}, b"<html><body>Loading prices...</body></html>") as (base, _received):
        (sqlite_cli.home / "config.toml").write_text(
            NO_BROWSER + f"[providers.alibaba]\ncdn_base = '{base}'\npricing_page = '{base}/page'\n"
        )
        result = sqlite_cli("crawl", "alibaba")
    assert result.code == 1 and "Traceback" not in result.err
    assert "install Chromium (apt-get install chromium)" in result.err
