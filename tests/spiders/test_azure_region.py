"""A generated Azure region (benchmarks/providers/azure_region.py, the benchmark's
capture at a small size) replayed through the CLI: every page is followed
by its NextPageLink, and every GPU meter's prices, and only those, are stored."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from benchmarks.providers.azure_region import write_region

# A whole crawl replayed end to end tests the spider and the pipeline, which do
# not depend on the store: SQLite only (the store's own tests run on both).
pytestmark = pytest.mark.backends("sqlite")


def test_every_gpu_meter_of_a_paged_region_is_stored(cli, tmp_path: Path) -> None:
    har = tmp_path / "westeurope.har"
    made = write_region(har, 2_500, gpu_share=0.3)
    assert (made.pages, made.gpu_meters) == (3, 750)
    entries = json.loads(har.read_text())["log"]["entries"]
    pages = [json.loads(e["response"]["content"]["text"]) for e in entries]
    assert [p["Count"] for p in pages] == [1000, 1000, 500]
    assert [p["NextPageLink"] for p in pages] == [entries[1]["request"]["url"], entries[2]["request"]["url"], None]

    done = cli("crawl", "azure", "--region", "westeurope", "--replay", str(har), "--format", "json")
    assert done.code == 0, done.err
    assert "750 items" in done.err
    prices = json.loads(cli("prices", "--provider", "azure", "--format", "json").out)
    assert len(prices) == made.gpu_quotes
    assert all(p["instance_type"].startswith("Standard_N") for p in prices)
    # The capture's own 562 GPU meters, then 188 of the first copy under new size names.
    copies = Counter(p["instance_type"].endswith("_x1") for p in prices)
    assert copies[False] == 614 and copies[True] == made.gpu_quotes - 614
