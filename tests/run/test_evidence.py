"""What verified each source (spiders/evidence.py): every registered source
declares its evidence, the daemon's default set (and the CronJobs) holds no
source resting on `assumed` alone, a source is crawled whatever its evidence
when it is named, and every path the evidence names exists."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from spiders.evidence import KINDS, Evidence
from tracker.config.settings import Config
from tracker.daemon.health import check_config, default_sources, scheduled_sources
from tracker.daemon.k8s import cronjobs
from tracker.errors import ConfigError
from tracker.sources import SOURCES

ROOT = Path(__file__).resolve().parents[2]
# A path of the project named in an evidence's `fixture` (its `ref` may name
# paths of other repositories).
PATH = re.compile(r"\b(?:tests|tracker|spiders|docs)/[\w./+-]*[\w/]")


def test_every_source_declares_its_evidence() -> None:
    """Set `evidence=Evidence(...)` on the source's line in tracker/sources/."""
    missing = [name for name, source in SOURCES.items() if source.evidence is None]
    assert not missing, f"no evidence declared for {len(missing)} sources: {', '.join(missing)}"


def test_no_source_crawled_by_default_rests_on_assumed_alone() -> None:
    crawled = [name for name in default_sources(Config()) if name in SOURCES]
    assert crawled == [name for name, source in SOURCES.items() if source.crawled_by_default]
    for name in crawled:
        evidence = SOURCES[name].evidence
        assert evidence is not None, f"{name}: crawled by default with no evidence declared"
        assert evidence.kind != "assumed", f"{name}: crawled by default on assumed evidence alone"
    jobs = re.findall(r"gpu-tracker/source: ([\w-]+)\}", cronjobs())
    assert jobs == crawled, "deploy/k8s/cronjobs.yaml follows the daemon's default set"


def test_evidence_is_well_formed_and_its_paths_exist() -> None:
    for name, source in SOURCES.items():
        evidence = source.evidence
        if evidence is None:
            continue
        assert evidence.kind in KINDS and evidence.ref.strip(), name
        if evidence.date:
            assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", evidence.date), f"{name}: date {evidence.date!r}"
        for path in PATH.findall(evidence.fixture):
            assert (ROOT / path).exists(), f"{name}: its evidence names {path}, which does not exist"


def test_labels() -> None:
    assert Evidence("capture", "x", "2026-08-03").label() == "real capture (2026-08-03)"
    assert Evidence("capture", "x").label() == "real capture"
    assert [Evidence(k, "x").label() for k in KINDS[1:]] == ["documented example", "SDK model", "assumed"]


@pytest.fixture
def assumed_azure(monkeypatch: pytest.MonkeyPatch) -> str:
    """azure, as if it rested on assumed evidence."""
    monkeypatch.setitem(SOURCES, "azure", replace(SOURCES["azure"], evidence=Evidence("assumed", "our reading")))
    return "azure"


def test_an_assumed_source_is_crawled_only_when_named(assumed_azure: str) -> None:
    config = Config()
    assert assumed_azure not in default_sources(config) and assumed_azure not in scheduled_sources(config)
    assert f"gpu-tracker-crawl-{assumed_azure}\n" not in cronjobs()
    named = Config.model_validate({"daemon": {"sources": [assumed_azure]}})
    assert scheduled_sources(named) == check_config(named) == [assumed_azure]
    # A schedule of it, unnamed, says why it is not crawled (a switched-off one is no error).
    scheduled = Config.model_validate({"daemon": {"schedule": {assumed_azure: {"every": "1h"}}}})
    with pytest.raises(ConfigError, match=r"daemon.schedule.azure: not crawled by default, as its evidence is only"):
        check_config(scheduled)
    off = Config.model_validate({"daemon": {"schedule": {assumed_azure: {"enabled": False}}}})
    assert assumed_azure not in check_config(off)


def test_watch_pages_stay_in_the_default_set() -> None:
    page = {"name": "mypage", "url": "https://example.com/gpus", "provider": "example", "selector": ".price"}
    config = Config.model_validate({"watch": [page]})
    assert default_sources(config)[-1] == "watch:mypage"
