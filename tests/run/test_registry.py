"""The source registry names real spider classes and normalizer functions,
and the path a child process receives leads back to the same class."""

from __future__ import annotations

from spiders.runner import load_spider
from tracker.sources import SOURCES


def test_every_source_names_its_spider_class_and_normalizer() -> None:
    for name, source in SOURCES.items():
        assert source.name == name
        assert source.spider is not None and source.normalizer is not None
        assert load_spider(source.spider_path) is source.spider, name
        assert source.normalizer.__name__ == ("normalize_api" if name.endswith("-api") else "normalize"), name
        assert source.uses_browser == bool(getattr(source.spider, "uses_browser", False))
