"""The providers table (docs/providers.md) is generated from the source
registry and checked against it: every provider has a row and a page, every
price source says what it stores, and the README points at the table."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from db.kinds import PriceModel
from tracker.cli.providers import render, rows
from tracker.sources import SOURCES

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "providers.md"


def _provider(row: list[str]) -> str:
    """The provider a row names, in its first cell's link: "[aws](...)"."""
    found = re.match(r"\[(.+?)\]", row[0])
    assert found, row[0]
    return found.group(1)


def test_the_page_is_current() -> None:
    """Regenerate with `python -m tracker.cli.providers > docs/providers.md`."""
    printed = subprocess.run(
        [sys.executable, "-m", "tracker.cli.providers"], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    assert printed == render()
    assert PAGE.read_text(encoding="utf-8") == printed


def test_one_row_per_provider_with_its_page() -> None:
    providers = list(dict.fromkeys(s.provider for s in SOURCES.values()))
    table = rows()
    assert [_provider(r) for r in table] == providers
    for provider in providers:
        assert (ROOT / "docs" / "providers" / f"{provider}.md").is_file(), provider
    text = PAGE.read_text(encoding="utf-8")
    assert f"**{len(providers)} providers** through **{len(SOURCES)} sources**" in text
    for source in SOURCES.values():
        assert f"`{source.name}`" in text, source.name


def test_every_price_source_says_what_it_stores() -> None:
    known = {m.value for m in PriceModel}
    for source in SOURCES.values():
        if source.kind == "offers":
            assert not source.price_models, source.name
            continue
        assert source.price_models and set(source.price_models) <= known, source.name
        assert source.regions, f"{source.name}: say which regions it covers"


def test_keys_and_stock_follow_the_registry() -> None:
    by_provider = {_provider(r): r for r in rows()}
    assert by_provider["lambda"][4] == "per region"
    assert by_provider["lambda"][6] == "`lambda`: `api_key` (`GPU_TRACKER_LAMBDA_API_KEY`)"
    assert by_provider["oci"][6] == "none"
    keyed = {s.provider for s in SOURCES.values() if s.needs_api_key}
    assert {p for p, r in by_provider.items() if r[6] != "none"} == keyed


def test_the_readme_links_the_table() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/providers.md" in readme
