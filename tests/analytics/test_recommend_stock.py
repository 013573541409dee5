"""`recommend` ranks only what a person can buy now, one row per provider,
GPU model and kind of price (issue 43, item 5).

The small store: a marketplace (vastai) sells H100 SXM in four groups of one
region, each with its host offers (docs/marketplaces.md: one offer rents one
instance of the group's GPU count); a cloud (lambda) lists an 8-GPU type in
two regions, sold out in the cheaper, and a type sold out everywhere.
For 8 GPUs:
  1x, 1.90/h,  8 offers: 8 instances, buyable  -> 1.90 x 8 = 15.20 an hour
  2x, 3.00/h,  3 offers: 4 instances needed    -> left out
  4x, 7.00/h,  1 offer:  2 instances needed    -> left out
  8x, 20.00/h, 1 offer:  1 instance            -> 20.00 an hour, folded into 1x
  lambda gpu_8x_h100 24.00/h in us-east-1 (sold out) and 26.00/h in us-west-1
  lambda gpu_8x_b200 sold out everywhere        -> left out
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.helpers.analytics_data import as_json, load_rows, use_config

JOB = ["recommend", "--gpus", "8", "--hours-per-month", "100", "--months", "1", "--workload", "inference"]


def _market(count: int, price: str, offers: int) -> dict[str, Any]:
    return {
        "provider": "vastai",
        "region": "europe",
        "instance_type": f"{count}x H100 SXM verified",
        "gpu_model": "H100",
        "gpu_count": str(count),
        "price_model": "on_demand",
        "price": price,
        "currency": "USD",
        "unit": "hour",
        "median_price": price,
        "offer_count": offers,
    }


def _cloud(instance_type: str, model: str, region: str, price: str, availability: str) -> dict[str, Any]:
    return {
        "provider": "lambda",
        "region": region,
        "instance_type": instance_type,
        "gpu_model": model,
        "gpu_count": "8",
        "price_model": "on_demand",
        "price": price,
        "currency": "USD",
        "unit": "hour",
        "availability": availability,
    }


ROWS = [
    _market(1, "1.90", 8),
    _market(2, "3.00", 3),
    _market(4, "7.00", 1),
    _market(8, "20.00", 1),
    _cloud("gpu_8x_h100", "H100", "us-east-1", "24.00", "sold_out"),
    _cloud("gpu_8x_h100", "H100", "us-west-1", "26.00", "available"),
    _cloud("gpu_8x_b200", "B200", "us-east-1", "30.00", "sold_out"),
    _cloud("gpu_8x_b200", "B200", "us-west-1", "31.00", "sold_out"),
]


@pytest.fixture
def store(cli, home: Path, tmp_path: Path):
    use_config(home)
    load_rows(cli, tmp_path, ROWS)
    return cli


def picked(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(r["rank"], r["provider"], r["region"], r["instance_type"], int(r["instances"]), r["total"]) for r in rows]


def test_only_what_can_be_bought_now_one_row_per_provider_gpu_and_price(store) -> None:
    result = store(*JOB, "--format", "json")
    rows = as_json(result)
    assert picked(rows) == [
        (1, "vastai", "europe", "1x H100 SXM verified", 8, "1520.00"),  # 8 x 1.90 x 100 h
        (2, "lambda", "us-west-1", "gpu_8x_h100", 1, "2600.00"),  # us-east-1 is sold out
    ]
    # The 8x group (1 offer, 1 instance, 2000 against 1520) is folded into the 1x row.
    assert "also as 8x" in rows[0]["why"]
    assert "marketplace: the lowest of 8 host offers" in rows[0]["why"]
    # Both regions list it, the sold-out one too.
    assert rows[1]["other_regions"] == 1 and "cheapest of 2 regions" in rows[1]["why"]
    assert (
        "not ranked where a marketplace group has fewer host offers than the instances needed: "
        "2x H100 SXM verified (3 offers, 4 needed), 4x H100 SXM verified (1 offer, 2 needed)"
    ) in " ".join(result.err.split())
    assert "not ranked where sold out: gpu_8x_b200, gpu_8x_h100" in " ".join(result.err.split())
    # The store's candidates (a limit) rank as the whole computation (--limit 0).
    assert as_json(store(*JOB, "--limit", "1", "--format", "json")) == rows[:1]
    assert as_json(store(*JOB, "--limit", "0", "--format", "json")) == rows


def test_all_lists_every_option_that_can_be_bought(store) -> None:
    rows = as_json(store(*JOB, "--all", "--format", "json"))
    assert picked(rows) == [
        (1, "vastai", "europe", "1x H100 SXM verified", 8, "1520.00"),
        (2, "vastai", "europe", "8x H100 SXM verified", 1, "2000.00"),
        (3, "lambda", "us-west-1", "gpu_8x_h100", 1, "2600.00"),
    ]
    assert not any("also as" in r["why"] for r in rows)
    assert as_json(store(*JOB, "--all", "--limit", "2", "--format", "json")) == rows[:2]


def test_fewer_gpus_make_more_groups_buyable(store) -> None:
    # 4 GPUs: the 2x group's 3 offers hold 2 instances, the 4x group's 1 offer one.
    rows = as_json(store(*JOB[:2], "4", *JOB[3:], "--all", "--format", "json"))
    assert {r["instance_type"] for r in rows if r["provider"] == "vastai"} == {
        "1x H100 SXM verified",
        "2x H100 SXM verified",
        "4x H100 SXM verified",
        "8x H100 SXM verified",
    }


def test_nothing_that_can_be_bought_is_one_sentence(store) -> None:
    result = store(*JOB[:2], "64", *JOB[3:], "--provider", "vastai")
    assert result.code == 1 and "Traceback" not in result.err
    assert "no instance that meets these needs can be rented now" in result.err


def test_the_demo_never_asks_for_more_instances_than_a_group_has_offers(demo_cli) -> None:
    """On the demo, 8 GPUs of 70 GB: matpool's A100 80GB is one row (its 8x
    machine), never 2 instances of a 4x group with one host offer."""
    prices = as_json(demo_cli("prices", "--format", "json"))
    models = {"on_demand": {"on_demand"}, "spot": {"spot", "low_priority"}}
    job = ["recommend", "--gpus", "8", "--min-gpu-memory", "70", "--limit", "0", "--format", "json"]
    folded = demo_cli(*job)
    every = as_json(demo_cli(*job, "--all"))
    for row in every:
        place = (row["provider"], row["region"], row["instance_type"])
        behind = [
            p
            for p in prices
            if (p["provider"], p["region"], p["instance_type"]) == place
            and p["price_model"] in models.get(row["mix"], {p["price_model"]})
        ]
        # Some price of the option can supply it: not sold out, and enough host offers for its instances.
        assert any(
            p["availability"] != "sold_out"
            and (p.get("offer_count") is None or int(p["offer_count"]) >= int(row["instances"]))
            for p in behind
        ), row
    rows = as_json(folded)
    first = rows[0]
    assert (first["provider"], first["instance_type"], first["instances"]) == ("matpool", "8x A100-SXM4-80GB", "1")
    groups = [(r["provider"], r["gpu_model"], r["mix"]) for r in rows]
    assert len(groups) == len(set(groups))
    assert [r for r in rows if r["provider"] == "matpool" and r["gpu_model"] == "A100 80GB"] == [first]
    assert "not ranked where a marketplace group has fewer host offers than the instances needed" in " ".join(
        folded.err.split()
    )
    assert not [r for r in every if r["instance_type"] in ("4x A100-SXM4-80GB", "2x A100-SXM4-80GB")]
    # Every row of the folded answer is the same option in --all, with its own figures.
    alike = {(r["provider"], r["region"], r["instance_type"], r["mix"]): r for r in every}
    for row in rows:
        other = alike[(row["provider"], row["region"], row["instance_type"], row["mix"])]
        assert {k: v for k, v in row.items() if k not in ("rank", "why")} == {
            k: v for k, v in other.items() if k not in ("rank", "why")
        }
    assert len(every) > len(rows) and any("also as" in r["why"] for r in rows)
