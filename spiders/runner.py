"""Runs one spider in this process and writes its output to a run folder.

Meant to be started as a child process (`python -m spiders.runner SPEC.json`):
the Twisted reactor cannot restart, and a hung page must not hang the
caller. Output, the seam to the rest of the tracker:

- `items.jsonl`: the raw items, one per line, values as seen;
- `result.json`: pages, item count, failures, regions and notes;
- stdout: one JSON event per line, for progress;
- `spider.log`: Scrapy's own log;
- stderr (`runner.err`): warnings and errors, with secret query parameters masked.
"""

from __future__ import annotations

import importlib
import json
import logging
import re
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

from scrapy import signals
from scrapy.crawler import CrawlerProcess
from scrapy.settings import Settings

from spiders.har import SECRET_PLACEHOLDER, needs_browser
from spiders.middlewares import BROWSER_REPLAY_SETTING, SECRET_PARAMS_SETTING

BROWSER_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _json_default(value: object) -> object:
    if isinstance(value, Decimal):
        return str(value)
    raise TypeError(f"cannot write {type(value).__name__} to JSON")


class SecretParamFilter(logging.Filter):
    """Masks the values of secret query parameters in every log line."""

    def __init__(self, params: list[str]) -> None:
        super().__init__()
        names = "|".join(re.escape(p) for p in params)
        self.pattern = re.compile(rf"([?&](?:{names})=)[^&\s>'\"]+", re.IGNORECASE) if params else None

    def filter(self, record: logging.LogRecord) -> bool:
        if self.pattern is not None:
            record.msg = self.pattern.sub(rf"\g<1>{SECRET_PLACEHOLDER}", record.getMessage())
            record.args = None
        return True


def _log_to_stderr(secret_params: list[str]) -> logging.Handler:
    """Scrapy's warnings and errors go to the run's runner.err, masked."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(logging.WARNING)
    handler.addFilter(SecretParamFilter(secret_params))
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.getLogger().addHandler(handler)
    return handler


def emit(event: str, **fields: Any) -> None:
    print(json.dumps({"event": event, **fields}), flush=True)


def browser_needed(spec: dict[str, Any], uses_browser: bool) -> bool:
    """A live crawl of a spider that renders pages needs Chromium; a replay
    does not, unless its capture lacks the pages as rendered."""
    if not uses_browser:
        return False
    replay = spec.get("replay")
    return not replay or needs_browser(replay)


def build_settings(spec: dict[str, Any], out: Path, uses_browser: bool) -> Settings:
    uses_browser = browser_needed(spec, uses_browser)
    settings = Settings()
    settings.setdict(
        {
            "LOG_FILE": str(out / "spider.log"),
            "LOG_LEVEL": spec.get("log_level", "INFO"),
            "LOG_FILE_APPEND": False,
            # Scrapy's remote-control console can run code; it stays off.
            "REMOTE_CONTROL_ENABLED": False,
            "TELNETCONSOLE_ENABLED": False,
            "ROBOTSTXT_OBEY": False,
            "HTTPERROR_ALLOW_ALL": True,
            "COOKIES_ENABLED": False,
            "USER_AGENT": "gpu-offer-tracker/0.1 (price watcher)",
            "CONCURRENT_REQUESTS_PER_DOMAIN": 4,
            "DOWNLOAD_TIMEOUT": spec.get("download_timeout", 60),
            "RETRY_TIMES": spec.get("retry_times", 2),
            "TWISTED_REACTOR": "twisted.internet.asyncioreactor.AsyncioSelectorReactor",
            "DOWNLOADER_MIDDLEWARES": {
                "spiders.middlewares.HarRecordMiddleware": 100,
                "scrapy.downloadermiddlewares.retry.RetryMiddleware": None,
                "spiders.middlewares.PoliteRetryMiddleware": 550,
                "spiders.middlewares.HarReplayMiddleware": 950,
            },
            "GPU_TRACKER_REPLAY": spec.get("replay"),
            "GPU_TRACKER_RECORD": spec.get("record"),
            BROWSER_REPLAY_SETTING: bool(uses_browser and spec.get("replay")),
        },
        priority="cmdline",
    )
    if uses_browser:
        handler = "scrapy_playwright.handler.ScrapyPlaywrightDownloadHandler"
        settings.setdict(
            {
                "DOWNLOAD_HANDLERS": {"http": handler, "https": handler},
                "PLAYWRIGHT_BROWSER_TYPE": "chromium",
                "PLAYWRIGHT_LAUNCH_OPTIONS": {
                    "executable_path": spec.get("browser_path", "/usr/bin/chromium"),
                    "args": BROWSER_ARGS,
                    "headless": True,
                },
                "PLAYWRIGHT_DEFAULT_NAVIGATION_TIMEOUT": spec.get("browser_timeout_ms", 30000),
            },
            priority="cmdline",
        )
    settings.setdict(spec.get("settings", {}), priority="cmdline")
    return settings


def load_spider(path: str) -> type[Any]:
    """'spiders.azure:AzureSpider' -> the class."""
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)  # type: ignore[no-any-return]


def run(spec: dict[str, Any]) -> dict[str, Any]:
    out = Path(spec["out_dir"])
    out.mkdir(parents=True, exist_ok=True)
    spider_cls = load_spider(spec["spider"])
    process = CrawlerProcess(build_settings(spec, out, spider_cls.uses_browser), install_root_handler=False)
    crawler = process.create_crawler(spider_cls)
    _log_to_stderr(crawler.settings.getlist(SECRET_PARAMS_SETTING))
    counts = {"items": 0}
    errors: list[str] = []
    items_file = (out / "items.jsonl").open("w", encoding="utf-8")

    def on_item(item: dict[str, Any], response: object, spider: object) -> None:
        items_file.write(json.dumps(dict(item), ensure_ascii=False, default=_json_default) + "\n")
        counts["items"] += 1

    def on_error(failure: Any, response: Any, spider: Any) -> None:
        url = spider.public_url(response.url) if hasattr(spider, "public_url") else response.url
        message = str(failure.value).replace(response.url, url)
        errors.append(message if url in message else f"{message} (while reading {url})")

    def on_opened(spider: Any) -> None:
        spider.progress = lambda pages: emit("progress", pages=pages, items=counts["items"])

    # Scrapy holds receivers weakly: these closures live until run() returns.
    crawler.signals.connect(on_item, signal=signals.item_scraped)
    crawler.signals.connect(on_error, signal=signals.spider_error)
    crawler.signals.connect(on_opened, signal=signals.spider_opened)
    process.crawl(crawler, **spec.get("args", {}))
    process.start()
    items_file.close()
    spider = crawler.spider
    result = {
        "pages": getattr(spider, "pages", 0),
        "items": counts["items"],
        "failures": getattr(spider, "failures", []) + errors,
        "regions": getattr(spider, "regions", []),
        "notes": getattr(spider, "notes", []),
        "finish_reason": (crawler.stats.get_value("finish_reason") if crawler.stats else None),
    }
    (out / "result.json").write_text(json.dumps(result, ensure_ascii=False, indent=1), encoding="utf-8")
    emit("done", **{k: result[k] for k in ("pages", "items")})
    return result


def main(argv: list[str]) -> int:
    run(json.loads(Path(argv[1]).read_text(encoding="utf-8")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
