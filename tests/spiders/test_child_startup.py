"""The crawler child starts light: `python -m spiders.crawling.runner` and every
registered spider module load Scrapy and the spiders' own kit, never the
tracker, the store or the heavy libraries the parent uses (as
tests/cli/test_startup.py checks for the command line)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tracker.sources import SOURCES

ROOT = Path(__file__).resolve().parents[2]
# Top-level packages the child has no use for. The China clouds' SDKs load in
# the API spiders' requests only, when those run.
NOT_IN_CHILD = (
    "tracker",
    "db",
    "alerts",
    "pandas",
    "numpy",
    "matplotlib",
    "pyarrow",
    "sqlalchemy",
    "sqlmodel",
    "alembic",
    "psycopg",
    "apprise",
    "apscheduler",
    "typer",
    "rich",
    "pydantic",
    "playwright",
    "tencentcloud",
    "alibabacloud_ecs20140526",
    "alibabacloud_tea_openapi",
    "huaweicloudsdkcore",
    "volcenginesdkcore",
)


def loaded_by_child(modules: list[str]) -> list[str]:
    """Imports the runner and `modules` in a fresh interpreter, as the child
    does before its first crawl; which of NOT_IN_CHILD it loaded."""
    script = (
        "import importlib, json, sys\n"
        "import spiders.crawling.runner\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & set({NOT_IN_CHILD!r}))))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def spider_modules() -> list[str]:
    return sorted({source.spider_path.partition(":")[0] for source in SOURCES.values() if source.spider_path})


def test_every_registered_spider_is_a_module_of_spiders() -> None:
    modules = spider_modules()
    assert len(modules) >= 20
    assert all(m.startswith("spiders.") for m in modules)


def test_the_crawler_child_loads_nothing_of_the_tracker_nor_heavy() -> None:
    assert loaded_by_child(spider_modules()) == []


def test_the_check_sees_a_heavy_import() -> None:
    """The same check on a module of the store and the tracker: both are named."""
    loaded = loaded_by_child(["db.tables", "tracker.normalize.money"])
    assert {"db", "tracker", "sqlmodel", "sqlalchemy"} <= set(loaded)


def test_components_turned_off_are_not_loaded(tmp_path: Path) -> None:
    """Scrapy imports each component it lists, even one its setting turns off
    (aiohttp for the remote control, tldextract for cookies): the child's
    settings list none of those, and a crawl that turns cookies on keeps them."""
    from spiders.crawling.runner import build_settings

    def listed(settings: dict[str, object]) -> set[str]:
        built = build_settings({"out_dir": str(tmp_path), "settings": settings}, tmp_path, False)
        return {str(k) for name in ("EXTENSIONS", "DOWNLOADER_MIDDLEWARES") for k in built.getwithbase(name)}

    plain = listed({})
    assert not {c for c in plain if c.rsplit(".", 1)[-1] in ("RemoteControl", "TelnetConsole", "CookiesMiddleware")}
    assert "scrapy.downloadermiddlewares.httpcompression.HttpCompressionMiddleware" in plain  # the others stay
    assert "scrapy.downloadermiddlewares.cookies.CookiesMiddleware" in listed({"COOKIES_ENABLED": True})
