"""Price history: intervals (not repeated rows), --since/--until, resampling
and the summary, through the CLI on both back ends and the Python API."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.analytics_data import as_csv, as_json, load_rows

T1, T2, T3 = "2026-08-01T00:00:00Z", "2026-08-15T12:00:00Z", "2026-09-10T00:00:00Z"
BASE = {
    "provider": "aws",
    "region": "us-east-1",
    "instance_type": "p4d.24xlarge",
    "gpu_model": "A100 40GB",
    "gpu_count": "8",
    "price_model": "on_demand",
    "currency": "USD",
    "unit": "hour",
}
OTHER = BASE | {"region": "eu-west-1"}


def _load_history(cli, tmp_path: Path) -> None:
    # 10 -> 8 at T2; at T3 only an attribute moves, which is no new price interval.
    load_rows(
        cli,
        tmp_path,
        [BASE | {"price": "10", "observed_at": T1}, OTHER | {"price": "12", "observed_at": T1}],
        source="hist",
        name="t1.jsonl",
    )
    load_rows(
        cli,
        tmp_path,
        [BASE | {"price": "8", "observed_at": T2}, OTHER | {"price": "12", "observed_at": T2}],
        source="hist",
        name="t2.jsonl",
    )
    load_rows(
        cli,
        tmp_path,
        [
            BASE | {"price": "8", "observed_at": T3, "attrs": {"note": "renamed"}},
            OTHER | {"price": "13.5", "observed_at": T3},
        ],
        source="hist",
        name="t3.jsonl",
    )


def test_history_shows_intervals_merging_attribute_only_changes(cli, tmp_path: Path) -> None:
    _load_history(cli, tmp_path)
    rows = as_json(cli("history", "p4d.24xlarge", "--region", "us-east-1", "--format", "json"))
    assert [(r["price"], r["valid_from"], r["valid_to"]) for r in rows] == [("10", T1, T2), ("8", T2, None)]
    assert rows[0]["price_per_gpu_hour"] == "1.250000"

    both = as_json(cli("history", "p4d.24xlarge", "--format", "json"))
    assert [(r["region"], r["price"]) for r in both] == [
        ("eu-west-1", "12"),
        ("eu-west-1", "13.5"),
        ("us-east-1", "10"),
        ("us-east-1", "8"),
    ]
    table = cli("history", "p4d.24xlarge")
    assert table.code == 0 and "13.5" in table.out and "eu-west-1" in table.out
    assert [r["price"] for r in as_csv(cli("history", "--gpu", "A100", "--format", "csv"))] == ["12", "13.5", "10", "8"]


def test_since_and_until_keep_overlapping_intervals(cli, tmp_path: Path) -> None:
    _load_history(cli, tmp_path)
    late = as_json(cli("history", "p4d.24xlarge", "--since", "2026-08-20", "--format", "json"))
    assert [(r["region"], r["price"]) for r in late] == [("eu-west-1", "12"), ("eu-west-1", "13.5"), ("us-east-1", "8")]
    early = as_json(cli("history", "p4d.24xlarge", "--until", "2026-08-10", "--format", "json"))
    assert [(r["region"], r["price"]) for r in early] == [("eu-west-1", "12"), ("us-east-1", "10")]
    window = as_json(
        cli("history", "p4d.24xlarge", "--since", "2026-08-16", "--until", "2026-09-01", "--format", "json")
    )
    assert [(r["region"], r["price"]) for r in window] == [("eu-west-1", "12"), ("us-east-1", "8")]


def test_resample_gives_the_price_in_force_at_each_step(cli, tmp_path: Path) -> None:
    _load_history(cli, tmp_path)
    days = as_json(
        cli(
            "history",
            "p4d.24xlarge",
            "--region",
            "us-east-1",
            "--resample",
            "day",
            "--since",
            "2026-08-14",
            "--until",
            "2026-08-17",
            "--format",
            "json",
        )
    )
    # The price changes at 12:00 on the 15th: at the end of that day 8 is in force.
    assert [(r["step"], r["price"]) for r in days] == [
        ("2026-08-14T00:00:00Z", "10"),
        ("2026-08-15T00:00:00Z", "8"),
        ("2026-08-16T00:00:00Z", "8"),
    ]
    weeks = as_json(
        cli(
            "history",
            "p4d.24xlarge",
            "--region",
            "us-east-1",
            "--resample",
            "week",
            "--until",
            "2026-08-24",
            "--format",
            "json",
        )
    )
    # Weeks run Monday to Sunday: 2026-07-27, 08-03, 08-10 (change on the 15th), 08-17.
    assert [(r["step"][:10], r["price"]) for r in weeks] == [
        ("2026-07-27", "10"),
        ("2026-08-03", "10"),
        ("2026-08-10", "8"),
        ("2026-08-17", "8"),
    ]
    months = as_csv(
        cli(
            "history",
            "p4d.24xlarge",
            "--region",
            "eu-west-1",
            "--resample",
            "month",
            "--until",
            "2026-10-01",
            "--format",
            "csv",
        )
    )
    assert [(r["step"][:7], r["price"]) for r in months] == [("2026-08", "12"), ("2026-09", "13.5")]


def test_summary_gives_min_max_and_last_change(cli, tmp_path: Path) -> None:
    _load_history(cli, tmp_path)
    rows = {r["region"]: r for r in as_json(cli("history", "p4d.24xlarge", "--summary", "--format", "json"))}
    us, eu = rows["us-east-1"], rows["eu-west-1"]
    assert (us["min_price"], us["min_from"], us["max_price"], us["max_from"]) == ("8", T2, "10", T1)
    assert (us["current_price"], us["intervals"]) == ("8", 2)
    assert (us["last_change_at"], us["last_change_from"], us["last_change_to"], us["last_change_percent"]) == (
        T2,
        "10",
        "8",
        "-20.00",
    )
    assert (eu["last_change_at"], eu["last_change_percent"]) == (T3, "12.50")
    table = cli("history", "p4d.24xlarge", "--summary")
    assert table.code == 0 and "-20.00" in table.out


def test_history_needs_something_to_show(sqlite_cli) -> None:
    result = sqlite_cli("history")
    assert result.code == 2 and "--gpu" in result.err
    empty = sqlite_cli("history", "nothing-here", "--format", "json")
    assert empty.code == 0 and as_json(empty) == []
    assert sqlite_cli("history", "x", "--resample", "hour").code == 2


def test_python_api_returns_frames(cli, tmp_path: Path, db_url: str) -> None:
    from tracker.analytics.history import history_frame, history_summary, open_store, resample_history

    _load_history(cli, tmp_path)
    engine = open_store(db_url)
    frame = history_frame(engine, gpu="A100", region="us-east-1")
    assert list(frame["price"].astype(str)) == ["10", "8"]
    assert str(frame["valid_from"].dtype) == "datetime64[ns, UTC]"
    steps = resample_history(frame, "month", until="2026-10-01")
    # At the end of August 8 is in force (it changed on the 15th), and all of September.
    assert [(str(s.date()), str(p)) for s, p in zip(steps["step"], steps["price"])] == [
        ("2026-08-01", "8"),
        ("2026-09-01", "8"),
    ]
    assert str(history_summary(frame).loc[0, "min_price"]) == "8"
    engine.dispose()


def test_since_when_every_interval_is_still_open(cli, tmp_path: Path) -> None:
    load_rows(cli, tmp_path, [BASE | {"price": "10", "observed_at": T1}], source="hist")
    rows = as_json(cli("history", "--gpu", "A100", "--since", "2026-07-01", "--format", "json"))
    assert [(r["price"], r["valid_to"]) for r in rows] == [("10", None)]
    exported = as_json(cli("export", "history", "--since", "2026-07-01", "--format", "json"))
    assert [r["price"] for r in exported] == ["10"]
