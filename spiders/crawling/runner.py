"""Runs one spider (or a batch, one after the other) in this process and
writes each one's output to its run folder.

Meant to be started as a child process (`python -m spiders.crawling.runner SPEC.json`):
the Twisted reactor cannot restart, and a hung page must not hang the
caller. Output in each run folder, the seam to the rest of the tracker:

- `items.jsonl`: the raw items, one per line, values as seen;
- `result.json`: pages, item count, failures, regions and notes;
- stdout: one JSON event per line, for progress (with its run folder);
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
from typing import Any, Protocol, cast

from scrapy import signals
from scrapy.crawler import Crawler, CrawlerProcess
from scrapy.settings import Settings
from twisted.internet.defer import DeferredList

from spiders.base import SourceFailure
from spiders.crawling.middlewares import BROWSER_REPLAY_SETTING, SECRET_PARAMS_SETTING
from spiders.har import SECRET_PLACEHOLDER, needs_browser
from spiders.pages import PageShapeError

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


class _Reactor(Protocol):
    running: bool

    def stop(self) -> None: ...


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


def describe(exc: BaseException) -> str:
    """An exception of a spider or page object as one line: ours (a page we
    no longer know, a source that refused) as their message says, any other
    with its type named, since its message alone ("'price'", "30.5") says
    little."""
    message = " ".join(str(exc).split())
    if isinstance(exc, (PageShapeError, SourceFailure)) and message:
        return message
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


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
                "spiders.crawling.middlewares.HarRecordMiddleware": 100,
                "scrapy.downloadermiddlewares.retry.RetryMiddleware": None,
                "spiders.crawling.middlewares.PoliteRetryMiddleware": 550,
                "spiders.crawling.middlewares.HarReplayMiddleware": 950,
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
    _drop_unused(settings)
    return settings


# Components Scrapy imports even when their setting turns them off (they then
# refuse to start): a third of a crawler child's imports (aiohttp for the
# remote control, twisted.conch for telnet, tldextract for cookies).
_UNUSED = (
    ("EXTENSIONS", "scrapy.extensions.remote_control.RemoteControl", "REMOTE_CONTROL_ENABLED"),
    ("EXTENSIONS", "scrapy.extensions.telnet.TelnetConsole", "TELNETCONSOLE_ENABLED"),
    ("DOWNLOADER_MIDDLEWARES", "scrapy.downloadermiddlewares.cookies.CookiesMiddleware", "COOKIES_ENABLED"),
)


def _drop_unused(settings: Settings) -> None:
    # Out of Scrapy's base list: a `None` in EXTENSIONS still imports the class.
    for name, component, enabled in _UNUSED:
        base = settings.getdict(f"{name}_BASE")
        if not settings.getbool(enabled) and component in base:
            del base[component]
            settings.set(f"{name}_BASE", base, priority="cmdline")


def load_spider(path: str) -> type[Any]:
    """'spiders.azure.spider:AzureSpider' -> the class."""
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


class _Crawl:
    """One spider of a process: its crawler, and what it writes to its run folder."""

    def __init__(self, spec: dict[str, Any], *, init_reactor: bool) -> None:
        self.out = Path(spec["out_dir"])
        self.out.mkdir(parents=True, exist_ok=True)
        self.spec = spec
        spider_cls = load_spider(spec["spider"])
        settings = build_settings(spec, self.out, spider_cls.uses_browser)
        self.crawler = Crawler(spider_cls, settings, init_reactor=init_reactor)
        self.items = 0
        self.errors: list[str] = []
        self.items_file = (self.out / "items.jsonl").open("w", encoding="utf-8")
        # Scrapy holds receivers weakly: these bound methods live as long as this object.
        self.crawler.signals.connect(self.on_item, signal=signals.item_scraped)
        self.crawler.signals.connect(self.on_error, signal=signals.spider_error)
        self.crawler.signals.connect(self.on_opened, signal=signals.spider_opened)

    def on_item(self, item: dict[str, Any], response: Any, spider: Any) -> None:
        # Scrapy only logs what a signal handler raises: an item that cannot
        # be written would be lost without a word, and the crawl look whole.
        try:
            line = json.dumps(dict(item), ensure_ascii=False, default=_json_default)
        except (TypeError, ValueError) as exc:
            where = f" from {spider.public_url(response.url)}" if response is not None else ""
            self.errors.append(f"an item{where} cannot be written: {describe(exc)}")
            return
        self.items_file.write(line + "\n")
        self.items += 1

    def on_error(self, failure: Any, response: Any, spider: Any) -> None:
        """An exception of a callback (a page object), or of `start` (no response)."""
        message = describe(failure.value)
        if response is None:
            self.errors.append(f"the crawl could not start: {message}")
            return
        url = spider.public_url(response.url) if hasattr(spider, "public_url") else response.url
        message = message.replace(response.url, url)
        self.errors.append(message if url in message else f"{message} (while reading {url})")

    def on_opened(self, spider: Any) -> None:
        out = str(self.out)
        spider.progress = lambda pages: emit("progress", pages=pages, items=self.items, out_dir=out)

    def finish(self) -> dict[str, Any]:
        self.items_file.close()
        spider = self.crawler.spider
        result = {
            "pages": getattr(spider, "pages", 0),
            "items": self.items,
            "failures": getattr(spider, "failures", []) + self.errors,
            "regions": getattr(spider, "regions", []),
            "notes": getattr(spider, "notes", []),
            "finish_reason": (self.crawler.stats.get_value("finish_reason") if self.crawler.stats else None),
        }
        (self.out / "result.json").write_text(json.dumps(result, ensure_ascii=False, indent=1), encoding="utf-8")
        emit("done", pages=result["pages"], items=result["items"], out_dir=str(self.out))
        return result


def run(spec: dict[str, Any]) -> dict[str, Any]:
    return run_many([spec])[0]


# Replays that render pages in Chromium run this many at a time, beside the others.
BROWSER_LANES = 3


def lanes(specs: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The crawls split into lanes that run side by side, each one crawl
    after another. The captures of one spider (and state file) keep their
    order in one lane: an earlier one may leave state for the next. Spiders
    without a browser share one lane; the others are spread over
    BROWSER_LANES lanes, so that at most that many browsers run."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for spec in specs:
        groups.setdefault((spec["spider"], spec.get("args", {}).get("state_file", "")), []).append(spec)
    plain: list[dict[str, Any]] = []
    browser: list[list[dict[str, Any]]] = [[] for _ in range(BROWSER_LANES)]
    for (spider, _), group in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        if load_spider(spider).uses_browser:
            min(browser, key=len).extend(group)
        else:
            plain.extend(group)
    return [lane for lane in (plain, *browser) if lane]


def run_many(specs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Many spiders in one reactor: a replay of many captures (the demo)
    pays for Python and Scrapy once, not once a capture. Each result is
    written to its run folder when its crawl ends."""
    ordered = lanes(specs)
    # The first crawler started installs the reactor its settings name.
    crawls = [
        [_Crawl(spec, init_reactor=(i, j) == (0, 0)) for j, spec in enumerate(lane)] for i, lane in enumerate(ordered)
    ]
    # The process's settings are merged into every crawler at their own
    # priority: only what the process itself needs, below the crawlers' own.
    first = crawls[0][0].crawler.settings
    shared = Settings({name: first[name] for name in ("TWISTED_REACTOR", "LOG_LEVEL", "TELNETCONSOLE_ENABLED")})
    shared.set("LOG_INSTALL_ROOT_HANDLER", False)
    process = CrawlerProcess(shared)
    secret_params = {p for lane in crawls for c in lane for p in c.crawler.settings.getlist(SECRET_PARAMS_SETTING)}
    _log_to_stderr(sorted(secret_params))
    results: list[dict[str, Any]] = []

    def crawl_from(lane: list[_Crawl], i: int) -> Any:
        crawl = lane[i]
        started = process.crawl(crawl.crawler, **crawl.spec.get("args", {}))
        started.addErrback(lambda failure: crawl.errors.append(f"the crawl failed: {failure.getErrorMessage()}"))
        started.addBoth(lambda _: results.append(crawl.finish()))
        if i + 1 < len(lane):
            started.addBoth(lambda _: crawl_from(lane, i + 1))
        return started

    everything = DeferredList([crawl_from(lane, 0) for lane in crawls])
    from twisted.internet import reactor as installed  # installed by the first crawl

    # The module stands for the installed reactor; what this needs of it.
    reactor = cast(_Reactor, installed)

    def stop(_: object) -> None:
        if reactor.running:
            reactor.stop()

    everything.addBoth(stop)
    if not everything.called:  # every crawl may have failed before the reactor ran
        process.start(stop_after_crawl=False)
    return results


def main(argv: list[str]) -> int:
    spec = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    # A batch is {"crawls": [spec, ...]}; one crawl is a spec.
    run_many(spec.get("crawls", [spec]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
