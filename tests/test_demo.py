"""The demo: bundled captures into a fresh folder, offline."""

from __future__ import annotations

import json
from pathlib import Path

from tracker.demo import demo_captures


def test_demo_loads_and_shows_changes(sqlite_cli, tmp_path: Path) -> None:
    target = tmp_path / "demo-home"
    result = sqlite_cli("demo", "--home", str(target))
    assert result.code == 0, result.err
    assert (target / "tracker.db").exists()
    assert "price_drop" in result.out and "Standard_ND96amsr_A100_v4" in result.out
    assert "Try next" in result.err
    sources = {s for s, _ in demo_captures()}
    runs = json.loads(sqlite_cli("--home", str(target), "runs", "--format", "json").out)
    assert {r["source"] for r in runs} == sources
    assert all(r["status"] == "ok" for r in runs)

    offers = json.loads(sqlite_cli("--home", str(target), "offers", "--format", "json").out)
    assert {o["provider"] for o in offers} == {"aws", "azure", "gcp", "alibaba", "tencent", "huawei", "volcengine"}
    logged = json.loads(sqlite_cli("--home", str(target), "changes", "--format", "json").out)
    credit = [c for c in logged if c["kind"] == "credit_changed"]
    assert [(c["provider"], c["old_price"], c["new_price"]) for c in credit] == [("tencent", "200", "300")]
    assert "credit_changed" in result.out and not [c for c in logged if c["kind"] == "offer_changed"]

    again = sqlite_cli("demo", "--home", str(target))
    assert again.code == 0 and "already in the store" in again.err
    assert len(json.loads(sqlite_cli("--home", str(target), "runs", "--format", "json").out)) == len(runs)


def test_demo_captures_ship_as_package_data() -> None:
    captures = demo_captures()
    assert captures and all(p.name.endswith(".har.gz") for _, p in captures)
    assert all(p.is_relative_to(Path(__import__("tracker").__file__).parent) for _, p in captures)


def test_demo_without_chromium_skips_browser_pages(sqlite_cli, tmp_path: Path) -> None:
    target = tmp_path / "no-browser"
    target.mkdir()
    (target / "config.toml").write_text('[crawl]\nbrowser_path = "/nonexistent/chromium-x"\n')
    result = sqlite_cli("demo", "--home", str(target))
    assert result.code == 0, result.err
    assert "aws-offers: 2026-08-03.har.gz skipped: its pages need Chromium" in result.err
    offers = json.loads(sqlite_cli("--home", str(target), "offers", "--format", "json").out)
    assert "aws" not in {o["provider"] for o in offers} and len({o["provider"] for o in offers}) == 6
