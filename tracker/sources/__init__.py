"""Every source we can crawl. Adding a provider is one declaration in the module of its kind
(clouds.py, gpu_clouds.py, offers.py, side_costs.py), which `_registry` joins.

Each source names its spider class and its normalizer function themselves,
so an import reader can follow them. Spider modules import Scrapy, which
takes a while to load: `SOURCES` is built on first use (PEP 562), and
`from tracker.sources import Source` stays cheap for the command line."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from tracker.sources.source import Source

if TYPE_CHECKING:
    SOURCES: dict[str, Source]


@cache
def _registry() -> dict[str, Source]:
    from tracker.sources import clouds, gpu_clouds, offers, side_costs

    every = (*clouds.sources(), *gpu_clouds.sources(), *offers.sources(), *side_costs.sources())
    return {s.name: s for s in every}


def __getattr__(name: str) -> Any:
    if name == "SOURCES":
        return _registry()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
