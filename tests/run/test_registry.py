"""The source registry names real spider classes and normalizer functions,
and the path a child process receives leads back to the same class."""

from __future__ import annotations

from spiders.crawling.runner import load_spider
from tracker.sources import SOURCES


def test_every_source_names_its_spider_class_and_normalizer() -> None:
    for name, source in SOURCES.items():
        assert source.name == name
        assert source.spider is not None and source.normalizer is not None
        assert load_spider(source.spider_path) is source.spider, name
        # `normalize`, or for a second source of a provider's (`<provider>-api`,
        # `runpod-community`) the function named after it where it has one, or
        # where one module reads several providers' answers of one kind
        # (`china_spot`), the function named after its provider.
        suffix = name.removeprefix(source.provider).lstrip("-")
        expected = (
            {"normalize_api"}
            if suffix == "api"
            else {"normalize", f"normalize_{suffix}", f"normalize_{source.provider}"}
        )
        assert source.normalizer.__name__ in expected, name
        assert source.uses_browser == bool(getattr(source.spider, "uses_browser", False))
