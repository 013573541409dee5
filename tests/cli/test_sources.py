"""`gpu-tracker sources`: every registered source with its evidence, in the
listing contract (tracker/answers/columns.py) of table, JSON and CSV."""

from __future__ import annotations

import csv
import io
import json

from tracker.answers.columns import SOURCE_COLUMNS
from tracker.cli.providers import evidence_label
from tracker.sources import SOURCES


def test_sources_lists_every_source_with_its_evidence(sqlite_cli) -> None:
    result = sqlite_cli("sources", "--format", "json")
    assert result.code == 0, result.err
    rows = json.loads(result.out)
    assert [r["source"] for r in rows] == list(SOURCES)
    assert all(list(r) == SOURCE_COLUMNS for r in rows)
    for row in rows:
        source = SOURCES[row["source"]]
        assert (row["provider"], row["kind"], row["needs_api_key"]) == (
            source.provider,
            source.kind,
            source.needs_api_key,
        )
        assert row["price_models"] == ", ".join(source.price_models)
        assert row["crawled_by_default"] is source.crawled_by_default
        assert row["evidence"] == evidence_label(source)
        evidence = source.evidence
        assert row["evidence_kind"] == (evidence.kind if evidence else None)
        assert row["evidence_ref"] == (evidence.ref if evidence else None)
    default = sum(source.crawled_by_default for source in SOURCES.values())
    assert f"{default} of {len(SOURCES)} sources crawled by default" in result.err
    table = list(csv.reader(io.StringIO(sqlite_cli("sources", "-f", "csv").out)))
    assert table[0] == SOURCE_COLUMNS and len(table) == len(SOURCES) + 1
    shown = sqlite_cli("sources").out
    assert "evidence" in shown and "runpod-community" in shown and "default" in shown
