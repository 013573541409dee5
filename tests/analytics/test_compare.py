"""`gpu-tracker compare`: the ranking per GPU-hour, FX with its rate and date,
and the figures beside each row, checked against numbers worked out by hand
from tests/helpers/analytics_data.py (1 USD = 8 CNY there)."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.analytics_data import H100_ROWS, as_csv, as_json, load_rows, use_config


def _setup(cli, home: Path, tmp_path: Path) -> None:
    use_config(home)
    load_rows(cli, tmp_path, H100_ROWS)


def test_ranks_every_price_model_per_gpu_hour(cli, home: Path, tmp_path: Path) -> None:
    _setup(cli, home, tmp_path)
    rows = as_json(cli("compare", "--gpu", "H100", "--format", "json"))
    got = [(r["rank"], r["provider"], r["price_model"], r["per_gpu_hour_converted"]) for r in rows]
    assert got == [
        (1, "aws", "spot", "2.752000"),  # 22.016 / 8
        (2, "alibaba", "monthly", "3.550000"),  # 163584 CNY / 720 h / 8 GPUs / 8 CNY per USD
        (3, "azure", "on_demand", "4.000000"),  # 2 USD for half a GPU
        (4, "alibaba", "on_demand", "4.437500"),  # 284 CNY / 8 / 8
        (5, "aws", "reserved", "5.000000"),  # (30 + 87600 / 8760) / 8
        (6, "aws", "on_demand", "6.880000"),  # 55.04 / 8
        (7, "gcp", "on_demand", "11.000000"),  # 88 / 8
    ]
    by = {(r["provider"], r["price_model"]): r for r in rows}
    spot, od, reserved = by["aws", "spot"], by["aws", "on_demand"], by["aws", "reserved"]
    assert spot["spot_saving_percent"] == "60.00" == od["spot_saving_percent"]  # (55.04 - 22.016) / 55.04
    assert reserved["hourly_price"] == "40.000000" and reserved["upfront_fee"] == "87600"
    assert reserved["three_year_total"] == "1051200.00"  # 40 x 26,280 h
    assert od["three_year_total"] == "1446451.20"  # 55.04 x 26,280
    assert (od["gpu_memory_gb"], od["gpu_interconnect"], od["network_gbps"]) == ("640", "NVSwitch", "3200")
    monthly, ali = by["alibaba", "monthly"], by["alibaba", "on_demand"]
    assert monthly["monthly_discount_percent"] == "20.00" == ali["monthly_discount_percent"]  # 1 - 163584 / (720 x 284)
    assert ali["spot_saving_percent"] is None
    half = by["azure", "on_demand"]
    assert half["fractional"] is True and half["gpu_count"] == "0.5"
    assert not any(r["fractional"] for r in rows if r["provider"] != "azure")


def test_converted_figures_carry_rate_date_and_original(cli, home: Path, tmp_path: Path) -> None:
    _setup(cli, home, tmp_path)
    rows = as_json(cli("compare", "--gpu", "H100", "--format", "json"))
    ali = next(r for r in rows if r["provider"] == "alibaba" and r["price_model"] == "on_demand")
    assert (ali["price"], ali["currency"], ali["unit"]) == ("284", "CNY", "hour")
    assert (ali["fx_rate"], ali["fx_date"], ali["fx_source"]) == ("0.125", "2026-12-01", "test treasury")
    assert ali["hourly_converted"] == "35.500000" and ali["target_currency"] == "USD"
    usd = next(r for r in rows if r["provider"] == "gcp")
    assert (usd["fx_rate"], usd["fx_date"]) == ("1", "")

    in_cny = as_json(cli("compare", "--gpu", "H100", "--currency", "cny", "--format", "json"))
    gcp = next(r for r in in_cny if r["provider"] == "gcp")
    assert (gcp["per_gpu_hour_converted"], gcp["fx_rate"], gcp["target_currency"]) == ("88.000000", "8", "CNY")
    table = cli("compare", "--gpu", "H100", "--currency", "CNY")
    assert table.code == 0 and "1 USD = 8 CNY" in table.out and "(2026-12-01)" in table.out
    assert "fractional" in table.out


def test_bundled_fx_table_is_used_without_configuration(cli, tmp_path: Path) -> None:
    load_rows(cli, tmp_path, H100_ROWS)
    ali = next(r for r in as_json(cli("compare", "--gpu", "H100", "--format", "json")) if r["provider"] == "alibaba")
    from tracker.analytics.facts.reference import load_references

    bundled = load_references().fx.rates["CNY"]
    assert ali["fx_date"] == bundled.date and ali["fx_source"] == bundled.source
    assert ali["fx_rate"] == format((1 / bundled.per_usd).normalize(), "f")


def test_filters_count_price_model_region_group(cli, home: Path, tmp_path: Path) -> None:
    _setup(cli, home, tmp_path)
    eight = as_json(cli("compare", "--gpu", "H100", "--count", "8", "--format", "json"))
    assert all(r["gpu_count"] == "8" for r in eight) and len(eight) == 6
    od = as_csv(cli("compare", "--gpu", "H100", "--price-model", "on_demand", "--format", "csv"))
    assert [(r["rank"], r["provider"]) for r in od] == [("1", "azure"), ("2", "alibaba"), ("3", "aws"), ("4", "gcp")]
    us = as_json(cli("compare", "--gpu", "H100", "--region-group", "us", "--format", "json"))
    assert {(r["provider"], r["region_group"]) for r in us} == {("aws", "us"), ("azure", "us")}
    cn = as_json(
        cli("compare", "--gpu", "H100", "--region-group", "cn", "--price-model", "monthly", "--format", "json")
    )
    assert [(r["provider"], r["region_group"]) for r in cn] == [("alibaba", "cn")]
    eu = as_json(cli("compare", "--gpu", "A100", "--region-group", "eu", "--format", "json"))
    assert [r["instance_type"] for r in eu] == ["a2-highgpu-1g"]


def test_bad_input_is_one_line(cli, home: Path, tmp_path: Path) -> None:
    _setup(cli, home, tmp_path)
    for args in (["--currency", "dollars"], ["--count", "eight"], ["--region-group", "mars"]):
        result = cli("compare", "--gpu", "H100", *args)
        assert result.code == 2 and "Traceback" not in result.err
    unknown = cli("compare", "--gpu", "H100", "--currency", "XYZ")
    assert unknown.code == 1 and "no exchange rate for XYZ" in unknown.err and len(unknown.err.splitlines()) == 1
    assert cli("compare", "--gpu", "B300", "--format", "json").out.strip() == "[]"


def test_reference_overrides_are_checked(cli, home: Path, tmp_path: Path) -> None:
    load_rows(cli, tmp_path, H100_ROWS)
    use_config(home, '[analytics.region_groups.gcp]\neurope-west4 = "us"\n')
    moved = as_json(cli("compare", "--gpu", "H100", "--region-group", "us", "--format", "json"))
    assert "gcp" in {r["provider"] for r in moved}
    use_config(home, '[analytics.region_groups.gcp]\neurope-west4 = "mars"\n')
    bad = cli("compare", "--gpu", "H100")
    assert bad.code == 1 and "'mars' is not one of" in bad.err and "config.toml" in bad.err
    use_config(home, '[analytics.fx]\nper_usd = { CNY = "8" }\n')
    undated = cli("compare", "--gpu", "H100")
    assert undated.code == 1 and "analytics.fx.date" in undated.err
