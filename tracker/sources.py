"""Every source we can crawl. Adding a provider is one line here."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Source:
    name: str
    provider: str
    spider: str
    normalizer: str
    kind: str = "prices"


SOURCES: dict[str, Source] = {s.name: s for s in (
    Source("azure", "azure", "spiders.azure:AzureSpider", "tracker.normalize.azure"),
    Source("aws", "aws", "spiders.aws:AwsSpider", "tracker.normalize.aws"),
    Source("aws-reserved", "aws", "spiders.aws_bulk:AwsReservedSpider", "tracker.normalize.aws_reserved"),
)}
