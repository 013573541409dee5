"""DigitalOcean's sizes pages: `{sizes: [...], links: {pages: {next, last}},
meta: {total}}`. Only the GPU Droplet sizes (those with `gpu_info`) are kept;
`links.pages.next` is the absolute URL of the next page, absent on the last."""

from __future__ import annotations

from typing import cast
from urllib.parse import urlsplit

from spiders.digitalocean.items import DropletSize
from spiders.pages import PageShapeError, json_page, member


def parse_sizes_page(body: bytes, api_host: str) -> tuple[list[DropletSize], str | None]:
    """The GPU sizes on one page, and the next page's URL (or None). A next
    page on another host is refused: the token would go with it."""
    page = json_page(body, "DigitalOcean", "sizes")
    sizes = page["sizes"]
    if not all(isinstance(s, dict) and isinstance(s.get("slug"), str) and s["slug"] for s in sizes):
        raise PageShapeError("DigitalOcean: a size has no slug")
    following = member(member(page.get("links"), "pages"), "next")
    if following is not None and not isinstance(following, str):
        raise PageShapeError(f"DigitalOcean: links.pages.next is {following!r}, not a URL")
    if following and urlsplit(following).netloc != api_host:
        raise PageShapeError(f"DigitalOcean: the next page {following} is not on {api_host}")
    kept = [cast(DropletSize, s) for s in sizes if s.get("gpu_info")]
    return kept, following or None
