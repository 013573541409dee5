"""Screenshots of the dashboard's main pages for docs/web.md, from a fresh
demo store, in Chromium through Playwright:

    python -m tracker.web.screenshots docs/img/

It runs `gpu-tracker demo` into a temporary home, serves it on a free
loopback port and saves web-<page>.png (1280 px wide) and web-<page>-phone.png
(390 px) for each page in PAGES."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

PAGES = {
    "overview": "/",
    "prices": "/prices?gpu=H100&sort=price_per_gpu_hour",
    "instance": "/instances/aws/p5.48xlarge?price_model=on_demand",
    "changes": "/changes",
    "recommend": "/recommend?gpus=8&min_gpu_memory=70&hours_per_month=500&months=12",
    "sources": "/sources",
}
PHONE = ("overview", "prices")
CHROMIUM = os.environ.get("GPU_TRACKER_BROWSER", "/usr/bin/chromium")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m tracker.web.screenshots OUT_FOLDER", file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    from tracker.config.settings import load_config
    from tracker.web.serve import build_app, start_in_thread, stop

    with tempfile.TemporaryDirectory() as home:
        # The demo through the command line, as a user runs it (the web never imports the CLI).
        demo = subprocess.run([sys.executable, "-m", "tracker.cli", "--home", home, "demo"], check=False)
        if demo.returncode != 0:
            return 1
        from db.store.engine import make_engine

        config = load_config(home=Path(home))
        settings = config.web.model_copy(update={"port": free_port()})
        web = start_in_thread(build_app(make_engine(config.database_url()), config), settings)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM)
                for name, path in PAGES.items():
                    for width, suffix in ((1280, ""), (390, "-phone")):
                        if suffix and name not in PHONE:
                            continue
                        page = browser.new_page(viewport={"width": width, "height": 900}, locale="en-US")
                        page.goto(f"http://127.0.0.1:{settings.port}{path}")
                        target = out / f"web-{name}{suffix}.png"
                        page.screenshot(path=str(target), full_page=False)
                        page.close()
                        print(target)
                browser.close()
        finally:
            stop(*web)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
